#pragma once
// Internal to core (not installed): the descendant pass behind PARCONJ_RUNNABLE/RUNNING_SELF_AND_DESC,
// PARCONJ_AVAIL_CPUS and OUT_OF_ORDER_* (see descendant_pass.cpp for the algorithm and its cost).
#include "sparkscope/core/par_model.h"
#include "sparkscope/core/step_function.h"

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

namespace sparkscope::core::detail {

// Per conjunction instance, over [START_PAR_CONJ, END_PAR_CONJ): maximum and time-weighted average of
// RUNNABLE_SELF_AND_DESC (rd), RUNNING_SELF_AND_DESC (nd) and AVAIL_CPUS (av), and the integrals of
// the scheduling-order pair counts split at this instance. `done` is false for an instance that was
// not measured (incomplete, or outside the range); its values are then 0.
struct DescValues {
    double rdMax = 0, rdAvg = 0, ndMax = 0, ndAvg = 0, avMax = 0, avAvg = 0;
    double outOfOrder = 0, eitherRunning = 0, blocking = 0;
    bool done = false;
};

// When conjunct k (of conjunction instance g) was bound to its context: the start of its first top
// piece (it is pushed on its context's stack, as the innermost conjunct, when bound).
uint64_t bindTime(const ParModel& m, const ConjunctInstance& g, uint32_t k);

// For each conjunct that signals a future: the [wait, signal) spans during which a consumer was
// suspended on it (the "blocks another context" part of OUT_OF_ORDER_*). Both variants use it.
std::unordered_map<uint32_t, std::vector<std::pair<uint64_t, uint64_t>>> suspendedWaitsByProducer(const ParModel& m);

// Every instance: measured when complete and starting in [fromNs, toNs). Parallel (TBB). Picks the
// merged-lists variant when the average nesting depth is small (its cost is changes x depth, with a
// small constant), the segment-tree variant otherwise (changes x log T whatever the depth).
std::vector<DescValues> descendantPass(
    const ParModel& m, const StepFunction& cpus, size_t engines, uint64_t fromNs, uint64_t toNs);
// The two variants (same figures, exactly).
std::vector<DescValues> descendantPassLists(
    const ParModel& m, const StepFunction& cpus, size_t engines, uint64_t fromNs, uint64_t toNs);
std::vector<DescValues> descendantPassTrees(
    const ParModel& m, const StepFunction& cpus, size_t engines, uint64_t fromNs, uint64_t toNs);

// One instance (measured when complete), walking only its subtree with the segment-tree variant.
// Cost: O(subtree changes x log) plus the CPUS steps within the instance.
DescValues descendantValues(const ParModel& m, const StepFunction& cpus, size_t engines, uint32_t j);

} // namespace sparkscope::core::detail
