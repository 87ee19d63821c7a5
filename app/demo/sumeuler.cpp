// sumeuler: sum of Euler's totient over 1..n, in chunks; Mercury's classic right-recursive
// "chunk & rest" conjunction over the list of chunks.
#include "demo/workloads.h"

#include "sparkscope/runtime/par_conj.h"

#include <tbb/task_group.h>

#include <algorithm>
#include <cinttypes>
#include <numeric>
#include <vector>

namespace sparkscope::demo {

namespace rt = sparkscope::runtime;

namespace {

    uint64_t totient(uint64_t k)
    {
        uint64_t count = 0;
        for (uint64_t i = 1; i <= k; ++i)
            count += std::gcd(i, k) == 1;
        return count;
    }
    uint64_t chunkSum(uint64_t lo, uint64_t hi)
    {
        uint64_t s = 0;
        for (uint64_t k = lo; k < hi; ++k)
            s += totient(k);
        return s;
    }
    uint64_t sumChunksPar(uint64_t lo, uint64_t n, uint64_t chunk)
    {
        const uint64_t hi = std::min(n + 1, lo + chunk);
        if (hi > n)
            return chunkSum(lo, hi);
        uint64_t here = 0, rest = 0;
        rt::parConj([&] { here = chunkSum(lo, hi); }, [&] { rest = sumChunksPar(hi, n, chunk); });
        return here + rest;
    }

} // namespace

int sumeuler(Runner& run, const Options& opt)
{
    const uint64_t n = uint64_t(opt.get("n", 8000)), chunk = std::max<uint64_t>(1, uint64_t(opt.get("chunk", 100)));
    uint64_t r = 0;
    uint64_t ns = run.time([&] {
        if (run.mode == Mode::Seq) {
            r = chunkSum(1, n + 1);
        } else if (run.mode == Mode::Tbb) {
            std::vector<uint64_t> parts((n + chunk - 1) / chunk + 1, 0);
            tbb::task_group g;
            for (uint64_t lo = 1, i = 0; lo <= n; lo += chunk, ++i)
                g.run([&, lo, i] { parts[i] = chunkSum(lo, std::min(n + 1, lo + chunk)); });
            g.wait();
            r = std::accumulate(parts.begin(), parts.end(), uint64_t(0));
        } else {
            r = sumChunksPar(1, n, chunk);
        }
    });
    // Check with a totient sieve.
    std::vector<uint64_t> phi(n + 1);
    std::iota(phi.begin(), phi.end(), uint64_t(0));
    for (uint64_t p = 2; p <= n; ++p)
        if (phi[p] == p)
            for (uint64_t m = p; m <= n; m += p)
                phi[m] -= phi[m] / p;
    uint64_t want = n >= 1 ? std::accumulate(phi.begin() + 1, phi.end(), uint64_t(0)) : 0;
    std::printf(
        "sumeuler n=%" PRIu64 " chunk=%" PRIu64 " result=%" PRIu64 "\nelapsed_ns=%" PRIu64 "\n", n, chunk, r, ns);
    return r == want ? 0 : 1;
}

} // namespace sparkscope::demo
