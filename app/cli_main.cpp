#include <cstdio>

int main()
{
    std::printf("sparkscope-cli " SPARKSCOPE_VERSION "\n");
    return 2;
}
