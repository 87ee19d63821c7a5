// sparkscope-demo: workloads for SparkScope's runtime, each also runnable sequentially (--baseline
// seq) or with TBB's task_group (--baseline tbb) for comparison. Every workload checks its result
// (exit 1 if wrong) and prints it with elapsed_ns=<n> (the computation only, not start-up).
//
//   sparkscope-demo WORKLOAD [--engines N] [--trace FILE | --no-trace] [--baseline seq|tbb] [options]
//   sparkscope-demo --list
#include "sparkscope/runtime/future.h"
#include "sparkscope/runtime/par_conj.h"
#include "sparkscope/runtime/runtime.h"

#include <tbb/global_control.h>
#include <tbb/parallel_pipeline.h>
#include <tbb/task_group.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace rt = sparkscope::runtime;

namespace {

enum class Mode { Runtime, Seq, Tbb };

// Workload options: "--name value" pairs, read with defaults; unknown names are reported.
class Options {
public:
    std::map<std::string, std::string> values;
    mutable std::map<std::string, bool> used;

    long get(const std::string& name, long fallback) const
    {
        used[name] = true;
        auto it = values.find(name);
        if (it == values.end())
            return fallback;
        char* end = nullptr;
        long v = std::strtol(it->second.c_str(), &end, 10);
        if (!end || *end || v < 0) {
            std::fprintf(stderr, "sparkscope-demo: --%s needs a non-negative integer, got '%s'\n", name.c_str(),
                it->second.c_str());
            std::exit(2);
        }
        return v;
    }
};

// Runs `body` the chosen way; returns elapsed ns of the body.
struct Runner {
    Mode mode = Mode::Runtime;
    rt::Runtime* runtime = nullptr;
    unsigned engines = 1;

    template <class F> uint64_t time(F&& body)
    {
        uint64_t ns = 0;
        auto timed = [&] {
            auto t0 = std::chrono::steady_clock::now();
            body();
            ns = uint64_t((std::chrono::steady_clock::now() - t0).count());
        };
        if (mode == Mode::Runtime) {
            auto r = runtime->run(timed);
            if (!r.ok()) {
                std::fprintf(stderr, "sparkscope-demo: %s\n", r.error().toString().c_str());
                std::exit(2);
            }
        } else {
            timed();
        }
        return ns;
    }
};

// ---------------------------------------------------------------------------------------------
// parfib: doubly recursive Fibonacci; below the cut-off the recursion is sequential.

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

// ---------------------------------------------------------------------------------------------
// sumeuler: sum of Euler's totient over 1..n, in chunks; Mercury's classic right-recursive
// "chunk & rest" conjunction over the list of chunks.

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

// ---------------------------------------------------------------------------------------------
// quicksort: partition (sequential, O(n) at every level) then sort both sides in parallel. The
// top-level partitions run on one engine, which caps the speed-up; the trace shows it as a long
// stretch with one engine busy before the sparks appear.

void quicksortSeq(int* lo, int* hi, long cutoff)
{
    if (hi - lo <= cutoff) {
        std::sort(lo, hi);
        return;
    }
    int pivot = lo[(hi - lo) / 2];
    int* mid1 = std::partition(lo, hi, [pivot](int x) { return x < pivot; });
    int* mid2 = std::partition(mid1, hi, [pivot](int x) { return x == pivot; });
    quicksortSeq(lo, mid1, cutoff);
    quicksortSeq(mid2, hi, cutoff);
}
void quicksortPar(int* lo, int* hi, long cutoff)
{
    if (hi - lo <= cutoff) {
        std::sort(lo, hi);
        return;
    }
    int pivot = lo[(hi - lo) / 2];
    int* mid1 = std::partition(lo, hi, [pivot](int x) { return x < pivot; });
    int* mid2 = std::partition(mid1, hi, [pivot](int x) { return x == pivot; });
    rt::parConj([&] { quicksortPar(lo, mid1, cutoff); }, [&] { quicksortPar(mid2, hi, cutoff); });
}
void quicksortTbb(int* lo, int* hi, long cutoff)
{
    if (hi - lo <= cutoff) {
        std::sort(lo, hi);
        return;
    }
    int pivot = lo[(hi - lo) / 2];
    int* mid1 = std::partition(lo, hi, [pivot](int x) { return x < pivot; });
    int* mid2 = std::partition(mid1, hi, [pivot](int x) { return x == pivot; });
    tbb::task_group g;
    g.run([&] { quicksortTbb(lo, mid1, cutoff); });
    quicksortTbb(mid2, hi, cutoff);
    g.wait();
}

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

// ---------------------------------------------------------------------------------------------
// pipeline: three conjuncts linked by futures, one future per item and stage:
//   produce: a[i] = f(i)  &  transform: b[i] = g(a[i])  &  consume: sum of h(b[i]).
// The stages cost 2, 1 and 1/2 units per item, so the later stages catch up with the earlier ones
// and wait on futures that are not signalled yet: their contexts suspend and resume, and the
// trace shows the producer as the bottleneck.

uint64_t spin(uint64_t x, long work)
{
    for (long k = 0; k < work; ++k)
        x = x * 6364136223846793005ull + 1442695040888963407ull;
    return x;
}

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

// ---------------------------------------------------------------------------------------------
// imbalanced: one conjunction whose conjuncts differ in size by powers of two (conjunct i does
// 2^i units), so engines finish at very different times and the last conjunct dominates.

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

struct Workload {
    const char* name;
    const char* help;
    int (*fn)(Runner&, const Options&);
};

const Workload kWorkloads[] = {
    { "parfib", "doubly recursive Fibonacci; --n 40 --cutoff 20 (sequential below the cut-off)", parfib },
    { "sumeuler", "sum of Euler's totient over 1..n in chunks; --n 8000 --chunk 100", sumeuler },
    { "quicksort", "partition then sort both sides in parallel; --n 4000000 --cutoff 20000 --seed 1", quicksort },
    { "pipeline", "three stages linked by futures; --items 2000 --work 20000", pipeline },
    { "imbalanced", "conjuncts of sizes 1, 2, 4, ... units; --conjuncts 12 --unit 20000", imbalanced },
};

int usage(FILE* out)
{
    std::fprintf(out,
        "usage: sparkscope-demo WORKLOAD [--engines N] [--trace FILE | --no-trace] [--baseline seq|tbb] "
        "[workload options]\n       sparkscope-demo --list\n"
        "Without --trace, the environment variable SPARKSCOPE_TRACE=<file> turns tracing on.\n");
    return 2;
}

} // namespace

int main(int argc, char** argv)
{
    if (argc < 2)
        return usage(stderr);
    std::string first = argv[1];
    if (first == "--list") {
        for (const auto& w : kWorkloads)
            std::printf("%-11s %s\n", w.name, w.help);
        return 0;
    }
    if (first == "--help" || first == "-h") {
        usage(stdout);
        return 0;
    }
    const Workload* workload = nullptr;
    for (const auto& w : kWorkloads)
        if (first == w.name)
            workload = &w;
    if (!workload) {
        std::fprintf(stderr, "sparkscope-demo: unknown workload '%s' (see --list)\n", first.c_str());
        return 2;
    }

    unsigned engines = std::max(1u, std::thread::hardware_concurrency());
    std::string tracePath;
    bool noTrace = false;
    Mode mode = Mode::Runtime;
    Options opt;
    for (int i = 2; i < argc; ++i) {
        std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "sparkscope-demo: %s needs a value\n", a.c_str());
                std::exit(2);
            }
            return argv[++i];
        };
        if (a == "--engines") {
            long n = std::strtol(value().c_str(), nullptr, 10);
            if (n < 1 || n > 4096) {
                std::fprintf(stderr, "sparkscope-demo: --engines must be 1..4096\n");
                return 2;
            }
            engines = unsigned(n);
        } else if (a == "--trace") {
            tracePath = value();
        } else if (a == "--no-trace") {
            noTrace = true;
        } else if (a == "--baseline") {
            std::string b = value();
            if (b == "seq")
                mode = Mode::Seq;
            else if (b == "tbb")
                mode = Mode::Tbb;
            else {
                std::fprintf(stderr, "sparkscope-demo: --baseline is seq or tbb, not '%s'\n", b.c_str());
                return 2;
            }
        } else if (a.rfind("--", 0) == 0 && a.size() > 2) {
            opt.values[a.substr(2)] = value();
        } else {
            std::fprintf(stderr, "sparkscope-demo: unexpected argument '%s'\n", a.c_str());
            return usage(stderr);
        }
    }
    if (noTrace && !tracePath.empty()) {
        std::fprintf(stderr, "sparkscope-demo: --trace and --no-trace exclude each other\n");
        return 2;
    }

    Runner runner;
    runner.mode = mode;
    runner.engines = engines;
    std::unique_ptr<rt::Runtime> runtime;
    std::unique_ptr<tbb::global_control> tbbLimit;
    if (mode == Mode::Runtime) {
        rt::RuntimeOptions o;
        o.engines = engines;
        o.tracePath = tracePath;
        o.useEnvironment = !noTrace;
        auto created = rt::Runtime::create(o);
        if (!created.ok()) {
            std::fprintf(stderr, "sparkscope-demo: %s\n", created.error().toString().c_str());
            return 2;
        }
        runtime = std::move(created.value());
        runner.runtime = runtime.get();
    } else if (mode == Mode::Tbb) {
        tbbLimit = std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism, engines);
    }
    int rc = workload->fn(runner, opt);
    for (const auto& [name, value] : opt.values) {
        if (!opt.used.count(name)) {
            std::fprintf(stderr, "sparkscope-demo: %s does not take --%s\n", workload->name, name.c_str());
            return 2;
        }
    }
    if (runtime) {
        const bool traced = runtime->tracing();
        const std::string path = runtime->tracePath();
        const bool failed = runtime->traceFailed();
        runtime.reset(); // flushes and closes the trace
        if (traced)
            std::printf("trace=%s%s\n", path.c_str(), failed ? " (some events were lost: write failed)" : "");
    }
    if (rc != 0)
        std::fprintf(stderr, "sparkscope-demo: %s computed a WRONG result\n", workload->name);
    return rc;
}
