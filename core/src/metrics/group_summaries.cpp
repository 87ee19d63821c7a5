// The per-group summaries (group_summaries.h). Instances are grouped once by a counting sort
// (named_groups.h), and each group's Stats read the per-instance figures where they are — the
// descendant pass's values and a small SelfFigures per instance — in one pass. A Stat does not
// depend on the order of its values (exact_stat.h), so a group's instances go in pieces, in
// parallel, whose sums merge; and the scheduling order over all groups merges the groups'.
#include "metrics/group_summaries.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>

namespace sparkscope::core::detail {

namespace {

    // One piece of a group's instances, summed: the descendant values, and the scheduling order.
    struct DescendantSums {
        ConjunctionStats values; // the descendant values' slots
        SchedulingSums scheduling;

        void add(const ConjunctionInstance& ci, const DescValues& d)
        {
            values[kRunnableSelfAndDescMax].add(d.rdMax), values[kRunnableSelfAndDescAverage].add(d.rdAvg);
            values[kRunningSelfAndDescMax].add(d.ndMax), values[kRunningSelfAndDescAverage].add(d.ndAvg);
            values[kAvailCpusMax].add(d.avMax), values[kAvailCpusAverage].add(d.avAvg);
            if (hasPairs(ci))
                scheduling.add(d);
        }
        void merge(const DescendantSums& other)
        {
            for (size_t i = 0; i < kConjunctionValueCount; ++i)
                values[i].merge(other.values[i]);
            scheduling.merge(other.scheduling);
        }
    };

    // Pieces of this many instances: each piece's sums take ~30 KB to start and merge, against
    // ~1 ms of work.
    constexpr size_t kInstancesPerPiece = 16384;

    DescendantSums sumGroup(const ParModel& m, std::span<const uint32_t> instances, const std::vector<DescValues>& desc)
    {
        return tbb::parallel_reduce(
            tbb::blocked_range<size_t>(0, instances.size(), kInstancesPerPiece), DescendantSums {},
            [&](const tbb::blocked_range<size_t>& range, DescendantSums sums) {
                for (size_t i = range.begin(); i != range.end(); ++i) {
                    const uint32_t j = instances[i];
                    sums.add(m.conjunctions[j], desc[j]);
                }
                return sums;
            },
            [](DescendantSums a, const DescendantSums& b) {
                a.merge(b);
                return a;
            });
    }

} // namespace

GroupSummaries summariseGroups(const ParModel& m, const InstanceFigures& figures)
{
    const size_t nGroups = figures.groupCount();
    std::vector<SchedulingSums> scheduling(nGroups);
    GroupSummaries out;
    out.conjunctions.resize(nGroups);
    tbb::parallel_for(size_t(0), nGroups, [&](size_t g) {
        DescendantSums sums = sumGroup(m, figures.groups.complete.members(g), figures.desc);
        for (size_t i = 0; i < kConjunctionValueCount; ++i) {
            sums.values[i].merge(figures.stats.conjunctions[g][i]); // the SelfFigures values' slots
            out.conjunctions[g].values[i] = sums.values[i].stat();
        }
        out.conjunctions[g].scheduling = sums.scheduling.summary();
        scheduling[g] = sums.scheduling;
    });
    SchedulingSums all;
    for (const SchedulingSums& group : scheduling)
        all.merge(group);
    out.schedulingOfAll = all.summary();
    return out;
}

} // namespace sparkscope::core::detail
