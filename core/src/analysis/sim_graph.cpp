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

SimGraph::SimGraph(const RunDag& dag, const EngineActivity& activity, uint64_t fromNs, uint64_t toNs)
    : m_dag(&dag)
{
    order();
    scanCuts();
    fillRecords();
    fillNodes();
    addWeights(activity, fromNs, toNs);
    findClosedSubtrees();
    std::vector<uint32_t>().swap(m_parent); // read by the build only
}

uint32_t SimGraph::strandOf(uint32_t node) const noexcept
{
    auto it = std::upper_bound(m_offsets.begin(), m_offsets.end(), node);
    return uint32_t(it - m_offsets.begin()) - 1;
}

// The strands in serial order (sim_graph.h, "Numbering"): a preorder from each context's root, then
// from whatever no fork reached (conjuncts whose fork the trace lost), each in the DAG's order. A
// conjunction's conjuncts are the children of the first strand (in the DAG's order) that forks it.
void SimGraph::order()
{
    const RunDag& d = *m_dag;
    const ParModel& m = d.model();
    const uint32_t strands = d.strandCount();
    std::vector<uint32_t> forkedBy(m.conjunctions.size(), kNoIndex);
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
                    for (uint32_t k : strandsOf(m.conjunctions[c.ref].conjuncts))
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
void SimGraph::scanCuts()
{
    const RunDag& d = *m_dag;
    const ParModel& m = d.model();
    m_conjuncts.assign(d.strandCount(), {});
    m_conjunctions.assign(m.conjunctions.size(), {});
    m_role.assign(d.strandCount(), uint8_t(StrandRole::Conjunct));
    m_waitOffsets.assign(m.futures.size() + 1, 0);
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
    for (size_t f = 0; f < m.futures.size(); ++f)
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
void SimGraph::fillRecords()
{
    const RunDag& d = *m_dag;
    const ParModel& m = d.model();
    tbb::parallel_for(uint32_t(0), uint32_t(m.conjunctions.size()), [&](uint32_t j) {
        if (d.forkSource(j) == kNoIndex)
            return;
        for (uint32_t k : strandsOf(m.conjunctions[j].conjuncts))
            if (m.conjuncts[k].position <= 1 && d.firstNode(k) != kNoIndex) {
                m_conjunctions[j].first = m_new[k];
                break;
            }
    });
    tbb::parallel_for(uint32_t(0), uint32_t(m.conjuncts.size()), [&](uint32_t k) {
        const ConjunctInstance& c = m.conjuncts[k];
        SimConjunct& out = m_conjuncts[m_new[k]];
        out.first = firstNode(m_new[k]);
        if (!c.conjunction.valid())
            return;
        const auto& list = m.conjunction(c.conjunction).conjuncts;
        if (c.position >= 1 && c.position < list.size())
            out.next = m_new[list[c.position].value()];
        out.parent = m_conjunctions[c.conjunction.value()].parent;
        out.join = m_conjunctions[c.conjunction.value()].join;
    });
}

// Each node's weight, release and flags, and its cross dependencies by the cut it starts at.
// Everything of each node but its weight (addWeights).
void SimGraph::fillNodes()
{
    const RunDag& d = *m_dag;
    const ParModel& m = d.model();
    m_nodes.nodes.assign(d.cutCount(), {});
    m_crossPreds.assign(d.cutCount(), 0);
    std::mutex bigLock;
    auto preds = [&](const Cut& c, uint32_t s, uint32_t g) -> uint32_t {
        switch (c.kind) {
        case CutKind::Start:
            if (!d.isConjunct(s))
                return 0;
            if (m.conjuncts[s].position <= 1)
                return m_conjunctions[m.conjuncts[s].conjunction.value()].first == m_new[s];
            return d.createSource(s) != kNoIndex;
        case CutKind::Return:
            return m_conjuncts[m_new[c.ref]].ret.node == g && d.lastNode(c.ref) != kNoIndex;
        case CutKind::Join: {
            uint32_t n = 0;
            if (m_conjunctions[c.ref].join.node == g)
                for (uint32_t k : strandsOf(m.conjunctions[c.ref].conjuncts))
                    n += d.lastNode(k) != kNoIndex;
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
            if (m.conjuncts[next.ref].position >= 2 && d.createSource(next.ref) == dg)
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

// The weights, summed into each node's 4 bytes as the DAG hands out its pieces. A node whose sum
// reaches kBigWeight goes on in a map of the thread adding to it (all of a node's pieces come from
// one task: RunDag::forEachWeightPiece), and the maps become the sorted big list at the end.
void SimGraph::addWeights(const EngineActivity& activity, uint64_t fromNs, uint64_t toNs)
{
    tbb::enumerable_thread_specific<std::unordered_map<uint32_t, uint64_t>> bigByThread;
    m_dag->forEachWeightPiece(activity, fromNs, toNs, [&](uint32_t strand, uint32_t dg, uint64_t ns) {
        const uint32_t g = nodeOf(strand, dg);
        uint32_t& w = m_nodes.nodes[g].weight;
        if (w != SimNode::kBigWeight && ns < uint64_t(SimNode::kBigWeight) - w) {
            w += uint32_t(ns);
            return;
        }
        auto& big = bigByThread.local();
        if (w != SimNode::kBigWeight)
            big[g] = std::exchange(w, SimNode::kBigWeight);
        big[g] += ns;
    });
    m_nodes.big.clear();
    for (const auto& big : bigByThread)
        m_nodes.big.insert(m_nodes.big.end(), big.begin(), big.end());
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
