// The closed sub-trees of the serial order (sim_graph.h, "Closed sub-trees"), for the simulation's
// shortcut (simulate.h, "Shortcut").
#include "analysis/sim_graph.h"

#include <algorithm>

namespace sparkscope::core::detail {

namespace {
    // Longer walks up the order mark everything above as open instead of counting (see below).
    constexpr int kMaxWalk = 64;
}

// A release u → v crosses the sub-trees that hold exactly one of its ends: going up from u's strand to
// the first sub-tree that holds v's (a release out of each), and from v's strand to the first that
// holds u's (a release in). A conjunct's sub-tree is closed when the only release in is the one that
// starts it (to its first node), the only ones out leave its last node (its Return and Join), and none
// of its strands signals, waits or starts without a release (the simulation's start() would run such
// a strand from the runnable queue). The walks are one level long in the runtime's shapes (a fork, a
// spark, a return to the parent); a walk that goes on for more than kMaxWalk levels, and anything
// that signals or waits, marks every sub-tree above it as open instead ("open" always holds up to the
// root, so a later marking stops at the first open one): linear on deep recursions, and conservative
// (a sub-tree left open is only simulated node by node).
void SimGraph::findClosedSubtrees()
{
    const uint32_t strands = strandCount();
    m_subtreeEnd.resize(strands);
    m_subtreeNodes.resize(strands);
    for (uint32_t s = 0; s < strands; ++s) {
        m_subtreeEnd[s] = s + 1;
        m_subtreeNodes[s] = m_offsets[s + 1] > m_offsets[s] ? m_offsets[s + 1] - m_offsets[s] - 1 : 0;
    }
    for (uint32_t s = strands; s-- > 0;)
        if (const uint32_t p = m_parent[s]; p != kNoIndex) { // preorder: a child comes after its parent
            m_subtreeEnd[p] = std::max(m_subtreeEnd[p], m_subtreeEnd[s]);
            m_subtreeNodes[p] += m_subtreeNodes[s];
        }

    std::vector<uint8_t> open(strands, 0);
    std::vector<uint32_t> in(strands, 0), out(strands, 0), entryIn(strands, 0), endOut(strands, 0);
    auto openUp = [&](uint32_t a) {
        for (; a != kNoIndex && !open[a]; a = m_parent[a])
            open[a] = 1;
    };
    auto holds = [&](uint32_t a, uint32_t s) { return s >= a && s < m_subtreeEnd[a]; };
    // The release counted on every sub-tree from `s` up that does not hold `other`: in `count`, and in
    // `own` on s itself when `at` (the release leaves from s's end, or enters at its first node).
    auto climb = [&](uint32_t s, uint32_t other, std::vector<uint32_t>& count, std::vector<uint32_t>& own, bool at) {
        int steps = 0;
        for (uint32_t a = s; a != kNoIndex && !holds(a, other); a = m_parent[a]) {
            if (++steps > kMaxWalk) {
                openUp(a);
                break;
            }
            ++count[a];
            own[a] += a == s && at;
        }
    };
    // `fromEnd`: u is su's last node; `toFirst`: v is sv's first node.
    auto release = [&](uint32_t su, uint32_t sv, bool fromEnd, bool toFirst) {
        climb(su, sv, out, endOut, fromEnd);
        climb(sv, su, in, entryIn, toFirst);
    };
    for (uint32_t s = 0; s < strands; ++s) {
        const uint32_t first = firstNode(s), last = lastNode(s);
        if (first == kNoIndex || last == kNoIndex)
            continue;
        if (m_crossPreds[first] == 0 && s != m_firstRoot)
            openUp(s);
        for (uint32_t g = first; g <= last; ++g) {
            const SimNode& n = m_nodes.nodes[g];
            if (n.flags & SimNode::kAtWait)
                openUp(s);
            switch (n.release) {
            case CutKind::Fork:
            case CutKind::Create:
                release(s, n.ref, false, true);
                break;
            case CutKind::Signal:
                openUp(s);
                break;
            case CutKind::End:
                if (n.flags & SimNode::kInConjunct) {
                    const SimConjunct& k = m_conjuncts[s];
                    for (const NodeRef& r : { k.join, k.ret })
                        if (r.node != kNoIndex)
                            release(s, r.strand, true, r.node == firstNode(r.strand));
                }
                break;
            default:
                break;
            }
        }
    }
    m_closed.assign(strands, 0);
    for (uint32_t s = 0; s < strands; ++s) {
        const uint32_t first = firstNode(s);
        m_closed[s] = role(s) == StrandRole::Conjunct && first != kNoIndex && lastNode(s) != kNoIndex && !open[s]
            && in[s] == 1 && entryIn[s] == 1 && m_crossPreds[first] == 1 && out[s] == endOut[s];
        m_closedCount += m_closed[s];
        if (m_closed[s])
            m_nodes.nodes[first].flags |= SimNode::kStartsClosed;
    }
}

} // namespace sparkscope::core::detail
