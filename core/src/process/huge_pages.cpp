// preferHugePages (huge_pages.h): glibc's malloc asked for transparent huge pages through its
// tunable, set by starting the program again.
#include "sparkscope/core/huge_pages.h"

#include <cstdlib>
#include <fstream>

#if defined(__linux__)
#include <dlfcn.h>
#include <sys/auxv.h>
#include <unistd.h>
#endif

namespace sparkscope::core {

namespace {

#if defined(__linux__) && defined(__GLIBC__)
    // Whether the program's calls to malloc reach glibc's: a preloaded tool or allocator, or a
    // sanitizer's runtime, defines its own, which the program's reference resolves to instead. (A
    // preloading tool may also take itself out of LD_PRELOAD, as heaptrack does, so that variable
    // says nothing.)
    bool glibcMallocInUse() noexcept
    {
        void* libc = ::dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
        if (!libc)
            return false;
        void* own = ::dlsym(libc, "malloc");
        ::dlclose(libc);
        void* (*called)(size_t) = &std::malloc;
        return own != nullptr && own == reinterpret_cast<void*>(called);
    }
#endif

} // namespace

std::optional<std::string> hugePageTunables(const char* current, bool glibcMalloc, std::string_view thpEnabled)
{
    if (current != nullptr || !glibcMalloc || thpEnabled.find("[madvise]") == std::string_view::npos)
        return std::nullopt;
    return std::string("glibc.malloc.hugetlb=1");
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
        = hugePageTunables(std::getenv("GLIBC_TUNABLES"), glibcMallocInUse(), mode);
    if (!tunables || ::setenv("GLIBC_TUNABLES", tunables->c_str(), 1) != 0)
        return;
    ::execv("/proc/self/exe", argv);
    ::unsetenv("GLIBC_TUNABLES"); // the exec failed (no /proc, say): go on as we are
#else
    (void)argv;
#endif
}

} // namespace sparkscope::core
