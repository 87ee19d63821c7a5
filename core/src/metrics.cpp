// Metric derivation (see metrics.h and docs/metrics.md for every definition and every choice the
// specification left open). Structure: engine states (parallel per engine) and the model pass run
// first; then each section is filled from them. Per-instance work (curves of each conjunction
// instance, per-engine event scans) runs in parallel with TBB; groups are then summarised in a
// deterministic order (sorted ids) so the output is byte-for-byte stable across runs.
#include "sparkscope/core/metrics.h"
#include "sparkscope/core/deque_sizes.h"

#include "descendant_pass.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <map>
#include <tbb/parallel_for.h>
#include <tbb/parallel_invoke.h>
#include <unordered_map>

namespace sparkscope::core {

using detail::bindTime;
using detail::DescValues;

Stat Stat::of(const std::vector<double>& values)
{
    Stat s;
    if (values.empty())
        return s;
    s.count = values.size();
    s.min = values.front();
    s.max = values.front();
    long double sum = 0;
    for (double v : values) {
        sum += v;
        s.min = std::min(s.min, v);
        s.max = std::max(s.max, v);
    }
    s.sum = static_cast<double>(sum);
    const long double mean = sum / static_cast<long double>(values.size());
    s.mean = static_cast<double>(mean);
    long double sq = 0;
    for (double v : values)
        sq += (v - mean) * (v - mean);
    s.variance = static_cast<double>(sq / static_cast<long double>(values.size()));
    return s;
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
    void addPiece(uint64_t from, uint64_t to, ContextState state, std::vector<StepFunction::Step>& runnable,
        std::vector<StepFunction::Step>& running)
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
    void addContextPieces(const ParModel& m, uint32_t c, uint64_t a, uint64_t b, uint32_t conjunct, bool onlyTop,
        std::vector<StepFunction::Step>& runnable, std::vector<StepFunction::Step>& running)
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
            addPiece(std::max(a, it->startNs), std::min(b, next), it->state, runnable, running);
        }
    }

    // Pieces of one conjunct: spark phase, the unbound start (runnable), then its context's pieces.
    void addConjunct(const ParModel& m, uint32_t k, bool onlyTop, uint64_t endLimit,
        std::vector<StepFunction::Step>& runnable, std::vector<StepFunction::Step>& running)
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
        addContextPieces(m, g.context, bound, end, k, onlyTop, runnable, running);
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
    // The maximum and integral over [a, b) of the curve that is 0 at a and changes by `deltas` (times
    // clamped into [a, b)): what StepFunction::fromDeltas(deltas, a, b) answers, without building
    // it — computeMetrics needs these two numbers for every instance.
    std::pair<int64_t, int64_t> maxAndIntegral(std::vector<StepFunction::Step>& deltas, I a, I b)
    {
        std::sort(deltas.begin(), deltas.end(), [](const auto& x, const auto& y) { return x.timeNs < y.timeNs; });
        int64_t value = 0, max = 0, integral = 0, t = a;
        for (const auto& d : deltas) {
            const I at = std::clamp(d.timeNs, a, b);
            if (at > t) {
                max = std::max(max, value);
                integral += value * (at - t);
                t = at;
            }
            value += d.value;
        }
        if (b > t) {
            max = std::max(max, value);
            integral += value * (b - t);
        }
        return { max, integral };
    }

    // One complete instance's figures: RUNNABLE_SELF and RUNNING_SELF from its conjuncts' pieces,
    // the rest from its descendant-pass values.
    ConjunctionFigures figuresOf(const ParModel& m, uint32_t j, const DescValues& d)
    {
        const ConjunctionInstance& ci = m.conjunctions[j];
        ConjunctionFigures v;
        const I a = I(ci.startNs), b = I(ci.endNs);
        v.time = double(ci.endNs - ci.startNs);
        if (b > a) {
            thread_local std::vector<StepFunction::Step> rs, ns;
            rs.clear(), ns.clear();
            for (uint32_t k : ci.conjuncts)
                addConjunct(m, k, false, ci.endNs, rs, ns);
            const auto [rMax, rInt] = maxAndIntegral(rs, a, b);
            const auto [nMax, nInt] = maxAndIntegral(ns, a, b);
            v.runnableSelfMax = double(rMax), v.runnableSelfAverage = double(rInt) / double(b - a);
            v.runningSelfMax = double(nMax), v.runningSelfAverage = double(nInt) / double(b - a);
        }
        v.runnableSelfAndDescMax = d.rdMax, v.runnableSelfAndDescAverage = d.rdAvg;
        v.runningSelfAndDescMax = d.ndMax, v.runningSelfAndDescAverage = d.ndAvg;
        v.availCpusMax = d.avMax, v.availCpusAverage = d.avAvg;
        v.outOfOrderNs = d.outOfOrder, v.eitherRunningNs = d.eitherRunning, v.blockingNs = d.blocking;
        v.blockingTcNs = d.blockingTc;
        v.continueOnBefore = ci.endEngine == ci.startEngine ? 1.0 : 0.0;
        if (!ci.conjuncts.empty()) {
            uint32_t lastConjunct = ci.conjuncts.front();
            for (uint32_t k : ci.conjuncts)
                if (m.conjuncts[k].endNs >= m.conjuncts[lastConjunct].endNs)
                    lastConjunct = k;
            v.continueOnLast = m.conjuncts[lastConjunct].endEngine == ci.endEngine ? 1.0 : 0.0;
        }
        return v;
    }
} // namespace

std::optional<ConjunctionFigures> conjunctionFigures(
    const ParModel& m, const StepFunction& cpus, size_t engines, uint32_t j)
{
    if (j >= m.conjunctions.size() || !m.conjunctions[j].complete)
        return std::nullopt;
    return figuresOf(m, j, detail::descendantValues(m, cpus, engines, j));
}

std::optional<ConjunctFigures> conjunctFigures(const ParModel& m, uint32_t k)
{
    if (k >= m.conjuncts.size())
        return std::nullopt;
    const ConjunctInstance& g = m.conjuncts[k];
    if (g.conjunction == kNoIndex || !m.conjunctions[g.conjunction].complete)
        return std::nullopt;
    const ConjunctionInstance& ci = m.conjunctions[g.conjunction];
    ConjunctFigures f;
    if (g.fromSpark)
        f.timeAsSpark = double(g.startNs - g.sparkCreateNs);
    f.timeAsContext = double(g.endNs - g.startNs);
    const auto split = conjunctTimeSplit(m, k);
    f.timeBlocked = double(split[0]);
    f.timeRunnable = double(split[1]);
    f.timeRunning = double(split[2]);
    f.timeAfter = double(ci.endNs - g.endNs);
    return f;
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

    // The granularity profile: counts per log2 bucket of TIME_RUNNING, and the cumulative form.
    MetricValue granularity(const std::vector<double>& running)
    {
        std::vector<int64_t> buckets;
        for (double v : running) {
            const uint64_t ns = uint64_t(v);
            const size_t b = ns <= 1 ? 0 : size_t(63 - __builtin_clzll(ns));
            if (buckets.size() <= b)
                buckets.resize(b + 1, 0);
            ++buckets[b];
        }
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

    void computeScheduling(const ParModel& m, Range r, const std::vector<DescValues>& desc, MetricSection& section)
    {
        std::vector<OutOfOrder> per(m.conjunctions.size());
        for (size_t j = 0; j < per.size(); ++j)
            per[j] = { desc[j].outOfOrder, desc[j].eitherRunning, desc[j].blocking, desc[j].blockingTc };
        struct Group {
            std::vector<double> probability, blocks, blocksTc;
            OutOfOrder total;
        };
        std::map<std::string, Group> groups;
        Group all;
        for (size_t j = 0; j < per.size(); ++j) {
            const ConjunctionInstance& ci = m.conjunctions[j];
            if (!ci.complete || !r.contains(ci.startNs) || ci.conjuncts.size() < 2)
                continue;
            Group& g = groups[m.staticName(ci.staticId)];
            for (Group* x : { &g, &all }) {
                x->total.outOfOrder += per[j].outOfOrder;
                x->total.eitherRunning += per[j].eitherRunning;
                x->total.blocking += per[j].blocking;
                x->total.blockingTc += per[j].blockingTc;
                if (per[j].eitherRunning > 0)
                    x->probability.push_back(per[j].outOfOrder / per[j].eitherRunning);
                if (per[j].outOfOrder > 0) {
                    x->blocks.push_back(per[j].blocking / per[j].outOfOrder);
                    x->blocksTc.push_back(per[j].blockingTc / per[j].outOfOrder);
                }
            }
        }
        auto emit = [&](const std::string& id, const Group& g) {
            MetricGroup out { id, {} };
            MetricValue p;
            p.fields = { { "out_of_order_ns", g.total.outOfOrder }, { "either_running_ns", g.total.eitherRunning },
                { "probability", ratio(g.total.outOfOrder, g.total.eitherRunning) } };
            p.subStats.push_back({ "per_instance", Stat::of(g.probability) });
            out.metrics.push_back({ "OUT_OF_ORDER_PROBABILITY", p });
            MetricValue b;
            b.fields
                = { { "blocking_ns", g.total.blocking }, { "fraction", ratio(g.total.blocking, g.total.outOfOrder) } };
            b.subStats.push_back({ "per_instance", Stat::of(g.blocks) });
            out.metrics.push_back({ "OUT_OF_ORDER_SCHEDULING_BLOCKS_ANOTHER_CONTEXT", b });
            MetricValue tc;
            tc.fields = { { "blocking_ns", g.total.blockingTc },
                { "fraction", ratio(g.total.blockingTc, g.total.outOfOrder) } };
            tc.subStats.push_back({ "per_instance", Stat::of(g.blocksTc) });
            out.metrics.push_back({ "OUT_OF_ORDER_SCHEDULING_BLOCKS_ANOTHER_CONTEXT_TC", tc });
            section.groups.push_back(std::move(out));
        };
        emit("all", all);
        for (const auto& [id, g] : groups)
            emit(id, g);
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
    const std::vector<DescValues> desc = detail::descendantPass(m, cpuCurve, nEngines, r.from, r.to);
    std::vector<std::optional<ConjunctionFigures>> iv(m.conjunctions.size());
    std::vector<ConjunctFigures> conjunctFigs(m.conjuncts.size());
    tbb::parallel_for(size_t(0), m.conjunctions.size(), [&](size_t j) {
        const ConjunctionInstance& ci = m.conjunctions[j];
        if (ci.complete && r.contains(ci.startNs)) {
            iv[j] = figuresOf(m, uint32_t(j), desc[j]);
            for (uint32_t k : ci.conjuncts)
                conjunctFigs[k] = *conjunctFigures(m, k); // its conjunction is complete
        }
    });
    {
        struct ConjGroup {
            uint64_t complete = 0, incomplete = 0;
            std::vector<double> time, rsMax, rsAvg, rdMax, rdAvg, nsMax, nsAvg, ndMax, ndAvg, avMax, avAvg, before,
                lastv, running;
        };
        struct ConjunctGroup {
            std::vector<double> asSpark, asContext, blocked, runnable, running, after;
        };
        std::map<std::string, ConjGroup> groups;
        std::map<std::pair<std::string, uint32_t>, ConjunctGroup> cgroups;
        // Each static id's groups, looked up by name once (map nodes do not move).
        std::unordered_map<uint32_t, std::pair<std::string, ConjGroup*>> byStaticId;
        std::unordered_map<uint64_t, ConjunctGroup*> byPosition;
        std::vector<double> allRunning;
        for (size_t j = 0; j < m.conjunctions.size(); ++j) {
            const ConjunctionInstance& ci = m.conjunctions[j];
            if (!r.contains(ci.startNs))
                continue;
            auto [named, fresh] = byStaticId.try_emplace(ci.staticId);
            if (fresh) {
                named->second.first = m.staticName(ci.staticId);
                named->second.second = &groups[named->second.first];
            }
            const std::string& name = named->second.first;
            ConjGroup& g = *named->second.second;
            if (!iv[j]) {
                ++g.incomplete;
                continue;
            }
            ++g.complete;
            const ConjunctionFigures& v = *iv[j];
            g.time.push_back(v.time);
            g.rsMax.push_back(v.runnableSelfMax), g.rsAvg.push_back(v.runnableSelfAverage);
            g.rdMax.push_back(v.runnableSelfAndDescMax), g.rdAvg.push_back(v.runnableSelfAndDescAverage);
            g.nsMax.push_back(v.runningSelfMax), g.nsAvg.push_back(v.runningSelfAverage);
            g.ndMax.push_back(v.runningSelfAndDescMax), g.ndAvg.push_back(v.runningSelfAndDescAverage);
            g.avMax.push_back(v.availCpusMax), g.avAvg.push_back(v.availCpusAverage);
            g.before.push_back(v.continueOnBefore), g.lastv.push_back(v.continueOnLast);
            for (uint32_t k : ci.conjuncts) {
                const uint32_t position = m.conjuncts[k].position;
                ConjunctGroup*& slot = byPosition[uint64_t(ci.staticId) << 32 | position];
                if (!slot)
                    slot = &cgroups[{ name, position }];
                ConjunctGroup& cg = *slot;
                const ConjunctFigures& f = conjunctFigs[k];
                if (f.timeAsSpark)
                    cg.asSpark.push_back(*f.timeAsSpark);
                cg.asContext.push_back(f.timeAsContext);
                cg.blocked.push_back(f.timeBlocked);
                cg.runnable.push_back(f.timeRunnable);
                cg.running.push_back(f.timeRunning);
                cg.after.push_back(f.timeAfter);
                g.running.push_back(f.timeRunning);
                allRunning.push_back(f.timeRunning);
            }
        }
        auto curve = [](const std::vector<double>& mx, const std::vector<double>& avg) {
            MetricValue v;
            v.subStats.push_back({ "max", Stat::of(mx) });
            v.subStats.push_back({ "average", Stat::of(avg) });
            return v;
        };
        for (auto& [name, g] : groups) {
            MetricGroup out { name, {} };
            out.metrics.push_back(
                { "INSTANCES", fieldsValue({ { "complete", I(g.complete) }, { "incomplete", I(g.incomplete) } }) });
            out.metrics.push_back({ "PARCONJ_TIME", statValue(g.time) });
            out.metrics.push_back({ "PARCONJ_RUNNABLE_SELF", curve(g.rsMax, g.rsAvg) });
            out.metrics.push_back({ "PARCONJ_RUNNABLE_SELF_AND_DESC", curve(g.rdMax, g.rdAvg) });
            out.metrics.push_back({ "PARCONJ_RUNNING_SELF", curve(g.nsMax, g.nsAvg) });
            out.metrics.push_back({ "PARCONJ_RUNNING_SELF_AND_DESC", curve(g.ndMax, g.ndAvg) });
            out.metrics.push_back({ "PARCONJ_AVAIL_CPUS", curve(g.avMax, g.avAvg) });
            out.metrics.push_back({ "PARCONJ_CONTINUE_ON_BEFORE", statValue(g.before) });
            out.metrics.push_back({ "PARCONJ_CONTINUE_ON_LAST", statValue(g.lastv) });
            out.metrics.push_back({ "CONJUNCT_GRANULARITY", granularity(g.running) });
            conjunctions.groups.push_back(std::move(out));
        }
        if (options.instances)
            for (size_t j = 0; j < m.conjunctions.size(); ++j) {
                const ConjunctionInstance& ci = m.conjunctions[j];
                if (!r.contains(ci.startNs))
                    continue;
                const std::optional<ConjunctionFigures>& v = iv[j];
                MetricGroup g { "instance:" + std::to_string(j), {} };
                g.metrics.push_back({ "INSTANCE",
                    fieldsValue({ { "static_id", m.staticName(ci.staticId) }, { "dyn_id", I(ci.dynId) },
                        { "start_ns", I(ci.startNs) }, { "end_ns", ci.ended ? I(ci.endNs) : I(-1) },
                        { "conjuncts", I(ci.conjuncts.size()) },
                        { "parent_instance",
                            ci.parentConjunct == kNoIndex ? I(-1) : I(m.conjuncts[ci.parentConjunct].conjunction) },
                        { "complete", I(ci.complete) } }) });
                if (v) {
                    g.metrics.push_back({ "PARCONJ_TIME", fieldsValue({ { "value", v->time } }) });
                    g.metrics.push_back({ "PARCONJ_RUNNABLE_SELF",
                        fieldsValue({ { "max", v->runnableSelfMax }, { "average", v->runnableSelfAverage } }) });
                    g.metrics.push_back({ "PARCONJ_RUNNABLE_SELF_AND_DESC",
                        fieldsValue(
                            { { "max", v->runnableSelfAndDescMax }, { "average", v->runnableSelfAndDescAverage } }) });
                    g.metrics.push_back({ "PARCONJ_RUNNING_SELF",
                        fieldsValue({ { "max", v->runningSelfMax }, { "average", v->runningSelfAverage } }) });
                    g.metrics.push_back({ "PARCONJ_RUNNING_SELF_AND_DESC",
                        fieldsValue(
                            { { "max", v->runningSelfAndDescMax }, { "average", v->runningSelfAndDescAverage } }) });
                    g.metrics.push_back({ "PARCONJ_AVAIL_CPUS",
                        fieldsValue({ { "max", v->availCpusMax }, { "average", v->availCpusAverage } }) });
                }
                conjunctions.groups.push_back(std::move(g));
            }
        for (auto& [key, cg] : cgroups) {
            MetricGroup out { key.first + "/" + std::to_string(key.second), {} };
            if (!cg.asSpark.empty())
                out.metrics.push_back({ "CONJUNCT_TIME_AS_SPARK", statValue(cg.asSpark) });
            out.metrics.push_back({ "CONJUNCT_TIME_AS_CONTEXT", statValue(cg.asContext) });
            out.metrics.push_back({ "CONJUNCT_TIME_BLOCKED", statValue(cg.blocked) });
            out.metrics.push_back({ "CONJUNCT_TIME_RUNNABLE", statValue(cg.runnable) });
            out.metrics.push_back({ "CONJUNCT_TIME_RUNNING", statValue(cg.running) });
            out.metrics.push_back({ "CONJUNCT_TIME_AFTER", statValue(cg.after) });
            conjunctsSection.groups.push_back(std::move(out));
        }
        program.groups.front().metrics.push_back({ "CONJUNCT_GRANULARITY", granularity(allRunning) });
    }

    // ---- futures ----------------------------------------------------------------------------
    MetricSection futures { "futures", {} };
    {
        struct FutureGroup {
            std::vector<double> first, allw, waitedEnd, signalEnd;
            uint64_t firstSuspended = 0, firstTotal = 0, allSuspended = 0, allTotal = 0, incomplete = 0;
        };
        std::map<std::string, FutureGroup> groups;
        for (const FutureInstance& f : m.futures) {
            if (f.conjunction == kNoIndex || !r.contains(m.conjunctions[f.conjunction].startNs))
                continue;
            const std::string key
                = m.staticName(m.conjunctions[f.conjunction].staticId) + "/" + m.stringOr(f.nameId, "var#");
            FutureGroup& g = groups[key];
            if (!f.complete) {
                ++g.incomplete;
                continue;
            }
            std::vector<uint32_t> seen; // consuming conjuncts (first waits)
            bool anySuspended = false;
            for (const FutureWait& w : f.waits) {
                const double d = double(I(w.timeNs) - I(f.signalNs));
                g.allw.push_back(d);
                ++g.allTotal;
                g.allSuspended += w.suspended;
                anySuspended = anySuspended || w.suspended;
                const uint32_t who = w.conjunct != kNoIndex ? w.conjunct : kNoIndex - 1 - w.context;
                if (std::find(seen.begin(), seen.end(), who) == seen.end()) {
                    seen.push_back(who);
                    g.first.push_back(d);
                    ++g.firstTotal;
                    g.firstSuspended += w.suspended;
                }
            }
            if (f.signalConjunct != kNoIndex && m.conjuncts[f.signalConjunct].ended) {
                const double d = double(I(m.conjuncts[f.signalConjunct].endNs) - I(f.signalNs));
                g.signalEnd.push_back(d);
                if (anySuspended)
                    g.waitedEnd.push_back(d);
            }
        }
        for (auto& [key, g] : groups) {
            MetricGroup out { key, {} };
            out.metrics.push_back({ "INSTANCES",
                fieldsValue({ { "complete", I(g.signalEnd.size()) }, { "incomplete", I(g.incomplete) } }) });
            out.metrics.push_back({ "FUTURE_SUSPEND_TIME_FIRST_WAITS", statValue(g.first) });
            out.metrics.push_back({ "FUTURE_SUSPEND_TIME_ALL_WAITS", statValue(g.allw) });
            out.metrics.push_back({ "FUTURE_SUSPEND_PROBABILITY_FIRST_WAIT",
                fieldsValue(
                    { { "suspended", I(g.firstSuspended) }, { "no_suspend", I(g.firstTotal - g.firstSuspended) },
                        { "probability", ratio(double(g.firstSuspended), double(g.firstTotal)) } }) });
            out.metrics.push_back({ "FUTURE_SUSPEND_PROBABILITY_ALL_WAITS",
                fieldsValue({ { "suspended", I(g.allSuspended) }, { "no_suspend", I(g.allTotal - g.allSuspended) },
                    { "probability", ratio(double(g.allSuspended), double(g.allTotal)) } }) });
            out.metrics.push_back({ "WAITED_FUTURE_SIGNAL_TO_CONJUNCT_END_TIME", statValue(g.waitedEnd) });
            out.metrics.push_back({ "FUTURE_SIGNAL_TO_CONJUNCT_END_TIME", statValue(g.signalEnd) });
            futures.groups.push_back(std::move(out));
        }
    }

    MetricSection scheduling { "scheduling", {} };
    computeScheduling(m, r, desc, scheduling);

    out.sections.push_back(std::move(program));
    out.sections.push_back(std::move(engines));
    out.sections.push_back(std::move(conjunctions));
    out.sections.push_back(std::move(conjunctsSection));
    out.sections.push_back(std::move(futures));
    out.sections.push_back(std::move(scheduling));
    return out;
}

} // namespace sparkscope::core
