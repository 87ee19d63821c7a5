// Model-pass benchmark (not a test): time of buildParModel alone — the pre-pass of metrics.md that
// renames dynamic ids apart and rebuilds conjunction instances, conjuncts, futures and context
// timelines — on one eventlog read once. Prints the median of RUNS runs in ms and M events/s, with
// the model's sizes, then one RESULT line for scripts.
//
//   sparkscope-model-bench FILE [RUNS]
//
// To compare two builds (before/after a change), run this program from each build on the same file
// in the same session: scripts/bench model does that when SPARKSCOPE_BENCH_MODEL_BASELINE names the
// baseline build's binary.
#include "sparkscope/core/par_model.h"
#include "sparkscope/core/reader.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace sparkscope::core;

int main(int argc, char** argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: sparkscope-model-bench FILE [RUNS]\n");
        return 2;
    }
    const std::string path = argv[1];
    const int runs = argc > 2 ? std::max(1, std::atoi(argv[2])) : 5;
    auto trace = readTrace(path);
    if (!trace) {
        std::fprintf(stderr, "read failed: %s\n", trace.error().toString().c_str());
        return 2;
    }
    const size_t events = trace->eventCount();
    std::vector<double> ms;
    size_t conjunctions = 0, conjuncts = 0, futures = 0, contexts = 0, problems = 0;
    for (int i = 0; i < runs; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        const ParModel m = buildParModel(trace.value());
        const auto t1 = std::chrono::steady_clock::now();
        ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
        conjunctions = m.conjunctions.size();
        conjuncts = m.conjuncts.size();
        futures = m.futures.size();
        contexts = m.contexts.size();
        problems = m.problems.size();
    }
    std::vector<double> sorted = ms;
    std::sort(sorted.begin(), sorted.end());
    const double median = sorted[sorted.size() / 2];
    std::printf("%s: %zu events; model: %zu conjunctions, %zu conjuncts, %zu futures, %zu contexts, %zu problems\n",
        path.c_str(), events, conjunctions, conjuncts, futures, contexts, problems);
    std::printf("  buildParModel  %8.2f ms  %7.1f M events/s  %6.1f ns/event  (median of %d runs, min %.2f ms)\n",
        median, double(events) / median / 1e3, median * 1e6 / double(events), runs, sorted.front());
    std::printf("RESULT events=%zu model_ms=%.3f\n", events, median);
    return 0;
}
