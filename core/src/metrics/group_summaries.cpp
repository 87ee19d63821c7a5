// The per-group summaries (group_summaries.h). Instances are grouped once by a counting sort
// (named_groups.h), and each group's Stats read the per-instance figures where they are — the
// descendant pass's values, a small SelfFigures per instance, a split per conjunct — in instance
// order, twice (Stat's two passes), through buffered columns (stat_columns.h), one parallel task per
// group and kind of value. Stat's long double sums depend on the order, so the order is kept; only
// the conjuncts' first pass, over whole nanoseconds where the sum is exact in any order, ran inside
// the parallel figures pass (instance_figures.cpp).
#include "metrics/group_summaries.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <utility>

namespace sparkscope::core::detail {

namespace {

    std::array<double, kConjunctionValueCount> conjunctionValues(const ConjunctionFigures& v)
    {
        return { v.time, v.runnableSelfMax, v.runnableSelfAverage, v.runnableSelfAndDescMax,
            v.runnableSelfAndDescAverage, v.runningSelfMax, v.runningSelfAverage, v.runningSelfAndDescMax,
            v.runningSelfAndDescAverage, v.availCpusMax, v.availCpusAverage, v.continueOnBefore, v.continueOnLast };
    }

    // The values each task summarises, in its rows' order.
    constexpr std::array kSelfValues { kTime, kRunnableSelfMax, kRunnableSelfAverage, kRunningSelfMax,
        kRunningSelfAverage, kContinueOnBefore, kContinueOnLast };
    constexpr std::array kDescendantValues { kRunnableSelfAndDescMax, kRunnableSelfAndDescAverage,
        kRunningSelfAndDescMax, kRunningSelfAndDescAverage, kAvailCpusMax, kAvailCpusAverage };

    // The values Which names, in its order. The indices are constants (a pack expansion), not left for
    // the optimiser to fold, so a task's loop keeps only the figures it reads.
    template <const auto& Which, size_t... I>
    std::array<double, sizeof...(I)> pick(
        const std::array<double, kConjunctionValueCount>& values, std::index_sequence<I...>)
    {
        return { values[Which[I]]... };
    }

    // Stat of each of the Which values over the instances into out[Which[i]], the values taken from
    // figuresOf(j) (which reads only the array its task needs).
    template <const auto& Which, class FiguresOf>
    void summariseConjunctionValues(std::span<const uint32_t> instances, FiguresOf figuresOf, Stat* out)
    {
        constexpr size_t N = Which.size();
        StatRows<N> stats;
        auto feed = [&] {
            for (uint32_t j : instances)
                stats.push(pick<Which>(conjunctionValues(figuresOf(j)), std::make_index_sequence<N>()));
        };
        feed();
        stats.endFirstPass();
        feed();
        stats.endSecondPass();
        for (size_t i = 0; i < N; ++i)
            out[Which[i]] = stats.stat(i);
    }

    void summariseSelfValues(std::span<const uint32_t> instances, const SelfFigures* self, ConjunctionsSummary& out)
    {
        // The descendant values are not read here (their task has them): zeros stand in.
        const auto figuresOf = [&](uint32_t j) { return figuresFrom(self[j], DescValues {}); };
        summariseConjunctionValues<kSelfValues>(instances, figuresOf, out.values.data());
    }

    void summariseDescendantValues(
        std::span<const uint32_t> instances, const std::vector<DescValues>& desc, ConjunctionsSummary& out)
    {
        // The SelfFigures values are not read here (their task has them): zeros stand in.
        const auto figuresOf = [&](uint32_t j) { return figuresFrom(SelfFigures {}, desc[j]); };
        summariseConjunctionValues<kDescendantValues>(instances, figuresOf, out.values.data());
    }

    bool allExact(const std::vector<ConjunctFirstPass>& positions)
    {
        for (const auto& first : positions)
            for (const auto& value : first)
                if (!value.exact())
                    return false;
        return true;
    }

    // Summarises the conjuncts of a group's complete instances, per position, in instance order then
    // conjunct order: the order the report defines its per-position values in. When the figures
    // pass's first pass over them is exact, only the second (the deviations) is left to run here.
    ConjunctsSummary summariseConjuncts(const ParModel& m, std::span<const uint32_t> instances,
        const ConjunctSplit* splits, const std::vector<ConjunctFirstPass>& firstPass)
    {
        ConjunctsSummary out;
        auto feed = [&] {
            for (uint32_t j : instances)
                for (ConjunctIndex k : m.conjunctions[j].conjuncts) {
                    const uint32_t position = m.conjunct(k).position;
                    while (out.byPosition.size() <= position)
                        out.byPosition.emplace_back();
                    ConjunctStats& stats = out.byPosition[position];
                    const ConjunctFigures f = conjunctFiguresFrom(m, k, splits[k.value()]);
                    stats.any = true;
                    if (f.timeAsSpark)
                        stats.asSpark.push(0, *f.timeAsSpark);
                    stats.values.push({ f.timeAsContext, f.timeBlocked, f.timeRunnable, f.timeRunning, f.timeAfter });
                }
        };
        if (allExact(firstPass)) {
            out.byPosition.resize(firstPass.size());
            for (size_t position = 0; position < firstPass.size(); ++position) {
                const ConjunctFirstPass& first = firstPass[position];
                std::array<StatAccumulator, kConjunctValueCount> values;
                for (size_t v = 0; v < kConjunctValueCount; ++v)
                    values[v] = first[v].accumulator();
                out.byPosition[position].values.skipFirstPass(values);
                const StatAccumulator asSpark[] = { first[kAsSparkFirstPass].accumulator() };
                out.byPosition[position].asSpark.skipFirstPass(asSpark);
            }
        } else {
            feed();
            for (auto& stats : out.byPosition) {
                stats.values.endFirstPass();
                stats.asSpark.endFirstPass();
            }
        }
        feed();
        for (auto& stats : out.byPosition) {
            stats.values.endSecondPass();
            stats.asSpark.endSecondPass();
        }
        return out;
    }

} // namespace

GroupSummaries summariseGroups(const MetricsBasis& b, const InstanceFigures& figures)
{
    const ParModel& m = b.model;
    const size_t nGroups = figures.groupCount();
    const SelfFigures* const self = figures.self.get();
    const ConjunctSplit* const splits = figures.splits.get();
    GroupSummaries out;
    out.conjunctions.resize(nGroups);
    out.conjuncts.resize(nGroups);
    // The tasks of one group, in the order that balances two cores: the task range splits in halves
    // between two threads, and in this order the halves take about the same time, the conjunct values
    // with the scheduling order, the descendant values with the SelfFigures values (the timings are
    // in docs/performance.md, "Metrics: figures behind the code's choices").
    enum GroupTask : size_t { kConjunctValues, kScheduling, kDescendantValues, kSelfValues, kTasksPerGroup };
    // One more task for the scheduling order over all groups; with one group, "all" is that group's
    // summary: the same instances in the same order.
    const size_t tasks = kTasksPerGroup * nGroups + (nGroups > 1 ? 1 : 0);
    tbb::parallel_for(
        tbb::blocked_range<size_t>(0, tasks, 1),
        [&](const tbb::blocked_range<size_t>& range) {
            for (size_t task = range.begin(); task != range.end(); ++task) {
                const size_t g = task / kTasksPerGroup;
                if (g == nGroups) {
                    out.schedulingOfAll = summariseSchedulingOfAll(m, b.range, figures.desc);
                    continue;
                }
                const auto instances = figures.groups.complete.members(g);
                switch (GroupTask(task % kTasksPerGroup)) {
                case kConjunctValues:
                    out.conjuncts[g] = summariseConjuncts(m, instances, splits, figures.conjunctFirstPasses.byGroup[g]);
                    break;
                case kScheduling:
                    out.conjunctions[g].scheduling = summariseScheduling(instances, self, figures.desc);
                    break;
                case kDescendantValues:
                    summariseDescendantValues(instances, figures.desc, out.conjunctions[g]);
                    break;
                default:
                    summariseSelfValues(instances, self, out.conjunctions[g]);
                    break;
                }
            }
        },
        tbb::simple_partitioner());
    if (nGroups == 1)
        out.schedulingOfAll = out.conjunctions[0].scheduling;
    return out;
}

} // namespace sparkscope::core::detail
