// core::hugePageTunables' rule, and preferHugePages starting a real program again with it.
#include "sparkscope/core/huge_pages.h"

#include <catch2/catch.hpp>

#include <array>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>

using namespace sparkscope::core;

TEST_CASE("malloc is asked for huge pages only when the kernel gives them on request and nobody set tunables",
    "[core][huge-pages]")
{
    const std::string madvise = "always [madvise] never";
    CHECK(hugePageTunables(nullptr, true, madvise) == std::optional<std::string>("glibc.malloc.hugetlb=1"));
    // The person's own tunables, even none, are left as they are.
    CHECK_FALSE(hugePageTunables("", true, madvise));
    CHECK_FALSE(hugePageTunables("glibc.malloc.check=0", true, madvise));
    // Another malloc: a preloaded tool (heaptrack, valgrind), a sanitizer's, another allocator.
    CHECK_FALSE(hugePageTunables(nullptr, false, madvise));
    // "always": malloc's memory gets huge pages already; "never": it cannot; no such file: unknown.
    CHECK_FALSE(hugePageTunables(nullptr, true, "[always] madvise never"));
    CHECK_FALSE(hugePageTunables(nullptr, true, "always madvise [never]"));
    CHECK_FALSE(hugePageTunables(nullptr, true, ""));
}

namespace {

// The probe's output (the GLIBC_TUNABLES it ran with) when run by the shell with `environment`
// before it ("env -u GLIBC_TUNABLES", …; a " 2>…" in it goes after the program).
std::string probe(const std::string& environment)
{
    // (A redirection in `environment` comes after the program.)
    const auto redirect = environment.find(" 2>");
    const std::string command = environment.substr(0, redirect) + " '" + SPARKSCOPE_HUGE_PAGES_PROBE + "'"
        + (redirect == std::string::npos ? "" : environment.substr(redirect));
    std::unique_ptr<FILE, int (*)(FILE*)> out(popen(command.c_str(), "r"), pclose);
    REQUIRE(out);
    std::array<char, 256> line {};
    REQUIRE(std::fgets(line.data(), int(line.size()), out.get()));
    std::string text(line.data());
    if (!text.empty() && text.back() == '\n')
        text.pop_back();
    return text;
}

} // namespace

TEST_CASE("a program that prefers huge pages starts again with the tunable, once", "[core][huge-pages]")
{
    std::string mode;
    std::getline(std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled"), mode);
    INFO("transparent huge pages: " << mode);
    // Unset: set, the program started again (it prints the variable it runs with) — on a kernel that
    // gives huge pages on request; elsewhere left unset.
    // A sanitizer's runtime has its own malloc: then nothing starts again either.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    const bool glibcMalloc = false;
#else
    const bool glibcMalloc = true;
#endif
    const auto expected = hugePageTunables(nullptr, glibcMalloc, mode);
    CHECK(probe("env -u GLIBC_TUNABLES -u LD_PRELOAD") == expected.value_or("(unset)"));
    // Set, or set empty: left alone.
    CHECK(probe("env -u LD_PRELOAD GLIBC_TUNABLES=glibc.malloc.check=0") == "glibc.malloc.check=0");
    CHECK(probe("env -u LD_PRELOAD GLIBC_TUNABLES=") == "");
    if (!expected) {
        WARN("NOT CHECKED: this kernel's transparent huge pages are not \"madvise\" ("
            << mode << "), or malloc is not glibc's: nothing starts again");
        return;
    }
    // Under a tool that preloads its own malloc (glibc's malloc debugging library stands in for one):
    // not started again, or the tool would lose the program.
    const std::string debugMalloc = "/lib/x86_64-linux-gnu/libc_malloc_debug.so.0";
    if (std::ifstream(debugMalloc).good())
        CHECK(probe("env -u GLIBC_TUNABLES LD_PRELOAD=" + debugMalloc) == "(unset)");
    else
        WARN("NOT CHECKED under a preloaded malloc: " << debugMalloc << " is not there");
}
