// The program section (docs/metrics.md): the whole program over the range, group "all" (CPUs, GC
// time, sparks, contexts, incomplete instances, GHC's heap figures) and one group per GC generation
// (GHC's GC_STATS_GHC reports). Also the two curves over time the program's CONTEXT_COUNTS reads and
// the app draws: contexts runnable and blocked. Everything here is a sum or a maximum over engines
// or contexts, cheap beside the conjunction sections.
#include "metrics/metrics_sections.h"

#include <algorithm>
#include <map>
#include <tbb/parallel_for.h>
#include <tbb/parallel_invoke.h>

namespace sparkscope::core::detail {

namespace {

    constexpr double kNsPerSecond = 1e9;

    // Overlap of [a, b) with [from, to).
    uint64_t overlap(uint64_t a, uint64_t b, uint64_t from, uint64_t to)
    {
        const uint64_t x = std::max(a, from), y = std::min(b, to);
        return y > x ? y - x : 0;
    }

    // CPUS_OVER_TIME: max, average and the fraction of the range at each number of CPUs.
    MetricValue cpusOverTimeValue(const MetricsBasis& b)
    {
        const Range r = b.range;
        MetricValue cpus;
        cpus.fields.push_back({ "max", b.cpus.max(I(r.from), I(r.to)) });
        cpus.fields.push_back({ "average", b.cpus.average(I(r.from), I(r.to)) });
        const auto levels = b.cpus.timeAtEachValue(I(r.from), I(r.to));
        const double span = double(r.to - r.from);
        for (size_t k = 0; k <= b.engines; ++k) {
            auto it = levels.find(I(k));
            cpus.fields.push_back({ "fraction_at_" + std::to_string(k),
                it == levels.end() || span == 0 ? 0.0 : double(it->second) / span });
        }
        return cpus;
    }

    // The GC collections' time within the range: each collection's part, and their sum.
    struct GcTime {
        std::vector<double> durations;
        uint64_t totalNs = 0;
    };

    GcTime gcTime(const std::vector<std::pair<uint64_t, uint64_t>>& gcs, Range r)
    {
        GcTime out;
        for (const auto& g : gcs) {
            const uint64_t d = overlap(g.first, g.second, r.from, r.to);
            if (d > 0) {
                out.durations.push_back(double(d));
                out.totalNs += d;
            }
        }
        return out;
    }

    MetricValue mutatorVsGcTime(uint64_t total, uint64_t gcTotal)
    {
        return fieldsValue(
            { { "total_ns", I(total) }, { "gc_ns", I(gcTotal) }, { "mutator_ns", I(total - std::min(total, gcTotal)) },
                { "gc_fraction", ratio(double(gcTotal), double(total)) },
                { "productivity", total == 0 ? 0.0 : 1.0 - ratio(double(gcTotal), double(total)) } });
    }

    // SPARK_COUNTS of the program: each engine's counts (from its SPARK_COUNTERS where it has them),
    // added up.
    MetricValue sparkCountsOfAll(const std::vector<EngineScan>& scans)
    {
        EngineScan sum;
        for (const auto& s : scans) {
            sum.created += sparkCountsField(s, kCreated);
            sum.runLocal += s.runLocal;
            sum.stolen += s.stolen;
            sum.dud += sparkCountsField(s, kDud);
            sum.overflowed += sparkCountsField(s, kOverflowed);
            sum.fizzled += sparkCountsField(s, kFizzled);
            sum.gcd += sparkCountsField(s, kGcd);
        }
        MetricValue v = sparkCounts(sum);
        uint64_t converted = 0;
        for (const auto& s : scans)
            converted += sparkCountsField(s, kConverted);
        for (auto& [k, f] : v.fields)
            if (k == "converted")
                f = I(converted);
        return v;
    }

    // The heap figures of the global buffer and every engine, and their GC_STATS_GHC reports (the
    // global buffer's first, then each engine's in engine order).
    EngineScan heapOfAll(const MetricsBasis& b)
    {
        EngineScan heap = b.globalScan;
        for (const auto& sc : b.scans) {
            heap.anyHeap = heap.anyHeap || sc.anyHeap;
            heap.anySize = heap.anySize || sc.anySize;
            heap.anyLive = heap.anyLive || sc.anyLive;
            heap.maxSize = std::max(heap.maxSize, sc.maxSize);
            heap.maxLive = std::max(heap.maxLive, sc.maxLive);
            heap.gcReports.insert(heap.gcReports.end(), sc.gcReports.begin(), sc.gcReports.end());
        }
        return heap;
    }

    // What was allocated in the range: HEAP_ALLOCATED is each capability's own running total (GHC
    // posts one per capability), so the sum of each source's growth over the range, as ThreadScope
    // sums them.
    uint64_t allocatedOfAll(const MetricsBasis& b)
    {
        const auto growth = [](const EngineScan& s) { return s.allocLast - std::min(s.allocLast, s.allocBefore); };
        uint64_t allocated = growth(b.globalScan);
        for (const auto& sc : b.scans)
            allocated += growth(sc);
        return allocated;
    }

    MetricValue heapValue(const EngineScan& heap, uint64_t allocated, uint64_t mutatorNs)
    {
        const double mutatorSeconds = double(mutatorNs) / kNsPerSecond;
        // A maximum of no samples is absent, not 0 bytes: a log with HEAP_ALLOCATED alone says nothing
        // of the heap's size.
        std::vector<std::pair<std::string, Scalar>> fields;
        if (heap.anySize)
            fields.push_back({ "max_heap_size_bytes", I(heap.maxSize) });
        if (heap.anyLive)
            fields.push_back({ "max_live_bytes", I(heap.maxLive) });
        fields.push_back({ "total_allocated_bytes", I(allocated) });
        fields.push_back(
            { "allocation_rate_bytes_per_s", mutatorSeconds == 0 ? 0.0 : double(allocated) / mutatorSeconds });
        return fieldsValue(std::move(fields));
    }

    // How many of the sorted times are in the range: [from, to), and the trace's last instant too
    // when the range reaches it (a run's contexts are released at its very end).
    uint64_t countIn(const std::vector<uint64_t>& times, const MetricsBasis& b)
    {
        const auto from = std::lower_bound(times.begin(), times.end(), b.range.from);
        const auto to = b.range.toEnd ? std::upper_bound(from, times.end(), b.range.to)
                                                         : std::lower_bound(from, times.end(), b.range.to);
        return uint64_t(to - from);
    }

    // INCOMPLETE_INSTANCES of the instances the conjunction and future sections take (those of the
    // conjunctions that start in the range: their INSTANCES.incomplete add up to these), and the
    // model's problems in the range (all of them for the whole trace, those tied to no event too).
    MetricValue incompleteInstances(const MetricsBasis& b)
    {
        const ParModel& m = b.model;
        uint64_t conjunctions = 0, conjuncts = 0, futures = 0;
        for (size_t j = 0; j < m.conjunctions.size(); ++j) {
            const ConjunctionInstance& ci = m.conjunctions[j];
            if (!b.range.startsIn(ci.startNs))
                continue;
            conjunctions += !ci.complete;
            for (ConjunctIndex k : ci.conjuncts)
                conjuncts += !m.conjunct(k).complete;
            for (FutureIndex f : m.futuresOf(ConjunctionIndex(uint32_t(j))))
                futures += !m.future(f).complete;
        }
        const bool whole = b.options.fromNs == 0 && b.options.toNs == UINT64_MAX;
        const uint64_t problems = whole ? m.problems.size()
                                        : uint64_t(std::count_if(m.problems.begin(), m.problems.end(),
                                            [&](const Problem& p) { return b.range.contains(p.timeNs); }));
        return fieldsValue({ { "conjunctions", I(conjunctions) }, { "conjuncts", I(conjuncts) },
            { "futures", I(futures) }, { "problems", I(problems) } });
    }

    // The per-generation GC table: one group per generation, from GC_STATS_GHC reports, each report's
    // pause being the collection it belongs to (the last one starting at or before it), clipped to
    // the range as GC_STATS clips it.
    std::vector<MetricGroup> generationGroups(const std::vector<EngineScan::GcReport>& reports,
        const std::vector<std::pair<uint64_t, uint64_t>>& gcs, Range range)
    {
        struct Gen {
            uint64_t collections = 0, parallel = 0;
            std::vector<double> pauses;
        };
        std::map<uint16_t, Gen> gens;
        for (const auto& rep : reports) {
            Gen& g = gens[rep.generation];
            ++g.collections;
            if (rep.threads > 1)
                ++g.parallel;
            auto it = std::upper_bound(
                gcs.begin(), gcs.end(), rep.timeNs, [](uint64_t x, const auto& c) { return x < c.first; });
            if (it != gcs.begin()) {
                const uint64_t from = std::max(std::prev(it)->first, range.from);
                const uint64_t to = std::min(std::prev(it)->second, range.to);
                g.pauses.push_back(double(to - std::min(to, from)));
            }
        }
        std::vector<MetricGroup> out;
        for (auto& [gen, g] : gens) {
            const Stat pauses = Stat::of(g.pauses);
            out.push_back({ "gen" + std::to_string(gen),
                { { "GC_GENERATION",
                    fieldsValue({ { "collections", I(g.collections) }, { "parallel_collections", I(g.parallel) },
                        { "elapsed_ns", pauses.sum }, { "mean_pause_ns", pauses.mean },
                        { "max_pause_ns", pauses.max } }) } } });
        }
        return out;
    }

} // namespace

std::vector<std::pair<uint64_t, uint64_t>> gcCollections(const EngineStates& states)
{
    std::vector<std::pair<uint64_t, uint64_t>> all, gcs;
    for (const auto& engine : states.engines)
        for (const auto& s : engine)
            if (s.state == EngineState::Gc)
                all.push_back({ s.startNs, s.endNs });
    std::sort(all.begin(), all.end());
    for (const auto& iv : all) {
        if (!gcs.empty() && iv.first <= gcs.back().second)
            gcs.back().second = std::max(gcs.back().second, iv.second);
        else
            gcs.push_back(iv);
    }
    return gcs;
}

// One sorted run of deltas per context, merged.
void contextCurves(const ParModel& m, uint64_t firstNs, uint64_t lastNs, StepFunction& runnable, StepFunction& blocked)
{
    std::vector<std::vector<StepFunction::Step>> runnableRuns(m.contexts.size()), blockedRuns(m.contexts.size());
    tbb::parallel_for(size_t(0), m.contexts.size(), [&](size_t c) {
        const auto& segs = m.contexts[c].segments;
        for (size_t i = 0; i < segs.size(); ++i) {
            const auto& seg = segs[i];
            const uint64_t end = i + 1 < segs.size() ? segs[i + 1].startNs : lastNs;
            auto* v = seg.state == ContextState::Runnable ? &runnableRuns[c]
                : seg.state == ContextState::Blocked      ? &blockedRuns[c]
                                                          : nullptr;
            if (v && end > seg.startNs) {
                v->push_back({ I(seg.startNs), 1 });
                v->push_back({ I(end), -1 });
            }
        }
    });
    tbb::parallel_invoke(
        [&] { runnable = StepFunction::fromSortedDeltaRuns(std::move(runnableRuns), I(firstNs), I(lastNs)); },
        [&] { blocked = StepFunction::fromSortedDeltaRuns(std::move(blockedRuns), I(firstNs), I(lastNs)); });
}

MetricSection buildProgramSection(
    const MetricsBasis& b, const StepFunction& contextsRunnable, const StepFunction& contextsBlocked)
{
    const Range r = b.range;
    const ParModel& m = b.model;
    MetricGroup all { "all", {} };
    all.metrics.push_back({ "CPUS_OVER_TIME", cpusOverTimeValue(b) });
    const GcTime gc = gcTime(b.gcs, r);
    all.metrics.push_back({ "GC_STATS", statValue(gc.durations) });
    const uint64_t total = r.to - r.from;
    all.metrics.push_back({ "MUTATOR_VS_GC_TIME", mutatorVsGcTime(total, gc.totalNs) });
    if (b.options.callCount && *b.options.callCount > 0) {
        const int64_t userNs = b.cpus.integral(I(r.from), I(r.to));
        all.metrics.push_back({ "NANOSECS_PER_CALL",
            fieldsValue({ { "value", double(userNs) / double(*b.options.callCount) },
                { "call_count", I(*b.options.callCount) }, { "user_time_ns", userNs } }) });
    }
    all.metrics.push_back({ "SPARK_COUNTS", sparkCountsOfAll(b.scans) });
    all.metrics.push_back({ "CONTEXT_COUNTS",
        fieldsValue({ { "created", I(countIn(m.contextCreations, b)) }, { "reused", I(countIn(m.contextReuses, b)) },
            { "released", I(countIn(m.contextReleases, b)) },
            { "runnable_max", contextsRunnable.max(I(r.from), I(r.to)) },
            { "runnable_average", contextsRunnable.average(I(r.from), I(r.to)) },
            { "blocked_max", contextsBlocked.max(I(r.from), I(r.to)) },
            { "blocked_average", contextsBlocked.average(I(r.from), I(r.to)) } }) });
    all.metrics.push_back({ "INCOMPLETE_INSTANCES", incompleteInstances(b) });
    const EngineScan heap = heapOfAll(b);
    if (heap.anyHeap)
        all.metrics.push_back({ "HEAP", heapValue(heap, allocatedOfAll(b), total - std::min(total, gc.totalNs)) });
    MetricSection program { "program", {} };
    program.groups.push_back(std::move(all));
    for (MetricGroup& g : generationGroups(heap.gcReports, b.gcs, b.range))
        program.groups.push_back(std::move(g));
    return program;
}

} // namespace sparkscope::core::detail
