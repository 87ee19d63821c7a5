// `sparkscope-cli rewrite`: re-encodes a trace with core's writer (header verbatim, events in
// blocks per engine). Decompresses .gz/.zst/.bz2 input, ends a cut file cleanly with DATA_END,
// and is how the tests check that what the writer makes is read the same by other tools.
#include "cli/cli_common.h"

#include "sparkscope/core/writer.h"

namespace sparkscope::cli {

namespace {

    constexpr std::string_view kUsage
        = "usage: sparkscope-cli rewrite TRACE OUTPUT\n\n"
          "Reads TRACE and writes it again as a plain eventlog to OUTPUT: the same header\n"
          "and the same events per engine, ending with DATA_END even when TRACE is cut.\n";

    int runRewrite(const std::vector<std::string>& args)
    {
        auto parsed = parseArgs(args, {}, {}, kUsage);
        if (!parsed)
            return kExitBadInput;
        if (printedHelp(*parsed, kUsage))
            return kExitOk;
        if (parsed->positional.size() != 2)
            return usageError("rewrite needs a TRACE and an OUTPUT", kUsage);
        auto trace = loadTrace(parsed->positional[0]);
        if (!trace)
            return kExitBadInput;
        printWarnings(trace->warnings);
        auto written = core::writeFile(parsed->positional[1], core::writeTrace(*trace));
        if (!written) {
            std::fprintf(stderr, "sparkscope-cli: %s\n", written.error().toString().c_str());
            return kExitBadInput;
        }
        return kExitOk;
    }

    const RegisterCommand kRegistered { { "rewrite", "re-encode a trace with SparkScope's writer", kUsage,
        &runRewrite } };

} // namespace

} // namespace sparkscope::cli
