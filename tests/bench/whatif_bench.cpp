// What-if benchmark (not a test): on one eventlog of our runtime, side by side in one process,
//   - what `sparkscope-cli metrics` computes after reading (computeMetricsFile and its JSON: the metrics
//     and the analysis section), and what `sparkscope-cli analyze` computes (the same metrics, the
//     analysis with predictions for the default engine counts, the report's JSON), wall and CPU time,
//     and their ratios (the target: analyze within 1.5x of metrics);
//   - the what-if alone: the DAG's forward view and contention (built once per session), predict()
//     for the default engine counts (as the CLI runs them), and the simulation at each engine count on
//     one thread (core/src/analysis/simulate.h), against the 1 s target for one run: P = 1 learning the
//     shortcut's sub-trees, then each P with the shortcut and with every node simulated, alternately
//     (with the share of the nodes run inside steps and replayed).
//
//   sparkscope-whatif-bench FILE [RUNS]
//
// Prints the median of RUNS (default 3) runs of each figure, and the process's peak RSS.
#include "analysis/contention.h"
#include "analysis/engine_activity.h"
#include "analysis/run_dag.h"
#include "analysis/sim_graph.h"
#include "analysis/simulate.h"
#include "bench_stats.h"
#include "sparkscope/core/analysis.h"
#include "sparkscope/core/metrics_export.h"
#include "sparkscope/core/reader.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <sys/resource.h>

using namespace sparkscope::core;
using sparkscope::bench::median;

namespace {

double cpuSeconds()
{
    rusage u {};
    getrusage(RUSAGE_SELF, &u);
    return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

struct Timing {
    double wall = 0, cpu = 0; // medians
};

Timing timed(int runs, const std::function<void()>& f)
{
    std::vector<double> wall, cpu;
    for (int i = 0; i < runs; ++i) {
        const double c0 = cpuSeconds();
        const auto a = std::chrono::steady_clock::now();
        f();
        wall.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count());
        cpu.push_back(cpuSeconds() - c0);
    }
    return { median(wall), median(cpu) };
}

} // namespace

int main(int argc, char** argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: sparkscope-whatif-bench FILE [RUNS]\n");
        return 2;
    }
    const int runs = argc > 2 ? std::max(1, std::atoi(argv[2])) : 3;
    auto trace = readTrace(argv[1]);
    if (!trace) {
        std::fprintf(stderr, "%s\n", trace.error().toString().c_str());
        return 2;
    }
    const Trace& t = trace.value();
    std::printf("whatif %s: %zu events, %zu engines\n", argv[1], t.eventCount(), t.engines.size());

    // The two commands after reading, alternated run by run so that both see the same machine.
    std::vector<double> mWall, mCpu, aWall, aCpu;
    for (int i = 0; i < runs; ++i) {
        const Timing m = timed(1, [&] {
            const MetricsFile file = computeMetricsFile(t);
            (void)formatMetricsFile(file, MetricsFormat::Json);
        });
        AnalysisOptions options;
        options.whatIf = WhatIfOptions {};
        const Timing a = timed(1, [&] { (void)analysisReportToJson(computeAnalysisReport(t, options)); });
        mWall.push_back(m.wall), mCpu.push_back(m.cpu), aWall.push_back(a.wall), aCpu.push_back(a.cpu);
    }
    const double mw = median(mWall), mc = median(mCpu), aw = median(aWall), ac = median(aCpu);
    std::printf("  metrics (computeMetricsFile + JSON): wall %.3f s, CPU %.3f s\n", mw, mc);
    std::printf("  analyze, 7 predictions (computeAnalysisReport + JSON): wall %.3f s, CPU %.3f s\n", aw, ac);
    std::printf("  ratio analyze / metrics: wall %.2fx, CPU %.2fx (target <= 1.5x)\n", aw / mw, ac / mc);

    std::unique_ptr<AnalysisSession> session;
    const Timing build = timed(runs, [&] { session = std::make_unique<AnalysisSession>(t); });
    const Timing analysis = timed(runs, [&] { (void)session->analyze(); });
    WhatIfOptions all;
    const Timing first = timed(1, [&] { (void)session->predict(all); });
    const Timing predictAll = timed(runs, [&] { (void)session->predict(all); });
    std::printf("  session %.3f s + analyze() %.3f s; first predict() %.3f s (building the forward view and "
                "contention: %.3f s); predict(1, 2, ..., 64) %.3f s wall, %.3f s CPU (engine counts in parallel)\n",
        build.wall, analysis.wall, first.wall, first.wall - predictAll.wall, predictAll.wall, predictAll.cpu);

    // The simulation alone, one engine count at a time, on one thread.
    const ParModel model = buildParModel(t);
    const EngineStates states = computeEngineStates(t);
    const detail::EngineActivity activity(t, states, model);
    const detail::RunDag dag(model);
    std::unique_ptr<detail::SimGraph> graph;
    const Timing view = timed(runs,
        [&] { graph = std::make_unique<detail::SimGraph>(dag, activity, t.firstTimeNs, t.lastTimeNs); });
    detail::Contention contention;
    const Timing fit = timed(runs, [&] { contention = detail::measureContention(model, activity); });
    std::printf("  forward view (weights and SimGraph): %.3f s, %zu cuts; contention %.4f (%llu conjuncts) "
                "measured in %.3f s\n",
        view.wall, dag.cutCount(), contention.coefficient, static_cast<unsigned long long>(contention.samples),
        fit.wall);
    const CostModel costs = session->measuredCosts();
    const double rate = detail::recordedRate(contention.runningAt, costs.contention);
    // P = 1 learns the sub-trees the others may run as one step (simulate.h, "Shortcut"); each P > 1 is
    // timed with the shortcut and without it, alternately.
    detail::SoloRuns solo;
    const Timing learn
        = timed(runs, [&] { (void)detail::simulate(*graph, graph->nodes(), 1, costs, false, rate, &solo); });
    std::printf("  P =  1 learning the solo sub-trees: %.3f s wall, %.3f s CPU\n", learn.wall, learn.cpu);
    for (uint32_t p : all.engines) {
        std::vector<double> fullCpu, fastCpu, fastWall;
        uint64_t full = 0, fast = 0;
        detail::ShortcutStats stats;
        for (int i = 0; i < runs; ++i) {
            const Timing a
                = timed(1, [&] { full = detail::simulate(*graph, graph->nodes(), p, costs, false, rate).wallNs; });
            stats = {};
            const Timing b = timed(1, [&] {
                fast = detail::simulate(*graph, graph->nodes(), p, costs, false, rate, nullptr, &solo, &stats).wallNs;
            });
            fullCpu.push_back(a.cpu), fastCpu.push_back(b.cpu), fastWall.push_back(b.wall);
        }
        std::printf("  P = %2u: simulation %.3f s wall, %.3f s CPU (%.2fx the 1 s target); every node: %.3f s CPU "
                    "(%.2fx); predicted wall %.6f s%s; %.1f %% of the nodes in %llu steps, %llu replayed (%.1f %% "
                    "of the nodes)\n",
            p, median(fastWall), median(fastCpu), median(fastWall) / 1.0, median(fullCpu),
            median(fullCpu) / median(fastCpu), double(fast) / 1e9, fast == full ? "" : " DIFFERS from every node's",
            100.0 * double(stats.stepNodes) / double(graph->nodeCount()), static_cast<unsigned long long>(stats.steps),
            static_cast<unsigned long long>(stats.replays),
            100.0 * double(stats.replayedNodes) / double(graph->nodeCount()));
    }
    rusage usage {};
    getrusage(RUSAGE_SELF, &usage);
    std::printf("  peak RSS %.0f MB\n", double(usage.ru_maxrss) / 1024.0);
    return 0;
}
