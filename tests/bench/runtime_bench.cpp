// Runtime benchmark: the cost of one traced event on the hot path, parfib traced vs untraced vs
// TBB vs sequential, and listsum (a million-deep right recursion of parallel conjunctions, past the
// bound on live contexts) vs TBB and sequential. Prints medians of several runs and the ratios the
// runtime's targets are stated in (docs/runtime.md). Not a test: it never fails on time. parfib and
// listsum are the demo's (app/demo/), so the figures are those of the code sparkscope-demo runs.
//   sparkscope-runtime-bench [--engines N] [--n 36] [--cutoff 20] [--runs 7] [--list-cells 1000000]
#include "bench_stats.h"
#include "demo/workloads.h"
#include "tracer.h" // the runtime's private tracer (for the per-event cost)

#include "sparkscope/runtime/runtime.h"

#include <tbb/global_control.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <time.h>
#include <vector>

using namespace sparkscope::runtime;
using Clock = std::chrono::steady_clock;

using sparkscope::bench::median;
using sparkscope::demo::fibPar;
using sparkscope::demo::fibSeq;
using sparkscope::demo::fibTbb;
using sparkscope::demo::ListCell;

namespace {

double threadCpuNs()
{
    timespec ts {};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e9 + double(ts.tv_nsec);
}

std::string loadAverage()
{
    std::FILE* f = std::fopen("/proc/loadavg", "r");
    char line[128] = "?";
    if (f) {
        if (!std::fgets(line, sizeof line, f))
            line[0] = 0;
        std::fclose(f);
    }
    line[std::strcspn(line, "\n")] = 0;
    return line;
}

// Thread CPU ns per event posting `events` 4-byte events through one engine buffer into `path`.
double eventCost(bool allowTsc, const char* path, uint64_t events)
{
    detail::TraceClock clock(allowTsc);
    auto sink = detail::TraceSink::open(path, 1, 64, clock);
    if (!sink.ok()) {
        std::fprintf(stderr, "%s\n", sink.error().toString().c_str());
        std::exit(2);
    }
    detail::EngineTraceBuffer buf(*sink.value(), 0, 2 * 1024 * 1024);
    // Thread CPU time, so that other processes on a loaded machine do not inflate the figure.
    const double t0 = threadCpuNs();
    for (uint64_t i = 0; i < events; ++i)
        buf.event4(sparkscope::core::ev::MerSparkRun, uint32_t(i));
    buf.flush();
    return (threadCpuNs() - t0) / double(events);
}

// One workload four ways, interleaved run by run so that load changes hit all alike: on the runtime
// untraced and traced (a fresh Runtime each run, so its contexts and stacks are made, and their pages
// touched, within the timed run, as in sparkscope-demo), on TBB, and sequentially. Each way returns
// the workload's answer, checked against `want`.
struct FourWays {
    std::vector<double> untraced, traced, tbb, seq; // ns per run
    RuntimeStats untracedStats; // of the last untraced run
    uint64_t tracedBytes = 0; // of the last traced run's eventlog
    bool ok = false; // every run gave `want`
};

FourWays runFourWays(const char* name, int runs, unsigned engines, const std::string& tracePath, uint64_t want,
    const std::function<uint64_t()>& parallel, const std::function<uint64_t()>& onTbb,
    const std::function<uint64_t()>& sequential)
{
    FourWays out;
    auto timed = [&](const std::function<uint64_t()>& f, std::vector<double>& into) {
        const auto t0 = Clock::now();
        const uint64_t got = f();
        into.push_back(double((Clock::now() - t0).count()));
        return got;
    };
    for (int r = 0; r < runs; ++r) {
        for (int variant = 0; variant < 4; ++variant) {
            uint64_t got = 0;
            if (variant <= 1) {
                RuntimeOptions o;
                o.engines = engines;
                o.useEnvironment = false;
                if (variant == 1)
                    o.tracePath = tracePath;
                auto rt = Runtime::create(o);
                if (!rt.ok()) {
                    std::fprintf(stderr, "%s\n", rt.error().toString().c_str());
                    return out;
                }
                (void)rt.value()->run([&] { got = timed(parallel, variant == 0 ? out.untraced : out.traced); });
                if (variant == 0)
                    out.untracedStats = rt.value()->stats();
                rt.value().reset(); // closes the trace
                if (variant == 1)
                    out.tracedBytes = std::filesystem::file_size(tracePath);
            } else if (variant == 2) {
                tbb::global_control limit(tbb::global_control::max_allowed_parallelism, engines);
                got = timed(onTbb, out.tbb);
            } else {
                got = timed(sequential, out.seq);
            }
            if (got != want) {
                std::fprintf(stderr, "%s gave a wrong result\n", name);
                return out;
            }
        }
    }
    std::filesystem::remove(tracePath);
    out.ok = true;
    return out;
}

} // namespace

int main(int argc, char** argv)
{
    unsigned engines = 2;
    long n = 36, cutoff = 20;
    int runs = 7;
    long listCells = 1'000'000;
    for (int i = 1; i + 1 < argc; i += 2) {
        std::string a = argv[i];
        long v = std::strtol(argv[i + 1], nullptr, 10);
        if (a == "--engines")
            engines = unsigned(std::max(1L, v));
        else if (a == "--n")
            n = v;
        else if (a == "--cutoff")
            cutoff = v;
        else if (a == "--runs")
            runs = int(std::max(1L, v));
        else if (a == "--list-cells")
            listCells = std::max(1L, v);
        else {
            std::fprintf(stderr,
                "usage: sparkscope-runtime-bench [--engines N] [--n 36] [--cutoff 20] [--runs 7] "
                "[--list-cells 1000000]\n");
            return 2;
        }
    }

    // 1. One traced event on the hot path.
    const uint64_t events = 50'000'000;
    std::vector<double> tscDevNull, steadyDevNull, tscFile;
    const std::string tmp = (std::filesystem::temp_directory_path() / "sparkscope-runtime-bench.eventlog").string();
    for (int r = 0; r < 3; ++r) {
        tscDevNull.push_back(eventCost(true, "/dev/null", events));
        steadyDevNull.push_back(eventCost(false, "/dev/null", events));
        tscFile.push_back(eventCost(true, tmp.c_str(), events));
    }
    std::filesystem::remove(tmp);
    std::printf("load average: %s (figures are noisy when it exceeds the number of cores)\n", loadAverage().c_str());
    std::printf(
        "== traced event cost, thread CPU ns (%llu events of 14 bytes, median of 3)\n", (unsigned long long)events);
    std::printf("event_ns tsc_clock to /dev/null:     %.2f\n", median(tscDevNull));
    std::printf("event_ns steady_clock to /dev/null:  %.2f\n", median(steadyDevNull));
    std::printf("event_ns tsc_clock to a temp file:   %.2f  (includes write(2) of %.0f MB)\n", median(tscFile),
        double(events) * 14 / 1e6);

    // 2. parfib and 3. listsum, each four ways (runFourWays).
    const std::string tracePath
        = (std::filesystem::temp_directory_path() / "sparkscope-runtime-bench-parfib.eventlog").string();
    const FourWays fib = runFourWays(
        "parfib", runs, engines, tracePath, fibSeq(n), [&] { return fibPar(n, cutoff); },
        [&] { return fibTbb(n, cutoff); }, [&] { return fibSeq(n); });
    if (!fib.ok)
        return 1;
    const double u = median(fib.untraced), t = median(fib.traced), b = median(fib.tbb), s = median(fib.seq);
    std::printf("== parfib n=%ld cutoff=%ld on %u engines (median of %d runs, ms)\n", n, cutoff, engines, runs);
    std::printf("untraced %.1f  traced %.1f  tbb %.1f  seq %.1f   (~%llu events traced)\n", u / 1e6, t / 1e6, b / 1e6,
        s / 1e6, (unsigned long long)(fib.tracedBytes / 14)); // rough: mostly 12-22 byte events
    std::printf("ratio traced/untraced:  %.3f  (target <= 1.10)\n", t / u);
    std::printf("ratio untraced/tbb:     %.3f  (target <= 1.3)\n", u / b);
    std::printf("speed-up over seq:      runtime %.2fx  tbb %.2fx\n", s / u, s / b);

    const std::vector<ListCell> cells = sparkscope::demo::makeList(size_t(listCells));
    const FourWays list = runFourWays(
        "listsum", runs, engines, tracePath, sparkscope::demo::listSumExpected(size_t(listCells)),
        [&] { return sparkscope::demo::listSumPar(cells.data(), 1); },
        [&] { return sparkscope::demo::listSumTbb(cells.data(), 1); },
        [&] { return sparkscope::demo::listSumSeq(cells.data()); });
    if (!list.ok)
        return 1;
    const double lu = median(list.untraced), lt = median(list.traced), lb = median(list.tbb), ls = median(list.seq);
    const RuntimeStats& listStats = list.untracedStats;
    std::printf("== listsum %ld cells, chunk 1 (%ld nested conjunctions) on %u engines (median of %d runs, ms)\n",
        listCells, listCells - 1, engines, runs);
    std::printf("untraced %.1f  traced %.1f  tbb %.1f  seq %.1f\n", lu / 1e6, lt / 1e6, lb / 1e6, ls / 1e6);
    std::printf("contexts (untraced, last run): created %llu, peak live %llu, limit %llu, stack hand-overs %llu, "
                "stolen %llu\n",
        (unsigned long long)listStats.contextsCreated, (unsigned long long)listStats.peakLiveContexts,
        (unsigned long long)listStats.contextLimit, (unsigned long long)listStats.stackHandoffs,
        (unsigned long long)listStats.sparksStolen);
    std::printf("ratio untraced/tbb: %.2f  traced/untraced: %.2f  untraced/seq: %.2f  tbb/seq: %.2f\n", lu / lb,
        lt / lu, lu / ls, lb / ls);
    return 0;
}
