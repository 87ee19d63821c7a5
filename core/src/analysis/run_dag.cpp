// The recorded run's DAG (rules in run_dag.h). Each strand lists its own cuts: from its conjunct
// (the next conjunct's Create), its child conjunctions (Fork, Join, the Returns of the conjuncts run
// in its context) and a few groupings made first of what a strand cannot find from itself (the
// conjunctions a context's root started, the conjuncts that end back in a root, signals, suspended
// waits). Strands are counted, then placed into one flat array, in parallel: each writes only its
// own slice, which it then sorts (a handful of cuts). The cross-references (which node ends at a
// conjunction's Fork, at a spark's Create, at a future's Signal) are read off the sorted lists.
// Nothing here walks the events again.
#include "analysis/run_dag.h"

#include "metrics/index_groups.h"

#include <algorithm>
#include <tbb/parallel_for.h>
#include <tuple>

namespace sparkscope::core::detail {

namespace {

    constexpr uint8_t rank(CutKind k) noexcept { return uint8_t(k); }

    // The strand a conjunct's context goes back to when the conjunct ends: the conjunction's parent
    // strand when the conjunct ran in the context that started the conjunction, else the root of
    // the context that ran it (a context that took the spark with nothing else to do).
    uint32_t parentStrand(const ParModel& m, uint32_t conjunction, const RunDag& dag)
    {
        const ConjunctionInstance& j = m.conjunctions[conjunction];
        if (j.parentConjunct.value() != kNoIndex)
            return j.parentConjunct.value();
        return j.startContext.value() == kNoIndex ? kNoIndex : dag.rootStrand(j.startContext.value());
    }

    // When the context that started conjunction j parked at its barrier: its last Blocked stretch
    // before END_PAR_CONJ, if that began after the first conjunct ended and while the context was
    // back in j's parent strand (not in a conjunct it ran inline). Else END_PAR_CONJ itself.
    uint64_t joinTime(const ParModel& m, uint32_t conjunction)
    {
        const ConjunctionInstance& j = m.conjunctions[conjunction];
        const ConjunctInstance& first = m.conjunct(j.conjuncts.front());
        if (j.startContext.value() == kNoIndex || !first.ended)
            return j.endNs;
        const ContextTimeline& ctx = m.contexts[j.startContext.value()];
        auto it = std::lower_bound(ctx.states.begin(), ctx.states.end(), j.endNs,
            [](const ContextStateChange& s, uint64_t t) { return s.startNs < t; });
        while (it != ctx.states.begin()) {
            --it;
            if (it->startNs < first.endNs)
                break;
            if (it->state != ContextState::Blocked)
                continue;
            auto seg = std::upper_bound(ctx.segments.begin(), ctx.segments.end(), it->startNs,
                [](uint64_t t, const ContextSegment& s) { return t < s.startNs; });
            if (seg != ctx.segments.begin() && std::prev(seg)->top.value() == j.parentConjunct.value())
                return it->startNs;
            break;
        }
        return j.endNs;
    }

} // namespace

class RunDagBuilder {
public:
    RunDagBuilder(RunDag& dag)
        : d(dag)
        , m(*dag.m_model)
    {
    }

    void build()
    {
        d.m_conjunctStrands = uint32_t(m.conjuncts.size());
        strandBounds();
        groupSources();
        const size_t strands = m_valid.size();
        // Count, place and sort each strand's cuts: every strand writes only its own slice.
        d.m_cutOffsets.assign(strands + 1, 0);
        tbb::parallel_for(size_t(0), strands, [&](size_t s) {
            size_t n = 0;
            forEachCutOf<false>(uint32_t(s), [&](const Cut&) { ++n; });
            d.m_cutOffsets[s + 1] = n;
        });
        for (size_t s = 0; s < strands; ++s)
            d.m_cutOffsets[s + 1] += d.m_cutOffsets[s];
        d.m_cuts.resize(d.m_cutOffsets.back());
        tbb::parallel_for(size_t(0), strands, [&](size_t s) {
            Cut* out = d.m_cuts.data() + d.m_cutOffsets[s];
            forEachCutOf<true>(uint32_t(s), [&](const Cut& c) { *out++ = c; });
            std::sort(d.m_cuts.begin() + std::ptrdiff_t(d.m_cutOffsets[s]),
                d.m_cuts.begin() + std::ptrdiff_t(d.m_cutOffsets[s + 1]), [&](const Cut& a, const Cut& b) {
                    return a.timeNs != b.timeNs ? a.timeNs < b.timeNs : tieKey(a) < tieKey(b);
                });
        });
        crossReferences();
        countUnplaced();
    }

private:
    bool valid(uint32_t strand) const { return strand != kNoIndex && m_valid[strand]; }

    void strandBounds()
    {
        const size_t strands = m.conjuncts.size() + m.contexts.size();
        m_start.assign(strands, 0);
        m_end.assign(strands, 0);
        m_valid.assign(strands, 0);
        for (uint32_t k = 0; k < m.conjuncts.size(); ++k) {
            const ConjunctInstance& g = m.conjuncts[k];
            if (!g.started || g.context.value() == kNoIndex || g.context.value() >= m.contexts.size())
                continue;
            m_valid[k] = 1;
            m_start[k] = g.startNs;
            m_end[k] = std::max(g.ended ? g.endNs : m.endNs, g.startNs);
        }
        for (uint32_t c = 0; c < m.contexts.size(); ++c) {
            const auto& segs = m.contexts[c].segments;
            if (segs.empty())
                continue;
            const uint32_t s = d.rootStrand(c);
            m_valid[s] = 1;
            m_start[s] = segs.front().startNs;
            m_end[s]
                = std::max(segs.back().state == ContextState::Finished ? segs.back().startNs : m.endNs, m_start[s]);
        }
    }

    // The sources a strand cannot find from its own conjunct: the conjunctions a context's root
    // started, the conjuncts that end back in a context's root, and the futures' signals and
    // suspended waits, each grouped by the strand they cut.
    void groupSources()
    {
        const uint32_t contexts = uint32_t(m.contexts.size());
        std::vector<uint32_t> keys(m.conjunctions.size(), kNoIndex);
        for (uint32_t j = 0; j < m.conjunctions.size(); ++j)
            if (m.conjunctions[j].parentConjunct.value() == kNoIndex)
                keys[j] = m.conjunctions[j].startContext.value();
        m_rootConjunctions = IndexGroups(keys, contexts);
        keys.assign(m.conjuncts.size(), kNoIndex);
        for (uint32_t k = 0; k < m.conjuncts.size(); ++k)
            if (m_valid[k] && m.conjuncts[k].ended && m.conjuncts[k].context.value() != startContextOf(k))
                keys[k] = m.conjuncts[k].context.value();
        m_rootReturns = IndexGroups(keys, contexts);
        keys.assign(m.futures.size(), kNoIndex);
        for (uint32_t f = 0; f < m.futures.size(); ++f)
            if (m.futures[f].signalled && valid(m.futures[f].signalConjunct.value()))
                keys[f] = m.futures[f].signalConjunct.value();
        m_signals = IndexGroups(keys, m_valid.size());
        keys.clear();
        for (uint32_t f = 0; f < m.futures.size(); ++f)
            for (const FutureWait& w : m.futures[f].waits)
                if (w.suspended && w.context.value() < contexts && m.futures[f].signalled
                    && valid(m.futures[f].signalConjunct.value())) {
                    m_waits.push_back({ w.timeNs, f, CutKind::Wait });
                    keys.push_back(
                        w.conjunct.value() != kNoIndex ? w.conjunct.value() : d.rootStrand(w.context.value()));
                }
        m_waitGroups = IndexGroups(keys, m_valid.size());
    }

    uint32_t startContextOf(uint32_t k) const
    {
        return m.conjunctions[m.conjuncts[k].conjunction.value()].startContext.value();
    }

    // Calls add(cut) for every cut of strand s, unsorted (rules in run_dag.h); without kTimes only
    // the number of cuts is right (the counting pass skips the look-ups of join times).
    template <bool kTimes, class Add> void forEachCutOf(uint32_t s, Add&& add) const
    {
        if (!m_valid[s])
            return;
        const bool conjunct = d.isConjunct(s);
        const uint32_t context = conjunct ? m.conjuncts[s].context.value() : s - d.m_conjunctStrands;
        add(Cut { m_start[s], s, CutKind::Start });
        add(Cut { m_end[s], context, CutKind::End });
        auto put = [&](uint64_t t, uint32_t ref, CutKind kind) {
            add(Cut { std::clamp(t, m_start[s], m_end[s]), ref, kind });
        };
        // Conjunctions this strand started, with the conjuncts that came back to it.
        auto started = [&](uint32_t j) {
            const ConjunctionInstance& ci = m.conjunctions[j];
            put(ci.startNs, j, CutKind::Fork);
            if (ci.ended)
                put(kTimes ? joinTime(m, j) : 0, j, CutKind::Join);
            for (uint32_t q : strandsOf(ci.conjuncts))
                if (m_valid[q] && m.conjuncts[q].ended && m.conjuncts[q].context.value() == ci.startContext.value())
                    put(m.conjuncts[q].endNs, q, CutKind::Return);
        };
        if (conjunct) {
            const ConjunctInstance& k = m.conjuncts[s];
            const ConjunctionInstance& j = m.conjunctions[k.conjunction.value()];
            if (k.position < j.conjuncts.size() && m_valid[j.conjuncts[k.position].value()])
                put(m.conjunct(j.conjuncts[k.position]).sparkCreateNs, j.conjuncts[k.position].value(),
                    CutKind::Create);
            for (uint32_t child : childrenOf(m, s))
                started(child);
        } else {
            for (uint32_t j : m_rootConjunctions.members(context))
                started(j);
            for (uint32_t q : m_rootReturns.members(context))
                put(m.conjuncts[q].endNs, q, CutKind::Return);
        }
        for (uint32_t f : m_signals.members(s))
            put(m.futures[f].signalNs, f, CutKind::Signal);
        for (uint32_t w : m_waitGroups.members(s))
            put(m_waits[w].timeNs, m_waits[w].ref, CutKind::Wait);
    }

    // The order of cuts at one instant (run_dag.h): by kind, except that a Return or Join at the
    // instant its own conjunction started comes right after that conjunction's Fork.
    std::tuple<uint8_t, uint32_t, uint8_t> tieKey(const Cut& c) const
    {
        uint32_t j = kNoIndex;
        if (c.kind == CutKind::Fork || c.kind == CutKind::Join)
            j = c.ref;
        else if (c.kind == CutKind::Return)
            j = m.conjuncts[c.ref].conjunction.value();
        const bool atItsFork = j != kNoIndex && c.kind != CutKind::Fork && m.conjunctions[j].startNs == c.timeNs;
        const uint8_t r = atItsFork ? rank(CutKind::Fork) : rank(c.kind);
        const uint8_t within = c.kind == CutKind::Fork ? 0 : uint8_t(rank(c.kind) + 1); // Fork, Return, Join
        return { r, r == rank(CutKind::Fork) ? j : 0, within };
    }

    void crossReferences()
    {
        d.m_fork.assign(m.conjunctions.size(), {});
        d.m_create.assign(m.conjuncts.size(), {});
        d.m_signal.assign(m.futures.size(), {});
        tbb::parallel_for(size_t(0), d.m_cutOffsets.size() - 1, [&](size_t s) {
            for (size_t g = d.m_cutOffsets[s] + 1; g < d.m_cutOffsets[s + 1]; ++g) {
                const Cut& c = d.m_cuts[g];
                const RunDag::Source ending { uint32_t(g - 1), uint32_t(s) };
                if (c.kind == CutKind::Fork)
                    d.m_fork[c.ref] = ending;
                else if (c.kind == CutKind::Create && (!valid(c.ref) || c.timeNs <= m_start[c.ref]))
                    d.m_create[c.ref] = ending; // (a spark run before it was made: no dependency)
                else if (c.kind == CutKind::Signal)
                    d.m_signal[c.ref] = ending;
            }
        });
    }

    // Dependencies whose source strand is not in the model: a conjunct's G1 fork or spark creator,
    // a conjunct's way back, a future's signaller.
    void countUnplaced()
    {
        uint64_t n = 0;
        for (uint32_t k = 0; k < m.conjuncts.size(); ++k)
            if (m_valid[k]) {
                n += (m.conjuncts[k].position <= 1 ? d.m_fork[m.conjuncts[k].conjunction.value()] : d.m_create[k]).node
                    == kNoIndex;
                const ConjunctionInstance& j = m.conjunctions[m.conjuncts[k].conjunction.value()];
                n += m.conjuncts[k].ended && m.conjuncts[k].context.value() == j.startContext.value()
                    && !valid(parentStrand(m, m.conjuncts[k].conjunction.value(), d));
            }
        for (const FutureInstance& f : m.futures)
            if (f.signalled && !valid(f.signalConjunct.value()))
                n += std::count_if(f.waits.begin(), f.waits.end(), [](const FutureWait& w) { return w.suspended; });
        for (const ConjunctionInstance& j : m.conjunctions) // in start order, and so their conjuncts
            if (j.ended)
                for (ConjunctIndex k : j.conjuncts)
                    if ((!m.conjunct(k).ended || m.conjunct(k).endNs > j.endNs) && m_valid[k.value()])
                        d.m_lateConjuncts.push_back(k.value());
        std::sort(d.m_lateConjuncts.begin(), d.m_lateConjuncts.end());
        d.m_unplaced = n + d.m_lateConjuncts.size();
    }

    RunDag& d;
    const ParModel& m;
    std::vector<uint64_t> m_start, m_end; // per strand
    std::vector<uint8_t> m_valid;
    IndexGroups m_rootConjunctions, m_rootReturns, m_signals, m_waitGroups;
    std::vector<Cut> m_waits; // suspended waits on placed signals, indexed by m_waitGroups' members
};

RunDag::RunDag(const ParModel& model)
    : m_model(&model)
{
    RunDagBuilder(*this).build();
}

uint32_t RunDag::contextOf(uint32_t strand) const noexcept
{
    if (!m_cuts.empty() && m_cutOffsets[strand + 1] > m_cutOffsets[strand])
        return m_cuts[m_cutOffsets[strand + 1] - 1].ref; // the End cut's
    return isConjunct(strand) ? m_model->conjuncts[strand].context.value() : strand - m_conjunctStrands;
}

uint32_t RunDag::strandOf(uint32_t g) const noexcept
{
    auto it = std::upper_bound(m_cutOffsets.begin(), m_cutOffsets.end(), size_t(g));
    return uint32_t(it - m_cutOffsets.begin()) - 1;
}

uint32_t RunDag::firstNode(uint32_t strand) const noexcept
{
    return m_cutOffsets[strand + 1] > m_cutOffsets[strand] ? uint32_t(m_cutOffsets[strand]) : kNoIndex;
}

uint32_t RunDag::lastNode(uint32_t strand) const noexcept
{
    return m_cutOffsets[strand + 1] >= m_cutOffsets[strand] + 2 ? uint32_t(m_cutOffsets[strand + 1] - 2) : kNoIndex;
}

uint32_t RunDag::nodeAt(uint32_t strand, uint64_t t) const noexcept
{
    const auto c = cuts(strand);
    if (c.size() < 2)
        return kNoIndex;
    auto it = std::upper_bound(c.begin(), c.end() - 1, t, [](uint64_t x, const Cut& cut) { return x < cut.timeNs; });
    const size_t i = it == c.begin() ? 0 : size_t(it - c.begin()) - 1;
    return uint32_t(m_cutOffsets[strand] + std::min(i, c.size() - 2));
}

std::vector<uint64_t> RunDag::weights(const EngineActivity& activity, uint64_t fromNs, uint64_t toNs) const
{
    std::vector<uint64_t> w(m_cuts.size(), 0);
    forEachWeightPiece(activity, fromNs, toNs, [&](uint32_t, uint32_t g, uint64_t ns) { w[g] += ns; });
    return w;
}

} // namespace sparkscope::core::detail
