#pragma once
// Internal to core (not installed): the Stats of the per-instance figures per group (static id), for
// the conjunctions, conjuncts and scheduling sections (group_summaries.cpp, scheduling_section.cpp).
// Each Stat is a sequence of long double sums that must run in instance order (the report defines its
// values in that order, and the sums depend on it), so the parallelism is across them, not within.
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

// scheduling_section.cpp. The scheduling summary of a group: its instances with two conjuncts or
// more. And of every complete instance with two conjuncts or more that starts in the range.
SchedulingSummary summariseScheduling(
    std::span<const uint32_t> instances, const SelfFigures* self, const std::vector<DescValues>& desc);
SchedulingSummary summariseSchedulingOfAll(const ParModel& m, Range r, const std::vector<DescValues>& desc);

// The per-instance values the conjunctions section summarises, in output order.
enum ConjunctionValue : size_t {
    kTime,
    kRunnableSelfMax,
    kRunnableSelfAverage,
    kRunnableSelfAndDescMax,
    kRunnableSelfAndDescAverage,
    kRunningSelfMax,
    kRunningSelfAverage,
    kRunningSelfAndDescMax,
    kRunningSelfAndDescAverage,
    kAvailCpusMax,
    kAvailCpusAverage,
    kContinueOnBefore,
    kContinueOnLast,
    kConjunctionValueCount
};

// Stat of each ConjunctionValue over a group's complete instances, and the group's scheduling
// summary. Three tasks fill it, each reading the instances twice (Stat's two passes) where their
// values are (no copy per value): the values from SelfFigures, those from the descendant pass, and
// the scheduling order. The passes are bound by memory bandwidth, so each reads only what it needs.
struct ConjunctionsSummary {
    std::array<Stat, kConjunctionValueCount> values;
    SchedulingSummary scheduling;
};

// Stats of one (static id, position).
struct ConjunctStats {
    StatRows<kConjunctValueCount> values;
    StatColumns asSpark { 1 };
    bool any = false; // some conjunct has this position
};

// The conjuncts section's figures of one static id: per position, a Stat of each value.
struct ConjunctsSummary {
    std::vector<ConjunctStats> byPosition; // index = position
};

// Every group's summaries, and the scheduling order over all groups.
struct GroupSummaries {
    std::vector<ConjunctionsSummary> conjunctions; // per group
    std::vector<ConjunctsSummary> conjuncts; // per group
    SchedulingSummary schedulingOfAll;
};

// In parallel: per group, the conjunct values, the conjunction values (from the descendant pass; from
// SelfFigures) and the scheduling order; and the scheduling order over all groups.
GroupSummaries summariseGroups(const MetricsBasis& b, const InstanceFigures& figures);

} // namespace sparkscope::core::detail
