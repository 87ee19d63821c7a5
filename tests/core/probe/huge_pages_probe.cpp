// A program that does what sparkscope and sparkscope-cli do first (core::preferHugePages), then
// prints the GLIBC_TUNABLES it runs with, or "(unset)": huge_pages_test.cpp runs it.
#include "sparkscope/core/huge_pages.h"

#include <cstdio>
#include <cstdlib>

int main(int, char** argv)
{
    sparkscope::core::preferHugePages(argv);
    const char* tunables = std::getenv("GLIBC_TUNABLES");
    std::printf("%s\n", tunables ? tunables : "(unset)");
    return 0;
}
