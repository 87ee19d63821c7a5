// The DAG's releases, laid out for a forward simulation (rules in sim_graph.h).
#include "analysis/sim_graph.h"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <unordered_map>
#include <utility>

namespace sparkscope::core::detail {

uint64_t SimNodes::bigWeight(uint32_t node) const noexcept
{
    auto it = std::lower_bound(
        big.begin(), big.end(), node, [](const std::pair<uint32_t, uint64_t>& b, uint32_t n) { return b.first < n; });
    return it != big.end() && it->first == node ? it->second : SimNode::kBigWeight;
}

namespace {

    // The model's side of the graph, read from the model itself.
    class ModelShape {
    public:
        explicit ModelShape(const ParModel& m) noexcept
            : m(m)
        {
        }
        uint32_t conjunctions() const noexcept { return uint32_t(m.conjunctions.size()); }
        uint32_t conjuncts() const noexcept { return uint32_t(m.conjuncts.size()); }
        uint32_t futures() const noexcept { return uint32_t(m.futures.size()); }
        StrandIds<ConjunctIndex> conjunctsOf(uint32_t j) const noexcept
        {
            return strandsOf(m.conjunctions[j].conjuncts);
        }
        size_t conjunctCount(uint32_t j) const noexcept { return m.conjunctions[j].conjuncts.size(); }
        uint32_t conjunctAt(uint32_t j, size_t i) const noexcept { return m.conjunctions[j].conjuncts[i].value(); }
        uint32_t conjunctionOf(uint32_t k) const noexcept { return m.conjuncts[k].conjunction.value(); }
        uint32_t position(uint32_t k) const noexcept { return m.conjuncts[k].position; }

    private:
        const ParModel& m;
    };

    // The same, from what SimInputs::extract took out of the model.
    class InputShape {
    public:
        explicit InputShape(const SimInputs& in) noexcept
            : in(in)
        {
        }
        uint32_t conjunctions() const noexcept { return uint32_t(in.listStarts.size() - 1); }
        uint32_t conjuncts() const noexcept { return uint32_t(in.conjunctionOf.size()); }
        uint32_t futures() const noexcept { return in.futures; }
        std::span<const uint32_t> conjunctsOf(uint32_t j) const noexcept
        {
            return { in.lists.data() + in.listStarts[j], in.listStarts[j + 1] - in.listStarts[j] };
        }
        size_t conjunctCount(uint32_t j) const noexcept { return in.listStarts[j + 1] - in.listStarts[j]; }
        uint32_t conjunctAt(uint32_t j, size_t i) const noexcept { return in.lists[in.listStarts[j] + i]; }
        uint32_t conjunctionOf(uint32_t k) const noexcept { return in.conjunctionOf[k]; }
        uint32_t position(uint32_t k) const noexcept { return in.positionOf[k]; }

    private:
        const SimInputs& in;
    };

    // The DAG's weight pieces for [fromNs, toNs) summed into 4-byte weights (SimNode's form): the piece
    // of `strand`'s node `dg` goes to slot(key(strand, dg)). A sum that reaches kBigWeight goes on in a
    // map of the thread adding to it (all of a node's pieces come from one task:
    // RunDag::forEachWeightPiece); the maps become the sorted big list returned, by key.
    template <class Key, class Slot>
    std::vector<std::pair<uint32_t, uint64_t>> addPieces(
        const RunDag& dag, const EngineActivity& activity, uint64_t fromNs, uint64_t toNs, Key&& key, Slot&& slot)
    {
        tbb::enumerable_thread_specific<std::unordered_map<uint32_t, uint64_t>> bigByThread;
        dag.forEachWeightPiece(activity, fromNs, toNs, [&](uint32_t strand, uint32_t dg, uint64_t ns) {
            const uint32_t k = key(strand, dg);
            uint32_t& w = slot(k);
            if (w != SimNode::kBigWeight && ns < uint64_t(SimNode::kBigWeight) - w) {
                w += uint32_t(ns);
                return;
            }
            auto& big = bigByThread.local();
            if (w != SimNode::kBigWeight)
                big[k] = std::exchange(w, SimNode::kBigWeight);
            big[k] += ns;
        });
        std::vector<std::pair<uint32_t, uint64_t>> out;
        for (const auto& big : bigByThread)
            out.insert(out.end(), big.begin(), big.end());
        std::sort(out.begin(), out.end());
        return out;
    }

} // namespace

SimInputs SimInputs::extract(const RunDag& dag, const EngineActivity& activity, uint64_t fromNs, uint64_t toNs)
{
    const ParModel& m = dag.model();
    SimInputs in;
    in.listStarts.reserve(m.conjunctions.size() + 1);
    in.listStarts.push_back(0);
    in.lists.reserve(m.conjuncts.size());
    for (const ConjunctionInstance& j : m.conjunctions) {
        for (ConjunctIndex k : j.conjuncts)
            in.lists.push_back(k.value());
        in.listStarts.push_back(uint32_t(in.lists.size()));
    }
    in.conjunctionOf.resize(m.conjuncts.size());
    in.positionOf.resize(m.conjuncts.size());
    for (size_t k = 0; k < m.conjuncts.size(); ++k) {
        in.conjunctionOf[k] = m.conjuncts[k].conjunction.value();
        in.positionOf[k] = m.conjuncts[k].position;
    }
    in.futures = uint32_t(m.futures.size());
    in.weights.assign(dag.cutCount(), 0);
    in.big = addPieces(
        dag, activity, fromNs, toNs, [](uint32_t, uint32_t dg) { return dg; },
        [&](uint32_t dg) -> uint32_t& { return in.weights[dg]; });
    return in;
}

SimGraph::SimGraph(const RunDag& dag, const EngineActivity& activity, uint64_t fromNs, uint64_t toNs)
    : m_dag(&dag)
{
    build(ModelShape(dag.model()));
    addWeights(activity, fromNs, toNs);
    findClosedSubtrees();
    std::vector<uint32_t>().swap(m_parent); // read by the build only
}

SimGraph::SimGraph(const RunDag& dag, SimInputs&& inputs)
    : m_dag(&dag)
{
    SimInputs in = std::move(inputs); // ours now, so each part can go as soon as it is read
    build(InputShape(in));
    in.listStarts = std::vector<uint32_t>();
    in.lists = std::vector<uint32_t>();
    in.conjunctionOf = std::vector<uint32_t>();
    in.positionOf = std::vector<uint32_t>();
    copyWeights(in);
    findClosedSubtrees();
    std::vector<uint32_t>().swap(m_parent); // read by the build only
}

template <class Shape> void SimGraph::build(const Shape& shape)
{
    order(shape);
    scanCuts(shape);
    fillRecords(shape);
    fillNodes(shape);
}

uint32_t SimGraph::strandOf(uint32_t node) const noexcept
{
    auto it = std::upper_bound(m_offsets.begin(), m_offsets.end(), node);
    return uint32_t(it - m_offsets.begin()) - 1;
}

// The strands in serial order (sim_graph.h, "Numbering"): a preorder from each context's root, then
// from whatever no fork reached (conjuncts whose fork the trace lost), each in the DAG's order. A
// conjunction's conjuncts are the children of the first strand (in the DAG's order) that forks it.
template <class Shape> void SimGraph::order(const Shape& shape)
{
    const RunDag& d = *m_dag;
    const uint32_t strands = d.strandCount();
    std::vector<uint32_t> forkedBy(shape.conjunctions(), kNoIndex);
    for (uint32_t s = 0; s < strands; ++s)
        for (const Cut& c : d.cuts(s))
            if (c.kind == CutKind::Fork && forkedBy[c.ref] == kNoIndex)
                forkedBy[c.ref] = s;
    m_new.assign(strands, kNoIndex);
    std::vector<uint32_t> old; // per graph strand: the DAG's strand
    old.reserve(strands);
    m_parent.assign(strands, kNoIndex);
    std::vector<std::pair<uint32_t, uint32_t>> stack, children; // (DAG strand, parent's graph id)
    auto from = [&](uint32_t root) {
        if (m_new[root] != kNoIndex)
            return;
        m_new[root] = 0;
        stack.push_back({ root, kNoIndex });
        while (!stack.empty()) {
            const auto [s, parent] = stack.back();
            stack.pop_back();
            const uint32_t here = uint32_t(old.size());
            m_new[s] = here;
            m_parent[here] = parent;
            old.push_back(s);
            children.clear();
            for (const Cut& c : d.cuts(s))
                if (c.kind == CutKind::Fork && forkedBy[c.ref] == s)
                    for (uint32_t k : shape.conjunctsOf(c.ref))
                        if (m_new[k] == kNoIndex) {
                            m_new[k] = 0; // on the stack
                            children.push_back({ k, here });
                        }
            stack.insert(stack.end(), children.rbegin(), children.rend());
        }
    };
    for (uint32_t s = d.rootStrand(0); s < strands; ++s)
        from(s);
    for (uint32_t s = 0; s < strands; ++s)
        from(s);
    m_offsets.assign(strands + 1, 0);
    for (uint32_t n = 0; n < strands; ++n)
        m_offsets[n + 1] = m_offsets[n] + uint32_t(d.cuts(old[n]).size());
}

// One pass in the DAG's strand order: the Return, Join and Fork cuts by what they refer to (the first
// one wins), the Wait cuts grouped by future, the End cuts' bits, the roots' roles and the first root.
template <class Shape> void SimGraph::scanCuts(const Shape& shape)
{
    const RunDag& d = *m_dag;
    m_conjuncts.assign(d.strandCount(), {});
    m_conjunctions.assign(shape.conjunctions(), {});
    m_role.assign(d.strandCount(), uint8_t(StrandRole::Conjunct));
    m_waitOffsets.assign(size_t(shape.futures()) + 1, 0);
    m_doneAtStart.assign(d.cutCount() / 64 + 1, 0);
    uint64_t firstStart = UINT64_MAX;
    for (uint32_t s = 0; s < d.strandCount(); ++s) {
        const auto cuts = d.cuts(s);
        if (cuts.empty())
            continue;
        const uint32_t base = m_offsets[m_new[s]], strand = m_new[s];
        m_nodeCount += cuts.size() - 1;
        const uint32_t end = base + uint32_t(cuts.size()) - 1;
        m_doneAtStart[end / 64] |= uint64_t(1) << (end % 64);
        bool program = false;
        for (uint32_t i = 0; i < cuts.size(); ++i) {
            const Cut& c = cuts[i];
            const NodeRef here { base + i, strand };
            if (c.kind == CutKind::Return && m_conjuncts[m_new[c.ref]].ret.node == kNoIndex)
                m_conjuncts[m_new[c.ref]].ret = here;
            else if (c.kind == CutKind::Join && m_conjunctions[c.ref].join.node == kNoIndex)
                m_conjunctions[c.ref].join = here;
            else if (c.kind == CutKind::Fork && m_conjunctions[c.ref].parent == kNoIndex)
                m_conjunctions[c.ref].parent = strand;
            if (c.kind == CutKind::Wait)
                ++m_waitOffsets[c.ref + 1];
            program = program || c.kind == CutKind::Join || c.kind == CutKind::Fork || c.kind == CutKind::Wait
                || c.kind == CutKind::Signal;
        }
        if (d.isConjunct(s))
            continue;
        m_role[strand] = uint8_t(program ? StrandRole::Program : StrandRole::Carrier);
        if (cuts.front().timeNs < firstStart) {
            firstStart = cuts.front().timeNs;
            m_firstRoot = strand;
        }
    }
    if (m_firstRoot != kNoIndex)
        m_role[m_firstRoot] = uint8_t(StrandRole::Program);
    for (size_t f = 0; f < shape.futures(); ++f)
        m_waitOffsets[f + 1] += m_waitOffsets[f];
    m_waits.resize(m_waitOffsets.back());
    std::vector<uint32_t> fill(m_waitOffsets.begin(), m_waitOffsets.end() - 1);
    for (uint32_t s = 0; s < d.strandCount(); ++s) {
        const auto cuts = d.cuts(s);
        for (uint32_t i = 0; i < cuts.size(); ++i)
            if (cuts[i].kind == CutKind::Wait)
                m_waits[fill[cuts[i].ref]++] = { m_offsets[m_new[s]] + i, m_new[s] };
    }
}

// Per conjunct: its first node and the next conjunct; per conjunction: the conjunct its Fork releases.
template <class Shape> void SimGraph::fillRecords(const Shape& shape)
{
    const RunDag& d = *m_dag;
    tbb::parallel_for(uint32_t(0), shape.conjunctions(), [&](uint32_t j) {
        if (d.forkSource(j) == kNoIndex)
            return;
        for (uint32_t k : shape.conjunctsOf(j))
            if (shape.position(k) <= 1 && d.firstNode(k) != kNoIndex) {
                m_conjunctions[j].first = m_new[k];
                break;
            }
    });
    tbb::parallel_for(uint32_t(0), shape.conjuncts(), [&](uint32_t k) {
        SimConjunct& out = m_conjuncts[m_new[k]];
        out.first = firstNode(m_new[k]);
        const uint32_t j = shape.conjunctionOf(k), position = shape.position(k);
        if (j == kNoIndex)
            return;
        if (position >= 1 && position < shape.conjunctCount(j))
            out.next = m_new[shape.conjunctAt(j, position)];
        out.parent = m_conjunctions[j].parent;
        if (m_dag->joins(k)) // (a conjunct that ended after its conjunction releases no join)
            out.join = m_conjunctions[j].join;
    });
}

// Each node's weight, release and flags, and its cross dependencies by the cut it starts at.
// Everything of each node but its weight (addWeights).
template <class Shape> void SimGraph::fillNodes(const Shape& shape)
{
    const RunDag& d = *m_dag;
    m_nodes.nodes.assign(d.cutCount(), {});
    m_crossPreds.assign(d.cutCount(), 0);
    std::mutex bigLock;
    auto preds = [&](const Cut& c, uint32_t s, uint32_t g) -> uint32_t {
        switch (c.kind) {
        case CutKind::Start:
            if (!d.isConjunct(s))
                return 0;
            if (shape.position(s) <= 1)
                return m_conjunctions[shape.conjunctionOf(s)].first == m_new[s];
            return d.createSource(s) != kNoIndex;
        case CutKind::Return:
            return m_conjuncts[m_new[c.ref]].ret.node == g && d.lastNode(c.ref) != kNoIndex;
        case CutKind::Join: {
            uint32_t n = 0;
            if (m_conjunctions[c.ref].join.node == g)
                for (uint32_t k : shape.conjunctsOf(c.ref))
                    n += d.lastNode(k) != kNoIndex && d.joins(k);
            return n;
        }
        case CutKind::Wait:
            return d.signalSource(c.ref) != kNoIndex;
        default:
            return 0;
        }
    };
    // dg: the node's DAG id (the sources are DAG ids).
    auto release = [&](SimNode& n, const Cut& next, uint32_t dg) {
        n.release = CutKind::Start;
        if (next.kind == CutKind::End) {
            n.release = CutKind::End;
        } else if (next.kind == CutKind::Fork) {
            if (d.forkSource(next.ref) == dg && m_conjunctions[next.ref].first != kNoIndex)
                n = { n.weight, m_conjunctions[next.ref].first, CutKind::Fork, n.flags };
        } else if (next.kind == CutKind::Create) {
            if (shape.position(next.ref) >= 2 && d.createSource(next.ref) == dg)
                n = { n.weight, m_new[next.ref], CutKind::Create, n.flags };
        } else if (next.kind == CutKind::Signal) {
            if (d.signalSource(next.ref) == dg)
                n = { n.weight, next.ref, CutKind::Signal, n.flags };
        }
    };
    tbb::parallel_for(uint32_t(0), d.strandCount(), [&](uint32_t s) {
        const auto cuts = d.cuts(s);
        const uint8_t strandFlags = uint8_t((d.isConjunct(s) ? SimNode::kInConjunct : 0)
            | (role(m_new[s]) == StrandRole::Carrier ? SimNode::kCarrier : 0));
        for (uint32_t i = 0; i + 1 < cuts.size(); ++i) {
            const uint32_t dg = d.firstNode(s) + i, g = m_offsets[m_new[s]] + i;
            SimNode& n = m_nodes.nodes[g];
            n.flags = uint8_t(strandFlags | (cuts[i].kind == CutKind::Return ? SimNode::kAfterReturn : 0)
                | (cuts[i].kind == CutKind::Wait ? SimNode::kAtWait : 0));
            release(n, cuts[i + 1], dg);
            const uint32_t p = preds(cuts[i], s, g);
            m_crossPreds[g] = uint8_t(std::min<uint32_t>(p, 255));
            if (p > 0)
                n.flags |= SimNode::kWaits;
            if (p >= 255) {
                std::lock_guard lock(bigLock);
                m_bigPreds.push_back({ g, p });
            }
        }
    });
    std::sort(m_bigPreds.begin(), m_bigPreds.end());
}

// The weights, summed into each node's 4 bytes as the DAG hands out its pieces (addPieces).
void SimGraph::addWeights(const EngineActivity& activity, uint64_t fromNs, uint64_t toNs)
{
    m_nodes.big = addPieces(
        *m_dag, activity, fromNs, toNs, [&](uint32_t strand, uint32_t dg) { return nodeOf(strand, dg); },
        [&](uint32_t g) -> uint32_t& { return m_nodes.nodes[g].weight; });
}

// The weights SimInputs::extract summed by DAG node, moved to the graph's ids; the big list re-keyed
// and sorted by them.
void SimGraph::copyWeights(SimInputs& in)
{
    const RunDag& d = *m_dag;
    tbb::parallel_for(uint32_t(0), d.strandCount(), [&](uint32_t s) {
        const auto cuts = d.cuts(s);
        for (uint32_t i = 0; i < cuts.size(); ++i)
            m_nodes.nodes[m_offsets[m_new[s]] + i].weight = in.weights[d.firstNode(s) + i];
    });
    in.weights = std::vector<uint32_t>();
    m_nodes.big.clear();
    for (const auto& [dg, w] : in.big)
        m_nodes.big.push_back({ nodeOf(d.strandOf(dg), dg), w });
    std::sort(m_nodes.big.begin(), m_nodes.big.end());
}

SimNodes SimGraph::scaled(const std::vector<double>& factor) const
{
    SimNodes out = m_nodes;
    std::vector<std::pair<uint32_t, uint64_t>> big;
    std::vector<uint8_t> scaledStrand(strandCount(), 0);
    std::mutex bigLock;
    tbb::parallel_for(uint32_t(0), uint32_t(factor.size()), [&](uint32_t k) {
        const uint32_t s = m_new[k], first = firstNode(s), last = lastNode(s);
        if (factor[k] == 1.0 || first == kNoIndex || last == kNoIndex)
            return;
        scaledStrand[s] = 1;
        for (uint32_t g = first; g <= last; ++g) {
            const uint64_t w = uint64_t(std::llround(double(m_nodes.weight(g)) / factor[k]));
            out.nodes[g].weight = uint32_t(std::min<uint64_t>(w, SimNode::kBigWeight));
            if (w >= SimNode::kBigWeight) {
                std::lock_guard lock(bigLock);
                big.push_back({ g, w });
            }
        }
    });
    for (const auto& b : m_nodes.big) // the big weights of nodes left as they were
        if (!scaledStrand[strandOf(b.first)])
            big.push_back(b);
    std::sort(big.begin(), big.end());
    out.big = std::move(big);
    return out;
}

std::vector<uint64_t> SimGraph::dagWeights(const SimNodes& nodes) const
{
    const RunDag& d = *m_dag;
    std::vector<uint64_t> out(d.cutCount(), 0);
    tbb::parallel_for(uint32_t(0), d.strandCount(), [&](uint32_t s) {
        const auto cuts = d.cuts(s);
        for (uint32_t i = 0; i + 1 < cuts.size(); ++i)
            out[d.firstNode(s) + i] = nodes.weight(m_offsets[m_new[s]] + i);
    });
    return out;
}

} // namespace sparkscope::core::detail
