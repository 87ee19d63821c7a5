// sparkscope-cli: a command-line tool over core. The commands live in app/cli/*_command.cpp and
// register themselves (see cli/cli_common.h); this file only dispatches.
// Exit codes: 0 ok, 1 problems found, 2 unreadable input or bad usage.
#include "cli/cli_common.h"

#include "huge_pages.h"

#include <cstdio>
#include <string>
#include <vector>

using namespace sparkscope::cli;

namespace {

std::string mainUsage()
{
    std::string u = "usage: sparkscope-cli COMMAND [ARGS...]\n"
                    "       sparkscope-cli --help | --version\n"
                    "       sparkscope-cli COMMAND --help\n\n"
                    "Reads GHC/Mercury/SparkScope eventlogs (plain, .gz, .zst or .bz2).\n\n"
                    "Commands:\n";
    for (const auto& c : commands()) {
        u += "  ";
        appendPadded(u, c.name, 10, false);
        u += c.summary;
        u += '\n';
    }
    u += "\nExit codes: 0 ok, 1 problems found, 2 unreadable input or bad usage.\n";
    return u;
}

} // namespace

int main(int argc, char** argv)
{
    sparkscope::app::preferHugePages(argv); // (huge_pages.h: about half of `metrics`' CPU time)
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty())
        return usageError("no command given", mainUsage());
    const std::string& first = args.front();
    if (first == "--help" || first == "-h" || first == "help") {
        std::fputs(mainUsage().c_str(), stdout);
        return kExitOk;
    }
    if (first == "--version") {
        std::printf("sparkscope-cli %s\n", SPARKSCOPE_VERSION);
        return kExitOk;
    }
    for (const auto& c : commands()) {
        if (c.name == first) {
            args.erase(args.begin());
            return c.run(args);
        }
    }
    return usageError("unknown command '" + first + "'", mainUsage());
}
