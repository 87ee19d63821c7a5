// `sparkscope-cli check`: runs every registered check (structure here; model checks register
// themselves from their own files, see cli_common.h) and prints each finding with its time and
// engine. Notes are printed but do not fail the check.
#include "cli/cli_common.h"

#include "sparkscope/core/check.h"

#include <algorithm>

namespace sparkscope::cli {

namespace {

    constexpr std::string_view kUsage
        = "usage: sparkscope-cli check TRACE\n\n"
          "Checks TRACE's structure (header, blocks, sizes, order) and, where registered,\n"
          "its meaning (conjunctions, sparks, futures). Prints one line per problem:\n"
          "  <time_ns> <engine or -> <check>: <message>\n"
          "Exit code 1 if any problem is found (notes do not count).\n";

    int runCheck(const std::vector<std::string>& args)
    {
        auto parsed = parseArgs(args, {}, {}, kUsage);
        if (!parsed)
            return kExitBadInput;
        if (printedHelp(*parsed, kUsage))
            return kExitOk;
        if (parsed->positional.size() != 1)
            return usageError(parsed->positional.empty() ? "check needs a TRACE" : "check takes one TRACE", kUsage);
        auto trace = loadTrace(parsed->positional.front());
        if (!trace)
            return kExitBadInput;

        Output out;
        std::string& b = out.buffer();
        size_t problems = 0, notes = 0;
        for (const auto& check : checks()) {
            auto found = check.check(*trace);
            std::stable_sort(found.begin(), found.end(),
                [](const core::Problem& a, const core::Problem& b) { return a.timeNs < b.timeNs; });
            for (const auto& p : found) {
                (p.isNote ? notes : problems)++;
                appendUnsigned(b, p.timeNs);
                b += ' ';
                if (p.engine == core::kNoEngine)
                    b += '-';
                else
                    appendUnsigned(b, p.engine);
                b += ' ';
                b += check.name;
                b += p.isNote ? " note: " : ": ";
                b += p.message;
                b += '\n';
                out.maybeFlush();
            }
        }
        b += trace->path + ": " + std::to_string(problems) + " problem(s), " + std::to_string(notes) + " note(s)\n";
        return problems ? kExitProblems : kExitOk;
    }

    const RegisterCommand kRegistered { { "check", "check a trace's structure (and meaning); exit 1 on problems",
        kUsage, &runCheck } };
    const RegisterCheck kStructure { "structure", &core::checkStructure };

} // namespace

} // namespace sparkscope::cli
