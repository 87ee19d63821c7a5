// parfib: doubly recursive Fibonacci; below the cut-off the recursion is sequential. The runtime
// benchmark times these same kernels (workloads.h).
#include "demo/workloads.h"

#include "sparkscope/runtime/par_conj.h"

#include <tbb/task_group.h>

#include <cinttypes>

namespace sparkscope::demo {

namespace rt = sparkscope::runtime;

uint64_t fibSeq(long n) { return n < 2 ? uint64_t(n) : fibSeq(n - 1) + fibSeq(n - 2); }

uint64_t fibPar(long n, long cutoff)
{
    if (n < cutoff || n < 2)
        return fibSeq(n);
    uint64_t a = 0, b = 0;
    rt::parConj([&] { a = fibPar(n - 1, cutoff); }, [&] { b = fibPar(n - 2, cutoff); });
    return a + b;
}

uint64_t fibTbb(long n, long cutoff)
{
    if (n < cutoff || n < 2)
        return fibSeq(n);
    uint64_t a = 0, b = 0;
    tbb::task_group g;
    g.run([&] { a = fibTbb(n - 1, cutoff); });
    b = fibTbb(n - 2, cutoff);
    g.wait();
    return a + b;
}

int parfib(Runner& run, const Options& opt)
{
    const long n = opt.get("n", 40), cutoff = opt.get("cutoff", 20);
    uint64_t r = 0;
    uint64_t ns = run.time([&] {
        r = run.mode == Mode::Seq ? fibSeq(n) : run.mode == Mode::Tbb ? fibTbb(n, cutoff) : fibPar(n, cutoff);
    });
    // Check with the closed iteration.
    uint64_t a = 0, b = 1;
    for (long i = 0; i < n; ++i) {
        uint64_t t = a + b;
        a = b;
        b = t;
    }
    std::printf("parfib n=%ld cutoff=%ld result=%" PRIu64 "\nelapsed_ns=%" PRIu64 "\n", n, cutoff, r, ns);
    return r == a ? 0 : 1;
}

} // namespace sparkscope::demo
