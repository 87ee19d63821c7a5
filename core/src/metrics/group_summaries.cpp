// The per-group summaries (group_summaries.h): the Stats the figures and descendant passes folded
// (instance_figures.cpp), read once per group. A Stat does not depend on the order of its values
// (exact_stat.h), so the scheduling order of all groups is the merge of the groups' sums.
#include "metrics/group_summaries.h"

#include <stdexcept>
#include <tbb/parallel_for.h>

namespace sparkscope::core::detail {

GroupSummaries summariseGroups(const InstanceFigures& figures)
{
    const size_t nGroups = figures.groupCount();
    GroupSummaries out;
    out.conjunctions.resize(nGroups);
    // (Reading a Stat divides big integers: a few microseconds, so the groups go in parallel.)
    tbb::parallel_for(size_t(0), nGroups, [&](size_t g) {
        const ConjunctionStats& stats = figures.stats.conjunctions[g];
        // Each pass folds every instance of the group once: the figures pass its own values, the
        // descendant pass its descendant values.
        if (stats[kTime].count() != stats[kAvailCpusMax].count())
            throw std::logic_error("summariseGroups: the figures and descendant passes folded different instances");
        for (size_t i = 0; i < kConjunctionValueCount; ++i)
            out.conjunctions[g].values[i] = stats[i].stat();
        out.conjunctions[g].scheduling = figures.stats.scheduling[g].summary();
    });
    SchedulingSums all;
    for (const SchedulingSums& group : figures.stats.scheduling)
        all.merge(group);
    out.schedulingOfAll = all.summary();
    return out;
}

} // namespace sparkscope::core::detail
