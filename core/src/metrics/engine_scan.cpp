// The engine scans (metrics_sections.h): one pass over each engine's events, engines in parallel,
// gathering what the engines and program sections need from the events themselves rather than from
// the model: search episodes and steal attempts (Mercury's MER_LOOKING_FOR_* / MER_WORK_STEALING
// up to the work found or ENGINE_SLEEPING), spark events and GHC's SPARK_COUNTERS, heap events,
// GC_STATS_GHC reports, and the times work became available. One pass, so every figure costs
// O(events of the engine) and the scans run beside the model pass.
#include "metrics/metrics_sections.h"

#include "sparkscope/core/event_types.h"

#include <algorithm>
#include <atomic>
#include <tbb/parallel_for.h>

namespace sparkscope::core::detail {

namespace {

    // Payload offsets (docs/eventlog-format.md section 2, and event_fields.cpp's layouts).
    constexpr size_t kHeapBytesAt = 4; // HEAP_ALLOCATED / HEAP_SIZE / HEAP_LIVE: u32 heap capset, u64 bytes
    constexpr size_t kGcStatsGenerationAt = 4; // GC_STATS_GHC: u32 heap capset, u16 generation, ...
    constexpr size_t kGcStatsParallelThreadsAt = 30; // ... u64 copied, slop, frag, u32 parallel threads
    constexpr size_t kSparkCounterBytes = 8; // SPARK_COUNTERS: kSparkCounterCount u64 fields

    // Heap and GC_STATS_GHC events, wherever they are (engines or the global buffer).
    // Whether a sample of a cumulative counter (SPARK_COUNTERS, HEAP_ALLOCATED: GHC counts both from the
    // program's start) is what the range's growth is measured from: one before the range, or one at
    // the trace's first instant — no program posts them at its start, but a cut carries the last
    // sample before its range there (cut.h), so that a cut's figures are the range's.
    bool isBaseline(const Trace& trace, uint64_t t, Range r) { return t < r.from || t == trace.firstTimeNs; }

    void scanHeapEvent(const Trace& trace, const Event& e, Range r, EngineScan& s)
    {
        const uint64_t t = e.timeNs;
        if (e.type == ev::GcStatsGhc) {
            if (r.contains(t)) {
                const Payload p = trace.payload(e);
                s.gcReports.push_back({ t, p.u16(kGcStatsGenerationAt), p.u32(kGcStatsParallelThreadsAt) });
            }
            return;
        }
        const uint64_t v = trace.payload(e).u64(kHeapBytesAt);
        if (e.type == ev::HeapAllocated && isBaseline(trace, t, r)) {
            s.allocBefore = std::max(s.allocBefore, v);
            return;
        }
        if (!r.contains(t))
            return;
        s.anyHeap = true;
        if (e.type == ev::HeapAllocated)
            s.allocLast = std::max(s.allocLast, v);
        else if (e.type == ev::HeapSize)
            s.maxSize = std::max(s.maxSize, v), s.anySize = true;
        else
            s.maxLive = std::max(s.maxLive, v), s.anyLive = true;
    }

    bool isHeapEvent(uint16_t type)
    {
        return type == ev::HeapAllocated || type == ev::HeapSize || type == ev::HeapLive || type == ev::GcStatsGhc;
    }

    // One engine's events in one pass: a switch on the types the engines and program sections read.
    EngineScan scanEngine(const Trace& trace, uint16_t engine, Range r, bool wantWorkTimes)
    {
        EngineScan s;
        bool inEpisode = false, stealOpen = false, asleep = false;
        uint64_t episodeStart = 0, stealStart = 0;
        SearchSource lastSource = kGlobalQueue;
        auto closeSteal = [&](uint64_t t, bool productive) {
            if (stealOpen && r.contains(stealStart))
                s.steals.push_back({ stealStart, t, engine, productive });
            stealOpen = false;
        };
        forEachEngineEvent(trace, engine, [&](const Event& e) {
            const uint64_t t = e.timeNs;
            const bool in = r.contains(t);
            switch (e.type) {
            case ev::MerLookingForGlobalContext:
            case ev::MerLookingForLocalSpark:
            case ev::MerWorkStealing: {
                const SearchSource source = e.type == ev::MerLookingForGlobalContext ? kGlobalQueue
                    : e.type == ev::MerLookingForLocalSpark                          ? kLocalDeque
                                                                                     : kSteal;
                if (!inEpisode) {
                    inEpisode = true;
                    episodeStart = t;
                }
                if (asleep && wantWorkTimes)
                    s.wakeSearches.push_back(t);
                asleep = false;
                if (in)
                    ++s.tries[source];
                lastSource = source;
                if (source == kSteal && !stealOpen) {
                    stealOpen = true;
                    stealStart = t;
                }
                break;
            }
            case ev::RunThread:
            case ev::MerSparkRun:
            case ev::MerSparkSteal: {
                if (e.type == ev::MerSparkRun)
                    s.runLocal += in;
                if (e.type == ev::MerSparkSteal)
                    s.stolen += in;
                if (!inEpisode)
                    break;
                const SearchSource source = e.type == ev::RunThread ? lastSource
                    : e.type == ev::MerSparkRun                     ? kLocalDeque
                                                                    : kSteal;
                if (r.contains(episodeStart)) {
                    ++s.successes[source];
                    s.timeToFind.push_back(double(t - episodeStart));
                }
                closeSteal(t, e.type != ev::RunThread);
                inEpisode = false;
                break;
            }
            case ev::MerEngineSleeping:
                asleep = true;
                if (inEpisode && r.contains(episodeStart))
                    s.timeToSleep.push_back(double(t - episodeStart));
                closeSteal(t, false);
                inEpisode = false;
                break;
            case ev::MerSparkCreate:
            case ev::SparkCreate:
                if (in)
                    ++s.created;
                if (wantWorkTimes)
                    s.workTimes.push_back(t);
                break;
            case ev::HeapAllocated:
            case ev::HeapSize:
            case ev::HeapLive:
            case ev::GcStatsGhc:
                scanHeapEvent(trace, e, r, s);
                break;
            case ev::ThreadRunnable:
                if (wantWorkTimes)
                    s.workTimes.push_back(t);
                break;
            case ev::SparkRun:
                s.runLocal += in;
                break;
            case ev::SparkSteal:
                s.stolen += in;
                break;
            case ev::SparkDud:
                s.dud += in;
                break;
            case ev::SparkOverflow:
                s.overflowed += in;
                break;
            case ev::SparkFizzle:
                s.fizzled += in;
                break;
            case ev::SparkGc:
                s.gcd += in;
                break;
            case ev::SparkCounters: {
                const Payload p = trace.payload(e);
                std::array<uint64_t, kSparkCounterCount> v;
                for (size_t i = 0; i < kSparkCounterCount; ++i)
                    v[i] = p.u64(kSparkCounterBytes * i);
                if (isBaseline(trace, t, r))
                    s.countersBefore = v;
                else if (r.contains(t)) {
                    s.countersLast = v;
                    s.hasCounters = true;
                }
                break;
            }
            default:
                break;
            }
        });
        return s;
    }

} // namespace

bool anyEngineSleeps(const Trace& trace)
{
    std::atomic<bool> any { false };
    tbb::parallel_for(size_t(0), trace.engines.size(), [&](size_t e) {
        if (!any.load(std::memory_order_relaxed)
            && std::any_of(trace.engines[e].begin(), trace.engines[e].end(),
                [](const Event& x) { return x.type == ev::MerEngineSleeping; }))
            any = true;
    });
    return any;
}

std::vector<EngineScan> scanEngines(const Trace& trace, Range r, bool wantWorkTimes)
{
    std::vector<EngineScan> scans(trace.engines.size());
    tbb::parallel_for(
        size_t(0), scans.size(), [&](size_t e) { scans[e] = scanEngine(trace, uint16_t(e), r, wantWorkTimes); });
    return scans;
}

EngineScan scanGlobalHeap(const Trace& trace, Range r)
{
    EngineScan s;
    for (const Event& e : trace.global)
        if (isHeapEvent(e.type))
            scanHeapEvent(trace, e, r, s);
    return s;
}

// With SPARK_COUNTERS (GHC) their change over the range wins; otherwise the individual spark events
// count (converted = run locally + stolen).
uint64_t sparkCountsField(const EngineScan& s, SparkCounter i)
{
    if (s.hasCounters)
        return s.countersLast[i] - std::min(s.countersLast[i], s.countersBefore[i]);
    const uint64_t fromEvents[kSparkCounterCount]
        = { s.created, s.dud, s.overflowed, s.runLocal + s.stolen, s.gcd, s.fizzled, 0 };
    return fromEvents[i];
}

MetricValue sparkCounts(const EngineScan& s)
{
    return fieldsValue({ { "created", I(sparkCountsField(s, kCreated)) }, { "run_local", I(s.runLocal) },
        { "stolen", I(s.stolen) }, { "dud", I(sparkCountsField(s, kDud)) },
        { "overflowed", I(sparkCountsField(s, kOverflowed)) }, { "converted", I(sparkCountsField(s, kConverted)) },
        { "fizzled", I(sparkCountsField(s, kFizzled)) }, { "gcd", I(sparkCountsField(s, kGcd)) } });
}

} // namespace sparkscope::core::detail
