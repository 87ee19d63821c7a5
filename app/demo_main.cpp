#include "sparkscope/runtime/version.h"

#include <cstdio>

int main()
{
    std::printf("sparkscope-demo %s: the runtime's workloads are not built yet\n", sparkscope::runtime::version());
    return 2;
}
