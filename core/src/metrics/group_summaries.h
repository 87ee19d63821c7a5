#pragma once
// Internal to core (not installed): the Stats of the per-instance figures per group (static id), for
// the conjunctions and scheduling sections (group_summaries.cpp, scheduling_section.cpp), read from
// what the figures and descendant passes folded (InstanceFigures::stats; the scheduling order's
// sums are declared with them). A Stat does not depend on the order of its values (exact_stat.h),
// so the summary of all groups' scheduling order is the merge of theirs.
#include "metrics/instance_figures.h"

#include <array>
#include <vector>

namespace sparkscope::core::detail {

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

// Per group, the Stats of the conjunction values and the scheduling order, from what the passes
// folded; and the scheduling order over all groups.
GroupSummaries summariseGroups(const InstanceFigures& figures);

} // namespace sparkscope::core::detail
