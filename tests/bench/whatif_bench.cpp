// What-if benchmark (not a test): on one eventlog of our runtime, the analysis as `sparkscope-cli
// analyze` does it (AnalysisSession, the public API), predict() for the default engine counts (all in
// parallel, as the CLI runs them), and the simulation alone at each engine count (single-threaded,
// core/src/analysis/simulate.h over the DAG's forward view), so the cost of one P is seen apart.
//
//   sparkscope-whatif-bench FILE [RUNS]
//
// Prints the median of RUNS (default 3) runs of each figure, and the process's peak RSS.
#include "analysis/engine_activity.h"
#include "analysis/run_dag.h"
#include "analysis/sim_graph.h"
#include "analysis/simulate.h"
#include "bench_stats.h"
#include "sparkscope/core/analysis.h"
#include "sparkscope/core/reader.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <sys/resource.h>

using namespace sparkscope::core;
using sparkscope::bench::median;

namespace {

double timed(int runs, const std::function<void()>& f)
{
    std::vector<double> s;
    for (int i = 0; i < runs; ++i) {
        const auto a = std::chrono::steady_clock::now();
        f();
        s.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count());
    }
    return median(s);
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

    std::unique_ptr<AnalysisSession> session;
    const double build = timed(runs, [&] { session = std::make_unique<AnalysisSession>(t); });
    const double analysis = timed(runs, [&] { (void)session->analyze(); });
    WhatIfOptions all;
    (void)session->predict(all); // the forward view of the DAG is built once, on first use
    const double predictAll = timed(runs, [&] { (void)session->predict(all); });
    std::printf("  analysis: session %.3f s + analyze() %.3f s; predict(1, 2, ..., 64) %.3f s (engine counts in "
                "parallel; the DAG's forward view built before)\n",
        build, analysis, predictAll);

    // The simulation alone, one engine count at a time, on one thread.
    const ParModel model = buildParModel(t);
    const EngineStates states = computeEngineStates(t);
    const detail::EngineActivity activity(t, states, model);
    const detail::RunDag dag(model);
    std::unique_ptr<detail::SimGraph> graph;
    const double view = timed(runs,
        [&] { graph = std::make_unique<detail::SimGraph>(dag, dag.weights(activity, t.firstTimeNs, t.lastTimeNs)); });
    std::printf("  forward view (weights and SimGraph): %.3f s, %zu cuts\n", view, dag.cutCount());
    const CostModel costs = session->measuredCosts();
    for (uint32_t p : all.engines) {
        uint64_t wall = 0;
        const double s = timed(runs, [&] { wall = detail::simulate(*graph, graph->nodes(), p, costs, false).wallNs; });
        std::printf("  P = %2u: simulation %.3f s (predicted wall %.6f s)\n", p, s, double(wall) / 1e9);
    }
    rusage usage {};
    getrusage(RUSAGE_SELF, &usage);
    std::printf("  peak RSS %.0f MB\n", double(usage.ru_maxrss) / 1024.0);
    return 0;
}
