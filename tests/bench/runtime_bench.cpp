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
    auto sink = detail::TraceSink::open(path, 1, clock);
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

    // 2. parfib: untraced / traced / tbb / seq, interleaved so load changes hit all alike.
    const std::string tracePath
        = (std::filesystem::temp_directory_path() / "sparkscope-runtime-bench-parfib.eventlog").string();
    std::vector<double> untraced, traced, tbbT, seqT;
    uint64_t want = fibSeq(n), got = 0;
    uint64_t tracedEvents = 0;
    for (int r = 0; r < runs; ++r) {
        for (int variant = 0; variant < 4; ++variant) {
            double ns = 0;
            if (variant <= 1) {
                RuntimeOptions o;
                o.engines = engines;
                o.useEnvironment = false;
                if (variant == 1)
                    o.tracePath = tracePath;
                auto rt = Runtime::create(o);
                if (!rt.ok())
                    return 2;
                (void)rt.value()->run([&] {
                    auto t0 = Clock::now();
                    got = fibPar(n, cutoff);
                    ns = double((Clock::now() - t0).count());
                });
                (variant == 0 ? untraced : traced).push_back(ns);
                if (variant == 1) {
                    rt.value().reset();
                    tracedEvents = std::filesystem::file_size(tracePath) / 14; // rough: mostly 12-22 byte events
                }
            } else if (variant == 2) {
                tbb::global_control limit(tbb::global_control::max_allowed_parallelism, engines);
                auto t0 = Clock::now();
                got = fibTbb(n, cutoff);
                ns = double((Clock::now() - t0).count());
                tbbT.push_back(ns);
            } else {
                auto t0 = Clock::now();
                got = fibSeq(n);
                ns = double((Clock::now() - t0).count());
                seqT.push_back(ns);
            }
            if (got != want) {
                std::fprintf(stderr, "parfib gave a wrong result\n");
                return 1;
            }
        }
    }
    std::filesystem::remove(tracePath);
    const double u = median(untraced), t = median(traced), b = median(tbbT), s = median(seqT);
    std::printf("== parfib n=%ld cutoff=%ld on %u engines (median of %d runs, ms)\n", n, cutoff, engines, runs);
    std::printf("untraced %.1f  traced %.1f  tbb %.1f  seq %.1f   (~%llu events traced)\n", u / 1e6, t / 1e6, b / 1e6,
        s / 1e6, (unsigned long long)tracedEvents);
    std::printf("ratio traced/untraced:  %.3f  (target <= 1.10)\n", t / u);
    std::printf("ratio untraced/tbb:     %.3f  (target <= 1.3)\n", u / b);
    std::printf("speed-up over seq:      runtime %.2fx  tbb %.2fx\n", s / u, s / b);

    // 3. listsum: untraced / traced / tbb / seq, interleaved. Each runtime run is a fresh Runtime, so
    // its contexts and stacks are made (and their pages touched) within the timed run, as in
    // sparkscope-demo.
    const std::vector<ListCell> cells = sparkscope::demo::makeList(size_t(listCells));
    const uint64_t listWant = sparkscope::demo::listSumExpected(size_t(listCells));
    std::vector<double> lUntraced, lTraced, lTbb, lSeq;
    RuntimeStats listStats;
    for (int r = 0; r < runs; ++r) {
        for (int variant = 0; variant < 4; ++variant) {
            uint64_t sum = 0;
            double ns = 0;
            if (variant <= 1) {
                RuntimeOptions o;
                o.engines = engines;
                o.useEnvironment = false;
                if (variant == 1)
                    o.tracePath = tracePath;
                auto rt = Runtime::create(o);
                if (!rt.ok())
                    return 2;
                (void)rt.value()->run([&] {
                    auto t0 = Clock::now();
                    sum = sparkscope::demo::listSumPar(cells.data(), 1);
                    ns = double((Clock::now() - t0).count());
                });
                if (variant == 0)
                    listStats = rt.value()->stats();
                (variant == 0 ? lUntraced : lTraced).push_back(ns);
            } else if (variant == 2) {
                tbb::global_control limit(tbb::global_control::max_allowed_parallelism, engines);
                auto t0 = Clock::now();
                sum = sparkscope::demo::listSumTbb(cells.data(), 1);
                ns = double((Clock::now() - t0).count());
                lTbb.push_back(ns);
            } else {
                auto t0 = Clock::now();
                sum = sparkscope::demo::listSumSeq(cells.data());
                ns = double((Clock::now() - t0).count());
                lSeq.push_back(ns);
            }
            if (sum != listWant) {
                std::fprintf(stderr, "listsum gave a wrong result\n");
                return 1;
            }
        }
    }
    std::filesystem::remove(tracePath);
    const double lu = median(lUntraced), lt = median(lTraced), lb = median(lTbb), ls = median(lSeq);
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
