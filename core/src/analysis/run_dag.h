#pragma once
// Internal to core (not installed). RunDag: the dependency graph of the recorded run (analysis.md §2),
// built from the model (par_model.h) without going back to the events.
//
// Strands. The DAG follows the program's logical threads, not the contexts that happened to run
// them: a context that runs one spark after another (our runtime's free contexts, or the context at a
// barrier running its conjunction's next spark inline) does not make those conjuncts depend on each
// other. A strand is one conjunct (its context's time while that conjunct is the innermost one,
// ParModel's segment `top`), or the root of one context (its time outside every conjunct). So a
// trace recorded on one engine has the same DAG as one recorded on many.
//
// Cuts and nodes. Each strand's time is cut where a dependency leaves or enters it:
//   Start   its first instant (a conjunct's START_PAR_CONJ or SPARK_RUN/SPARK_STEAL; a context's
//           creation). G1 depends on the parent strand's Fork; Gk (k ≥ 2) on G(k−1)'s Create;
//   Create  SPARK_CREATE of the next conjunct, in the strand of the conjunct before it (the spark chain);
//   Fork    START_PAR_CONJ of a conjunction started by this strand;
//   Return  a conjunct run by this strand's context ended and the context is back in this strand
//           (the conjunct's END_PAR_CONJUNCT): depends on that conjunct's last node;
//   Join    the barrier of a conjunction this strand started: depends on every conjunct's last node.
//           At the instant the context parked there (its Blocked stretch at the barrier), or at
//           END_PAR_CONJ when it did not park (it ran the last conjunct itself);
//   Signal  FUT_SIGNAL by this strand;
//   Wait    a FUT_WAIT_SUSPENDED by this strand: depends on the future's Signal (a wait that did not
//           suspend adds no edge);
//   End     the strand's last instant (END_PAR_CONJUNCT; the context finishing; the trace's end).
// A node is the time of a strand between two consecutive cuts; it depends on the node before it in
// its strand and on what its starting cut depends on. Node ids are global cut indexes: node g is
// [cut g, cut g+1) of its strand; End cuts start no node. A node's weight is its strand's running
// time in it (EngineActivity: less Gc and searching), so the weights sum to the ledger's running time.
//
// Ties at one instant within a strand, in order: Start, Return, Join, Wait, Create, Signal, Fork, End —
// dependencies that arrive before those that leave — except that a conjunction that starts and
// ends (or returns) at the same instant keeps Fork before its own Return and Join. Cut times are
// clamped into their strand's [Start, End]. A cycle that remains in a damaged trace is broken where
// it is found (counted: brokenDependencies).
// Cost: O(n log n) to build (per-strand sorts of short lists), ~20 bytes per cut; immutable after.
#include "analysis/engine_activity.h"
#include "sparkscope/core/par_model.h"

#include <algorithm>
#include <cstdint>
#include <span>
#include <tbb/parallel_for.h>
#include <vector>

namespace sparkscope::core::detail {

// The DAG numbers its strands by conjunct index, then one root strand per context: a conjunct's
// strand id is its index's value. These read the model's typed indexes as strand ids, for range-for.
// (std::views::transform would do, but clang 14, which builds the fuzzers, cannot compile it with
// libstdc++ 12's ranges.)
template <class I> class StrandIds {
public:
    explicit StrandIds(std::span<const I> items) noexcept
        : m_items(items)
    {
    }
    struct Iterator {
        const I* at;
        uint32_t operator*() const noexcept { return at->value(); }
        Iterator& operator++() noexcept
        {
            ++at;
            return *this;
        }
        bool operator!=(const Iterator& other) const noexcept { return at != other.at; }
    };
    Iterator begin() const noexcept { return { m_items.data() }; }
    Iterator end() const noexcept { return { m_items.data() + m_items.size() }; }

private:
    std::span<const I> m_items;
};
inline StrandIds<ConjunctIndex> strandsOf(const IndexList<ConjunctIndex>& conjuncts) noexcept
{
    return StrandIds<ConjunctIndex>({ conjuncts.begin(), conjuncts.end() });
}
inline StrandIds<ConjunctionIndex> childrenOf(const ParModel& m, uint32_t strand) noexcept
{
    return StrandIds<ConjunctionIndex>(m.childConjunctions(ConjunctIndex(strand)));
}

enum class CutKind : uint8_t { Start, Return, Join, Wait, Create, Signal, Fork, End };

struct Cut {
    uint64_t timeNs = 0;
    // Start: the strand; End: the strand's context; Return: the conjunct that ended; Join and Fork:
    // the conjunction; Create: the conjunct whose spark it is; Signal and Wait: the future.
    uint32_t ref = 0;
    CutKind kind = CutKind::Start;
};

class RunDag {
public:
    explicit RunDag(const ParModel& model);

    const ParModel& model() const noexcept { return *m_model; }
    // Strands 0 .. conjuncts-1 are the conjuncts; conjuncts + c is context c's root.
    uint32_t strandCount() const noexcept { return uint32_t(m_cutOffsets.size() - 1); }
    uint32_t rootStrand(uint32_t context) const noexcept { return m_conjunctStrands + context; }
    bool isConjunct(uint32_t strand) const noexcept { return strand < m_conjunctStrands; }
    uint32_t contextOf(uint32_t strand) const noexcept;
    std::span<const Cut> cuts(uint32_t strand) const noexcept
    {
        return { m_cuts.data() + m_cutOffsets[strand], m_cutOffsets[strand + 1] - m_cutOffsets[strand] };
    }
    size_t cutCount() const noexcept { return m_cuts.size(); }
    const Cut& cut(uint32_t g) const noexcept { return m_cuts[g]; }
    bool isNode(uint32_t g) const noexcept { return m_cuts[g].kind != CutKind::End; }
    uint32_t strandOf(uint32_t g) const noexcept; // O(log strands)
    uint32_t firstNode(uint32_t strand) const noexcept; // kNoIndex for a strand without cuts
    uint32_t lastNode(uint32_t strand) const noexcept;
    // The node of `strand` whose time contains t (the last one starting at or before t, clamped to
    // the strand's nodes). O(log cuts of the strand).
    uint32_t nodeAt(uint32_t strand, uint64_t t) const noexcept;
    // The node ending at conjunction j's Fork cut (kNoIndex if unplaced).
    uint32_t forkSource(uint32_t conjunction) const noexcept { return m_fork[conjunction].node; }
    // The node ending at conjunct k's spark Create cut, and at future f's Signal cut (kNoIndex if unplaced).
    uint32_t createSource(uint32_t conjunct) const noexcept { return m_create[conjunct].node; }
    uint32_t signalSource(uint32_t future) const noexcept { return m_signal[future].node; }

    // Calls f(pred, predStrand, fromStrandOrder) for each dependency of node g (of strand `strand`):
    // the node before it in its strand, then the dependency of its starting cut. Preds that could not
    // be placed are skipped.
    template <class F> void forEachPred(uint32_t g, uint32_t strand, F&& f) const;

    // Node weights for the range [from, to): each node's strand running time in it, less Gc and
    // searching. Indexed by node id (End cuts get 0). Parallel over contexts.
    std::vector<uint64_t> weights(const EngineActivity& activity, uint64_t fromNs, uint64_t toNs) const;
    // The same as pieces: add(strand, node, ns) for each stretch of a node's running time in the range
    // (a node's pieces sum to its weight), so a caller can keep the weights in a form of its own
    // (SimGraph's 4-byte ones) without this 8-byte array beside it. Parallel over contexts: all the
    // pieces of one node come from one task, on one thread.
    template <class Add>
    void forEachWeightPiece(const EngineActivity& activity, uint64_t fromNs, uint64_t toNs, Add&& add) const;

    // Whether conjunct k's end is a dependency of its conjunction's Join: not when it ended after the
    // conjunction did, or never, while the conjunction ended (a damaged trace: END_PAR_CONJ before one
    // of its END_PAR_CONJUNCTs), which no barrier waited for. Such a dependency would run back in time, and a path
    // through it could be longer than the run. (A spark run before it was made loses its Create dependency the same
    // way.)
    bool joins(uint32_t conjunct) const noexcept
    {
        return m_lateConjuncts.empty() || !std::binary_search(m_lateConjuncts.begin(), m_lateConjuncts.end(), conjunct);
    }

    // Dependencies whose source is not in the model, or that would run back in time (both damaged input).
    uint64_t unplacedDependencies() const noexcept { return m_unplaced; }

private:
    struct Source {
        uint32_t node = kNoIndex; // the node ending at the cut the dependency leaves from
        uint32_t strand = kNoIndex;
    };

    const ParModel* m_model;
    uint32_t m_conjunctStrands = 0;
    std::vector<size_t> m_cutOffsets; // per strand + 1
    std::vector<Cut> m_cuts;
    std::vector<Source> m_fork; // per conjunction: its Fork in the parent strand
    std::vector<Source> m_create; // per conjunct: its spark's Create in the conjunct before it
    std::vector<Source> m_signal; // per future: its Signal
    uint64_t m_unplaced = 0; // dependencies whose source is not in the model, or dropped (damaged input)
    std::vector<uint32_t> m_lateConjuncts; // sorted: conjuncts that ended after their conjunction (joins)

    friend class RunDagBuilder;
};

template <class Add>
void RunDag::forEachWeightPiece(const EngineActivity& activity, uint64_t fromNs, uint64_t toNs, Add&& add) const
{
    const ParModel& m = *m_model;
    tbb::parallel_for(size_t(0), m.contexts.size(), [&](size_t c) {
        const auto& segs = m.contexts[c].segments;
        std::vector<size_t> hints(activity.engineCount(), 0); // a context's segments go forward in time
        for (size_t i = 0; i < segs.size(); ++i) {
            const ContextSegment& seg = segs[i];
            if (seg.state != ContextState::Running || seg.engine >= activity.engineCount())
                continue;
            uint64_t a = std::max(seg.startNs, fromNs);
            const uint64_t b = std::min(i + 1 < segs.size() ? segs[i + 1].startNs : m.endNs, toNs);
            if (a >= b)
                continue;
            const uint32_t strand = seg.top.valid() ? seg.top.value() : rootStrand(uint32_t(c));
            uint32_t g = nodeAt(strand, a);
            // A conjunct's segments are in the context that ran it; a damaged trace may say otherwise.
            if (g == kNoIndex || contextOf(strand) != c)
                continue;
            const uint32_t last = lastNode(strand);
            while (a < b) {
                const uint64_t nodeEnd = g < last ? m_cuts[g + 1].timeNs : b;
                const uint64_t e = std::max(a, std::min(b, nodeEnd));
                add(strand, g, (e - a) - activity.excludedIn(seg.engine, a, e, hints[seg.engine]));
                a = e;
                if (g < last)
                    ++g;
            }
        }
    });
}

template <class F> void RunDag::forEachPred(uint32_t g, uint32_t strand, F&& f) const
{
    const Cut& c = m_cuts[g];
    if (c.kind != CutKind::Start)
        f(g - 1, strand, true);
    auto cross = [&](Source s) {
        if (s.node != kNoIndex)
            f(s.node, s.strand, false);
    };
    auto lastOf = [&](uint32_t k) { return Source { lastNode(k), k }; };
    switch (c.kind) {
    case CutKind::Start:
        if (isConjunct(c.ref)) {
            const ConjunctInstance& k = m_model->conjuncts[c.ref];
            cross(k.position <= 1 ? m_fork[k.conjunction.value()] : m_create[c.ref]);
        }
        break;
    case CutKind::Return:
        cross(lastOf(c.ref));
        break;
    case CutKind::Join:
        for (uint32_t k : strandsOf(m_model->conjunctions[c.ref].conjuncts))
            if (joins(k))
                cross(lastOf(k));
        break;
    case CutKind::Wait:
        cross(m_signal[c.ref]);
        break;
    default:
        break;
    }
}

} // namespace sparkscope::core::detail
