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

    // One piece of a group's instances, summed: every conjunction value, and the scheduling order.
    struct ConjunctionSums {
        std::array<ExactStat, kConjunctionValueCount> values;
        SchedulingSums scheduling;

        void add(const SelfFigures& self, const DescValues& desc)
        {
            const ConjunctionFigures v = figuresFrom(self, desc);
            const std::array<double, kConjunctionValueCount> row { v.time, v.runnableSelfMax, v.runnableSelfAverage,
                v.runnableSelfAndDescMax, v.runnableSelfAndDescAverage, v.runningSelfMax, v.runningSelfAverage,
                v.runningSelfAndDescMax, v.runningSelfAndDescAverage, v.availCpusMax, v.availCpusAverage,
                v.continueOnBefore, v.continueOnLast };
            for (size_t i = 0; i < kConjunctionValueCount; ++i)
                values[i].add(row[i]);
            if (self.hasPairs)
                scheduling.add(desc);
        }
        void merge(const ConjunctionSums& other)
        {
            for (size_t i = 0; i < kConjunctionValueCount; ++i)
                values[i].merge(other.values[i]);
            scheduling.merge(other.scheduling);
        }
    };

    // Pieces of this many instances: each piece's sums take ~30 KB to start and merge, against
    // ~1 ms of work.
    constexpr size_t kInstancesPerPiece = 16384;

    ConjunctionSums sumGroup(
        std::span<const uint32_t> instances, const SelfFigures* self, const std::vector<DescValues>& desc)
    {
        return tbb::parallel_reduce(
            tbb::blocked_range<size_t>(0, instances.size(), kInstancesPerPiece), ConjunctionSums {},
            [&](const tbb::blocked_range<size_t>& range, ConjunctionSums sums) {
                for (size_t i = range.begin(); i != range.end(); ++i) {
                    const uint32_t j = instances[i];
                    sums.add(self[j], desc[j]);
                }
                return sums;
            },
            [](ConjunctionSums a, const ConjunctionSums& b) {
                a.merge(b);
                return a;
            });
    }

} // namespace

GroupSummaries summariseGroups(const InstanceFigures& figures)
{
    const size_t nGroups = figures.groupCount();
    std::vector<SchedulingSums> scheduling(nGroups);
    GroupSummaries out;
    out.conjunctions.resize(nGroups);
    tbb::parallel_for(size_t(0), nGroups, [&](size_t g) {
        const ConjunctionSums sums = sumGroup(figures.groups.complete.members(g), figures.self.get(), figures.desc);
        for (size_t i = 0; i < kConjunctionValueCount; ++i)
            out.conjunctions[g].values[i] = sums.values[i].stat();
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
