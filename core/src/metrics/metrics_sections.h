#pragma once
// Internal to core (not installed): what computeMetrics (metrics.cpp) shares with the functions that
// build the sections of the report, one file per section (docs/metrics.md, "The metrics file"):
//   program_section.cpp       program: CPUs, GC, sparks, contexts, heap; and the contexts' curves
//   engines_section.cpp       engines: per engine and "all"       (engine_scan.cpp: the event scans)
//   named_groups.cpp          conjunction instances and futures grouped by name, for the sections below
//   instance_figures.cpp      the per-instance figures, beside the descendant pass
//   group_summaries.cpp       the per-group Stats of those figures, in parallel
//   conjunction_sections.cpp  conjunctions and conjuncts
//   futures_section.cpp       futures
//   scheduling_section.cpp    scheduling
// MetricsBasis is what every section reads: the trace, the range, the model, the engine states and
// the engine scans, all made once by the first passes. Everything here runs inside one computeMetrics
// call; nothing is shared between calls.
#include "sparkscope/core/metrics.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace sparkscope::core::detail {

// The report's integer fields are int64_t: I(x) is their cast.
using I = int64_t;

// The report's range [from, to): options.fromNs / toNs within the trace.
// [from, to), and the trace's last instant too when the range reaches it: events stamped there (a
// capability's last SPARK_COUNTERS, a run's contexts released at its very end) are in the whole trace.
struct Range {
    uint64_t from, to;
    bool toEnd = false; // `to` is the trace's last instant
    bool contains(uint64_t t) const { return t >= from && (t < to || (toEnd && t == to)); }
    // Instances are taken by their start in [from, to) alone, as the descendant pass takes them: one
    // starting at the trace's last instant has no time in the range.
    bool startsIn(uint64_t t) const { return t >= from && t < to; }
};

MetricValue statValue(const std::vector<double>& values);
MetricValue statValue(const Stat& stat);
MetricValue fieldsValue(std::vector<std::pair<std::string, Scalar>> fields);
inline double ratio(double a, double b) { return b == 0 ? 0.0 : a / b; }

// Who made a future wait, for "first wait" (FUTURE_SUSPEND_*_FIRST_WAIT*): its conjunct or, outside
// any conjunct, its context, counted down from kNoIndex - 1 so that the two never meet. A raw key:
// it mixes two kinds of index on purpose, and is only compared with others of its kind.
inline uint32_t waitConsumer(const FutureWait& w)
{
    return w.conjunct.valid() ? w.conjunct.value() : kNoIndex - 1 - w.context.value();
}

// Where an engine looks for work (ENGINE_SEARCH_SUCCESS), in the report's order.
enum SearchSource : size_t { kGlobalQueue, kLocalDeque, kSteal, kSearchSourceCount };

// SPARK_COUNTERS' fields, in the event's order (GC'd precedes fizzled on the wire).
enum SparkCounter : size_t { kCreated, kDud, kOverflowed, kConverted, kGcd, kFizzled, kRemaining, kSparkCounterCount };

// What one engine's event scan yields (search episodes, steal attempts, spark events, counters).
struct EngineScan {
    std::array<uint64_t, kSearchSourceCount> tries {}, successes {};
    std::vector<double> timeToFind, timeToSleep;
    struct Attempt {
        uint64_t start, end;
        uint16_t engine;
        bool productive;
    };
    std::vector<Attempt> steals;
    uint64_t created = 0, runLocal = 0, stolen = 0, dud = 0, overflowed = 0, fizzled = 0, gcd = 0;
    bool hasCounters = false;
    // SPARK_COUNTERS before / within the range.
    std::array<uint64_t, kSparkCounterCount> countersBefore {}, countersLast {};
    // MER_SPARK_CREATE / SPARK_CREATE / THREAD_RUNNABLE: work made available; only kept when some
    // engine can sleep (ENGINE_WAKE_LATENCY).
    std::vector<uint64_t> workTimes;
    // The first search event (108/109/112) after each ENGINE_SLEEPING, sorted: where a sleep's wake
    // shows (ENGINE_WAKE_LATENCY); kept with workTimes. A sleep without one (an engine shut down
    // asleep) woke for no work.
    std::vector<uint64_t> wakeSearches;
    // GHC heap figures (HEAP_ALLOCATED, HEAP_SIZE, HEAP_LIVE) and GC_STATS_GHC reports (time,
    // generation, parallel threads).
    bool anyHeap = false, anySize = false, anyLive = false; // HEAP_* events in the range; HEAP_SIZE, HEAP_LIVE among them
    uint64_t maxSize = 0, maxLive = 0, allocLast = 0, allocBefore = 0;
    struct GcReport {
        uint64_t timeNs;
        uint16_t generation;
        uint32_t threads;
    };
    std::vector<GcReport> gcReports;
};

// engine_scan.cpp. Whether some engine has an ENGINE_SLEEPING event (parallel per engine).
bool anyEngineSleeps(const Trace& trace);
// Each engine's scan over the range, in parallel; work-available times only with wantWorkTimes.
std::vector<EngineScan> scanEngines(const Trace& trace, Range r, bool wantWorkTimes);
// The heap and GC_STATS_GHC events of the global buffer.
EngineScan scanGlobalHeap(const Trace& trace, Range r);
// SPARK_COUNTERS' field i of one engine over the range (see engine_scan.cpp), and SPARK_COUNTS.
uint64_t sparkCountsField(const EngineScan& s, SparkCounter i);
MetricValue sparkCounts(const EngineScan& s);

// What every section is built from: made once by computeMetrics's first passes, then read only (the
// model it refers to gets its top-piece index later, once the events are released: computeMetrics).
struct MetricsBasis {
    const Trace& trace;
    const MetricsOptions& options;
    Range range;
    const ParModel& model;
    const EngineStates& engineStates;
    const StepFunction& cpus; // CPUS_OVER_TIME
    size_t engines;
    uint64_t firstNs, lastNs; // the engine states' span: the domain of the curves over time
    std::vector<EngineScan> scans; // per engine
    EngineScan globalScan; // the global buffer's heap and GC_STATS_GHC events
    std::vector<std::pair<uint64_t, uint64_t>> gcs; // GC collections: the union over engines, sorted
    SparkPoolTransfers transfers; // what other engines took from each spark pool (deque_sizes.h)
};

// The union over engines of their Gc intervals, sorted and disjoint.
std::vector<std::pair<uint64_t, uint64_t>> gcCollections(const EngineStates& states);
// Contexts runnable (not running) and blocked over time, for the program section.
void contextCurves(const ParModel& m, uint64_t firstNs, uint64_t lastNs, StepFunction& runnable, StepFunction& blocked);

struct InstanceFigures; // instance_figures.h
struct GroupSummaries; // group_summaries.h

// One function per section of the report, in the report's order. CONJUNCT_GRANULARITY of the
// program's "all" group needs the conjuncts' figures, which come later: addConjunctGranularityOfAll
// (conjunction_sections.cpp) adds it then.
MetricSection buildProgramSection(
    const MetricsBasis& b, const StepFunction& contextsRunnable, const StepFunction& contextsBlocked);
void addConjunctGranularityOfAll(MetricSection& program, const InstanceFigures& figures);
MetricSection buildEnginesSection(const MetricsBasis& b);
MetricSection buildConjunctionsSection(
    const MetricsBasis& b, const InstanceFigures& figures, const GroupSummaries& summaries);
MetricSection buildConjunctsSection(const InstanceFigures& figures);
MetricSection buildFuturesSection(const MetricsBasis& b);
MetricSection buildSchedulingSection(const InstanceFigures& figures, const GroupSummaries& summaries);

} // namespace sparkscope::core::detail
