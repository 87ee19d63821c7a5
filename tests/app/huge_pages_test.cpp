// app::hugePageTunables' rule, and preferHugePages starting a real program again with it.
#include "huge_pages.h"

#include <catch2/catch.hpp>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

using namespace sparkscope::app;

TEST_CASE("malloc is asked for huge pages only when the kernel gives them on request and nobody set tunables",
    "[app][huge-pages]")
{
    const std::string madvise = "always [madvise] never";
    CHECK(hugePageTunables(nullptr, nullptr, true, madvise) == std::optional<std::string>("glibc.malloc.hugetlb=1"));
    CHECK(hugePageTunables(nullptr, "", true, madvise) == std::optional<std::string>("glibc.malloc.hugetlb=1"));
    // The person's own tunables, even none, are left as they are.
    CHECK_FALSE(hugePageTunables("", nullptr, true, madvise));
    CHECK_FALSE(hugePageTunables("glibc.malloc.check=0", nullptr, true, madvise));
    // A preloaded tool (valgrind; heaptrack takes itself out of LD_PRELOAD, but its malloc is not
    // glibc's), a sanitizer's malloc, another allocator.
    CHECK_FALSE(hugePageTunables(nullptr, "/usr/libexec/valgrind/vgpreload_core-amd64-linux.so", true, madvise));
    CHECK_FALSE(hugePageTunables(nullptr, nullptr, false, madvise));
    // "always": malloc's memory gets huge pages already; "never": it cannot; no such file: unknown.
    CHECK_FALSE(hugePageTunables(nullptr, nullptr, true, "[always] madvise never"));
    CHECK_FALSE(hugePageTunables(nullptr, nullptr, true, "always madvise [never]"));
    CHECK_FALSE(hugePageTunables(nullptr, nullptr, true, ""));
}

namespace {

// The kernel's transparent huge page modes, the one in use in brackets ("" when not told).
std::string thpMode()
{
    std::string mode;
    std::getline(std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled"), mode);
    return mode;
}

// The lines the probe prints when the shell runs it after `prefix` ("env -u GLIBC_TUNABLES",
// "valgrind -q", …): the GLIBC_TUNABLES it ran with (or "(unset)"), then what else it was asked for.
std::vector<std::string> probeLines(const std::string& prefix)
{
    const std::string command = prefix + " '" + SPARKSCOPE_HUGE_PAGES_PROBE + "'";
    std::unique_ptr<FILE, int (*)(FILE*)> out(popen(command.c_str(), "r"), pclose);
    REQUIRE(out);
    std::vector<std::string> lines;
    std::array<char, 256> line {};
    while (std::fgets(line.data(), int(line.size()), out.get())) {
        std::string text(line.data());
        if (!text.empty() && text.back() == '\n')
            text.pop_back();
        lines.push_back(std::move(text));
    }
    REQUIRE(!lines.empty());
    return lines;
}

std::string probe(const std::string& prefix) { return probeLines(prefix).front(); }

// glibc's malloc debugging library beside the libc in use: it defines its own malloc, as a tool
// that preloads itself does.
std::filesystem::path mallocDebugLibrary()
{
    Dl_info info {};
    void* libc = ::dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
    void* malloc = libc ? ::dlsym(libc, "malloc") : nullptr;
    if (libc)
        ::dlclose(libc);
    if (!malloc || ::dladdr(malloc, &info) == 0 || !info.dli_fname)
        return {};
    return std::filesystem::path(info.dli_fname).parent_path() / "libc_malloc_debug.so.0";
}

} // namespace

TEST_CASE("a program that prefers huge pages starts again with the tunable, once", "[app][huge-pages]")
{
    const std::string mode = thpMode();
    INFO("transparent huge pages: " << mode);
    // Unset: set, the program started again (it prints the variable it runs with) — on a kernel that
    // gives huge pages on request, with glibc's malloc (the probe is built as this test is, with or
    // without a sanitizer); otherwise left unset.
    const auto expected = hugePageTunables(nullptr, nullptr, glibcMallocInUse(), mode);
    CHECK(probe("env -u GLIBC_TUNABLES -u LD_PRELOAD") == expected.value_or("(unset)"));
    // Set, or set empty: left alone.
    CHECK(probe("env -u LD_PRELOAD GLIBC_TUNABLES=glibc.malloc.check=0") == "glibc.malloc.check=0");
    CHECK(probe("env -u LD_PRELOAD GLIBC_TUNABLES=") == "");
    if (!expected) {
        WARN("NOT CHECKED: this kernel's transparent huge pages are not \"madvise\" ("
            << mode << "), or malloc is not glibc's: nothing starts again");
        return;
    }
    // Under a tool that preloads its own malloc: not started again, or the tool would lose the program.
    const std::filesystem::path debugMalloc = mallocDebugLibrary();
    if (!debugMalloc.empty() && std::filesystem::exists(debugMalloc))
        CHECK(probe("env -u GLIBC_TUNABLES LD_PRELOAD=" + debugMalloc.string()) == "(unset)");
    else
        WARN("NOT CHECKED under a preloaded malloc: no libc_malloc_debug.so.0 beside libc");
    // Under valgrind (whose malloc is its own, though the program's reference is still libc's).
    if (std::system("valgrind --version > /dev/null 2>&1") == 0)
        CHECK(probe("env -u GLIBC_TUNABLES valgrind -q") == "(unset)");
    else
        WARN("NOT CHECKED under valgrind: it is not installed");
}

TEST_CASE("a program started again keeps its name", "[app][huge-pages]")
{
    // The kernel names a process after the file it executes: started again through /proc/self/exe,
    // the probe would be "exe" to ps, top and pgrep. Its name is in /proc/self/comm.
    const std::string mode = thpMode();
    if (!hugePageTunables(nullptr, nullptr, glibcMallocInUse(), mode)) {
        WARN("NOT CHECKED: nothing starts again here (" << mode << ")");
        return;
    }
    const std::vector<std::string> lines = probeLines("env -u GLIBC_TUNABLES -u LD_PRELOAD SPARKSCOPE_PROBE_COMM=1");
    REQUIRE(lines.size() == 2); // the tunables, then the name
    CHECK(lines[1] == "sparkscope-huge"); // (a name is cut to 15 characters)
}
