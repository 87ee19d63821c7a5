#pragma once
// Internal to core (not installed). Work and span over the recorded run's DAG (run_dag.h,
// analysis.md §2).
//
// Longest paths: depth[g] = weight of the heaviest path that ends with node g, its own weight
// included; the span is the largest depth. One depth-first pass over strands that pulls each node's
// preds before the node itself (no successor lists are stored): O(nodes + edges), and mostly a
// sequential walk along each strand's nodes. An edge to a node whose strand is still waiting on the
// pass's stack closes a cycle, which only a trace contradicting itself can make: it is left out and
// counted.
//
// Per instance (a conjunction instance's sub-DAG: its conjuncts' strands and everything nested in
// them): work is the sum of the weights there, added up the conjunction tree in one reverse pass.
// For the span, the only edge into the sub-DAG is usually the Fork into G1, so every path to a node
// inside passes through it and the sub-DAG's own longest path to that node is depth[node] −
// depth[fork source]: span = max over the conjuncts' last nodes of that difference. A wait on a
// future signalled outside the instance is a second way in (a "tainted" instance); those are
// recomputed by the same pass restricted to the sub-DAG's strands. Linear overall unless many nested
// instances are tainted.
#include "analysis/run_dag.h"
#include "sparkscope/core/analysis.h"

#include <cstdint>
#include <vector>

namespace sparkscope::core::detail {

struct LongestPaths {
    std::vector<uint64_t> depth; // per node id (End cuts: 0)
    uint64_t spanNs = 0;
    uint64_t brokenDependencies = 0; // edges left out to break cycles
};

// The weights (RunDag::weights) are taken by value and become the depths in place.
LongestPaths longestPaths(const RunDag& dag, std::vector<uint64_t> weights);

// Per conjunction instance. known[j] is false for instances that are incomplete (or whose conjuncts
// the DAG could not place); tainted[j] for those a suspended wait enters from outside.
struct InstanceWorkSpans {
    std::vector<uint64_t> work, span;
    std::vector<uint8_t> known, tainted;
};

// Every instance's work and the span of the tainted ones, from the weights (before longestPaths
// takes them); then the span of the others from the longest paths.
InstanceWorkSpans instanceWork(const RunDag& dag, const std::vector<uint64_t>& weights);
void addInstanceSpans(const RunDag& dag, const LongestPaths& paths, InstanceWorkSpans& figures);

// Cilkview's bounds for P = 1, 2, 4, …, 64 (empty unless work and span are both positive).
std::vector<SpeedupBound> speedupBounds(uint64_t workNs, uint64_t spanNs);
// Cilkview's bounds for P engines (analysis.md §2); 0 and 0 without work or span.
SpeedupBound speedupBound(uint64_t workNs, uint64_t spanNs, uint32_t engines);

// Per static id, over the instances that start in [from, to): complete ones summarised, others counted.
std::vector<SiteWorkSpan> siteWorkSpan(
    const ParModel& model, const InstanceWorkSpans& figures, uint64_t fromNs, uint64_t toNs, bool listInstances);

} // namespace sparkscope::core::detail
