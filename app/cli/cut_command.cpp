// `sparkscope-cli cut`: writes the part of a trace between two times as an eventlog of its own
// (core::cutTrace: the header, the range's events and the state at its start).
#include "cli/cli_common.h"

#include "sparkscope/core/cut.h"
#include "sparkscope/core/writer.h"

namespace sparkscope::cli {

namespace {

    constexpr std::string_view kUsage
        = "usage: sparkscope-cli cut TRACE --from NS --to NS -o OUTPUT\n\n"
          "Writes the events of TRACE whose time lies in [NS, NS] (inclusive, in the trace's own\n"
          "nanoseconds, as `show` prints them) to OUTPUT as a plain eventlog, with the state\n"
          "at the start of the range: the header, the definitions posted before it (engines,\n"
          "capsets, interned strings, program details), the contexts alive then (created, labelled,\n"
          "running), engines in GC, and a block for every engine. SparkScope, ThreadScope and\n"
          "ghc-events read the result. Prints how many events were written.\n";

    int runCut(const std::vector<std::string>& args)
    {
        auto parsed = parseArgs(args, { "--from", "--to", "-o" }, {}, kUsage);
        if (!parsed)
            return kExitBadInput;
        if (printedHelp(*parsed, kUsage))
            return kExitOk;
        if (parsed->positional.size() != 1)
            return usageError(parsed->positional.empty() ? "cut needs a TRACE" : "cut takes one TRACE", kUsage);
        const auto output = parsed->value("-o");
        if (!output)
            return usageError("cut needs -o OUTPUT", kUsage);
        std::optional<uint64_t> from = 0, to = UINT64_MAX;
        if (auto v = parsed->value("--from"))
            from = parseUnsigned(*v);
        if (auto v = parsed->value("--to"))
            to = parseUnsigned(*v);
        if (!from || !to)
            return usageError("--from and --to take a whole number of nanoseconds", kUsage);
        if (*from > *to)
            return usageError("--from is after --to", kUsage);

        // Streamed (cutFile): memory for the range, not for the whole trace.
        const std::string& path = parsed->positional.front();
        auto cut = core::cutFile(path, *from, *to);
        if (!cut) {
            std::fprintf(stderr, "sparkscope-cli: %s: %s\n", path.c_str(), cut.error().toString().c_str());
            return kExitBadInput;
        }
        printWarnings(cut->warnings); // (the cut ends with DATA_END all the same)
        auto written = core::writeFile(*output, cut->bytes);
        if (!written) {
            std::fprintf(stderr, "sparkscope-cli: %s\n", written.error().toString().c_str());
            return kExitBadInput;
        }
        std::printf("%llu events of [%llu, %llu] ns and %llu state events written to %s\n",
            static_cast<unsigned long long>(cut->stats.rangeEvents), static_cast<unsigned long long>(*from),
            static_cast<unsigned long long>(*to), static_cast<unsigned long long>(cut->stats.stateEvents),
            output->c_str());
        // A valid cut all the same (the state at --from and a block per engine), but most likely not
        // what was meant: say where the events are.
        if (cut->stats.rangeEvents == 0)
            std::fprintf(stderr,
                "sparkscope-cli: note: no event of %s lies in [%llu, %llu] ns; its events lie in [%llu, %llu] ns\n",
                path.c_str(), static_cast<unsigned long long>(*from), static_cast<unsigned long long>(*to),
                static_cast<unsigned long long>(cut->stats.traceFirstNs),
                static_cast<unsigned long long>(cut->stats.traceLastNs));
        return kExitOk;
    }

    const RegisterCommand kRegistered { { "cut", "write a time range of a trace as an eventlog", kUsage, &runCut } };

} // namespace

} // namespace sparkscope::cli
