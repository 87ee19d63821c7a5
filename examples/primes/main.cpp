// primes: counts the primes below a bound on SparkScope's runtime and writes a trace of the run.
//
//   primes [TRACE] [--engines N]     (TRACE defaults to primes.eventlog)
//
// It is the example of docs/user-guide.md, "Profile your own program". The work has the two
// shapes a parallel program usually has:
//  - a future: one conjunct sieves the primes up to the square root of the bound and signals them;
//    the other waits for them (and would suspend if it got there first) before it counts;
//  - divide and conquer: the counting halves its range in a parallel conjunction until a range is
//    at most kLeaf numbers, so 1,000,000 / 31,250 = 32 leaves make 31 conjunctions at one call site.
// So the trace holds 32 conjunctions in all (1 + 31) and one future, whatever the schedule.
#include "sparkscope/runtime/future.h"
#include "sparkscope/runtime/par_conj.h"
#include "sparkscope/runtime/runtime.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace rt = sparkscope::runtime;

namespace {

constexpr uint32_t kBound = 1'000'000; // count the primes in [2, kBound)
constexpr uint32_t kLeaf = 31'250; // ranges this small are counted sequentially
constexpr uint32_t kExpected = 78'498; // the number of primes below 1,000,000

// The primes below `limit`, by the sieve of Eratosthenes.
std::vector<uint32_t> sieve(uint32_t limit)
{
    std::vector<bool> composite(limit, false);
    std::vector<uint32_t> primes;
    for (uint32_t i = 2; i < limit; ++i) {
        if (composite[i])
            continue;
        primes.push_back(i);
        for (uint64_t m = uint64_t(i) * i; m < limit; m += i)
            composite[m] = true;
    }
    return primes;
}

// The primes in [lo, hi), by trial division with the primes up to the square root of kBound.
uint32_t countPrimes(uint32_t lo, uint32_t hi, const std::vector<uint32_t>& small)
{
    uint32_t count = 0;
    for (uint32_t n = lo < 2 ? 2 : lo; n < hi; ++n) {
        bool prime = true;
        for (uint32_t p : small) {
            if (p * p > n)
                break;
            if (n % p == 0) {
                prime = false;
                break;
            }
        }
        count += prime;
    }
    return count;
}

// Divide and conquer: both halves in one parallel conjunction (the call site is its static id).
uint32_t countRange(uint32_t lo, uint32_t hi, const std::vector<uint32_t>& small)
{
    if (hi - lo <= kLeaf)
        return countPrimes(lo, hi, small);
    const uint32_t mid = lo + (hi - lo) / 2;
    uint32_t left = 0, right = 0;
    rt::parConj([&] { left = countRange(lo, mid, small); }, [&] { right = countRange(mid, hi, small); });
    return left + right;
}

} // namespace

int main(int argc, char** argv)
{
    rt::RuntimeOptions options;
    options.tracePath = "primes.eventlog"; // tracing on: the runtime writes this eventlog
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--engines" && i + 1 < argc)
            options.engines = unsigned(std::strtoul(argv[++i], nullptr, 10));
        else if (!arg.empty() && arg[0] != '-')
            options.tracePath = arg;
        else {
            std::fprintf(stderr, "usage: primes [TRACE] [--engines N]\n");
            return 2;
        }
    }

    // Runtime::create fails (with a message, not an exception) if the trace cannot be created.
    auto runtime = rt::Runtime::create(options);
    if (!runtime.ok()) {
        std::fprintf(stderr, "primes: %s\n", runtime.error().toString().c_str());
        return 2;
    }

    uint32_t count = 0;
    auto ran = runtime.value()->run([&] {
        rt::Future<std::vector<uint32_t>> small("small_primes"); // FUT_CREATE, named in the trace
        rt::parConj([&] { small.signal(sieve(1'000)); }, // 1,000 > sqrt(kBound)
            [&] {
                const std::vector<uint32_t>& primes = small.wait(); // suspends until signalled
                rt::mark("counting"); // a marker on the timeline
                count = countRange(0, kBound, primes);
            });
    });
    if (!ran.ok()) {
        std::fprintf(stderr, "primes: %s\n", ran.error().toString().c_str());
        return 2;
    }

    std::printf("%u primes below %u on %u engines; trace: %s\n", count, kBound, runtime.value()->engineCount(),
        runtime.value()->tracePath().c_str());
    if (runtime.value()->traceFailed())
        std::fprintf(stderr, "primes: some trace events were dropped (a write failed)\n");
    return count == kExpected ? 0 : 1;
}
