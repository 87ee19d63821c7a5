// `sparkscope-cli metrics`: computes every metric of docs/metrics.md and the analysis of the same
// range (docs/analysis.md) and writes the metrics file (JSON or CSV) with core::formatMetricsFile,
// the function the app's export uses too. Also registers the semantic model check with `check`.
#include "cli/cli_common.h"

#include "sparkscope/core/check_model.h"
#include "sparkscope/core/metrics.h"
#include "sparkscope/core/metrics_export.h"

#include <utility>

namespace sparkscope::cli {

namespace {

    constexpr std::string_view kUsage
        = "usage: sparkscope-cli metrics TRACE [--format json|csv] [-o FILE] [--csc N] [--instances]\n"
          "                              [--from NS --to NS] [--force]\n\n"
          "Writes the metrics file (docs/metrics.md): whole-program, engine, conjunction, conjunct,\n"
          "future and scheduling metrics and the analysis with its findings (docs/analysis.md), as\n"
          "JSON (default) or CSV (scope,id,metric,statistic,value).\n"
          "  -o FILE       write to FILE instead of stdout\n"
          "  --csc N       call-sequence count of a sequential run: adds NANOSECS_PER_CALL\n"
          "  --instances   also list every conjunction instance, and the critical path's segments\n"
          "  --from/--to   restrict to [NS, NS) (trace time in nanoseconds; to the trace's end: its\n"
          "                last instant included)\n"
          "  --force       go on when the metrics would take more memory than is available\n"
          "                (SPARKSCOPE_MEMORY_BYTES sets that figure; default: what the system has free)\n";

    int runMetrics(const std::vector<std::string>& args)
    {
        auto parsed
            = parseArgs(args, { "--format", "-o", "--csc", "--from", "--to" }, { "--instances", "--force" }, kUsage);
        if (!parsed)
            return kExitBadInput;
        if (printedHelp(*parsed, kUsage))
            return kExitOk;
        if (parsed->positional.size() != 1)
            return usageError(parsed->positional.empty() ? "metrics needs a TRACE" : "metrics takes one TRACE", kUsage);
        core::MetricsOptions options;
        core::MetricsFormat format = core::MetricsFormat::Json;
        if (auto f = parsed->value("--format")) {
            if (*f == "csv")
                format = core::MetricsFormat::Csv;
            else if (*f != "json")
                return usageError("--format must be json or csv, not '" + *f + "'", kUsage);
        }
        auto number = [&](const char* name, uint64_t& into) -> bool {
            auto v = parsed->value(name);
            if (!v)
                return true;
            auto n = parseUnsigned(*v);
            if (!n)
                return false;
            into = *n;
            return true;
        };
        uint64_t csc = 0;
        if (!number("--csc", csc) || !number("--from", options.fromNs) || !number("--to", options.toNs))
            return usageError("--csc, --from and --to take a whole non-negative number", kUsage);
        if (parsed->value("--csc")) {
            if (csc == 0)
                return usageError("--csc must be positive", kUsage);
            options.callCount = csc;
        }
        if (options.toNs <= options.fromNs)
            return usageError("--to must be after --from", kUsage);
        options.instances = parsed->flag("--instances");

        auto trace = loadTraceForMetrics(parsed->positional.front(), parsed->flag("--force"));
        if (!trace || !rangeMeetsTrace(*trace, parsed->positional.front(), options.fromNs, options.toNs))
            return kExitBadInput;
        // The trace is given up: its events go once read for the last time (less peak memory).
        return writeOutput(
            parsed->value("-o"), core::formatMetricsFile(core::computeMetricsFile(std::move(*trace), options), format));
    }

    const RegisterCommand kRegistered { { "metrics", "write the metrics file (JSON or CSV) of a trace", kUsage,
        &runMetrics } };
    const RegisterCheck kModel { "model", &core::checkModel };

} // namespace

} // namespace sparkscope::cli
