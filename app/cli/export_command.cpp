// `sparkscope-cli export`: writes a trace in another tool's format with core's exporters; today the
// Chrome Trace Event Format (core/chrome_trace.h) that Perfetto's UI and chrome://tracing open. The
// JSON is streamed to the file or stdout as it is made, never held whole.
#include "cli/cli_common.h"

#include "sparkscope/core/chrome_trace.h"

#include <iostream>

namespace sparkscope::cli {

namespace {

    constexpr std::string_view kUsage
        = "usage: sparkscope-cli export TRACE [--format chrome] [-o FILE] [--no-contexts] [--spark-deques]\n\n"
          "Writes TRACE in the Chrome Trace Event Format (JSON), which Perfetto's UI\n"
          "(ui.perfetto.dev) and chrome://tracing open: a track per engine and per context,\n"
          "running pieces named by conjunct, GC and searching, sparks and futures as flow\n"
          "arrows, markers, and the CPUs curve as a counter (docs/cli.md).\n"
          "  --format chrome  the format (the only one so far)\n"
          "  -o FILE          write to FILE instead of stdout\n"
          "  --no-contexts    leave out the per-context tracks\n"
          "  --spark-deques   add a counter of each engine's spark deque size (large for GHC logs)\n";

    int runExport(const std::vector<std::string>& args)
    {
        auto parsed = parseArgs(args, { "--format", "-o" }, { "--no-contexts", "--spark-deques" }, kUsage);
        if (!parsed)
            return kExitBadInput;
        if (printedHelp(*parsed, kUsage))
            return kExitOk;
        if (parsed->positional.size() != 1)
            return usageError(parsed->positional.empty() ? "export needs a TRACE" : "export takes one TRACE", kUsage);
        if (auto f = parsed->value("--format"); f && *f != "chrome")
            return usageError("--format must be chrome, not '" + *f + "'", kUsage);
        core::ChromeTraceOptions options;
        options.contextTracks = !parsed->flag("--no-contexts");
        options.sparkDeques = parsed->flag("--spark-deques");

        auto trace = loadTrace(parsed->positional.front());
        if (!trace)
            return kExitBadInput;
        printWarnings(trace->warnings);
        auto written = parsed->value("-o") ? core::writeChromeTraceFile(*trace, *parsed->value("-o"), options)
                                           : core::writeChromeTrace(*trace, std::cout, options);
        if (!written) {
            std::fprintf(stderr, "sparkscope-cli: %s\n", written.error().toString().c_str());
            return kExitBadInput;
        }
        return kExitOk;
    }

    const RegisterCommand kRegistered { { "export", "write a trace for other tools (Chrome/Perfetto JSON)", kUsage,
        &runExport } };

} // namespace

} // namespace sparkscope::cli
