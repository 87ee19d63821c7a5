// pipeline: three conjuncts linked by futures, one future per item and stage:
//   produce: a[i] = f(i)  &  transform: b[i] = g(a[i])  &  consume: sum of h(b[i]).
// The stages cost 2, 1 and 1/2 units per item, so the later stages catch up with the earlier ones
// and wait on futures that are not signalled yet: their contexts suspend and resume, and the
// trace shows the producer as the bottleneck.
#include "demo/spin.h"
#include "demo/workloads.h"

#include "sparkscope/runtime/future.h"
#include "sparkscope/runtime/par_conj.h"

#include <tbb/parallel_pipeline.h>

#include <cinttypes>
#include <memory>
#include <vector>

namespace sparkscope::demo {

namespace rt = sparkscope::runtime;

int pipeline(Runner& run, const Options& opt)
{
    const long items = opt.get("items", 2000), work = opt.get("work", 20000);
    uint64_t r = 0;
    uint64_t ns = run.time([&] {
        if (run.mode == Mode::Seq) {
            for (long i = 0; i < items; ++i)
                r += spin(spin(spin(uint64_t(i), 2 * work), work), work / 2) >> 8;
        } else if (run.mode == Mode::Tbb) {
            long next = 0;
            uint64_t sum = 0;
            tbb::parallel_pipeline(size_t(run.engines) * 4,
                tbb::make_filter<void, uint64_t>(tbb::filter_mode::serial_in_order,
                    [&](tbb::flow_control& fc) -> uint64_t {
                        if (next >= items) {
                            fc.stop();
                            return 0;
                        }
                        return spin(uint64_t(next++), 2 * work);
                    })
                    & tbb::make_filter<uint64_t, uint64_t>(
                        tbb::filter_mode::parallel, [&](uint64_t a) { return spin(a, work); })
                    & tbb::make_filter<uint64_t, void>(
                        tbb::filter_mode::serial_in_order, [&](uint64_t b) { sum += spin(b, work / 2) >> 8; }));
            r = sum;
        } else {
            std::vector<std::unique_ptr<rt::Future<uint64_t>>> a(static_cast<size_t>(items)),
                b(static_cast<size_t>(items));
            for (auto& f : a)
                f = std::make_unique<rt::Future<uint64_t>>("produced");
            for (auto& f : b)
                f = std::make_unique<rt::Future<uint64_t>>("transformed");
            rt::parConj(
                [&] {
                    for (long i = 0; i < items; ++i)
                        a[size_t(i)]->signal(spin(uint64_t(i), 2 * work));
                },
                [&] {
                    for (long i = 0; i < items; ++i)
                        b[size_t(i)]->signal(spin(a[size_t(i)]->wait(), work));
                },
                [&] {
                    for (long i = 0; i < items; ++i)
                        r += spin(b[size_t(i)]->wait(), work / 2) >> 8;
                });
        }
    });
    uint64_t want = 0;
    for (long i = 0; i < items; ++i)
        want += spin(spin(spin(uint64_t(i), 2 * work), work), work / 2) >> 8;
    std::printf("pipeline items=%ld work=%ld result=%" PRIu64 "\nelapsed_ns=%" PRIu64 "\n", items, work, r, ns);
    return r == want ? 0 : 1;
}

} // namespace sparkscope::demo
