#pragma once
// Metric derivation: every metric of the metrics specification (docs/metrics.md), computed from a
// Trace through its engine states (engine_states.h) and its parallel model (par_model.h).
//
// The result has two faces:
//   - typed curves (StepFunction) the UI draws and queries by time range: CPUS_OVER_TIME, contexts
//     runnable / blocked over time, and, per conjunction instance on demand, RUNNABLE_SELF[_AND_DESC],
//     RUNNING_SELF[_AND_DESC] and AVAIL_CPUS (conjunctionCurves). SPARK_DEQUE_SIZE is summarised
//     while streaming and not kept (millions of steps per engine on a GHC log; the timeline builds
//     its own per-engine curves where it draws them);
//   - a report: sections (program, engines, conjunctions, conjuncts, futures, scheduling) of groups
//     (an engine, a static id, a (static id, position), ...) of metrics keyed exactly as in the
//     specification. metrics_export.h writes it as JSON or CSV; the CLI and the app use the same code.
//
// Summaries: count, min, max, mean, population variance and sum over the complete instances of a
// group (incomplete instances are counted in INSTANCES and left out). Curves are summarised per
// instance as max and time-weighted average over its lifetime, and those per-instance values are in
// turn summarised per group.
//
// Cost: engine states and curves O(n log n); the model one linear pass; the descendant figures of
// every instance O(changes x min(nesting depth, log n)) (descendant_pass.cpp); groups are computed in
// parallel with TBB. Thread safety:
// computeMetrics is reentrant; results are plain values.
#include "sparkscope/core/deque_sizes.h"
#include "sparkscope/core/engine_states.h"
#include "sparkscope/core/par_model.h"
#include "sparkscope/core/step_function.h"
#include "sparkscope/core/trace.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace sparkscope::core {

// count / min / max / mean / variance (population) / sum of a set of values (all 0 when empty).
// sum, mean and variance are the exact values rounded once to the nearest double, so a Stat does
// not depend on the order of its values (docs/metrics.md, "Stats").
struct Stat {
    uint64_t count = 0;
    double min = 0, max = 0, mean = 0, variance = 0, sum = 0;
    static Stat of(const std::vector<double>& values);
};

using Scalar = std::variant<int64_t, double, std::string>;

// One metric: a Stat, or named scalar fields and named sub-statistics (e.g. a curve's per-instance
// max and average, each summarised as a Stat). Field order is the output order.
struct MetricValue {
    std::optional<Stat> stat;
    std::vector<std::pair<std::string, Scalar>> fields;
    std::vector<std::pair<std::string, Stat>> subStats;
};

struct MetricGroup {
    std::string id; // e.g. "all", "0" (an engine), "fib.m:12" (a static id), "fib.m:12/2"
    std::vector<std::pair<std::string, MetricValue>> metrics; // key -> value, in output order
};

struct MetricSection {
    std::string name; // program, engines, conjunctions, conjuncts, futures, scheduling
    std::vector<MetricGroup> groups;
};

struct MetricsOptions {
    std::optional<uint64_t> callCount; // --csc N: the sequential call-sequence count (NANOSECS_PER_CALL)
    bool instances = false; // --instances: list every conjunction instance too
    uint64_t fromNs = 0; // --from / --to: restrict whole-program figures and instances to [from, to)
    uint64_t toNs = UINT64_MAX;
};

// The parts of a trace the `trace` section describes.
struct TraceSummary {
    std::string path;
    uint64_t fileSize = 0;
    uint64_t engines = 0;
    uint64_t firstNs = 0, lastNs = 0;
    uint64_t eventCount = 0;
    std::vector<std::string> warnings;
    // Our runtime's limit on live contexts, when its RTS_IDENTIFIER gives it (contextLimitOf).
    std::optional<uint64_t> contextLimit;
    // The CPUs the program could run on, when our runtime's RTS_IDENTIFIER gives them (cpusOf).
    std::optional<uint64_t> cpus;
    // The header declares an engine's search for work (Mercury's 108, 109, 112; recordsEngineSearch).
    // Without them the search metrics (ENGINE_SEARCH_SUCCESS, ENGINE_TIME_TO_*, ENGINE_WAKE_LATENCY,
    // STEAL_CONTENTION) and the searching and sleeping state times are not zero but not measured.
    bool engineSearch = false;
};

// The live-context limit our runtime writes in its RTS_IDENTIFIER ("sparkscope-0.1.0
// max-contexts=128"): at the limit, a spark waits for an engine that has a context to run it on
// rather than waking a sleeping engine (docs/runtime.md). nullopt for other runtimes.
std::optional<uint64_t> contextLimitOf(const Trace& trace);
// The CPUs the program could run on (its affinity mask), as our runtime writes them in its
// RTS_IDENTIFIER ("... cpus=2"): more engines than CPUs take turns on them, so an engine woken for
// work waits for a CPU. nullopt for other runtimes and for traces of builds that did not write them.
std::optional<uint64_t> cpusOf(const Trace& trace);
// The interval at which our runtime's engines write their events when the trace is meant to be
// followed ("... flush-ms=100", SPARKSCOPE_TRACE_FLUSH_MS); such a runtime also writes an engine's
// wake-up at once. nullopt for other runtimes and for traces written without an interval.
std::optional<uint64_t> flushMsOf(const Trace& trace);
// The same read from an RTS_IDENTIFIER's text (after its capset), for a pass that streams the events.
std::optional<uint64_t> flushMsOfIdentifier(std::string_view text);
// Whether the trace's header declares the events of an engine's search for work (108, 109, 112, in
// the range GHC leaves to Mercury): our runtime's traces do, GHC's eventlogs do not.
bool recordsEngineSearch(const Trace& trace);

struct Metrics {
    TraceSummary trace;
    MetricsOptions options;
    EngineStates engineStates;
    ParModel model;
    StepFunction cpusOverTime;
    std::vector<MetricSection> sections; // program, engines, conjunctions, conjuncts, futures, scheduling

    const MetricSection* section(const std::string& name) const;
    // The metric `key` of group `id` in `section`, or nullptr.
    const MetricValue* find(const std::string& section, const std::string& id, const std::string& key) const;
};

Metrics computeMetrics(const Trace& trace, const MetricsOptions& options = {});

// What computeMetrics derives from the trace alone, whatever the options. A caller that already has
// them for this trace (the whole-trace result, when the app recomputes for a selection or a call
// count) lends them, and computeMetrics neither rebuilds nor copies them: on our runtime's traces the
// model is the larger part of the metrics' memory and time. Borrowed for the call only.
struct MetricsInputs {
    const EngineStates* engineStates = nullptr; // used only together with cpusOverTime
    const StepFunction* cpusOverTime = nullptr;
    const ParModel* model = nullptr;
    // Called once, with the engine states, the model and the spark pools' transfers, when the passes
    // have read the trace's events for the last time (before the descendant pass, the metrics' peak): a
    // caller giving the trace up reads what else it needs from the events there and releases them. The
    // references hold for the call only; the model's top-piece index (ParModel::hasTopPieces) is built
    // after the call, when the metrics built the model.
    std::function<void(const EngineStates&, const ParModel&, const SparkPoolTransfers&)> eventsRead;
};
// The same report as computeMetrics(trace, options). The result's engineStates / cpusOverTime and
// model are left empty where they were lent (the lender keeps them).
Metrics computeMetrics(const Trace& trace, const MetricsOptions& options, const MetricsInputs& inputs);

// Per-instance curves of conjunction instance j over [start, end) (empty for an instance that never
// ended). AVAIL_CPUS = engines - (CPUS_OVER_TIME - RUNNING_SELF_AND_DESC).
struct ConjunctionCurves {
    StepFunction runnableSelf, runnableSelfAndDesc, runningSelf, runningSelfAndDesc, availCpus;
};
ConjunctionCurves conjunctionCurves(
    const ParModel& model, const StepFunction& cpus, size_t engines, ConjunctionIndex j);

// Per-conjunct split of TIME_AS_CONTEXT: {blocked, runnable, running}; they sum to end - start.
std::array<uint64_t, 3> conjunctTimeSplit(const ParModel& model, ConjunctIndex k);

// The per-instance values of one conjunction instance that computeMetrics summarises per static id
// (and lists with --instances): PARCONJ_TIME, the max and time-weighted average over [start, end) of
// each PARCONJ_* curve, the CONTINUE_ON_* indicators (0 or 1), and the scheduling-order integrals of
// the pairs split at this instance (OUT_OF_ORDER_*: value x ns). computeMetrics and the app's
// per-instance views both use this one definition. Cost: O(changes in the instance's subtree x log)
// plus the CPUS_OVER_TIME steps during it; computeMetrics gets every instance's figures from one pass.
struct ConjunctionFigures {
    double time = 0;
    double runnableSelfMax = 0, runnableSelfAverage = 0;
    double runnableSelfAndDescMax = 0, runnableSelfAndDescAverage = 0;
    double runningSelfMax = 0, runningSelfAverage = 0;
    double runningSelfAndDescMax = 0, runningSelfAndDescAverage = 0;
    double availCpusMax = 0, availCpusAverage = 0;
    double continueOnBefore = 0, continueOnLast = 0;
    double outOfOrderNs = 0, eitherRunningNs = 0, blockingNs = 0, blockingTcNs = 0;
};
// nullopt unless instance j is complete.
std::optional<ConjunctionFigures> conjunctionFigures(
    const ParModel& model, const StepFunction& cpus, size_t engines, ConjunctionIndex j);

// The per-instance values of one conjunct that computeMetrics summarises per (static id, position).
struct ConjunctFigures {
    std::optional<double> timeAsSpark; // absent for position 1 (not spawned as a spark)
    double timeAsContext = 0, timeBlocked = 0, timeRunnable = 0, timeRunning = 0, timeAfter = 0;
};
// nullopt unless conjunct k belongs to a complete conjunction instance.
std::optional<ConjunctFigures> conjunctFigures(const ParModel& model, ConjunctIndex k);

} // namespace sparkscope::core
