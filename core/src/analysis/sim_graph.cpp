// The DAG's releases, laid out for a forward simulation (rules in sim_graph.h).
#include "analysis/sim_graph.h"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <tbb/parallel_for.h>

namespace sparkscope::core::detail {

uint64_t SimNodes::bigWeight(uint32_t node) const noexcept
{
    auto it = std::lower_bound(
        big.begin(), big.end(), node, [](const std::pair<uint32_t, uint64_t>& b, uint32_t n) { return b.first < n; });
    return it != big.end() && it->first == node ? it->second : SimNode::kBigWeight;
}

SimGraph::SimGraph(const RunDag& dag, const std::vector<uint64_t>& weights)
    : m_dag(&dag)
{
    scanCuts();
    fillRecords();
    fillNodes(weights);
}

// One pass in strand order: the Return, Join and Fork cuts by what they refer to (the first one wins),
// the Wait cuts grouped by future, the End cuts' bits, the roots' roles and the first root.
void SimGraph::scanCuts()
{
    const RunDag& d = *m_dag;
    const ParModel& m = d.model();
    m_conjuncts.assign(m.conjuncts.size(), {});
    m_conjunctions.assign(m.conjunctions.size(), {});
    m_role.assign(d.strandCount(), uint8_t(StrandRole::Conjunct));
    m_waitOffsets.assign(m.futures.size() + 1, 0);
    m_doneAtStart.assign(d.cutCount() / 64 + 1, 0);
    uint64_t firstStart = UINT64_MAX;
    for (uint32_t s = 0; s < d.strandCount(); ++s) {
        const auto cuts = d.cuts(s);
        if (cuts.empty())
            continue;
        const uint32_t base = d.firstNode(s);
        m_nodeCount += cuts.size() - 1;
        const uint32_t end = base + uint32_t(cuts.size()) - 1;
        m_doneAtStart[end / 64] |= uint64_t(1) << (end % 64);
        bool program = false;
        for (uint32_t i = 0; i < cuts.size(); ++i) {
            const Cut& c = cuts[i];
            const NodeRef here { base + i, s };
            if (c.kind == CutKind::Return && m_conjuncts[c.ref].ret.node == kNoIndex)
                m_conjuncts[c.ref].ret = here;
            else if (c.kind == CutKind::Join && m_conjunctions[c.ref].join.node == kNoIndex)
                m_conjunctions[c.ref].join = here;
            else if (c.kind == CutKind::Fork && m_conjunctions[c.ref].parent == kNoIndex)
                m_conjunctions[c.ref].parent = s;
            if (c.kind == CutKind::Wait)
                ++m_waitOffsets[c.ref + 1];
            program = program || c.kind == CutKind::Join || c.kind == CutKind::Fork || c.kind == CutKind::Wait
                || c.kind == CutKind::Signal;
        }
        if (d.isConjunct(s))
            continue;
        m_role[s] = uint8_t(program ? StrandRole::Program : StrandRole::Carrier);
        if (cuts.front().timeNs < firstStart) {
            firstStart = cuts.front().timeNs;
            m_firstRoot = s;
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
                m_waits[fill[cuts[i].ref]++] = { d.firstNode(s) + i, s };
    }
}

// Per conjunct: its first node and the next conjunct; per conjunction: the conjunct its Fork releases.
void SimGraph::fillRecords()
{
    const RunDag& d = *m_dag;
    const ParModel& m = d.model();
    tbb::parallel_for(uint32_t(0), uint32_t(m.conjuncts.size()), [&](uint32_t k) {
        const ConjunctInstance& c = m.conjuncts[k];
        SimConjunct& out = m_conjuncts[k];
        out.first = d.firstNode(k);
        if (!c.conjunction.valid())
            return;
        const auto& list = m.conjunction(c.conjunction).conjuncts;
        if (c.position >= 1 && c.position < list.size())
            out.next = list[c.position].value();
        out.parent = m_conjunctions[c.conjunction.value()].parent;
        out.join = m_conjunctions[c.conjunction.value()].join;
    });
    tbb::parallel_for(uint32_t(0), uint32_t(m.conjunctions.size()), [&](uint32_t j) {
        if (d.forkSource(j) == kNoIndex)
            return;
        for (uint32_t k : strandsOf(m.conjunctions[j].conjuncts))
            if (m.conjuncts[k].position <= 1 && d.firstNode(k) != kNoIndex) {
                m_conjunctions[j].first = k;
                break;
            }
    });
}

// Each node's weight, release and flags, and its cross dependencies by the cut it starts at.
void SimGraph::fillNodes(const std::vector<uint64_t>& weights)
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
                return m_conjunctions[m.conjuncts[s].conjunction.value()].first == s;
            return d.createSource(s) != kNoIndex;
        case CutKind::Return:
            return m_conjuncts[c.ref].ret.node == g && d.lastNode(c.ref) != kNoIndex;
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
    auto release = [&](SimNode& n, const Cut& next, uint32_t g) {
        n.release = CutKind::Start;
        if (next.kind == CutKind::End) {
            n.release = CutKind::End;
        } else if (next.kind == CutKind::Fork) {
            if (d.forkSource(next.ref) == g && m_conjunctions[next.ref].first != kNoIndex)
                n = { n.weight, m_conjunctions[next.ref].first, CutKind::Fork, n.flags };
        } else if (next.kind == CutKind::Create) {
            if (m.conjuncts[next.ref].position >= 2 && d.createSource(next.ref) == g)
                n = { n.weight, next.ref, CutKind::Create, n.flags };
        } else if (next.kind == CutKind::Signal) {
            if (d.signalSource(next.ref) == g)
                n = { n.weight, next.ref, CutKind::Signal, n.flags };
        }
    };
    tbb::parallel_for(uint32_t(0), d.strandCount(), [&](uint32_t s) {
        const auto cuts = d.cuts(s);
        const uint8_t strandFlags = uint8_t(
            (d.isConjunct(s) ? SimNode::kInConjunct : 0) | (role(s) == StrandRole::Carrier ? SimNode::kCarrier : 0));
        for (uint32_t i = 0; i + 1 < cuts.size(); ++i) {
            const uint32_t g = d.firstNode(s) + i;
            SimNode& n = m_nodes.nodes[g];
            n.flags = uint8_t(strandFlags | (cuts[i].kind == CutKind::Return ? SimNode::kAfterReturn : 0)
                | (cuts[i].kind == CutKind::Wait ? SimNode::kAtWait : 0));
            release(n, cuts[i + 1], g);
            const uint32_t p = preds(cuts[i], s, g);
            m_crossPreds[g] = uint8_t(std::min<uint32_t>(p, 255));
            if (p > 0)
                n.flags |= SimNode::kWaits;
            n.weight = uint32_t(std::min<uint64_t>(weights[g], SimNode::kBigWeight));
            if (p >= 255 || weights[g] >= SimNode::kBigWeight) {
                std::lock_guard lock(bigLock);
                if (p >= 255)
                    m_bigPreds.push_back({ g, p });
                if (weights[g] >= SimNode::kBigWeight)
                    m_nodes.big.push_back({ g, weights[g] });
            }
        }
    });
    std::sort(m_bigPreds.begin(), m_bigPreds.end());
    std::sort(m_nodes.big.begin(), m_nodes.big.end());
}

SimNodes SimGraph::scaled(const std::vector<double>& factor) const
{
    const RunDag& d = *m_dag;
    SimNodes out = m_nodes;
    std::vector<std::pair<uint32_t, uint64_t>> big;
    std::vector<uint8_t> scaledStrand(factor.size(), 0);
    std::mutex bigLock;
    tbb::parallel_for(uint32_t(0), uint32_t(factor.size()), [&](uint32_t k) {
        const uint32_t first = d.firstNode(k), last = d.lastNode(k);
        if (factor[k] == 1.0 || first == kNoIndex || last == kNoIndex)
            return;
        scaledStrand[k] = 1;
        for (uint32_t g = first; g <= last; ++g) {
            const uint64_t w = uint64_t(std::llround(double(m_nodes.weight(g)) / factor[k]));
            out.nodes[g].weight = uint32_t(std::min<uint64_t>(w, SimNode::kBigWeight));
            if (w >= SimNode::kBigWeight) {
                std::lock_guard lock(bigLock);
                big.push_back({ g, w });
            }
        }
    });
    for (const auto& b : m_nodes.big) { // the big weights of nodes left as they were
        const uint32_t s = d.strandOf(b.first);
        if (s >= scaledStrand.size() || !scaledStrand[s])
            big.push_back(b);
    }
    std::sort(big.begin(), big.end());
    out.big = std::move(big);
    return out;
}

} // namespace sparkscope::core::detail
