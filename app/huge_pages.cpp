// preferHugePages (huge_pages.h): glibc's malloc asked for transparent huge pages through its
// tunable, set by starting the program again.
#include "huge_pages.h"

#include <cstdlib>
#include <fstream>

#if defined(__linux__)
#include <dlfcn.h>
#include <sys/auxv.h>
#include <unistd.h>
#endif

namespace sparkscope::app {

std::optional<std::string> hugePageTunables(
    const char* current, const char* preload, bool glibcMalloc, std::string_view thpEnabled)
{
    if (current != nullptr || (preload != nullptr && *preload != '\0') || !glibcMalloc
        || thpEnabled.find("[madvise]") == std::string_view::npos)
        return std::nullopt;
    return std::string("glibc.malloc.hugetlb=1");
}

bool glibcMallocInUse() noexcept
{
#if defined(__linux__) && defined(__GLIBC__)
    void* libc = ::dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
    if (!libc)
        return false;
    void* own = ::dlsym(libc, "malloc");
    ::dlclose(libc);
    void* (*called)(size_t) = &std::malloc;
    return own != nullptr && own == reinterpret_cast<void*>(called);
#else
    return false;
#endif
}

void preferHugePages(char** argv) noexcept
{
#if defined(__linux__) && defined(__GLIBC__)
    if (getauxval(AT_SECURE) != 0)
        return;
    std::string mode;
    try {
        std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
        std::getline(in, mode);
    } catch (...) {
        return;
    }
    const std::optional<std::string> tunables
        = hugePageTunables(std::getenv("GLIBC_TUNABLES"), std::getenv("LD_PRELOAD"), glibcMallocInUse(), mode);
    if (!tunables || ::setenv("GLIBC_TUNABLES", tunables->c_str(), 1) != 0)
        return;
    // By the name it was started with, so that it keeps that name (ps, top, pgrep: the kernel names
    // a process after the file it executes, and /proc/self/exe would make it "exe"); that name, run
    // through the loader, is the loader, which takes the program from the arguments as before.
    if (const auto* name = reinterpret_cast<const char*>(getauxval(AT_EXECFN)))
        ::execv(name, argv);
    ::execv("/proc/self/exe", argv);
    ::unsetenv("GLIBC_TUNABLES"); // neither exec worked (no /proc, say): go on as we are
#else
    (void)argv;
#endif
}

} // namespace sparkscope::app
