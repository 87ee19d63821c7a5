#pragma once
// Internal to core (not installed): the Stats of the per-instance figures per group (static id), for
// the conjunctions and scheduling sections (group_summaries.cpp, scheduling_section.cpp); the
// conjuncts section's are built whole by the figures pass (InstanceFigures::stats). A Stat does
// not depend on the order of its values (exact_stat.h), so a group's instances are summarised in
// parallel pieces that merge, and the summary of all groups is the merge of theirs.
#include "metrics/instance_figures.h"

#include <array>
#include <span>
#include <vector>

namespace sparkscope::core::detail {

// OUT_OF_ORDER_* (docs/metrics.md "Scheduling order"). A is logically before B when, at the
// conjunction instance J where their ancestry splits, A is in the subtree of conjunct Gi and B in
// that of Gj with i < j; so each pair is counted at exactly one J. Items are conjuncts, each in
// its innermost-only state (a conjunct whose context runs a nested conjunct is represented by
// that nested conjunct) plus its spark phase (waiting). With, per subtree i at time t,
// w_i = waiting items, r_i = running items, n_i = items, and bw_i = waiting items that produce a
// future some context is suspended on (from its FUT_WAIT_SUSPENDED to the signal), and bt_i the
// same through the transitive closure (suspendedWaitsByProducer in descendant_pass.h):
//   out-of-order pairs      = sum over i<j of w_i * r_j
//   pairs where A or B runs = sum over i<j of r_i n_j + r_j n_i - r_i r_j
//   blocking pairs          = sum over i<j of bw_i * r_j   (_TC: bt_i * r_j)
// The integrals come from the descendant pass (descendant_pass.cpp).
struct OutOfOrder {
    double outOfOrder = 0, eitherRunning = 0, blocking = 0, blockingTc = 0;
};

// One group of the scheduling section: the totals over its instances and the per-instance
// ratios (each only where its denominator is not 0).
struct SchedulingSummary {
    uint64_t instances = 0;
    OutOfOrder total;
    Stat probability, blocks, blocksTc;
};

// What a SchedulingSummary is made of, exactly, so that pieces merge: add() every instance with two
// conjuncts or more, in any order and in any pieces (scheduling_section.cpp).
class SchedulingSums {
public:
    void add(const DescValues& d);
    void merge(const SchedulingSums& other);
    SchedulingSummary summary() const;

private:
    uint64_t m_instances = 0;
    ExactSum m_outOfOrder, m_eitherRunning, m_blocking, m_blockingTc;
    ExactStat m_probability, m_blocks, m_blocksTc;
};

// Stat of each ConjunctionValue over a group's complete instances, and the group's scheduling
// summary.
struct ConjunctionsSummary {
    std::array<Stat, kConjunctionValueCount> values;
    SchedulingSummary scheduling;
};

// Every group's summaries, and the scheduling order over all groups.
struct GroupSummaries {
    std::vector<ConjunctionsSummary> conjunctions; // per group
    SchedulingSummary schedulingOfAll;
};

// In parallel, within each group too: per group, the conjunction values (the descendant pass's,
// with the SelfFigures values the figures pass folded) and the scheduling order; and the scheduling
// order over all groups.
GroupSummaries summariseGroups(const ParModel& m, const InstanceFigures& figures);

} // namespace sparkscope::core::detail
