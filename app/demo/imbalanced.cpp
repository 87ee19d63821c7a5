// imbalanced: one conjunction whose conjuncts differ in size by powers of two (conjunct i does
// 2^i units), so engines finish at very different times and the last conjunct dominates.
#include "demo/spin.h"
#include "demo/workloads.h"

#include "sparkscope/runtime/par_conj.h"

#include <tbb/task_group.h>

#include <algorithm>
#include <cinttypes>
#include <vector>

namespace sparkscope::demo {

namespace rt = sparkscope::runtime;

int imbalanced(Runner& run, const Options& opt)
{
    const long conjuncts = std::max(2L, opt.get("conjuncts", 12)), unit = opt.get("unit", 20000);
    std::vector<uint64_t> out(size_t(conjuncts), 0);
    auto conjunct = [&](size_t i) { out[i] = spin(i, unit << i); };
    uint64_t ns = run.time([&] {
        if (run.mode == Mode::Seq) {
            for (size_t i = 0; i < out.size(); ++i)
                conjunct(i);
        } else if (run.mode == Mode::Tbb) {
            tbb::task_group g;
            for (size_t i = 0; i < out.size(); ++i)
                g.run([&, i] { conjunct(i); });
            g.wait();
        } else {
            rt::parConjN(out.size(), conjunct);
        }
    });
    uint64_t r = 0, want = 0;
    for (size_t i = 0; i < out.size(); ++i) {
        r ^= out[i];
        want ^= spin(i, unit << i);
    }
    std::printf(
        "imbalanced conjuncts=%ld unit=%ld result=%" PRIu64 "\nelapsed_ns=%" PRIu64 "\n", conjuncts, unit, r, ns);
    return r == want ? 0 : 1;
}

} // namespace sparkscope::demo
