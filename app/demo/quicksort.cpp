// quicksort: partition (sequential, O(n) at every level) then sort both sides in parallel. The
// top-level partitions run on one engine, which caps the speed-up; the trace shows it as a long
// stretch with one engine busy before the sparks appear.
#include "demo/workloads.h"

#include "sparkscope/runtime/par_conj.h"

#include <tbb/task_group.h>

#include <algorithm>
#include <cinttypes>
#include <random>
#include <vector>

namespace sparkscope::demo {

namespace rt = sparkscope::runtime;

namespace {

    // At or below the cut-off: sorts [lo, hi) and returns false. Above it: partitions [lo, hi) around
    // its middle element into [lo, mid1) < pivot, [mid1, mid2) == pivot, [mid2, hi) > pivot and
    // returns true (both outer parts are left to sort).
    bool partitionOrSort(int* lo, int* hi, long cutoff, int*& mid1, int*& mid2)
    {
        if (hi - lo <= cutoff) {
            std::sort(lo, hi);
            return false;
        }
        int pivot = lo[(hi - lo) / 2];
        mid1 = std::partition(lo, hi, [pivot](int x) { return x < pivot; });
        mid2 = std::partition(mid1, hi, [pivot](int x) { return x == pivot; });
        return true;
    }

    void quicksortSeq(int* lo, int* hi, long cutoff)
    {
        int *mid1 = nullptr, *mid2 = nullptr;
        if (!partitionOrSort(lo, hi, cutoff, mid1, mid2))
            return;
        quicksortSeq(lo, mid1, cutoff);
        quicksortSeq(mid2, hi, cutoff);
    }
    void quicksortPar(int* lo, int* hi, long cutoff)
    {
        int *mid1 = nullptr, *mid2 = nullptr;
        if (!partitionOrSort(lo, hi, cutoff, mid1, mid2))
            return;
        rt::parConj([&] { quicksortPar(lo, mid1, cutoff); }, [&] { quicksortPar(mid2, hi, cutoff); });
    }
    void quicksortTbb(int* lo, int* hi, long cutoff)
    {
        int *mid1 = nullptr, *mid2 = nullptr;
        if (!partitionOrSort(lo, hi, cutoff, mid1, mid2))
            return;
        tbb::task_group g;
        g.run([&] { quicksortTbb(lo, mid1, cutoff); });
        quicksortTbb(mid2, hi, cutoff);
        g.wait();
    }

} // namespace

int quicksort(Runner& run, const Options& opt)
{
    const long n = opt.get("n", 4000000), cutoff = std::max(1L, opt.get("cutoff", 20000));
    std::mt19937 rng(uint32_t(opt.get("seed", 1)));
    std::vector<int> v(size_t(n), 0);
    for (auto& x : v)
        x = int(rng() % 1000000000u);
    std::vector<int> want = v;
    uint64_t ns = run.time([&] {
        int* lo = v.data();
        int* hi = v.data() + v.size();
        if (run.mode == Mode::Seq)
            quicksortSeq(lo, hi, cutoff);
        else if (run.mode == Mode::Tbb)
            quicksortTbb(lo, hi, cutoff);
        else
            quicksortPar(lo, hi, cutoff);
    });
    std::sort(want.begin(), want.end());
    const bool ok = v == want;
    std::printf(
        "quicksort n=%ld cutoff=%ld result=%s\nelapsed_ns=%" PRIu64 "\n", n, cutoff, ok ? "sorted" : "WRONG", ns);
    return ok ? 0 : 1;
}

} // namespace sparkscope::demo
