// A program that does what sparkscope and sparkscope-cli do first (app::preferHugePages), then
// prints the GLIBC_TUNABLES it runs with, or "(unset)", and with SPARKSCOPE_PROBE_COMM set its
// process name: huge_pages_test.cpp runs it.
#include "huge_pages.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

int main(int, char** argv)
{
    sparkscope::app::preferHugePages(argv);
    const char* tunables = std::getenv("GLIBC_TUNABLES");
    std::printf("%s\n", tunables ? tunables : "(unset)");
    if (std::getenv("SPARKSCOPE_PROBE_COMM")) {
        std::string name;
        std::getline(std::ifstream("/proc/self/comm"), name);
        std::printf("%s\n", name.c_str());
    }
    return 0;
}
