// The conjunctions and conjuncts sections (docs/metrics.md), written from the group summaries
// (group_summaries.cpp): per static id, the Stats of each instance's PARCONJ_* values and the
// granularity of its conjuncts; with --instances, each instance's own values; per (static id,
// position), the Stats of each conjunct's CONJUNCT_TIME_* values (built by the figures pass). Groups
// come in name order, then instances in instance order, so the report is the same from run to run.
#include "metrics/group_summaries.h"

namespace sparkscope::core::detail {

namespace {

    // A curve's per-instance max and average, each summarised over the group.
    MetricValue curveValue(const Stat& max, const Stat& average)
    {
        MetricValue v;
        v.subStats.push_back({ "max", max });
        v.subStats.push_back({ "average", average });
        return v;
    }

    // One instance's max and average of a curve.
    MetricValue maxAverageValue(double max, double average)
    {
        return fieldsValue({ { "max", max }, { "average", average } });
    }

    // The granularity profile: counts per log2 bucket of TIME_RUNNING, and the cumulative form.
    MetricValue granularity(const Log2Histogram& histogram)
    {
        const std::vector<int64_t>& buckets = histogram.buckets();
        MetricValue out;
        int64_t cumulative = 0;
        for (size_t b = 0; b < buckets.size(); ++b)
            out.fields.push_back({ "log2_" + std::to_string(b), buckets[b] });
        for (size_t b = 0; b < buckets.size(); ++b) {
            cumulative += buckets[b];
            out.fields.push_back({ "cumulative_log2_" + std::to_string(b), cumulative });
        }
        return out;
    }

    MetricGroup conjunctionGroup(const InstanceFigures& figures, const ConjunctionsSummary& summary, size_t g)
    {
        const auto& s = summary.values;
        MetricGroup out { figures.groups.names[g], {} };
        out.metrics.push_back({ "INSTANCES",
            fieldsValue({ { "complete", I(figures.groups.complete.members(g).size()) },
                { "incomplete", I(figures.groups.incomplete[g]) } }) });
        out.metrics.push_back({ "PARCONJ_TIME", statValue(s[kTime]) });
        out.metrics.push_back({ "PARCONJ_RUNNABLE_SELF", curveValue(s[kRunnableSelfMax], s[kRunnableSelfAverage]) });
        out.metrics.push_back({ "PARCONJ_RUNNABLE_SELF_AND_DESC",
            curveValue(s[kRunnableSelfAndDescMax], s[kRunnableSelfAndDescAverage]) });
        out.metrics.push_back({ "PARCONJ_RUNNING_SELF", curveValue(s[kRunningSelfMax], s[kRunningSelfAverage]) });
        out.metrics.push_back(
            { "PARCONJ_RUNNING_SELF_AND_DESC", curveValue(s[kRunningSelfAndDescMax], s[kRunningSelfAndDescAverage]) });
        out.metrics.push_back({ "PARCONJ_AVAIL_CPUS", curveValue(s[kAvailCpusMax], s[kAvailCpusAverage]) });
        out.metrics.push_back({ "PARCONJ_CONTINUE_ON_BEFORE", statValue(s[kContinueOnBefore]) });
        out.metrics.push_back({ "PARCONJ_CONTINUE_ON_LAST", statValue(s[kContinueOnLast]) });
        out.metrics.push_back({ "CONJUNCT_GRANULARITY", granularity(figures.stats.running[g]) });
        return out;
    }

    // --instances: one instance's record and, when complete, its own values.
    MetricGroup instanceGroup(const ParModel& m, const InstanceFigures& figures, uint32_t j)
    {
        const ConjunctionInstance& ci = m.conjunctions[j];
        MetricGroup g { "instance:" + std::to_string(j), {} };
        g.metrics.push_back({ "INSTANCE",
            fieldsValue(
                { { "static_id", m.staticName(ci.staticId) }, { "dyn_id", I(ci.dynId) }, { "start_ns", I(ci.startNs) },
                    { "end_ns", ci.ended ? I(ci.endNs) : I(-1) }, { "conjuncts", I(ci.conjuncts.size()) },
                    { "parent_instance",
                        ci.parentConjunct.valid() ? I(m.conjunct(ci.parentConjunct).conjunction.value()) : I(-1) },
                    { "complete", I(ci.complete) } }) });
        if (ci.complete) {
            const ConjunctionFigures v = figuresFrom(instanceSelfFigures(m, ConjunctionIndex(j)), figures.desc[j]);
            g.metrics.push_back({ "PARCONJ_TIME", fieldsValue({ { "value", v.time } }) });
            g.metrics.push_back({ "PARCONJ_RUNNABLE_SELF", maxAverageValue(v.runnableSelfMax, v.runnableSelfAverage) });
            g.metrics.push_back({ "PARCONJ_RUNNABLE_SELF_AND_DESC",
                maxAverageValue(v.runnableSelfAndDescMax, v.runnableSelfAndDescAverage) });
            g.metrics.push_back({ "PARCONJ_RUNNING_SELF", maxAverageValue(v.runningSelfMax, v.runningSelfAverage) });
            g.metrics.push_back({ "PARCONJ_RUNNING_SELF_AND_DESC",
                maxAverageValue(v.runningSelfAndDescMax, v.runningSelfAndDescAverage) });
            g.metrics.push_back({ "PARCONJ_AVAIL_CPUS", maxAverageValue(v.availCpusMax, v.availCpusAverage) });
            g.metrics.push_back({ "PARCONJ_CONTINUE_ON_BEFORE", fieldsValue({ { "value", v.continueOnBefore } }) });
            g.metrics.push_back({ "PARCONJ_CONTINUE_ON_LAST", fieldsValue({ { "value", v.continueOnLast } }) });
            if (hasPairs(ci)) { // the scheduling section's split at this instance, as the hover menu gives it
                g.metrics.push_back({ "OUT_OF_ORDER_PROBABILITY",
                    fieldsValue({ { "out_of_order_ns", v.outOfOrderNs }, { "either_running_ns", v.eitherRunningNs },
                        { "probability", ratio(v.outOfOrderNs, v.eitherRunningNs) } }) });
                g.metrics.push_back({ "OUT_OF_ORDER_SCHEDULING_BLOCKS_ANOTHER_CONTEXT",
                    fieldsValue(
                        { { "blocking_ns", v.blockingNs }, { "fraction", ratio(v.blockingNs, v.outOfOrderNs) } }) });
                g.metrics.push_back({ "OUT_OF_ORDER_SCHEDULING_BLOCKS_ANOTHER_CONTEXT_TC",
                    fieldsValue({ { "blocking_ns", v.blockingTcNs },
                        { "fraction", ratio(v.blockingTcNs, v.outOfOrderNs) } }) });
            }
        }
        return g;
    }

    MetricGroup conjunctGroup(const std::string& id, const ConjunctStats& a)
    {
        MetricGroup out { id, {} };
        if (a.asSpark.count() > 0)
            out.metrics.push_back({ "CONJUNCT_TIME_AS_SPARK", statValue(a.asSpark.stat()) });
        out.metrics.push_back({ "CONJUNCT_TIME_AS_CONTEXT", statValue(a.values[kAsContext].stat()) });
        out.metrics.push_back({ "CONJUNCT_TIME_BLOCKED", statValue(a.values[kBlocked].stat()) });
        out.metrics.push_back({ "CONJUNCT_TIME_RUNNABLE", statValue(a.values[kRunnable].stat()) });
        out.metrics.push_back({ "CONJUNCT_TIME_RUNNING", statValue(a.values[kRunning].stat()) });
        out.metrics.push_back({ "CONJUNCT_TIME_AFTER", statValue(a.values[kAfter].stat()) });
        return out;
    }

} // namespace

MetricSection buildConjunctionsSection(
    const MetricsBasis& b, const InstanceFigures& figures, const GroupSummaries& summaries)
{
    MetricSection conjunctions { "conjunctions", {} };
    for (size_t g = 0; g < figures.groupCount(); ++g)
        conjunctions.groups.push_back(conjunctionGroup(figures, summaries.conjunctions[g], g));
    if (b.options.instances)
        for (size_t j = 0; j < b.model.conjunctions.size(); ++j)
            if (b.range.startsIn(b.model.conjunctions[j].startNs))
                conjunctions.groups.push_back(instanceGroup(b.model, figures, uint32_t(j)));
    return conjunctions;
}

MetricSection buildConjunctsSection(const InstanceFigures& figures)
{
    MetricSection conjuncts { "conjuncts", {} };
    for (size_t g = 0; g < figures.groupCount(); ++g) {
        const std::vector<ConjunctStats>& byPosition = figures.stats.conjuncts[g];
        for (size_t position = 0; position < byPosition.size(); ++position)
            if (byPosition[position].any()) // some conjunct at this position
                conjuncts.groups.push_back(
                    conjunctGroup(figures.groups.names[g] + "/" + std::to_string(position), byPosition[position]));
    }
    return conjuncts;
}

void addConjunctGranularityOfAll(MetricSection& program, const InstanceFigures& figures)
{
    Log2Histogram allRunning;
    for (size_t g = 0; g < figures.groupCount(); ++g)
        allRunning.merge(figures.stats.running[g]);
    program.groups.front().metrics.push_back({ "CONJUNCT_GRANULARITY", granularity(allRunning) });
}

} // namespace sparkscope::core::detail
