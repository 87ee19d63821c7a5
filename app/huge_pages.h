#pragma once
// Transparent huge pages for all of a program's heap. Reading a big trace, modelling it and
// analysing it fill GBs of fresh memory, and on a kernel whose transparent huge pages are given only
// to memory that asks for them ("madvise", the common default) every 4 KiB of it costs a page fault:
// about half the CPU time of `sparkscope-cli metrics` on the 13 M-event demo trace, a quarter of
// `analyze`'s and of the app's until its analysis is done (docs/performance.md, "Huge pages for the
// whole heap"). The model's and the reader's largest arrays ask for huge pages themselves
// (core/src/util/large_array.h); the rest — the DAG, the what-if's graph, the sweeps' buffers,
// thread arenas — come from malloc, which asks for them only when glibc's tunable
// glibc.malloc.hugetlb=1 is set, and tunables are read from the environment at start only. So the
// executables that read traces (sparkscope, sparkscope-cli) start themselves again with it set, first
// thing in main(). A process-wide choice of the executables, not of the library: hence here.
#include <optional>
#include <string>
#include <string_view>

namespace sparkscope::app {

// The GLIBC_TUNABLES value to start again with, given that variable's value now and LD_PRELOAD's
// (null: unset), whether the malloc the program calls is glibc's own (glibcMallocInUse), and the
// kernel's /sys/kernel/mm/transparent_hugepage/enabled (its mode in brackets); nullopt when nothing
// is to change:
//   - GLIBC_TUNABLES is set, even empty: the person's own tunables, left as they are;
//   - LD_PRELOAD is set, or another malloc stands in for glibc's: a tool that preloads itself
//     (valgrind, heaptrack — which takes itself out of LD_PRELOAD, hence the second test) would lose
//     the program started again, and a sanitizer's or another allocator reads no glibc tunable;
//   - the mode is "always" (malloc's memory gets huge pages already) or "never" (it cannot).
std::optional<std::string> hugePageTunables(
    const char* current, const char* preload, bool glibcMalloc, std::string_view thpEnabled);

// Whether the program's calls to malloc reach glibc's: a preloaded tool or allocator, or a
// sanitizer's runtime, defines its own, which the program's references resolve to instead.
bool glibcMallocInUse() noexcept;

// Starts the program again (the same executable, by the name it was started with, with the same
// arguments and environment) with hugePageTunables' value, when there is one, on Linux with glibc,
// unless the process runs set-uid (glibc would drop the tunable, and it would start again and
// again). Returns when nothing is to change or the exec fails: the program goes on as it is. Call
// it first in main(), before any thread starts.
void preferHugePages(char** argv) noexcept;

} // namespace sparkscope::app
