#pragma once
// Internal to core (not installed). SimGraph: the recorded run's DAG (run_dag.h) seen from the other
// end, as the what-if simulation (simulate.h) walks it forwards. RunDag answers "what does this node
// wait for?"; a simulation needs "what does finishing this node release?". Each node's cross-strand
// dependencies leave from the cut that ends a node of another strand, so the cut after a finished
// node says what it releases:
//   Fork(j)    the first node of j's first conjunct, when this node is j's fork source;
//   Create(q)  the first node of conjunct q (a spark), when this node is q's create source;
//   Signal(f)  every node starting at a Wait cut on future f, when this node is f's signal source;
//   End        of a conjunct q: the node starting at q's Return cut and the one at its conjunction's
//              Join cut.
// crossPreds(g) counts exactly the releases node g will receive by these rules (its in-strand
// predecessor aside), so a simulation that starts a node when the count is spent and its strand has
// reached it respects every dependency of the DAG. It equals RunDag::forEachPred's cross edges but in
// a trace that contradicts itself (a conjunct returning twice), where the later duplicate is left out.
//
// Roles of strands: conjuncts; the program's roots (a context that started a conjunction, signalled or
// waited outside every conjunct, and the first context of the run); carriers (every other root: a
// context our runtime made to run sparks, whose own nodes are only the release work after each
// conjunct it ran — a simulation runs them on whatever engine finished that conjunct).
//
// Numbering: the graph has its own strand and node ids, not the DAG's. Strands are laid out in the
// program's serial order (a preorder: each strand, then the conjuncts of the conjunctions it forks,
// each followed by everything nested in it, in position order), each strand's nodes contiguous as in
// the DAG. A conjunct's whole sub-tree is then one stretch of every per-node and per-strand array, so
// a simulated engine working on a stolen sub-tree walks memory forwards, on any number of engines
// (in the DAG's order, the model's creation order of the recorded run, a sub-tree is spread over the
// whole array and at 64 engines nearly every new strand was a cache miss).
// Layout: what the simulation reads for every node is in one 12-byte SimNode (its weight, what it
// releases, resolved, and its strand's role), what it reads per strand in a 28-byte record, so a node
// costs one or two cache lines instead of a walk through the cuts, the model's instances and the DAG's
// cross-reference tables. Weights of 2^32 ns and more, and dependency counts of 255 and more, are kept
// beside (sorted lists; rare).
// Closed sub-trees (sim_subtrees.cpp): a conjunct whose sub-tree (itself and every strand nested in
// it: one stretch of strands and nodes) exchanges no release with the rest of the graph but the one
// that starts it (its Fork or Create) and its own end's (its Return and Join), and holds no Signal or
// Wait and no strand that starts without a release. Only what its engine does can then change the
// sub-tree's course, so the simulation may run it as one step (simulate.h, "Shortcut").
// Cost: the order (one pass over the cuts), then two passes over the cuts (one sequential, so the
// first of duplicates wins deterministically), a pass over the releases for the closed sub-trees;
// about 13 bytes per node and 46 per strand (4 more while it is built). Immutable after construction.
#include "analysis/run_dag.h"

#include <cstdint>
#include <span>
#include <vector>

namespace sparkscope::core::detail {

enum class StrandRole : uint8_t { Conjunct, Program, Carrier };

struct NodeRef {
    uint32_t node = kNoIndex;
    uint32_t strand = kNoIndex;
};

// What the simulation reads of each node (ids: the graph's own). `release` is the cut after the node
// when finishing the node releases something through it — Fork (ref: the strand of the conjunct it
// starts), Create (ref: the strand of the spark's conjunct), Signal (ref: the future) — End when the
// node ends its strand, else Start (nothing).
struct SimNode {
    static constexpr uint32_t kBigWeight = 0xFFFFFFFF;
    static constexpr uint8_t kAfterReturn = 1; // the node starts at a Return cut
    static constexpr uint8_t kAtWait = 2; // the node starts at a Wait cut
    static constexpr uint8_t kInConjunct = 4; // its strand is a conjunct
    static constexpr uint8_t kCarrier = 8; // its strand is a carrier
    static constexpr uint8_t kWaits = 16; // it has cross dependencies (crossPreds > 0)
    static constexpr uint8_t kStartsClosed = 32; // the first node of a closed sub-tree (SimGraph::closed)
    uint32_t weight = 0; // ns; kBigWeight: look it up with SimNodes::bigWeight
    uint32_t ref = kNoIndex;
    CutKind release = CutKind::Start;
    uint8_t flags = 0;
};
static_assert(sizeof(SimNode) == 12);

// The nodes a simulation runs: the graph's own, or a copy with some weights scaled.
struct SimNodes {
    std::vector<SimNode> nodes; // per node id; End cuts unused
    std::vector<std::pair<uint32_t, uint64_t>> big; // weights of the kBigWeight nodes, sorted by node

    uint64_t weight(uint32_t node) const noexcept
    {
        const uint32_t w = nodes[node].weight;
        return w != SimNode::kBigWeight ? w : bigWeight(node);
    }
    uint64_t bigWeight(uint32_t node) const noexcept;
};

// Per strand (the graph's ids; meaningful for conjunct strands).
struct SimConjunct {
    uint32_t first = kNoIndex; // its first node, if it ran
    uint32_t next = kNoIndex; // the strand of the conjunct after it in its conjunction (its spark's), if any
    uint32_t parent = kNoIndex; // the strand that started its conjunction (its Fork), if placed
    NodeRef ret; // the node starting at its Return cut, if any
    NodeRef join; // the node starting at its conjunction's Join cut, if any
};

// What the graph reads of the model — each conjunction's conjuncts by position, each conjunct's
// conjunction and position, the number of futures — and the DAG's node weights for a range, taken out
// of the model so that it can go before the graph is built (AnalysisSession::releaseModelForWhatIf):
// about 14 bytes a conjunct and 4 a node, where the model holds ~140 a conjunct (sparkscope-model-bench).
struct SimInputs {
    std::vector<uint32_t> listStarts; // per conjunction + 1: where its conjuncts start in `lists`
    std::vector<uint32_t> lists; // each conjunction's conjuncts, by position
    std::vector<uint32_t> conjunctionOf; // per conjunct: ConjunctIndex::value() of its conjunction
    std::vector<uint32_t> positionOf; // per conjunct: its 1-based position
    uint32_t futures = 0;
    std::vector<uint32_t> weights; // per DAG node id, in SimNode's form (kBigWeight: see `big`)
    std::vector<std::pair<uint32_t, uint64_t>> big; // (DAG node id, weight) of the kBigWeight ones, sorted

    static SimInputs extract(const RunDag& dag, const EngineActivity& activity, uint64_t fromNs, uint64_t toNs);
};

class SimGraph {
public:
    // The nodes' weights are the DAG's for [fromNs, toNs) (RunDag::weights), added up piece by piece
    // into the nodes' own 4-byte weights: the DAG's 8-byte array of them is never made beside the graph
    // (it was the peak of `analyze` on our runtime's traces, docs/performance.md).
    SimGraph(const RunDag& dag, const EngineActivity& activity, uint64_t fromNs, uint64_t toNs);
    // The same graph from the DAG and what was taken from the model (SimInputs::extract with the same
    // range): it reads no model, so the DAG's may be gone. The inputs are freed as they are used.
    SimGraph(const RunDag& dag, SimInputs&& inputs);

    const RunDag& dag() const noexcept { return *m_dag; }
    const SimNodes& nodes() const noexcept { return m_nodes; } // with the recorded weights
    // Cross dependencies per node (sim_graph.h); 255 means 255 or more, the exact count in bigPreds().
    const std::vector<uint8_t>& crossPreds() const noexcept { return m_crossPreds; }
    const std::vector<std::pair<uint32_t, uint32_t>>& bigPreds() const noexcept { return m_bigPreds; }
    // One bit per cut, set on End cuts: a strand's first node finds its predecessor "done".
    const std::vector<uint64_t>& doneAtStart() const noexcept { return m_doneAtStart; }

    // The graph's strands and cuts (its own ids: see "Numbering" above).
    uint32_t strandCount() const noexcept { return uint32_t(m_offsets.size() - 1); }
    size_t cutCount() const noexcept { return m_offsets.back(); }
    uint32_t firstNode(uint32_t strand) const noexcept // kNoIndex for a strand without cuts
    {
        return m_offsets[strand + 1] > m_offsets[strand] ? m_offsets[strand] : kNoIndex;
    }
    uint32_t lastNode(uint32_t strand) const noexcept
    {
        return m_offsets[strand + 1] >= m_offsets[strand] + 2 ? m_offsets[strand + 1] - 2 : kNoIndex;
    }
    uint32_t strandOf(uint32_t node) const noexcept; // O(log strands)
    uint32_t graphStrand(uint32_t dagStrand) const noexcept { return m_new[dagStrand]; }
    StrandRole role(uint32_t strand) const noexcept { return StrandRole(m_role[strand]); }
    const SimConjunct& conjunct(uint32_t strand) const noexcept { return m_conjuncts[strand]; }
    std::span<const NodeRef> waits(uint32_t future) const noexcept
    {
        return { m_waits.data() + m_waitOffsets[future], m_waitOffsets[future + 1] - m_waitOffsets[future] };
    }
    uint64_t nodeCount() const noexcept { return m_nodeCount; } // every strand's nodes (End cuts are not)
    // The strand's sub-tree in the serial order: strands [strand, subtreeEnd), cuts [firstCut, the
    // first cut of subtreeEnd), and its number of nodes. closed(): see "Closed sub-trees" above.
    uint32_t subtreeEnd(uint32_t strand) const noexcept { return m_subtreeEnd[strand]; }
    uint32_t firstCut(uint32_t strand) const noexcept { return m_offsets[strand]; }
    uint32_t subtreeNodes(uint32_t strand) const noexcept { return m_subtreeNodes[strand]; }
    bool closed(uint32_t strand) const noexcept { return m_closed[strand] != 0; }
    uint32_t closedCount() const noexcept { return m_closedCount; }
    uint32_t firstRoot() const noexcept { return m_firstRoot; } // the root that started first, or kNoIndex

    // The nodes with the weights of each conjunct k's own nodes (k: the model's conjunct index) divided
    // by factor[k] (1: unchanged), rounded.
    SimNodes scaled(const std::vector<double>& factor) const;
    // `nodes`' weights by the DAG's node ids (RunDag::weights' layout; End cuts 0).
    std::vector<uint64_t> dagWeights(const SimNodes& nodes) const;

private:
    struct Conjunction {
        uint32_t first = kNoIndex; // the strand of its first conjunct, released by its Fork
        uint32_t parent = kNoIndex; // the strand that started it (its Fork), if placed
        NodeRef join; // the node starting at its Join cut, if any
    };
    // The graph's id of the DAG's node g of DAG strand s.
    uint32_t nodeOf(uint32_t s, uint32_t g) const noexcept { return m_offsets[m_new[s]] + (g - m_dag->firstNode(s)); }
    // The build reads the model's side through a Shape (sim_graph.cpp): the model's own, or SimInputs.
    template <class Shape> void build(const Shape& shape);
    template <class Shape> void order(const Shape& shape);
    template <class Shape> void scanCuts(const Shape& shape);
    template <class Shape> void fillRecords(const Shape& shape);
    template <class Shape> void fillNodes(const Shape& shape);
    void addWeights(const EngineActivity& activity, uint64_t fromNs, uint64_t toNs);
    void copyWeights(SimInputs& inputs);
    void findClosedSubtrees(); // sim_subtrees.cpp

    const RunDag* m_dag;
    std::vector<uint32_t> m_new; // per DAG strand: the graph's strand
    std::vector<uint32_t> m_offsets; // per graph strand + 1: its first cut
    // Per graph strand: the strand whose fork placed it in the order, or kNoIndex. Read while the
    // closed sub-trees are found, then freed (the graph sits at `analyze`'s peak).
    std::vector<uint32_t> m_parent;
    std::vector<uint32_t> m_subtreeEnd; // per graph strand
    std::vector<uint32_t> m_subtreeNodes; // per graph strand
    std::vector<uint8_t> m_closed; // per graph strand
    uint32_t m_closedCount = 0;
    SimNodes m_nodes;
    std::vector<uint8_t> m_crossPreds;
    std::vector<std::pair<uint32_t, uint32_t>> m_bigPreds; // sorted by node
    std::vector<uint64_t> m_doneAtStart;
    std::vector<uint8_t> m_role; // per strand
    std::vector<SimConjunct> m_conjuncts; // per strand
    std::vector<Conjunction> m_conjunctions; // per conjunction (the model's index)
    std::vector<uint32_t> m_waitOffsets; // per future + 1
    std::vector<NodeRef> m_waits;
    uint64_t m_nodeCount = 0;
    uint32_t m_firstRoot = kNoIndex;
};

} // namespace sparkscope::core::detail
