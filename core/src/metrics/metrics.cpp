// Metric derivation (see metrics.h and docs/metrics.md for every definition and every choice the
// specification left open). Structure: engine states (parallel per engine) and the model pass run
// first; then each section is filled from them. Per-instance work (curves of each conjunction
// instance, per-engine event scans) runs in parallel with TBB; groups are then summarised in a
// deterministic order (sorted ids) so the output is byte-for-byte stable across runs.
//
// Conjunction, conjunct, scheduling and future summaries (millions of instances on our runtime's
// traces): the instances are grouped once by a counting sort (index_groups.h), and each group's
// Stats read the per-instance figures where they are — the descendant pass's values, a small
// SelfFigures per instance, a split per conjunct — in instance order, twice (Stat's two passes),
// through buffered columns (stat_columns.h), one parallel task per group and kind of value. Stat's
// long double sums depend on the order, so the order is kept; only the conjuncts' first pass, over
// whole nanoseconds where the sum is exact in any order, runs inside the parallel figures pass.
#include "sparkscope/core/metrics.h"
#include "sparkscope/core/deque_sizes.h"

#include "metrics/descendant/descendant_pass.h"
#include "metrics/index_groups.h"
#include "sparkscope/core/id_maps.h"
#include "metrics/stat_columns.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_invoke.h>

namespace sparkscope::core {

using detail::bindTime;
using detail::DescValues;
using detail::ExactFirstPass;
using detail::StatAccumulator;
using detail::StatColumns;
using detail::StatRows;

Stat Stat::of(const std::vector<double>& values)
{
    detail::StatAccumulator a;
    a.add(values);
    a.endFirstPass();
    a.addDeviations(values);
    return a.stat();
}

const MetricSection* Metrics::section(const std::string& name) const
{
    for (const auto& s : sections)
        if (s.name == name)
            return &s;
    return nullptr;
}

const MetricValue* Metrics::find(const std::string& sectionName, const std::string& id, const std::string& key) const
{
    const MetricSection* s = section(sectionName);
    if (!s)
        return nullptr;
    for (const auto& g : s->groups)
        if (g.id == id)
            for (const auto& [k, v] : g.metrics)
                if (k == key)
                    return &v;
    return nullptr;
}

namespace {

    using I = int64_t;

    // TIME_BLOCKED and TIME_RUNNING of one conjunct, as conjunctTimeSplit gives them (TIME_RUNNABLE
    // is the rest of its life: conjunctRunnableNs).
    struct ConjunctSplit {
        uint64_t blockedNs, runningNs;
    };

    MetricValue statValue(const std::vector<double>& values)
    {
        MetricValue v;
        v.stat = Stat::of(values);
        return v;
    }

    MetricValue fieldsValue(std::vector<std::pair<std::string, Scalar>> fields)
    {
        MetricValue v;
        v.fields = std::move(fields);
        return v;
    }

    double ratio(double a, double b) { return b == 0 ? 0.0 : a / b; }

    // Overlap of [a, b) with [from, to).
    uint64_t overlap(uint64_t a, uint64_t b, uint64_t from, uint64_t to)
    {
        const uint64_t x = std::max(a, from), y = std::min(b, to);
        return y > x ? y - x : 0;
    }

    // Adds the context-segment pieces of [a, b) of context c to the deltas: +1 on `runnable` while
    // not blocked, +1 on `running` while running. With `onlyTop`, only pieces where `conjunct` is the
    // innermost conjunct of the context count.
    template <class Deltas>
    void addPiece(uint64_t from, uint64_t to, ContextState state, Deltas& runnable, Deltas& running)
    {
        if (to <= from || state == ContextState::Blocked)
            return;
        runnable.push_back({ I(from), 1 });
        runnable.push_back({ I(to), -1 });
        if (state == ContextState::Running) {
            running.push_back({ I(from), 1 });
            running.push_back({ I(to), -1 });
        }
    }

    // Adds the pieces of [a, b) of conjunct k in context c to the deltas: +1 on `runnable` while
    // not blocked, +1 on `running` while running. With `onlyTop`, only the pieces where k is the
    // innermost conjunct of its context count (the precomputed top pieces: no search needed).
    // Without it, and given `split`, also adds the time of [a, b) the context spent Blocked and
    // Running to it: what ParModel::contextTimeInStates(c, a, b) answers, from the same walk (no
    // second search).
    template <class Deltas>
    void addContextPieces(const ParModel& m, uint32_t c, uint64_t a, uint64_t b, uint32_t conjunct, bool onlyTop,
        Deltas& runnable, Deltas& running, ConjunctSplit* split = nullptr)
    {
        if (b <= a)
            return;
        if (c == kNoIndex) {
            if (!onlyTop) {
                runnable.push_back({ I(a), 1 });
                runnable.push_back({ I(b), -1 });
            }
            return;
        }
        if (onlyTop) {
            for (const auto& p : m.topPieces(conjunct))
                addPiece(std::max(a, p.startNs), std::min(b, p.endNs), p.state, runnable, running);
            return;
        }
        const auto& segs = m.contexts[c].states;
        auto it = std::upper_bound(
            segs.begin(), segs.end(), a, [](uint64_t t, const ContextStateChange& s) { return t < s.startNs; });
        if (it != segs.begin())
            --it;
        for (; it != segs.end() && it->startNs < b; ++it) {
            const uint64_t next = (it + 1 != segs.end()) ? (it + 1)->startNs : std::max(m.endNs, b);
            const uint64_t from = std::max(a, it->startNs), to = std::min(b, next);
            addPiece(from, to, it->state, runnable, running);
            if (split && to > from) {
                if (it->state == ContextState::Blocked)
                    split->blockedNs += to - from;
                else if (it->state == ContextState::Running)
                    split->runningNs += to - from;
            }
        }
    }

    // Pieces of one conjunct: spark phase, the unbound start (runnable), then its context's pieces
    // (and their blocked and running time, see addContextPieces).
    template <class Deltas>
    void addConjunct(const ParModel& m, uint32_t k, bool onlyTop, uint64_t endLimit, Deltas& runnable, Deltas& running,
        ConjunctSplit* split = nullptr)
    {
        const ConjunctInstance& g = m.conjuncts[k];
        const uint64_t end = g.ended ? g.endNs : endLimit;
        if (g.fromSpark) {
            const uint64_t sparkEnd = g.started ? std::min(g.startNs, end) : end;
            if (sparkEnd > g.sparkCreateNs) {
                runnable.push_back({ I(g.sparkCreateNs), 1 });
                runnable.push_back({ I(sparkEnd), -1 });
            }
        }
        if (!g.started)
            return;
        const uint64_t bound = std::min(bindTime(m, g, k), end);
        if (bound > g.startNs) {
            runnable.push_back({ I(g.startNs), 1 });
            runnable.push_back({ I(bound), -1 });
        }
        addContextPieces(m, g.context, bound, end, k, onlyTop, runnable, running, split);
    }

} // namespace

std::array<uint64_t, 3> conjunctTimeSplit(const ParModel& m, uint32_t k)
{
    // {blocked, runnable, running}; the unbound start and Finished/Runnable context time are runnable.
    const ConjunctInstance& g = m.conjuncts[k];
    std::array<uint64_t, 3> out {};
    if (!g.started || !g.ended || g.endNs < g.startNs)
        return out;
    const uint64_t bound = std::min(bindTime(m, g, k), g.endNs);
    std::array<uint64_t, 4> s {};
    if (g.context != kNoIndex)
        s = m.contextTimeInStates(g.context, bound, g.endNs);
    out[0] = s[size_t(ContextState::Blocked)];
    out[2] = s[size_t(ContextState::Running)];
    out[1] = (g.endNs - g.startNs) - out[0] - out[2];
    return out;
}

namespace {
    // The changes of one instance's RUNNABLE_SELF or RUNNING_SELF (two per piece), with inline room for
    // a typical instance (two conjuncts, a few pieces each) and the heap beyond. Why not a vector or
    // boost's small_vector: their push_back was not inlined and read each step back from the
    // caller's stack (16-byte load of two 8-byte stores: a store-forwarding stall per push), which
    // was most of the per-instance figures' time. The inline slots are a trivial type so that
    // creating the buffer writes nothing (StepFunction::Step zero-initialises).
    class StepBuffer {
    public:
        struct Change {
            int64_t timeNs, value;
        };
        static constexpr size_t kInline = 32;

        StepBuffer() = default;
        StepBuffer(const StepBuffer&) = delete;
        StepBuffer& operator=(const StepBuffer&) = delete;

        [[gnu::always_inline]] void push_back(Change change)
        {
            if (m_size == m_capacity)
                grow();
            m_data[m_size++] = change;
        }
        Change* begin() noexcept { return m_data; }
        Change* end() noexcept { return m_data + m_size; }

        // Marks the end of a run of changes pushed in time order (one conjunct's: its pieces come in
        // time order), so that two runs can be merged rather than sorted (firstRunEnd()).
        void endRun()
        {
            if (m_runs++ == 0)
                m_firstRunEnd = m_size;
        }
        // With at most two runs: where the first ends (the second, if any, follows up to end()).
        // Empty otherwise.
        std::optional<size_t> firstRunEnd() const noexcept
        {
            if (m_runs > 2)
                return std::nullopt;
            return m_runs == 0 ? m_size : m_firstRunEnd;
        }

    private:
        void grow()
        {
            std::vector<Change> larger(2 * m_capacity);
            std::copy(begin(), end(), larger.begin());
            m_heap = std::move(larger);
            m_data = m_heap.data();
            m_capacity = m_heap.size();
        }

        Change m_inline[kInline];
        std::vector<Change> m_heap;
        Change* m_data = m_inline;
        size_t m_size = 0, m_capacity = kInline;
        size_t m_runs = 0, m_firstRunEnd = 0;
    };

    // The maximum and integral over [a, b) of the curve that is 0 at a and changes by `deltas` (times
    // clamped into [a, b)): what StepFunction::fromDeltas(deltas, a, b) answers, without building
    // it — computeMetrics needs these two numbers for every instance.
    // The deltas are visited in time order: merged from the buffer's two sorted runs (an instance of
    // two conjuncts, nearly all of them) when it has two or fewer and they are in order, else sorted
    // (sorting was a quarter of the per-instance figures' time). The order of equal times does not
    // matter: the deltas at one time are all applied before the curve is read again.
    std::pair<int64_t, int64_t> maxAndIntegral(StepBuffer& deltas, I a, I b)
    {
        int64_t value = 0, max = 0, integral = 0, t = a;
        auto apply = [&](const StepBuffer::Change& d) {
            const I at = std::clamp(d.timeNs, a, b);
            if (at > t) {
                max = std::max(max, value);
                integral += value * (at - t);
                t = at;
            }
            value += d.value;
        };
        auto byTime = [](const StepBuffer::Change& x, const StepBuffer::Change& y) { return x.timeNs < y.timeNs; };
        const std::optional<size_t> firstRunEnd = deltas.firstRunEnd();
        StepBuffer::Change* const middle = firstRunEnd ? deltas.begin() + *firstRunEnd : nullptr;
        if (middle && std::is_sorted(deltas.begin(), middle, byTime) && std::is_sorted(middle, deltas.end(), byTime)) {
            const StepBuffer::Change *x = deltas.begin(), *y = middle, *end = deltas.end();
            while (x != middle && y != end)
                apply(byTime(*y, *x) ? *y++ : *x++);
            for (; x != middle; ++x)
                apply(*x);
            for (; y != end; ++y)
                apply(*y);
        } else {
            std::sort(deltas.begin(), deltas.end(), byTime);
            for (const auto& d : deltas)
                apply(d);
        }
        if (b > t) {
            max = std::max(max, value);
            integral += value * (b - t);
        }
        return { max, integral };
    }

    uint64_t conjunctRunnableNs(const ConjunctInstance& g, const ConjunctSplit& split)
    {
        // conjunctTimeSplit's guard: a conjunct that never started or ended, or ended before it
        // started, has no split at all.
        if (!g.started || !g.ended || g.endNs < g.startNs)
            return 0;
        return (g.endNs - g.startNs) - split.blockedNs - split.runningNs;
    }

    // The figures of one complete instance that do not come from the descendant pass: PARCONJ_TIME,
    // RUNNABLE_SELF and RUNNING_SELF (max and average over its lifetime), CONTINUE_ON_*, and whether
    // the scheduling section counts it (two conjuncts or more). computeMetrics keeps one per instance
    // and its summaries read it, with the descendant values, in both of Stat's passes instead of the
    // larger model instance: those passes are bound by memory bandwidth, so it is kept small (no
    // default member values either: its array is left for the parallel pass to write, page faults
    // included). The maxima fit 32 bits: a conjunct's pieces are disjoint, so they count at most its
    // conjuncts.
    struct SelfFigures {
        uint64_t timeNs;
        double runnableAverage, runningAverage;
        uint32_t runnableMax, runningMax;
        bool continueOnBefore, continueOnLast, hasPairs;
    };

    // The scheduling section counts only instances with two conjuncts or more (pairs to order).
    bool hasPairs(const ParModel& m, uint32_t j) { return m.conjunctions[j].conjuncts.size() >= 2; }

    // SelfFigures of complete instance j. With `splits`, also writes each of its conjuncts' split to
    // splits[k], from the same walk over the context's states that RUNNABLE_SELF makes.
    SelfFigures selfFigures(const ParModel& m, uint32_t j, ConjunctSplit* splits)
    {
        const ConjunctionInstance& ci = m.conjunctions[j];
        SelfFigures v {};
        const I a = I(ci.startNs), b = I(ci.endNs);
        v.timeNs = ci.endNs - ci.startNs;
        v.continueOnBefore = ci.endEngine == ci.startEngine;
        v.hasPairs = hasPairs(m, j);
        StepBuffer rs, ns;
        for (uint32_t k : ci.conjuncts) {
            ConjunctSplit* split = splits ? &splits[k] : nullptr;
            if (split)
                *split = { 0, 0 };
            addConjunct(m, k, false, ci.endNs, rs, ns, split);
            rs.endRun(), ns.endRun();
            const ConjunctInstance& g = m.conjuncts[k];
            if (split && !(g.started && g.ended && g.endNs >= g.startNs))
                *split = { 0, 0 }; // conjunctTimeSplit's guard: no split at all
        }
        if (b > a) {
            const auto [rMax, rInt] = maxAndIntegral(rs, a, b);
            const auto [nMax, nInt] = maxAndIntegral(ns, a, b);
            v.runnableMax = uint32_t(rMax), v.runnableAverage = double(rInt) / double(b - a);
            v.runningMax = uint32_t(nMax), v.runningAverage = double(nInt) / double(b - a);
        }
        if (!ci.conjuncts.empty()) {
            uint32_t lastConjunct = ci.conjuncts.front();
            for (uint32_t k : ci.conjuncts)
                if (m.conjuncts[k].endNs >= m.conjuncts[lastConjunct].endNs)
                    lastConjunct = k;
            v.continueOnLast = m.conjuncts[lastConjunct].endEngine == ci.endEngine;
        }
        return v;
    }

    // One complete instance's figures: its SelfFigures and its descendant-pass values.
    ConjunctionFigures figuresFrom(const SelfFigures& self, const DescValues& d)
    {
        ConjunctionFigures v;
        v.time = double(self.timeNs);
        v.runnableSelfMax = double(self.runnableMax), v.runnableSelfAverage = self.runnableAverage;
        v.runningSelfMax = double(self.runningMax), v.runningSelfAverage = self.runningAverage;
        v.runnableSelfAndDescMax = d.rdMax, v.runnableSelfAndDescAverage = d.rdAvg;
        v.runningSelfAndDescMax = d.ndMax, v.runningSelfAndDescAverage = d.ndAvg;
        v.availCpusMax = d.avMax, v.availCpusAverage = d.avAvg;
        v.outOfOrderNs = d.outOfOrder, v.eitherRunningNs = d.eitherRunning, v.blockingNs = d.blocking;
        v.blockingTcNs = d.blockingTc;
        v.continueOnBefore = self.continueOnBefore ? 1.0 : 0.0;
        v.continueOnLast = self.continueOnLast ? 1.0 : 0.0;
        return v;
    }
} // namespace

std::optional<ConjunctionFigures> conjunctionFigures(
    const ParModel& m, const StepFunction& cpus, size_t engines, uint32_t j)
{
    if (j >= m.conjunctions.size() || !m.conjunctions[j].complete)
        return std::nullopt;
    return figuresFrom(selfFigures(m, j, nullptr), detail::referenceDescendantValues(m, cpus, engines, j));
}

namespace {
    // One conjunct's figures in whole nanoseconds, given its split (from conjunctTimeSplit or the
    // figures pass); ConjunctFigures holds them as doubles.
    struct ConjunctDurations {
        bool fromSpark;
        uint64_t asSpark, asContext, blocked, runnable, running, after;
    };

    [[gnu::always_inline]] inline ConjunctDurations conjunctDurations(
        const ParModel& m, uint32_t k, const ConjunctSplit& split)
    {
        const ConjunctInstance& g = m.conjuncts[k];
        return { g.fromSpark, g.startNs - g.sparkCreateNs, g.endNs - g.startNs, split.blockedNs,
            conjunctRunnableNs(g, split), split.runningNs, m.conjunctions[g.conjunction].endNs - g.endNs };
    }

    [[gnu::always_inline]] inline ConjunctFigures conjunctFiguresFrom(
        const ParModel& m, uint32_t k, const ConjunctSplit& split)
    {
        const ConjunctDurations d = conjunctDurations(m, k, split);
        ConjunctFigures f;
        if (d.fromSpark)
            f.timeAsSpark = double(d.asSpark);
        f.timeAsContext = double(d.asContext);
        f.timeBlocked = double(d.blocked);
        f.timeRunnable = double(d.runnable);
        f.timeRunning = double(d.running);
        f.timeAfter = double(d.after);
        return f;
    }
} // namespace

std::optional<ConjunctFigures> conjunctFigures(const ParModel& m, uint32_t k)
{
    if (k >= m.conjuncts.size())
        return std::nullopt;
    const ConjunctInstance& g = m.conjuncts[k];
    if (g.conjunction == kNoIndex || !m.conjunctions[g.conjunction].complete)
        return std::nullopt;
    const auto split = conjunctTimeSplit(m, k);
    return conjunctFiguresFrom(m, k, ConjunctSplit { split[0], split[2] });
}

ConjunctionCurves conjunctionCurves(const ParModel& m, const StepFunction& cpus, size_t engines, uint32_t j)
{
    ConjunctionCurves c;
    const ConjunctionInstance& ci = m.conjunctions[j];
    if (!ci.ended)
        return c;
    const I a = I(ci.startNs), b = I(ci.endNs);
    if (b <= a)
        return c;
    std::vector<StepFunction::Step> rs, ns, rd, nd;
    for (uint32_t k : ci.conjuncts)
        addConjunct(m, k, false, ci.endNs, rs, ns);
    // Descendants: every conjunct of every conjunction in the subtree, counted while innermost.
    std::vector<uint32_t> todo { j };
    while (!todo.empty()) {
        const uint32_t x = todo.back();
        todo.pop_back();
        for (uint32_t k : m.conjunctions[x].conjuncts) {
            addConjunct(m, k, true, ci.endNs, rd, nd);
            for (uint32_t child : m.childConjunctions(k))
                todo.push_back(child);
        }
    }
    auto clip = [&](std::vector<StepFunction::Step>& v) {
        for (auto& s : v)
            s.timeNs = std::clamp(s.timeNs, a, b);
    };
    clip(rs), clip(ns), clip(rd), clip(nd);
    c.runnableSelf = StepFunction::fromDeltas(rs, a, b);
    c.runningSelf = StepFunction::fromDeltas(ns, a, b);
    c.runnableSelfAndDesc = StepFunction::fromDeltas(rd, a, b);
    c.runningSelfAndDesc = StepFunction::fromDeltas(nd, a, b);
    // AVAIL_CPUS = N - CPUS(t) + RUNNING_SELF_AND_DESC(t)
    std::vector<StepFunction::Step> av = nd;
    av.push_back({ a, I(engines) });
    const auto& steps = cpus.steps();
    int64_t previous = 0;
    if (!steps.empty()) {
        previous = cpus.valueAt(a);
        av.push_back({ a, -previous });
        auto it = std::upper_bound(
            steps.begin(), steps.end(), a, [](I t, const StepFunction::Step& s) { return t < s.timeNs; });
        for (; it != steps.end() && it->timeNs < b; ++it) {
            av.push_back({ it->timeNs, -(it->value - previous) });
            previous = it->value;
        }
    }
    c.availCpus = StepFunction::fromDeltas(std::move(av), a, b);
    return c;
}

} // namespace sparkscope::core

namespace sparkscope::core {
namespace {

    struct Range {
        uint64_t from, to;
        bool contains(uint64_t t) const { return t >= from && t < to; }
    };

    // What one engine's event scan yields (search episodes, steal attempts, spark events, counters).
    struct EngineScan {
        std::array<uint64_t, 3> tries {}, successes {}; // 0 global queue, 1 local deque, 2 steal
        std::vector<double> timeToFind, timeToSleep;
        struct Attempt {
            uint64_t start, end;
            uint16_t engine;
            bool productive;
        };
        std::vector<Attempt> steals;
        uint64_t created = 0, runLocal = 0, stolen = 0, dud = 0, overflowed = 0, fizzled = 0, gcd = 0;
        bool hasCounters = false;
        std::array<uint64_t, 7> countersBefore {}, countersLast {}; // SPARK_COUNTERS before / within the range
        // 103 / 35 / 3: work made available; only kept when some engine can sleep (ENGINE_WAKE_LATENCY).
        std::vector<uint64_t> workTimes;
        // SPARK_DEQUE_SIZE: the -1s this engine's steals make on victims' deques. Its own +1 / -1
        // are read again from its events when the curve is summarised (sparkDequeSummary).
        std::vector<std::pair<uint16_t, uint64_t>> dequeStolenFrom; // (victim, time), sorted by time
        // GHC heap figures (49-51) and GC_STATS_GHC reports (time, generation, parallel threads).
        bool anyHeap = false;
        uint64_t maxSize = 0, maxLive = 0, allocLast = 0, allocBefore = 0;
        struct GcReport {
            uint64_t timeNs;
            uint16_t generation;
            uint32_t threads;
        };
        std::vector<GcReport> gcReports;
    };

    // Heap and GC_STATS_GHC events, wherever they are (engines or the global buffer).
    void scanHeapEvent(const Trace& trace, const Event& e, Range r, EngineScan& s)
    {
        const uint64_t t = e.timeNs;
        if (e.type == ev::GcStatsGhc) {
            if (r.contains(t)) {
                const Payload p = trace.payload(e);
                s.gcReports.push_back({ t, p.u16(4), p.u32(30) });
            }
            return;
        }
        const uint64_t v = trace.payload(e).u64(4);
        if (e.type == ev::HeapAllocated && t < r.from)
            s.allocBefore = std::max(s.allocBefore, v);
        if (!r.contains(t))
            return;
        s.anyHeap = true;
        if (e.type == ev::HeapAllocated)
            s.allocLast = std::max(s.allocLast, v);
        else if (e.type == ev::HeapSize)
            s.maxSize = std::max(s.maxSize, v);
        else
            s.maxLive = std::max(s.maxLive, v);
    }

    // SPARK_DEQUE_SIZE of `engine` over r: the sizes of deque_sizes.h (which the timeline's rows draw),
    // summarised as they stream past. O(events of the engine) time, O(1) memory beyond stolenNs.
    MetricValue sparkDequeSummary(const Trace& trace, size_t engine, const std::vector<uint64_t>& stolenNs,
        uint64_t first, uint64_t last, Range r)
    {
        StepRangeSummary curve(I(first), I(last), I(r.from), I(r.to));
        int64_t size = 0;
        forEachSparkDequeSize(trace, engine, stolenNs, [&](uint64_t t, int64_t next) {
            curve.add(I(t), next - size);
            size = next;
        });
        return fieldsValue({ { "max", curve.max() }, { "average", curve.average() } });
    }

    EngineScan scanEngine(const Trace& trace, uint16_t engine, Range r, bool wantWorkTimes)
    {
        EngineScan s;
        bool inEpisode = false, stealOpen = false;
        uint64_t episodeStart = 0, stealStart = 0;
        int lastSource = 0;
        auto closeSteal = [&](uint64_t t, bool productive) {
            if (stealOpen && r.contains(stealStart))
                s.steals.push_back({ stealStart, t, engine, productive });
            stealOpen = false;
        };
        for (const Event& e : trace.engines[engine]) {
            const uint64_t t = e.timeNs;
            const bool in = r.contains(t);
            switch (e.type) {
            case ev::MerLookingForGlobalContext:
            case ev::MerLookingForLocalSpark:
            case ev::MerWorkStealing: {
                const int source = e.type == ev::MerLookingForGlobalContext ? 0
                    : e.type == ev::MerLookingForLocalSpark                 ? 1
                                                                            : 2;
                if (!inEpisode) {
                    inEpisode = true;
                    episodeStart = t;
                }
                if (in)
                    ++s.tries[size_t(source)];
                lastSource = source;
                if (source == 2 && !stealOpen) {
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
                if (e.type == ev::MerSparkSteal) {
                    s.stolen += in;
                    s.dequeStolenFrom.push_back({ trace.payload(e).u16(0), t });
                }
                if (!inEpisode)
                    break;
                const int source = e.type == ev::RunThread ? lastSource : e.type == ev::MerSparkRun ? 1 : 2;
                if (r.contains(episodeStart)) {
                    ++s.successes[size_t(source)];
                    s.timeToFind.push_back(double(t - episodeStart));
                }
                closeSteal(t, e.type != ev::RunThread);
                inEpisode = false;
                break;
            }
            case ev::MerEngineSleeping:
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
                s.dequeStolenFrom.push_back({ trace.payload(e).u16(0), t });
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
                std::array<uint64_t, 7> v;
                for (size_t i = 0; i < 7; ++i)
                    v[i] = p.u64(8 * i);
                if (t < r.from)
                    s.countersBefore = v;
                else if (t < r.to) {
                    s.countersLast = v;
                    s.hasCounters = true;
                }
                break;
            }
            default:
                break;
            }
        }
        return s;
    }

    // Counter i of SPARK_COUNTERS order (created, dud, overflowed, converted, gcd, fizzled): with
    // SPARK_COUNTERS (GHC) their change over the range wins; otherwise the individual spark events
    // count (converted = run locally + stolen).
    uint64_t sparkCountsField(const EngineScan& s, size_t i)
    {
        if (s.hasCounters)
            return s.countersLast[i] - std::min(s.countersLast[i], s.countersBefore[i]);
        const uint64_t fromEvents[] = { s.created, s.dud, s.overflowed, s.runLocal + s.stolen, s.gcd, s.fizzled, 0 };
        return fromEvents[i];
    }

    MetricValue sparkCounts(const EngineScan& s)
    {
        return fieldsValue({ { "created", I(sparkCountsField(s, 0)) }, { "run_local", I(s.runLocal) },
            { "stolen", I(s.stolen) }, { "dud", I(sparkCountsField(s, 1)) },
            { "overflowed", I(sparkCountsField(s, 2)) }, { "converted", I(sparkCountsField(s, 3)) },
            { "fizzled", I(sparkCountsField(s, 5)) }, { "gcd", I(sparkCountsField(s, 4)) } });
    }

    // CONJUNCT_GRANULARITY's counts of TIME_RUNNING per log2 bucket (bucket 0 holds 0 and 1 ns).
    // Counts add up in any order, so the per-group histograms, built in parallel, merge into the
    // program's.
    class Log2Histogram {
    public:
        void add(double runningNs)
        {
            const uint64_t ns = uint64_t(runningNs);
            const size_t b = ns <= 1 ? 0 : size_t(63 - __builtin_clzll(ns));
            if (m_buckets.size() <= b)
                m_buckets.resize(b + 1, 0);
            ++m_buckets[b];
        }
        void merge(const Log2Histogram& other)
        {
            if (m_buckets.size() < other.m_buckets.size())
                m_buckets.resize(other.m_buckets.size(), 0);
            for (size_t b = 0; b < other.m_buckets.size(); ++b)
                m_buckets[b] += other.m_buckets[b];
        }
        const std::vector<int64_t>& buckets() const noexcept { return m_buckets; }

    private:
        std::vector<int64_t> m_buckets;
    };

    // The granularity profile: counts per log2 bucket of TIME_RUNNING, and the cumulative form.
    MetricValue granularity(const Log2Histogram& histogram)
    {
        const std::vector<int64_t>& buckets = histogram.buckets();
        MetricValue out;
        int64_t cumulative = 0;
        for (size_t b = 0; b < buckets.size(); ++b)
            out.fields.push_back({ "log2_" + std::to_string(b), buckets[b] });
        for (size_t b = 0; b < buckets.size(); ++b) {
            cumulative += buckets[b];
            out.fields.push_back({ "cumulative_log2_" + std::to_string(b), cumulative });
        }
        return out;
    }

    // OUT_OF_ORDER_* (docs/metrics.md "Scheduling order"). A is logically before B when, at the
    // conjunction instance J where their ancestry splits, A is in the subtree of conjunct Gi and B in
    // that of Gj with i < j; so each pair is counted at exactly one J. Items are conjuncts, each in
    // its innermost-only state (a conjunct whose context runs a nested conjunct is represented by
    // that nested conjunct) plus its spark phase (waiting). With, per subtree i at time t,
    // w_i = waiting items, r_i = running items, n_i = items, and bw_i = waiting items that produce a
    // future some context is suspended on (from its FUT_WAIT_SUSPENDED to the signal), and bt_i the
    // same through the transitive closure (suspendedWaitsByProducer in descendant_pass.h):
    //   out-of-order pairs      = sum over i<j of w_i * r_j
    //   pairs where A or B runs = sum over i<j of r_i n_j + r_j n_i - r_i r_j
    //   blocking pairs          = sum over i<j of bw_i * r_j   (_TC: bt_i * r_j)
    // The integrals come from the descendant pass (descendant_pass.cpp).
    struct OutOfOrder {
        double outOfOrder = 0, eitherRunning = 0, blocking = 0, blockingTc = 0;
    };

    // One group of the scheduling section: the totals over its instances and the per-instance
    // ratios (each only where its denominator is not 0).
    struct SchedulingSummary {
        uint64_t instances = 0;
        OutOfOrder total;
        Stat probability, blocks, blocksTc;
    };

    // Builds one SchedulingSummary: visit() every instance of the group in instance order, then
    // endFirstPass(), then visit() the same instances again, then summary().
    class SchedulingSummariser {
    public:
        explicit SchedulingSummariser(const std::vector<DescValues>& desc)
            : m_desc(desc)
        {
        }
        void visit(uint32_t j)
        {
            const DescValues& d = m_desc[j];
            if (!m_secondPass) {
                ++m_out.instances;
                m_out.total.outOfOrder += d.outOfOrder;
                m_out.total.eitherRunning += d.eitherRunning;
                m_out.total.blocking += d.blocking;
                m_out.total.blockingTc += d.blockingTc;
            }
            if (d.eitherRunning > 0)
                m_stats.push(kProbability, d.outOfOrder / d.eitherRunning);
            if (d.outOfOrder > 0) {
                m_stats.push(kBlocks, d.blocking / d.outOfOrder);
                m_stats.push(kBlocksTc, d.blockingTc / d.outOfOrder);
            }
        }
        void endFirstPass()
        {
            m_stats.endFirstPass();
            m_secondPass = true;
        }
        SchedulingSummary summary()
        {
            m_stats.endSecondPass();
            m_out.probability = m_stats.stat(kProbability), m_out.blocks = m_stats.stat(kBlocks);
            m_out.blocksTc = m_stats.stat(kBlocksTc);
            return m_out;
        }

    private:
        enum { kProbability, kBlocks, kBlocksTc };
        const std::vector<DescValues>& m_desc;
        StatColumns m_stats { 3 };
        SchedulingSummary m_out;
        bool m_secondPass = false;
    };

    MetricGroup schedulingGroup(const std::string& id, const SchedulingSummary& g)
    {
        MetricGroup out { id, {} };
        MetricValue p;
        p.fields = { { "out_of_order_ns", g.total.outOfOrder }, { "either_running_ns", g.total.eitherRunning },
            { "probability", ratio(g.total.outOfOrder, g.total.eitherRunning) } };
        p.subStats.push_back({ "per_instance", g.probability });
        out.metrics.push_back({ "OUT_OF_ORDER_PROBABILITY", p });
        MetricValue b;
        b.fields = { { "blocking_ns", g.total.blocking }, { "fraction", ratio(g.total.blocking, g.total.outOfOrder) } };
        b.subStats.push_back({ "per_instance", g.blocks });
        out.metrics.push_back({ "OUT_OF_ORDER_SCHEDULING_BLOCKS_ANOTHER_CONTEXT", b });
        MetricValue tc;
        tc.fields
            = { { "blocking_ns", g.total.blockingTc }, { "fraction", ratio(g.total.blockingTc, g.total.outOfOrder) } };
        tc.subStats.push_back({ "per_instance", g.blocksTc });
        out.metrics.push_back({ "OUT_OF_ORDER_SCHEDULING_BLOCKS_ANOTHER_CONTEXT_TC", tc });
        return out;
    }

    // The conjunction instances that start in the range, grouped by static id. Ids that share a name
    // share a group, and groups are in name order: the report's groups are keyed by name.
    // Summary groups, in name order: what is left out of each, and the rest in input order.
    struct NamedGroups {
        std::vector<std::string> names;
        std::vector<uint64_t> incomplete; // per group: inputs left out of the summaries
        detail::IndexGroups complete; // per group: the complete inputs, in input order
    };

    // Slots (one per site, in order of first appearance) become groups in name order: slots of the
    // same name share a group. keys holds each input's slot, or kNoGroup; it is turned into groups.
    NamedGroups groupsByName(const std::vector<std::string>& nameOfSlot, const std::vector<uint64_t>& incompleteOfSlot,
        std::vector<uint32_t>& keys)
    {
        NamedGroups out;
        out.names = nameOfSlot;
        std::sort(out.names.begin(), out.names.end());
        out.names.erase(std::unique(out.names.begin(), out.names.end()), out.names.end());
        out.incomplete.assign(out.names.size(), 0);
        std::vector<uint32_t> groupOfSlot(nameOfSlot.size());
        for (size_t slot = 0; slot < nameOfSlot.size(); ++slot) {
            groupOfSlot[slot]
                = uint32_t(std::lower_bound(out.names.begin(), out.names.end(), nameOfSlot[slot]) - out.names.begin());
            out.incomplete[groupOfSlot[slot]] += incompleteOfSlot[slot];
        }
        for (uint32_t& key : keys)
            if (key != detail::IndexGroups::kNoGroup)
                key = groupOfSlot[key];
        out.complete = detail::IndexGroups(keys, out.names.size());
        return out;
    }

    struct ConjunctionGroups : NamedGroups {
        std::vector<uint32_t> groupOf; // per instance: its group if complete, else IndexGroups::kNoGroup
    };

    ConjunctionGroups groupConjunctions(const ParModel& m, Range r)
    {
        // Each instance's static id becomes a slot (ids in order of first appearance): one IdMap load
        // per instance, and none while the id stays the same (a run of one conjunction site).
        constexpr uint32_t kNoGroup = detail::IndexGroups::kNoGroup;
        IdMap slotOfId;
        std::vector<uint32_t> idOfSlot;
        std::vector<uint64_t> incompleteOfSlot;
        std::vector<uint32_t> keys(m.conjunctions.size(), kNoGroup);
        uint32_t lastId = 0, lastSlot = kNoGroup;
        for (size_t j = 0; j < m.conjunctions.size(); ++j) {
            const ConjunctionInstance& ci = m.conjunctions[j];
            if (!r.contains(ci.startNs))
                continue;
            if (lastSlot == kNoGroup || ci.staticId != lastId) {
                lastId = ci.staticId;
                lastSlot = slotOfId.get(lastId);
                if (lastSlot == IdMap::kAbsent) {
                    lastSlot = uint32_t(idOfSlot.size());
                    slotOfId.set(lastId, lastSlot);
                    idOfSlot.push_back(lastId);
                    incompleteOfSlot.push_back(0);
                }
            }
            if (ci.complete)
                keys[j] = lastSlot;
            else
                ++incompleteOfSlot[lastSlot];
        }
        std::vector<std::string> nameOfSlot;
        for (uint32_t id : idOfSlot)
            nameOfSlot.push_back(m.staticName(id));
        ConjunctionGroups out { groupsByName(nameOfSlot, incompleteOfSlot, keys), {} };
        out.groupOf = std::move(keys);
        return out;
    }

    // The per-instance values the conjunctions section summarises, in output order.
    enum ConjunctionValue : size_t {
        kTime,
        kRunnableSelfMax,
        kRunnableSelfAverage,
        kRunnableSelfAndDescMax,
        kRunnableSelfAndDescAverage,
        kRunningSelfMax,
        kRunningSelfAverage,
        kRunningSelfAndDescMax,
        kRunningSelfAndDescAverage,
        kAvailCpusMax,
        kAvailCpusAverage,
        kContinueOnBefore,
        kContinueOnLast,
        kConjunctionValueCount
    };

    std::array<double, kConjunctionValueCount> conjunctionValues(const ConjunctionFigures& v)
    {
        return { v.time, v.runnableSelfMax, v.runnableSelfAverage, v.runnableSelfAndDescMax,
            v.runnableSelfAndDescAverage, v.runningSelfMax, v.runningSelfAverage, v.runningSelfAndDescMax,
            v.runningSelfAndDescAverage, v.availCpusMax, v.availCpusAverage, v.continueOnBefore, v.continueOnLast };
    }

    // Stat of each ConjunctionValue over a group's complete instances, and the group's scheduling
    // summary. Three tasks fill it, each reading the instances twice (Stat's two passes) where their
    // values are (no copy per value): the values from SelfFigures, those from the descendant pass, and
    // the scheduling order. The passes are bound by memory bandwidth, so each reads only what it needs.
    struct ConjunctionsSummary {
        std::array<Stat, kConjunctionValueCount> values;
        SchedulingSummary scheduling;
    };

    constexpr std::array<ConjunctionValue, 7> kSelfValues { kTime, kRunnableSelfMax, kRunnableSelfAverage,
        kRunningSelfMax, kRunningSelfAverage, kContinueOnBefore, kContinueOnLast };
    constexpr std::array<ConjunctionValue, 6> kDescendantValues { kRunnableSelfAndDescMax, kRunnableSelfAndDescAverage,
        kRunningSelfAndDescMax, kRunningSelfAndDescAverage, kAvailCpusMax, kAvailCpusAverage };

    // Stat of each of the `which` values over the instances into out[which[i]], the values taken from
    // figuresOf(j) (which reads only the array its task needs). `alongside` rides on the same reads:
    // visit(j) for each instance in each pass, and endFirstPass() in between.
    template <size_t N, class FiguresOf, class Alongside>
    void summariseConjunctionValues(std::span<const uint32_t> instances, FiguresOf figuresOf,
        const std::array<ConjunctionValue, N>& which, Stat* out, Alongside& alongside)
    {
        StatRows<N> stats;
        auto feed = [&] {
            for (uint32_t j : instances) {
                const auto values = conjunctionValues(figuresOf(j));
                std::array<double, N> row;
                for (size_t i = 0; i < N; ++i)
                    row[i] = values[which[i]];
                stats.push(row);
                alongside.visit(j);
            }
        };
        feed();
        stats.endFirstPass();
        alongside.endFirstPass();
        feed();
        stats.endSecondPass();
        for (size_t i = 0; i < N; ++i)
            out[which[i]] = stats.stat(i);
    }

    void summariseSelfValues(std::span<const uint32_t> instances, const SelfFigures* self, ConjunctionsSummary& out)
    {
        struct Nothing {
            void visit(uint32_t) { }
            void endFirstPass() { }
        } nothing;
        // The descendant values are not read here (their task has them): zeros stand in.
        const auto figuresOf = [&](uint32_t j) { return figuresFrom(self[j], DescValues {}); };
        summariseConjunctionValues(instances, figuresOf, kSelfValues, out.values.data(), nothing);
    }

    void summariseDescendantValues(
        std::span<const uint32_t> instances, const std::vector<DescValues>& desc, ConjunctionsSummary& out)
    {
        struct Nothing {
            void visit(uint32_t) { }
            void endFirstPass() { }
        } nothing;
        // The SelfFigures values are not read here (their task has them): zeros stand in.
        const auto figuresOf = [&](uint32_t j) { return figuresFrom(SelfFigures {}, desc[j]); };
        summariseConjunctionValues(instances, figuresOf, kDescendantValues, out.values.data(), nothing);
    }

    // The scheduling section's summary of a group: its instances with two conjuncts or more.
    SchedulingSummary summariseScheduling(
        std::span<const uint32_t> instances, const SelfFigures* self, const std::vector<DescValues>& desc)
    {
        SchedulingSummariser summariser(desc);
        for (bool firstPass : { true, false }) {
            for (uint32_t j : instances)
                if (self[j].hasPairs)
                    summariser.visit(j);
            if (firstPass)
                summariser.endFirstPass();
        }
        return summariser.summary();
    }

    // The per-conjunct values the conjuncts section summarises that every conjunct has (TIME_AS_SPARK,
    // only for spawned conjuncts, is apart), in output order.
    enum ConjunctValue : size_t { kAsContext, kBlocked, kRunnable, kRunning, kAfter, kConjunctValueCount };

    // The first pass over one (static id, position)'s conjunct values (ConjunctValue, then
    // TIME_AS_SPARK), done inside the parallel figures pass: the values are durations in whole
    // nanoseconds, so ExactFirstPass can sum them in any order (and from the integers, before they
    // become doubles).
    using ConjunctFirstPass = std::array<ExactFirstPass, kConjunctValueCount + 1>;
    constexpr size_t kAsSparkFirstPass = kConjunctValueCount;

    // One thread's share of the figures pass's work for the conjuncts section: per group, per
    // position, the first pass; and per group the granularity histogram (counts: any order).
    struct ConjunctFirstPasses {
        std::vector<std::vector<ConjunctFirstPass>> byGroup; // [group][position]
        std::vector<Log2Histogram> running; // per group

        explicit ConjunctFirstPasses(size_t groups)
            : byGroup(groups)
            , running(groups)
        {
        }
        void add(uint32_t group, uint32_t position, const ConjunctDurations& d)
        {
            auto& positions = byGroup[group];
            if (positions.size() <= position)
                positions.resize(size_t(position) + 1);
            ConjunctFirstPass& first = positions[position];
            if (d.fromSpark)
                first[kAsSparkFirstPass].add(d.asSpark);
            first[kAsContext].add(d.asContext);
            first[kBlocked].add(d.blocked);
            first[kRunnable].add(d.runnable);
            first[kRunning].add(d.running);
            first[kAfter].add(d.after);
            running[group].add(double(d.running));
        }
        void merge(const ConjunctFirstPasses& other)
        {
            for (size_t g = 0; g < byGroup.size(); ++g) {
                auto& positions = byGroup[g];
                const auto& theirs = other.byGroup[g];
                if (positions.size() < theirs.size())
                    positions.resize(theirs.size());
                for (size_t p = 0; p < theirs.size(); ++p)
                    for (size_t v = 0; v < theirs[p].size(); ++v)
                        positions[p][v].merge(theirs[p][v]);
                running[g].merge(other.running[g]);
            }
        }
    };

    bool allExact(const std::vector<ConjunctFirstPass>& positions)
    {
        for (const auto& first : positions)
            for (const auto& value : first)
                if (!value.exact())
                    return false;
        return true;
    }

    // Stats of one (static id, position).
    struct ConjunctStats {
        StatRows<kConjunctValueCount> values;
        StatColumns asSpark { 1 };
        bool any = false; // some conjunct has this position
    };

    // The conjuncts section's figures of one static id: per position, a Stat of each value.
    struct ConjunctsSummary {
        std::vector<ConjunctStats> byPosition; // index = position
    };

    // Summarises the conjuncts of a group's complete instances, per position, in instance order then
    // conjunct order: the order the report defines its per-position values in. When the figures
    // pass's first pass over them is exact, only the second (the deviations) is left to run here.
    ConjunctsSummary summariseConjuncts(const ParModel& m, std::span<const uint32_t> instances,
        const ConjunctSplit* splits, const std::vector<ConjunctFirstPass>& firstPass)
    {
        ConjunctsSummary out;
        auto feed = [&] {
            for (uint32_t j : instances)
                for (uint32_t k : m.conjunctions[j].conjuncts) {
                    const uint32_t position = m.conjuncts[k].position;
                    while (out.byPosition.size() <= position)
                        out.byPosition.emplace_back();
                    ConjunctStats& stats = out.byPosition[position];
                    const ConjunctFigures f = conjunctFiguresFrom(m, k, splits[k]);
                    stats.any = true;
                    if (f.timeAsSpark)
                        stats.asSpark.push(0, *f.timeAsSpark);
                    stats.values.push({ f.timeAsContext, f.timeBlocked, f.timeRunnable, f.timeRunning, f.timeAfter });
                }
        };
        if (allExact(firstPass)) {
            out.byPosition.resize(firstPass.size());
            for (size_t position = 0; position < firstPass.size(); ++position) {
                const ConjunctFirstPass& first = firstPass[position];
                std::array<StatAccumulator, kConjunctValueCount> values;
                for (size_t v = 0; v < kConjunctValueCount; ++v)
                    values[v] = first[v].accumulator();
                out.byPosition[position].values.skipFirstPass(values);
                const StatAccumulator asSpark[] = { first[kAsSparkFirstPass].accumulator() };
                out.byPosition[position].asSpark.skipFirstPass(asSpark);
            }
        } else {
            feed();
            for (auto& stats : out.byPosition) {
                stats.values.endFirstPass();
                stats.asSpark.endFirstPass();
            }
        }
        feed();
        for (auto& stats : out.byPosition) {
            stats.values.endSecondPass();
            stats.asSpark.endSecondPass();
        }
        return out;
    }

    // The futures of the conjunction instances that start in the range, grouped by
    // "<static id>/<variable>" (pairs that share that name share a group), groups in name order.
    using FutureGroups = NamedGroups; // (the inputs are futures)

    FutureGroups groupFutures(const ParModel& m, Range r)
    {
        // Each (static id, variable) pair becomes a slot, in order of first appearance: one hash
        // lookup per future rather than building its name and looking that up in a map.
        constexpr uint32_t kNoGroup = detail::IndexGroups::kNoGroup;
        AddressMap slotOfPair;
        std::vector<std::string> nameOfSlot;
        std::vector<uint64_t> incompleteOfSlot;
        std::vector<uint32_t> keys(m.futures.size(), kNoGroup);
        for (size_t f = 0; f < m.futures.size(); ++f) {
            const FutureInstance& future = m.futures[f];
            if (future.conjunction == kNoIndex || !r.contains(m.conjunctions[future.conjunction].startNs))
                continue;
            const uint32_t staticId = m.conjunctions[future.conjunction].staticId;
            const uint64_t pair = uint64_t(staticId) << 32 | future.nameId;
            uint32_t slot = slotOfPair.find(pair);
            if (slot == AddressMap::kAbsent) {
                slot = uint32_t(nameOfSlot.size());
                slotOfPair.set(pair, slot);
                nameOfSlot.push_back(m.staticName(staticId) + "/" + m.stringOr(future.nameId, "var#"));
                incompleteOfSlot.push_back(0);
            }
            if (future.complete)
                keys[f] = slot;
            else
                ++incompleteOfSlot[slot];
        }
        return groupsByName(nameOfSlot, incompleteOfSlot, keys);
    }

    // One group of the futures section.
    struct FuturesSummary {
        Stat firstWaits, allWaits, waitedEnd, signalEnd;
        uint64_t firstSuspended = 0, firstTotal = 0, allSuspended = 0, allTotal = 0;
    };

    // Summarises a group's complete futures, in future order then wait order. A first wait is a
    // consuming conjunct's (or, outside any conjunct, context's) first wait on the future.
    FuturesSummary summariseFutures(const ParModel& m, std::span<const uint32_t> futures)
    {
        enum { kFirstWaits, kAllWaits, kWaitedEnd, kSignalEnd };
        FuturesSummary out;
        StatColumns stats(4);
        std::vector<uint32_t> seen; // the consumers of the current future so far
        auto feed = [&](bool firstPass) {
            for (uint32_t index : futures) {
                const FutureInstance& f = m.futures[index];
                seen.clear();
                bool anySuspended = false;
                for (const FutureWait& w : f.waits) {
                    const double d = double(I(w.timeNs) - I(f.signalNs));
                    stats.push(kAllWaits, d);
                    anySuspended = anySuspended || w.suspended;
                    const uint32_t who = w.conjunct != kNoIndex ? w.conjunct : kNoIndex - 1 - w.context;
                    const bool first = std::find(seen.begin(), seen.end(), who) == seen.end();
                    if (first) {
                        seen.push_back(who);
                        stats.push(kFirstWaits, d);
                    }
                    if (firstPass) {
                        ++out.allTotal;
                        out.allSuspended += w.suspended;
                        out.firstTotal += first;
                        out.firstSuspended += first && w.suspended;
                    }
                }
                if (f.signalConjunct != kNoIndex && m.conjuncts[f.signalConjunct].ended) {
                    const double d = double(I(m.conjuncts[f.signalConjunct].endNs) - I(f.signalNs));
                    stats.push(kSignalEnd, d);
                    if (anySuspended)
                        stats.push(kWaitedEnd, d);
                }
            }
        };
        feed(true);
        stats.endFirstPass();
        feed(false);
        stats.endSecondPass();
        out.firstWaits = stats.stat(kFirstWaits), out.allWaits = stats.stat(kAllWaits);
        out.waitedEnd = stats.stat(kWaitedEnd), out.signalEnd = stats.stat(kSignalEnd);
        return out;
    }

} // namespace

Metrics computeMetrics(const Trace& trace, const MetricsOptions& options)
{
    return computeMetrics(trace, options, MetricsInputs {});
}

Metrics computeMetrics(const Trace& trace, const MetricsOptions& options, const MetricsInputs& inputs)
{
    Metrics out;
    out.options = options;
    out.trace = { trace.path, trace.fileSize, trace.engines.size(), trace.firstTimeNs, trace.lastTimeNs,
        trace.eventCount(), {} };
    for (const auto& w : trace.warnings)
        out.trace.warnings.push_back(w.message + " (at byte " + std::to_string(w.byteOffset) + ")");

    Range r { std::max(options.fromNs, trace.firstTimeNs),
        std::min(options.toNs, std::max(trace.lastTimeNs, trace.firstTimeNs)) };
    if (r.to < r.from)
        r.to = r.from;
    const size_t nEngines = trace.engines.size();
    // Work-available times serve only ENGINE_WAKE_LATENCY, which needs a sleeping engine; engines
    // sleep only after ENGINE_SLEEPING (111). A GHC log has none, and skipping them saves 8 bytes per
    // spark created there (22 MB on parfib-4-37).
    std::atomic<bool> anySleepEvent { false };
    tbb::parallel_for(size_t(0), nEngines, [&](size_t e) {
        if (!anySleepEvent.load(std::memory_order_relaxed)
            && std::any_of(trace.engines[e].begin(), trace.engines[e].end(),
                [](const Event& x) { return x.type == ev::MerEngineSleeping; }))
            anySleepEvent = true;
    });
    // Three independent passes at once: engine states (parallel per engine inside), the model pass
    // (sequential), and the per-engine scans (parallel per engine). States and model depend on the
    // trace alone, so a caller that has them already (the app's view of a selection) lends them.
    const bool ownStates = !inputs.engineStates || !inputs.cpusOverTime;
    std::vector<EngineScan> scans(nEngines);
    tbb::parallel_invoke(
        [&] {
            if (ownStates) {
                out.engineStates = computeEngineStates(trace);
                out.cpusOverTime = cpusOverTime(out.engineStates);
            }
        },
        [&] {
            if (!inputs.model)
                out.model = buildParModel(trace);
        },
        [&] {
            tbb::parallel_for(
                size_t(0), nEngines, [&](size_t e) { scans[e] = scanEngine(trace, uint16_t(e), r, anySleepEvent); });
        });
    EngineScan globalScan;
    for (const Event& e : trace.global)
        if (e.type == ev::HeapAllocated || e.type == ev::HeapSize || e.type == ev::HeapLive || e.type == ev::GcStatsGhc)
            scanHeapEvent(trace, e, r, globalScan);
    const ParModel& m = inputs.model ? *inputs.model : out.model;
    const EngineStates& engineStates = ownStates ? out.engineStates : *inputs.engineStates;
    const StepFunction& cpuCurve = ownStates ? out.cpusOverTime : *inputs.cpusOverTime;
    const uint64_t first = engineStates.firstNs, last = engineStates.lastNs;

    // ---- curves over time -------------------------------------------------------------------
    std::vector<MetricValue> dequeSummaries; // SPARK_DEQUE_SIZE per engine
    {
        // Contexts runnable / blocked: one sorted run of deltas per context, merged.
        std::vector<std::vector<StepFunction::Step>> runnable(m.contexts.size()), blocked(m.contexts.size());
        tbb::parallel_for(size_t(0), m.contexts.size(), [&](size_t c) {
            const auto& segs = m.contexts[c].segments;
            for (size_t i = 0; i < segs.size(); ++i) {
                const auto& seg = segs[i];
                const uint64_t end = i + 1 < segs.size() ? segs[i + 1].startNs : last;
                auto* v = seg.state == ContextState::Runnable ? &runnable[c]
                    : seg.state == ContextState::Blocked      ? &blocked[c]
                                                              : nullptr;
                if (v && end > seg.startNs) {
                    v->push_back({ I(seg.startNs), 1 });
                    v->push_back({ I(end), -1 });
                }
            }
        });
        tbb::parallel_invoke(
            [&] { out.contextsRunnable = StepFunction::fromSortedDeltaRuns(std::move(runnable), I(first), I(last)); },
            [&] { out.contextsBlocked = StepFunction::fromSortedDeltaRuns(std::move(blocked), I(first), I(last)); });
        // Each engine's deque: summarised while streaming, never stored (a GHC log has millions of
        // steps per engine, and the metric is two numbers).
        dequeSummaries.resize(nEngines);
        tbb::parallel_for(size_t(0), nEngines, [&](size_t e) {
            std::vector<uint64_t> stolen;
            for (const auto& thief : scans)
                for (const auto& [victim, t] : thief.dequeStolenFrom)
                    if (victim == e)
                        stolen.push_back(t);
            std::sort(stolen.begin(), stolen.end());
            dequeSummaries[e] = sparkDequeSummary(trace, e, stolen, first, last, r);
        });
    }

    // ---- GC collections: the union over engines of Gc intervals --------------------------------
    std::vector<std::pair<uint64_t, uint64_t>> gcs;
    {
        std::vector<std::pair<uint64_t, uint64_t>> all;
        for (const auto& engine : engineStates.engines)
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
    }

    MetricSection program { "program", {} };
    MetricGroup all { "all", {} };
    {
        MetricValue cpus;
        cpus.fields.push_back({ "max", cpuCurve.max(I(r.from), I(r.to)) });
        cpus.fields.push_back({ "average", cpuCurve.average(I(r.from), I(r.to)) });
        const auto levels = cpuCurve.timeAtEachValue(I(r.from), I(r.to));
        const double span = double(r.to - r.from);
        for (size_t k = 0; k <= nEngines; ++k) {
            auto it = levels.find(I(k));
            cpus.fields.push_back({ "fraction_at_" + std::to_string(k),
                it == levels.end() || span == 0 ? 0.0 : double(it->second) / span });
        }
        all.metrics.push_back({ "CPUS_OVER_TIME", cpus });
    }
    std::vector<double> gcDurations;
    uint64_t gcTotal = 0;
    for (const auto& g : gcs) {
        const uint64_t d = overlap(g.first, g.second, r.from, r.to);
        if (d > 0) {
            gcDurations.push_back(double(d));
            gcTotal += d;
        }
    }
    all.metrics.push_back({ "GC_STATS", statValue(gcDurations) });
    const uint64_t total = r.to - r.from;
    all.metrics.push_back({ "MUTATOR_VS_GC_TIME",
        fieldsValue(
            { { "total_ns", I(total) }, { "gc_ns", I(gcTotal) }, { "mutator_ns", I(total - std::min(total, gcTotal)) },
                { "gc_fraction", ratio(double(gcTotal), double(total)) },
                { "productivity", total == 0 ? 0.0 : 1.0 - ratio(double(gcTotal), double(total)) } }) });
    const int64_t userNs = cpuCurve.integral(I(r.from), I(r.to));
    if (options.callCount && *options.callCount > 0)
        all.metrics.push_back({ "NANOSECS_PER_CALL",
            fieldsValue({ { "value", double(userNs) / double(*options.callCount) },
                { "call_count", I(*options.callCount) }, { "user_time_ns", userNs } }) });
    {
        EngineScan sum;
        for (const auto& s : scans) {
            sum.created += sparkCountsField(s, 0);
            sum.runLocal += s.runLocal;
            sum.stolen += s.stolen;
            sum.dud += sparkCountsField(s, 1);
            sum.overflowed += sparkCountsField(s, 2);
            sum.fizzled += sparkCountsField(s, 5);
            sum.gcd += sparkCountsField(s, 4);
        }
        MetricValue v = sparkCounts(sum);
        uint64_t converted = 0;
        for (const auto& s : scans)
            converted += sparkCountsField(s, 3);
        for (auto& [k, f] : v.fields)
            if (k == "converted")
                f = I(converted);
        all.metrics.push_back({ "SPARK_COUNTS", v });
    }
    all.metrics.push_back({ "CONTEXT_COUNTS",
        fieldsValue({ { "created", I(m.contextsCreated) }, { "reused", I(m.contextsReused) },
            { "released", I(m.contextsReleased) }, { "runnable_max", out.contextsRunnable.max(I(r.from), I(r.to)) },
            { "runnable_average", out.contextsRunnable.average(I(r.from), I(r.to)) },
            { "blocked_max", out.contextsBlocked.max(I(r.from), I(r.to)) },
            { "blocked_average", out.contextsBlocked.average(I(r.from), I(r.to)) } }) });
    all.metrics.push_back({ "INCOMPLETE_INSTANCES",
        fieldsValue({ { "conjunctions", I(m.incompleteConjunctions) }, { "conjuncts", I(m.incompleteConjuncts) },
            { "futures", I(m.incompleteFutures) }, { "problems", I(m.problems.size()) } }) });

    // ---- GHC: heap figures (49-51) and the per-generation GC table (53) -----------------------
    {
        EngineScan heap = globalScan;
        std::vector<EngineScan::GcReport> reports = globalScan.gcReports;
        for (const auto& sc : scans) {
            heap.anyHeap = heap.anyHeap || sc.anyHeap;
            heap.maxSize = std::max(heap.maxSize, sc.maxSize);
            heap.maxLive = std::max(heap.maxLive, sc.maxLive);
            heap.allocLast = std::max(heap.allocLast, sc.allocLast);
            heap.allocBefore = std::max(heap.allocBefore, sc.allocBefore);
            reports.insert(reports.end(), sc.gcReports.begin(), sc.gcReports.end());
        }
        const bool anyHeap = heap.anyHeap;
        const uint64_t maxSize = heap.maxSize, maxLive = heap.maxLive, allocLast = heap.allocLast,
                       allocBefore = heap.allocBefore;
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
            // The collection this report belongs to: the last one starting at or before it.
            auto it = std::upper_bound(
                gcs.begin(), gcs.end(), rep.timeNs, [](uint64_t x, const auto& c) { return x < c.first; });
            if (it != gcs.begin())
                g.pauses.push_back(double(std::prev(it)->second - std::prev(it)->first));
        }
        if (anyHeap) {
            const uint64_t allocated = allocLast - std::min(allocLast, allocBefore);
            const double mutatorSeconds = double(total - std::min(total, gcTotal)) / 1e9;
            all.metrics.push_back({ "HEAP",
                fieldsValue({ { "max_heap_size_bytes", I(maxSize) }, { "max_live_bytes", I(maxLive) },
                    { "total_allocated_bytes", I(allocated) },
                    { "allocation_rate_bytes_per_s",
                        mutatorSeconds == 0 ? 0.0 : double(allocated) / mutatorSeconds } }) });
        }
        program.groups.push_back(std::move(all));
        for (auto& [gen, g] : gens) {
            const Stat pauses = Stat::of(g.pauses);
            program.groups.push_back({ "gen" + std::to_string(gen),
                { { "GC_GENERATION",
                    fieldsValue({ { "collections", I(g.collections) }, { "parallel_collections", I(g.parallel) },
                        { "elapsed_ns", pauses.sum }, { "mean_pause_ns", pauses.mean },
                        { "max_pause_ns", pauses.max } }) } } });
        }
    }

    // ---- engines ----------------------------------------------------------------------------
    MetricSection engines { "engines", {} };
    {
        // Work-available times for ENGINE_WAKE_LATENCY, only needed when some engine slept: each
        // engine's list is sorted already, so they are merged rather than sorted.
        std::vector<uint64_t> work;
        bool anySleep = false;
        for (const auto& engine : engineStates.engines)
            for (const auto& iv : engine)
                anySleep = anySleep || iv.state == EngineState::Sleeping;
        if (anySleep)
            for (const auto& s : scans) {
                const auto middle = work.insert(work.end(), s.workTimes.begin(), s.workTimes.end());
                std::inplace_merge(work.begin(), middle, work.end());
            }
        // Steal contention: attempts of all engines, grouped by transitive overlap.
        std::vector<EngineScan::Attempt> attempts;
        for (const auto& s : scans)
            attempts.insert(attempts.end(), s.steals.begin(), s.steals.end());
        std::sort(attempts.begin(), attempts.end(),
            [](const auto& a, const auto& b) { return std::tie(a.start, a.engine) < std::tie(b.start, b.engine); });
        struct Contention {
            uint64_t attempts = 0, conflicts = 0, productive = 0;
            std::vector<double> durations;
            std::map<size_t, std::pair<uint64_t, uint64_t>> byEngines; // engines -> (count, duration)
        };
        std::vector<Contention> perEngine(nEngines + 1); // last = total
        for (size_t i = 0; i < attempts.size();) {
            size_t j = i;
            uint64_t end = attempts[i].end;
            while (j + 1 < attempts.size() && attempts[j + 1].start < end)
                end = std::max(end, attempts[++j].end);
            std::vector<uint16_t> involved;
            bool productive = false;
            for (size_t k = i; k <= j; ++k) {
                involved.push_back(attempts[k].engine);
                productive = productive || attempts[k].productive;
                if (attempts[k].engine < nEngines)
                    ++perEngine[attempts[k].engine].attempts;
                ++perEngine[nEngines].attempts;
            }
            std::sort(involved.begin(), involved.end());
            involved.erase(std::unique(involved.begin(), involved.end()), involved.end());
            if (involved.size() >= 2) {
                const uint64_t d = end - attempts[i].start;
                auto record = [&](Contention& c) {
                    ++c.conflicts;
                    c.productive += productive;
                    c.durations.push_back(double(d));
                    c.byEngines[involved.size()].first += 1;
                    c.byEngines[involved.size()].second += d;
                };
                for (uint16_t e : involved)
                    if (e < nEngines)
                        record(perEngine[e]);
                record(perEngine[nEngines]);
            }
            i = j + 1;
        }
        auto contentionValue = [](const Contention& c) {
            const Stat d = Stat::of(c.durations);
            MetricValue v = fieldsValue({ { "attempts", I(c.attempts) }, { "conflicts", I(c.conflicts) },
                { "productive_conflicts", I(c.productive) },
                { "conflicts_per_attempt", ratio(double(c.conflicts), double(c.attempts)) },
                { "productive_conflicts_per_attempt", ratio(double(c.productive), double(c.attempts)) },
                { "conflict_time_total_ns", d.sum }, { "conflict_time_mean_ns", d.mean },
                { "conflict_time_max_ns", d.max } });
            for (const auto& [n, cd] : c.byEngines) {
                v.fields.push_back(
                    { "share_count_" + std::to_string(n) + "_engines", ratio(double(cd.first), double(c.conflicts)) });
                v.fields.push_back({ "share_time_" + std::to_string(n) + "_engines", ratio(double(cd.second), d.sum) });
            }
            return v;
        };
        auto searchValue = [](const std::array<uint64_t, 3>& tries, const std::array<uint64_t, 3>& ok) {
            MetricValue v;
            const char* names[] = { "global_queue", "local_deque", "steal" };
            for (size_t i = 0; i < 3; ++i) {
                v.fields.push_back({ std::string(names[i]) + "_tries", I(tries[i]) });
                v.fields.push_back({ std::string(names[i]) + "_successes", I(ok[i]) });
                v.fields.push_back({ std::string(names[i]) + "_success_rate", ratio(double(ok[i]), double(tries[i])) });
            }
            return v;
        };
        std::array<uint64_t, 3> allTries {}, allOk {};
        std::vector<double> allFind, allSleep, allWake;
        std::array<uint64_t, kEngineStateCount> allStates {};
        for (size_t e = 0; e < nEngines; ++e) {
            const EngineScan& s = scans[e];
            MetricGroup g { std::to_string(e), {} };
            const auto st = engineStates.timeInStates(e, r.from, r.to);
            MetricValue states;
            for (size_t i = 0; i < kEngineStateCount; ++i) {
                states.fields.push_back({ std::string(engineStateName(EngineState(i))) + "_ns", I(st[i]) });
                allStates[i] += st[i];
            }
            g.metrics.push_back({ "ENGINE_STATE_TIME", states });
            g.metrics.push_back({ "SPARK_COUNTS", sparkCounts(s) });
            g.metrics.push_back({ "SPARK_DEQUE_SIZE", dequeSummaries[e] });
            g.metrics.push_back({ "ENGINE_SEARCH_SUCCESS", searchValue(s.tries, s.successes) });
            g.metrics.push_back({ "ENGINE_TIME_TO_FIND_WORK", statValue(s.timeToFind) });
            g.metrics.push_back({ "ENGINE_TIME_TO_SLEEP", statValue(s.timeToSleep) });
            // Wake latency: per woken sleep, wake time - the first work made available during it.
            std::vector<double> wake;
            for (const auto& iv : engineStates.engines[e])
                if (iv.state == EngineState::Sleeping && iv.endNs < last && r.contains(iv.endNs)) {
                    auto w = std::lower_bound(work.begin(), work.end(), iv.startNs);
                    if (w != work.end() && *w < iv.endNs)
                        wake.push_back(double(iv.endNs - *w));
                }
            g.metrics.push_back({ "ENGINE_WAKE_LATENCY", statValue(wake) });
            g.metrics.push_back({ "STEAL_CONTENTION", contentionValue(perEngine[e]) });
            for (size_t i = 0; i < 3; ++i) {
                allTries[i] += s.tries[i];
                allOk[i] += s.successes[i];
            }
            allFind.insert(allFind.end(), s.timeToFind.begin(), s.timeToFind.end());
            allSleep.insert(allSleep.end(), s.timeToSleep.begin(), s.timeToSleep.end());
            allWake.insert(allWake.end(), wake.begin(), wake.end());
            engines.groups.push_back(std::move(g));
        }
        MetricGroup t { "all", {} };
        MetricValue states;
        for (size_t i = 0; i < kEngineStateCount; ++i)
            states.fields.push_back({ std::string(engineStateName(EngineState(i))) + "_ns", I(allStates[i]) });
        t.metrics.push_back({ "ENGINE_STATE_TIME", states });
        t.metrics.push_back({ "ENGINE_SEARCH_SUCCESS", searchValue(allTries, allOk) });
        t.metrics.push_back({ "ENGINE_TIME_TO_FIND_WORK", statValue(allFind) });
        t.metrics.push_back({ "ENGINE_TIME_TO_SLEEP", statValue(allSleep) });
        t.metrics.push_back({ "ENGINE_WAKE_LATENCY", statValue(allWake) });
        t.metrics.push_back({ "STEAL_CONTENTION", contentionValue(perEngine[nEngines]) });
        uint64_t resumes = 0, same = 0;
        for (const auto& rs : m.resumes)
            if (r.contains(rs.timeNs)) {
                ++resumes;
                same += rs.fromEngine == rs.toEngine;
            }
        t.metrics.push_back({ "CONTEXT_RESUME_LOCALITY",
            fieldsValue({ { "resumes", I(resumes) }, { "same_engine", I(same) },
                { "fraction", ratio(double(same), double(resumes)) } }) });
        engines.groups.push_back(std::move(t));
    }

    // ---- conjunctions and conjuncts ---------------------------------------------------------
    MetricSection conjunctions { "conjunctions", {} }, conjunctsSection { "conjuncts", {} };
    std::vector<DescValues> desc;
    ConjunctionGroups groups;
    // Per-instance figures in parallel; only what the descendant pass and the model do not already
    // hold is kept (SelfFigures per instance, a split per conjunct), and the summaries read it in
    // place. The arrays are left uninitialised for the parallel pass to write (and page in).
    const auto self = std::make_unique_for_overwrite<SelfFigures[]>(m.conjunctions.size());
    const auto splits = std::make_unique_for_overwrite<ConjunctSplit[]>(m.conjuncts.size());
    std::optional<tbb::enumerable_thread_specific<ConjunctFirstPasses>> threadFirstPasses;
    // The grouping per static id (sequential) and these figures need only the model: they run beside
    // the descendant pass, filling its sequential stretches, rather than after it.
    tbb::parallel_invoke([&] { desc = detail::descendantPass(m, cpuCurve, nEngines, r.from, r.to); },
        [&] {
            groups = groupConjunctions(m, r);
            threadFirstPasses.emplace(groups.names.size());
            tbb::parallel_for(
                tbb::blocked_range<size_t>(0, m.conjunctions.size()), [&](const tbb::blocked_range<size_t>& range) {
                    ConjunctFirstPasses& firstPasses = threadFirstPasses->local();
                    for (size_t j = range.begin(); j != range.end(); ++j) {
                        const uint32_t group = groups.groupOf[j];
                        if (group == detail::IndexGroups::kNoGroup)
                            continue; // incomplete, or outside the range
                        self[j] = selfFigures(m, uint32_t(j), splits.get());
                        for (uint32_t k : m.conjunctions[j].conjuncts)
                            firstPasses.add(group, m.conjuncts[k].position, conjunctDurations(m, k, splits[k]));
                    }
                });
        });
    const size_t nGroups = groups.names.size();
    ConjunctFirstPasses conjunctFirstPasses(nGroups);
    for (const auto& part : *threadFirstPasses)
        conjunctFirstPasses.merge(part);
    // The summaries: per group, the conjunct values, the conjunction values (from the descendant pass;
    // from SelfFigures) and the scheduling order; and the scheduling order over all groups. Each is a
    // sequence of long double sums that must run in instance order, so the parallelism is across them
    // (one task each, four per group so that two cores share them evenly).
    std::vector<ConjunctionsSummary> conjunctionStats(nGroups);
    std::vector<ConjunctsSummary> conjunctStats(nGroups);
    SchedulingSummary schedulingOfAll;
    // With one group, "all" is that group's summary: the same instances in the same order.
    constexpr size_t kTasksPerGroup = 4;
    const size_t tasks = kTasksPerGroup * nGroups + (nGroups > 1 ? 1 : 0);
    tbb::parallel_for(
        tbb::blocked_range<size_t>(0, tasks, 1),
        [&](const tbb::blocked_range<size_t>& range) {
            for (size_t task = range.begin(); task != range.end(); ++task) {
                const size_t g = task / kTasksPerGroup;
                if (g == nGroups) {
                    SchedulingSummariser all(desc);
                    for (bool firstPass : { true, false }) {
                        for (size_t j = 0; j < m.conjunctions.size(); ++j) {
                            const ConjunctionInstance& ci = m.conjunctions[j];
                            if (ci.complete && r.contains(ci.startNs) && hasPairs(m, uint32_t(j)))
                                all.visit(uint32_t(j));
                        }
                        if (firstPass)
                            all.endFirstPass();
                    }
                    schedulingOfAll = all.summary();
                    continue;
                }
                const auto instances = groups.complete.members(g);
                // In this order, halves of the task range (which is how it splits between two
                // threads) take about the same time: conjunct values with the scheduling order,
                // descendant values with SelfFigures values (measured on parfib37: 48 + 22 ms, 34 + 31 ms).
                switch (task % kTasksPerGroup) {
                case 0:
                    conjunctStats[g] = summariseConjuncts(m, instances, splits.get(), conjunctFirstPasses.byGroup[g]);
                    break;
                case 1:
                    conjunctionStats[g].scheduling = summariseScheduling(instances, self.get(), desc);
                    break;
                case 2:
                    summariseDescendantValues(instances, desc, conjunctionStats[g]);
                    break;
                default:
                    summariseSelfValues(instances, self.get(), conjunctionStats[g]);
                    break;
                }
            }
        },
        tbb::simple_partitioner());
    if (nGroups == 1)
        schedulingOfAll = conjunctionStats[0].scheduling;
    {
        auto curve = [](const Stat& max, const Stat& average) {
            MetricValue v;
            v.subStats.push_back({ "max", max });
            v.subStats.push_back({ "average", average });
            return v;
        };
        auto stat = [](const Stat& s) {
            MetricValue v;
            v.stat = s;
            return v;
        };
        for (size_t g = 0; g < nGroups; ++g) {
            const auto& s = conjunctionStats[g].values;
            MetricGroup out { groups.names[g], {} };
            out.metrics.push_back({ "INSTANCES",
                fieldsValue({ { "complete", I(groups.complete.members(g).size()) },
                    { "incomplete", I(groups.incomplete[g]) } }) });
            out.metrics.push_back({ "PARCONJ_TIME", stat(s[kTime]) });
            out.metrics.push_back({ "PARCONJ_RUNNABLE_SELF", curve(s[kRunnableSelfMax], s[kRunnableSelfAverage]) });
            out.metrics.push_back({ "PARCONJ_RUNNABLE_SELF_AND_DESC",
                curve(s[kRunnableSelfAndDescMax], s[kRunnableSelfAndDescAverage]) });
            out.metrics.push_back({ "PARCONJ_RUNNING_SELF", curve(s[kRunningSelfMax], s[kRunningSelfAverage]) });
            out.metrics.push_back(
                { "PARCONJ_RUNNING_SELF_AND_DESC", curve(s[kRunningSelfAndDescMax], s[kRunningSelfAndDescAverage]) });
            out.metrics.push_back({ "PARCONJ_AVAIL_CPUS", curve(s[kAvailCpusMax], s[kAvailCpusAverage]) });
            out.metrics.push_back({ "PARCONJ_CONTINUE_ON_BEFORE", stat(s[kContinueOnBefore]) });
            out.metrics.push_back({ "PARCONJ_CONTINUE_ON_LAST", stat(s[kContinueOnLast]) });
            out.metrics.push_back({ "CONJUNCT_GRANULARITY", granularity(conjunctFirstPasses.running[g]) });
            conjunctions.groups.push_back(std::move(out));
        }
        if (options.instances)
            for (size_t j = 0; j < m.conjunctions.size(); ++j) {
                const ConjunctionInstance& ci = m.conjunctions[j];
                if (!r.contains(ci.startNs))
                    continue;
                MetricGroup g { "instance:" + std::to_string(j), {} };
                g.metrics.push_back({ "INSTANCE",
                    fieldsValue({ { "static_id", m.staticName(ci.staticId) }, { "dyn_id", I(ci.dynId) },
                        { "start_ns", I(ci.startNs) }, { "end_ns", ci.ended ? I(ci.endNs) : I(-1) },
                        { "conjuncts", I(ci.conjuncts.size()) },
                        { "parent_instance",
                            ci.parentConjunct == kNoIndex ? I(-1) : I(m.conjuncts[ci.parentConjunct].conjunction) },
                        { "complete", I(ci.complete) } }) });
                if (ci.complete) {
                    const ConjunctionFigures v = figuresFrom(self[j], desc[j]);
                    g.metrics.push_back({ "PARCONJ_TIME", fieldsValue({ { "value", v.time } }) });
                    g.metrics.push_back({ "PARCONJ_RUNNABLE_SELF",
                        fieldsValue({ { "max", v.runnableSelfMax }, { "average", v.runnableSelfAverage } }) });
                    g.metrics.push_back({ "PARCONJ_RUNNABLE_SELF_AND_DESC",
                        fieldsValue(
                            { { "max", v.runnableSelfAndDescMax }, { "average", v.runnableSelfAndDescAverage } }) });
                    g.metrics.push_back({ "PARCONJ_RUNNING_SELF",
                        fieldsValue({ { "max", v.runningSelfMax }, { "average", v.runningSelfAverage } }) });
                    g.metrics.push_back({ "PARCONJ_RUNNING_SELF_AND_DESC",
                        fieldsValue(
                            { { "max", v.runningSelfAndDescMax }, { "average", v.runningSelfAndDescAverage } }) });
                    g.metrics.push_back({ "PARCONJ_AVAIL_CPUS",
                        fieldsValue({ { "max", v.availCpusMax }, { "average", v.availCpusAverage } }) });
                }
                conjunctions.groups.push_back(std::move(g));
            }
        Log2Histogram allRunning;
        for (size_t g = 0; g < nGroups; ++g) {
            const ConjunctsSummary& cs = conjunctStats[g];
            allRunning.merge(conjunctFirstPasses.running[g]);
            for (size_t position = 0; position < cs.byPosition.size(); ++position) {
                const ConjunctStats& a = cs.byPosition[position];
                if (!a.any)
                    continue; // no conjunct at this position
                MetricGroup out { groups.names[g] + "/" + std::to_string(position), {} };
                if (a.asSpark.count(0) > 0)
                    out.metrics.push_back({ "CONJUNCT_TIME_AS_SPARK", stat(a.asSpark.stat(0)) });
                out.metrics.push_back({ "CONJUNCT_TIME_AS_CONTEXT", stat(a.values.stat(kAsContext)) });
                out.metrics.push_back({ "CONJUNCT_TIME_BLOCKED", stat(a.values.stat(kBlocked)) });
                out.metrics.push_back({ "CONJUNCT_TIME_RUNNABLE", stat(a.values.stat(kRunnable)) });
                out.metrics.push_back({ "CONJUNCT_TIME_RUNNING", stat(a.values.stat(kRunning)) });
                out.metrics.push_back({ "CONJUNCT_TIME_AFTER", stat(a.values.stat(kAfter)) });
                conjunctsSection.groups.push_back(std::move(out));
            }
        }
        program.groups.front().metrics.push_back({ "CONJUNCT_GRANULARITY", granularity(allRunning) });
    }
    // ---- futures ----------------------------------------------------------------------------
    MetricSection futures { "futures", {} };
    {
        const FutureGroups groups = groupFutures(m, r);
        std::vector<FuturesSummary> summaries(groups.names.size());
        tbb::parallel_for(
            tbb::blocked_range<size_t>(0, summaries.size(), 1),
            [&](const tbb::blocked_range<size_t>& range) {
                for (size_t g = range.begin(); g != range.end(); ++g)
                    summaries[g] = summariseFutures(m, groups.complete.members(g));
            },
            tbb::simple_partitioner());
        auto stat = [](const Stat& s) {
            MetricValue v;
            v.stat = s;
            return v;
        };
        for (size_t g = 0; g < summaries.size(); ++g) {
            const FuturesSummary& s = summaries[g];
            MetricGroup out { groups.names[g], {} };
            out.metrics.push_back({ "INSTANCES",
                fieldsValue({ { "complete", I(s.signalEnd.count) }, { "incomplete", I(groups.incomplete[g]) } }) });
            out.metrics.push_back({ "FUTURE_SUSPEND_TIME_FIRST_WAITS", stat(s.firstWaits) });
            out.metrics.push_back({ "FUTURE_SUSPEND_TIME_ALL_WAITS", stat(s.allWaits) });
            out.metrics.push_back({ "FUTURE_SUSPEND_PROBABILITY_FIRST_WAIT",
                fieldsValue(
                    { { "suspended", I(s.firstSuspended) }, { "no_suspend", I(s.firstTotal - s.firstSuspended) },
                        { "probability", ratio(double(s.firstSuspended), double(s.firstTotal)) } }) });
            out.metrics.push_back({ "FUTURE_SUSPEND_PROBABILITY_ALL_WAITS",
                fieldsValue({ { "suspended", I(s.allSuspended) }, { "no_suspend", I(s.allTotal - s.allSuspended) },
                    { "probability", ratio(double(s.allSuspended), double(s.allTotal)) } }) });
            out.metrics.push_back({ "WAITED_FUTURE_SIGNAL_TO_CONJUNCT_END_TIME", stat(s.waitedEnd) });
            out.metrics.push_back({ "FUTURE_SIGNAL_TO_CONJUNCT_END_TIME", stat(s.signalEnd) });
            futures.groups.push_back(std::move(out));
        }
    }

    // Scheduling order: all groups first, then each group that has an instance with two conjuncts or more.
    MetricSection scheduling { "scheduling", {} };
    scheduling.groups.push_back(schedulingGroup("all", schedulingOfAll));
    for (size_t g = 0; g < nGroups; ++g)
        if (conjunctionStats[g].scheduling.instances > 0)
            scheduling.groups.push_back(schedulingGroup(groups.names[g], conjunctionStats[g].scheduling));

    out.sections.push_back(std::move(program));
    out.sections.push_back(std::move(engines));
    out.sections.push_back(std::move(conjunctions));
    out.sections.push_back(std::move(conjunctsSection));
    out.sections.push_back(std::move(futures));
    out.sections.push_back(std::move(scheduling));
    return out;
}

} // namespace sparkscope::core
