// Peak memory by phase (not a test): the resident-set peak of each step of `sparkscope-cli metrics`
// and `analyze` on one eventlog, each step's peak measured from the end of the step before, in MB
// and bytes per event. The memory targets of big traces are met only when every step is under
// them, so this says which step to cut next (docs/performance.md).
//
//   sparkscope-phases-bench FILE
//
// The steps are core::computeMetricsWithSession's (metrics_file.cpp), taken apart here so that a
// reading can be taken between them — keep the two alike — then `metrics`' analysis report and
// `analyze`'s what-if at its default engine counts, run as analysisReportReleasing runs it: its graph
// built once the metrics and their model are let go, then the simulations. Linux keeps a process's peak RSS (VmHWM in
// /proc/self/status); writing 5 to /proc/self/clear_refs resets it to the current RSS. Without
// that file, the peaks printed are cumulative, and the program says so.
#include "bench_stats.h"
#include "sparkscope/core/analysis.h"
#include "sparkscope/core/findings.h"
#include "sparkscope/core/metrics.h"
#include "sparkscope/core/reader.h"

#include <chrono>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <cstdio>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

using namespace sparkscope::core;

namespace {

// A field of /proc/self/status in KiB (0 if unreadable): VmHWM, the peak RSS since the last reset,
// or VmRSS, the RSS now.
long statusKb(const std::string& field)
{
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind(field + ":", 0) == 0)
            return std::stol(line.substr(field.size() + 1));
    return 0;
}

bool resetPeak()
{
    std::ofstream clear("/proc/self/clear_refs");
    clear << "5";
    clear.flush();
    return bool(clear);
}

struct Phase {
    std::string name;
    long peakKb, afterKb; // the step's peak, and what stays resident after it
    double seconds;
};

} // namespace

int main(int argc, char** argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: sparkscope-phases-bench FILE\n");
        return 2;
    }
    std::vector<Phase> phases;
    bool resets = true;
    auto last = std::chrono::steady_clock::now();
    auto endPhase = [&](const char* name) {
        const auto now = std::chrono::steady_clock::now();
        phases.push_back(
            { name, statusKb("VmHWM"), statusKb("VmRSS"), std::chrono::duration<double>(now - last).count() });
        resets = resetPeak() && resets;
        last = std::chrono::steady_clock::now();
    };

    resets = resetPeak();
    auto trace = readTrace(argv[1]);
    if (!trace) {
        std::fprintf(stderr, "read failed: %s\n", trace.error().toString().c_str());
        return 2;
    }
    const size_t events = trace->eventCount();
    endPhase("read the trace whole");

    // computeMetricsWithSession, step by step.
    std::optional<AnalysisSession::Reading> reading;
    MetricsInputs inputs;
    inputs.eventsRead = [&](const EngineStates& states, const ParModel& model, const SparkPoolTransfers& transfers) {
        endPhase("metrics: model, states and scans beside the events");
        reading.emplace(trace.value(), AnalysisInputs { &states, &model, &transfers });
        trace->releaseEvents();
        endPhase("analysis: its reading of the events");
    };
    Metrics metrics = computeMetrics(trace.value(), MetricsOptions {}, inputs);
    endPhase("metrics: descendant pass and summaries");
    if (!reading) {
        std::fprintf(stderr, "the metrics never said their events were read\n");
        return 2;
    }
    metrics.model.releaseTopPieces();
#if defined(__GLIBC__)
    malloc_trim(0); // as computeMetricsWithSession does here
#endif
    AnalysisSession session(std::move(*reading), AnalysisInputs { &metrics.engineStates, &metrics.model });
    endPhase("analysis: session (DAG, ledger)");
    const AnalysisReport report = analysisReport(session, AnalysisOptions {}, metrics);
    endPhase("metrics: the analysis report");
    const size_t conjunctions = metrics.model.conjunctions.size();
    session.releaseModelForWhatIf([&] { metrics = Metrics {}; });
    endPhase("analyze: the what-if's graph, the model let go first");
    const WhatIfReport predicted = session.whatIf(WhatIfOptions {});
    endPhase("analyze: the what-if (1 to 64 engines)");

    std::printf("%s: %zu events, %zu conjunction instances%s\n", argv[1], events, conjunctions,
        resets ? "" : " (peaks cumulative: /proc/self/clear_refs could not reset them)");
    std::printf("  %-52s %9s %9s %9s %8s\n", "step", "peak MB", "B/event", "after MB", "seconds");
    long top = 0;
    std::string topName;
    for (const Phase& p : phases) {
        const double mb = double(p.peakKb) * 1024 / 1e6;
        std::printf("  %-52s %9.0f %9.1f %9.0f %8.2f\n", p.name.c_str(), mb, events ? mb * 1e6 / double(events) : 0.0,
            double(p.afterKb) * 1024 / 1e6, p.seconds);
        if (p.peakKb > top)
            top = p.peakKb, topName = p.name;
    }
    std::printf("  the highest: %s\n", topName.c_str());
    std::printf("RESULT events=%zu peak_kb=%ld highest=\"%s\" predictions=%zu\n", events, top, topName.c_str(),
        predicted.predictions.size());
    (void)report;
    return 0;
}
