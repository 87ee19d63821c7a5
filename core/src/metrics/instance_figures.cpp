// The per-instance figures (instance_figures.h): for each complete conjunction instance that starts
// in the range, what the descendant pass does not give — PARCONJ_TIME, RUNNABLE_SELF and RUNNING_SELF
// (max and time-weighted average over its life), CONTINUE_ON_* — and each of its conjuncts' split of
// TIME_AS_CONTEXT; each folded, in the same parallel loop, into its group's Stats (a Stat does not
// depend on the order of its values: exact_stat.h), none kept per instance. This loop and the
// grouping by static id need only the model, so they run beside the descendant pass, filling its
// sequential stretches, rather than after it.
//
// The same walk over a conjunct's pieces (addConjunct) serves the public one-instance functions too
// (conjunctionCurves, conjunctionFigures, conjunctFigures, conjunctTimeSplit), so the app's hover and
// the report agree by construction.
#include "metrics/instance_figures.h"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>
#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_invoke.h>

namespace sparkscope::core::detail {

namespace {

    // Adds one piece [from, to) of a context in `state` to the deltas: +1 on `runnable` while not
    // blocked, +1 on `running` while running.
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
    void addContextPieces(const ParModel& m, ContextIndex c, uint64_t a, uint64_t b, ConjunctIndex conjunct,
        bool onlyTop, Deltas& runnable, Deltas& running, ConjunctSplit* split = nullptr)
    {
        if (b <= a)
            return;
        if (!c.valid()) {
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
        const auto& segs = m.context(c).states;
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
    void addConjunct(const ParModel& m, ConjunctIndex k, bool onlyTop, uint64_t endLimit, Deltas& runnable,
        Deltas& running, ConjunctSplit* split = nullptr)
    {
        const ConjunctInstance& g = m.conjunct(k);
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

    // The changes of one instance's RUNNABLE_SELF or RUNNING_SELF (two per piece), with inline room for
    // a typical instance (two conjuncts, a few pieces each) and the heap beyond. Why not a vector or
    // boost's small_vector: their push_back was not inlined and read each step back from the
    // caller's stack (16-byte load of two 8-byte stores: a store-forwarding stall per push; the cost
    // is in docs/performance.md, "Metrics: figures behind the code's choices"). The inline slots are
    // a trivial type so that creating the buffer writes nothing (StepFunction::Step zero-initialises).
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
        // The rare path (more than kInline changes): out of line, so that push_back's callers stay small.
        [[gnu::noinline]] void grow()
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
    // it — the figures pass needs these two numbers for every instance.
    // The deltas are visited in time order: merged from the buffer's two sorted runs (an instance of
    // two conjuncts, nearly all of them) when it has two or fewer and they are in order, else sorted
    // (what sorting cost: docs/performance.md, "Metrics: figures behind the code's choices"). The
    // order of equal times does not matter: the deltas at one time are all applied before the curve
    // is read again.
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

    // SelfFigures of complete instance j. With `splits`, also writes its conjuncts' splits to
    // splits[0], splits[1], ... (in conjunct order), from the same walk over the context's states
    // that RUNNABLE_SELF makes.
    SelfFigures selfFigures(const ParModel& m, ConjunctionIndex j, ConjunctSplit* splits)
    {
        const ConjunctionInstance& ci = m.conjunction(j);
        SelfFigures v {};
        const I a = I(ci.startNs), b = I(ci.endNs);
        v.timeNs = ci.endNs - ci.startNs;
        v.continueOnBefore = ci.endEngine == ci.startEngine;
        StepBuffer rs, ns;
        for (size_t i = 0; i < ci.conjuncts.size(); ++i) {
            const ConjunctIndex k = ci.conjuncts[i];
            ConjunctSplit* split = splits ? &splits[i] : nullptr;
            if (split)
                *split = { 0, 0 };
            addConjunct(m, k, false, ci.endNs, rs, ns, split);
            rs.endRun(), ns.endRun();
            const ConjunctInstance& g = m.conjunct(k);
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
            ConjunctIndex lastConjunct = ci.conjuncts.front();
            for (ConjunctIndex k : ci.conjuncts)
                if (m.conjunct(k).endNs >= m.conjunct(lastConjunct).endNs)
                    lastConjunct = k;
            v.continueOnLast = m.conjunct(lastConjunct).endEngine == ci.endEngine;
        }
        return v;
    }

} // namespace

SelfFigures instanceSelfFigures(const ParModel& m, ConjunctionIndex j) { return selfFigures(m, j, nullptr); }

void GroupStats::addInstance(uint32_t group, const SelfFigures& self)
{
    ConjunctionStats& stats = conjunctions[group];
    stats[kTime].add(self.timeNs);
    stats[kRunnableSelfMax].add(uint64_t(self.runnableMax)), stats[kRunnableSelfAverage].add(self.runnableAverage);
    stats[kRunningSelfMax].add(uint64_t(self.runningMax)), stats[kRunningSelfAverage].add(self.runningAverage);
    stats[kContinueOnBefore].add(uint64_t(self.continueOnBefore));
    stats[kContinueOnLast].add(uint64_t(self.continueOnLast));
}

void GroupStats::addDescendant(uint32_t group, const DescValues& d, bool pairs)
{
    ConjunctionStats& stats = conjunctions[group];
    stats[kRunnableSelfAndDescMax].add(d.rdMax), stats[kRunnableSelfAndDescAverage].add(d.rdAvg);
    stats[kRunningSelfAndDescMax].add(d.ndMax), stats[kRunningSelfAndDescAverage].add(d.ndAvg);
    stats[kAvailCpusMax].add(d.avMax), stats[kAvailCpusAverage].add(d.avAvg);
    if (pairs)
        scheduling[group].add(d);
}

void GroupStats::addConjunct(uint32_t group, uint32_t position, const ConjunctDurations& d)
{
    auto& positions = conjuncts[group];
    if (positions.size() <= position)
        positions.resize(size_t(position) + 1);
    ConjunctStats& stats = positions[position];
    if (d.fromSpark)
        stats.asSpark.add(d.asSpark);
    stats.values[kAsContext].add(d.asContext);
    stats.values[kBlocked].add(d.blocked);
    stats.values[kRunnable].add(d.runnable);
    stats.values[kRunning].add(d.running);
    stats.values[kAfter].add(d.after);
    running[group].add(double(d.running));
}

void GroupStats::mergeGroup(uint32_t into, const GroupStats& other, uint32_t at)
{
    for (size_t v = 0; v < kConjunctionValueCount; ++v)
        conjunctions[into][v].merge(other.conjunctions[at][v]);
    scheduling[into].merge(other.scheduling[at]);
    auto& positions = conjuncts[into];
    const auto& theirs = other.conjuncts[at];
    if (positions.size() < theirs.size())
        positions.resize(theirs.size());
    for (size_t p = 0; p < theirs.size(); ++p) {
        for (size_t v = 0; v < kConjunctValueCount; ++v)
            positions[p].values[v].merge(theirs[p].values[v]);
        positions[p].asSpark.merge(theirs[p].asSpark);
    }
    running[into].merge(other.running[at]);
}

uint32_t GroupStatsBuffer::slot(uint32_t group)
{
    for (uint32_t i = 0; i < m_groups.size(); ++i)
        if (m_groups[i] == group)
            return i;
    if (m_groups.size() == kMaxGroups)
        flush();
    m_groups.push_back(group);
    if (m_held.conjunctions.size() < m_groups.size()) {
        m_held.conjunctions.emplace_back();
        m_held.scheduling.emplace_back();
        m_held.conjuncts.emplace_back();
        m_held.running.emplace_back();
    }
    return uint32_t(m_groups.size() - 1);
}

void GroupStatsBuffer::flush()
{
    if (m_groups.empty())
        return;
    {
        const std::lock_guard<std::mutex> hold(m_lock);
        for (uint32_t i = 0; i < m_groups.size(); ++i)
            m_total.mergeGroup(m_groups[i], m_held, i);
    }
    // The slots are kept, emptied, for the next groups (no reallocation).
    for (uint32_t i = 0; i < m_groups.size(); ++i) {
        m_held.conjunctions[i] = {};
        m_held.scheduling[i] = {};
        m_held.conjuncts[i].clear();
        m_held.running[i] = {};
    }
    m_groups.clear();
    m_added = 0;
}

namespace {

    // The descendant pass's values of each grouped instance, folded into its group's Stats on the
    // thread that closes the instance; and with --instances kept per instance as well.
    class FoldingSink final : public DescSink {
    public:
        FoldingSink(const ParModel& m, const ConjunctionGroups& groups, std::vector<DescValues>* kept,
            GroupStats& total, std::mutex& lock)
            : m_model(m)
            , m_groups(groups)
            , m_kept(kept)
            , m_buffers([&total, &lock] { return GroupStatsBuffer(total, lock); })
        {
        }
        void put(uint32_t j, const DescValues& values) override
        {
            if (m_kept)
                (*m_kept)[j] = values;
            const uint32_t group = m_groups.groupOf[j];
            if (group != IndexGroups::kNoGroup)
                m_buffers.local().addDescendant(group, values, hasPairs(m_model.conjunctions[j]));
        }
        void flush()
        {
            for (GroupStatsBuffer& buffer : m_buffers)
                buffer.flush();
        }

    private:
        const ParModel& m_model;
        const ConjunctionGroups& m_groups;
        std::vector<DescValues>* m_kept;
        tbb::enumerable_thread_specific<GroupStatsBuffer> m_buffers;
    };

    // One thread's part of the figures pass: its buffer, and room for one instance's conjunct splits.
    struct FiguresShare {
        GroupStatsBuffer buffer;
        std::vector<ConjunctSplit> splits;
    };

} // namespace

InstanceFigures computeInstanceFigures(const MetricsBasis& b)
{
    const ParModel& m = b.model;
    InstanceFigures out;
    // The groups first (a counting sort: milliseconds), for both passes to fold into.
    out.groups = groupConjunctions(m, b.range);
    out.stats = GroupStats(out.groupCount());
    std::mutex lock; // over out.stats, for the buffers' flushes
    if (b.options.instances)
        out.desc.resize(m.conjunctions.size());
    FoldingSink sink(m, out.groups, b.options.instances ? &out.desc : nullptr, out.stats, lock);
    // The figures pass runs beside the descendant pass, filling its sequential stretches.
    tbb::enumerable_thread_specific<FiguresShare> shares([&] {
        return FiguresShare { GroupStatsBuffer(out.stats, lock), {} };
    });
    tbb::parallel_invoke([&] { descendantPassInto(m, b.cpus, b.engines, b.range.from, b.range.to, sink); },
        [&] {
            tbb::parallel_for(
                tbb::blocked_range<size_t>(0, m.conjunctions.size()), [&](const tbb::blocked_range<size_t>& range) {
                    FiguresShare& share = shares.local();
                    for (size_t j = range.begin(); j != range.end(); ++j) {
                        const uint32_t group = out.groups.groupOf[j];
                        if (group == IndexGroups::kNoGroup)
                            continue; // incomplete, or outside the range
                        const ConjunctionInstance& ci = m.conjunctions[j];
                        share.splits.resize(ci.conjuncts.size());
                        share.buffer.addInstance(
                            group, selfFigures(m, ConjunctionIndex(uint32_t(j)), share.splits.data()));
                        for (size_t i = 0; i < ci.conjuncts.size(); ++i) {
                            const ConjunctIndex k = ci.conjuncts[i];
                            share.buffer.addConjunct(
                                group, m.conjunct(k).position, conjunctDurations(m, k, share.splits[i]));
                        }
                    }
                });
        });
    for (FiguresShare& share : shares)
        share.buffer.flush();
    sink.flush();
    return out;
}

} // namespace sparkscope::core::detail

namespace sparkscope::core {

using detail::addConjunct;
using detail::bindTime;
using detail::ConjunctSplit;
using detail::I;

namespace {
    // The parts of conjunctTimeSplit's result, in its order.
    enum SplitPart : size_t { kSplitBlocked, kSplitRunnable, kSplitRunning };

    // The figures read the conjuncts' top pieces (a conjunct's bind time included), which a model may
    // have released (computeMetricsWithSession): without them they would read as if nothing ran.
    void requirePieces(const ParModel& m, const char* what)
    {
        if (!m.hasTopPieces())
            throw std::logic_error(
                std::string(what) + ": the model's top pieces were released (ParModel::indexTopPieces)");
    }
} // namespace

std::array<uint64_t, 3> conjunctTimeSplit(const ParModel& m, ConjunctIndex k)
{
    requirePieces(m, "conjunctTimeSplit");
    // The unbound start and Finished/Runnable context time are runnable.
    const ConjunctInstance& g = m.conjunct(k);
    std::array<uint64_t, 3> out {};
    if (!g.started || !g.ended || g.endNs < g.startNs)
        return out;
    const uint64_t bound = std::min(bindTime(m, g, k), g.endNs);
    decltype(m.contextTimeInStates(g.context, bound, g.endNs)) s {};
    if (g.context.valid())
        s = m.contextTimeInStates(g.context, bound, g.endNs);
    out[kSplitBlocked] = s[size_t(ContextState::Blocked)];
    out[kSplitRunning] = s[size_t(ContextState::Running)];
    out[kSplitRunnable] = (g.endNs - g.startNs) - out[kSplitBlocked] - out[kSplitRunning];
    return out;
}

std::optional<ConjunctionFigures> conjunctionFigures(
    const ParModel& m, const StepFunction& cpus, size_t engines, ConjunctionIndex j)
{
    requirePieces(m, "conjunctionFigures");
    if (!m.contains(j) || !m.conjunction(j).complete)
        return std::nullopt;
    return detail::figuresFrom(
        detail::selfFigures(m, j, nullptr), detail::referenceDescendantValues(m, cpus, engines, j));
}

std::optional<ConjunctFigures> conjunctFigures(const ParModel& m, ConjunctIndex k)
{
    if (!m.contains(k))
        return std::nullopt;
    const ConjunctInstance& g = m.conjunct(k);
    if (!g.conjunction.valid() || !m.conjunction(g.conjunction).complete)
        return std::nullopt;
    const auto split = conjunctTimeSplit(m, k);
    return detail::conjunctFiguresFrom(m, k, ConjunctSplit { split[kSplitBlocked], split[kSplitRunning] });
}

ConjunctionCurves conjunctionCurves(const ParModel& m, const StepFunction& cpus, size_t engines, ConjunctionIndex j)
{
    requirePieces(m, "conjunctionCurves");
    ConjunctionCurves c;
    const ConjunctionInstance& ci = m.conjunction(j);
    if (!ci.ended)
        return c;
    const I a = I(ci.startNs), b = I(ci.endNs);
    if (b <= a)
        return c;
    std::vector<StepFunction::Step> rs, ns, rd, nd;
    for (ConjunctIndex k : ci.conjuncts)
        addConjunct(m, k, false, ci.endNs, rs, ns);
    // Descendants: every conjunct of every conjunction in the subtree, counted while innermost.
    std::vector<ConjunctionIndex> todo { j };
    while (!todo.empty()) {
        const ConjunctionIndex x = todo.back();
        todo.pop_back();
        for (ConjunctIndex k : m.conjunction(x).conjuncts) {
            addConjunct(m, k, true, ci.endNs, rd, nd);
            for (ConjunctionIndex child : m.childConjunctions(k))
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
