// The scheduling section (docs/metrics.md "Scheduling order"): OUT_OF_ORDER_PROBABILITY and
// OUT_OF_ORDER_SCHEDULING_BLOCKS_ANOTHER_CONTEXT[_TC] over all instances, then per static id, counting
// only instances with two conjuncts or more (pairs to order). The integrals per instance come from the
// descendant pass (group_summaries.h, OutOfOrder); here they are added up and their ratios summarised.
#include "metrics/group_summaries.h"

namespace sparkscope::core::detail {

void SchedulingSums::add(const DescValues& d)
{
    ++m_instances;
    m_outOfOrder.add(d.outOfOrder);
    m_eitherRunning.add(d.eitherRunning);
    m_blocking.add(d.blocking);
    m_blockingTc.add(d.blockingTc);
    if (d.eitherRunning > 0)
        m_probability.add(d.outOfOrder / d.eitherRunning);
    if (d.outOfOrder > 0) {
        m_blocks.add(d.blocking / d.outOfOrder);
        m_blocksTc.add(d.blockingTc / d.outOfOrder);
    }
}

void SchedulingSums::merge(const SchedulingSums& other)
{
    m_instances += other.m_instances;
    m_outOfOrder.merge(other.m_outOfOrder);
    m_eitherRunning.merge(other.m_eitherRunning);
    m_blocking.merge(other.m_blocking);
    m_blockingTc.merge(other.m_blockingTc);
    m_probability.merge(other.m_probability);
    m_blocks.merge(other.m_blocks);
    m_blocksTc.merge(other.m_blocksTc);
}

SchedulingSummary SchedulingSums::summary() const
{
    SchedulingSummary out;
    out.instances = m_instances;
    out.total = { m_outOfOrder.value(), m_eitherRunning.value(), m_blocking.value(), m_blockingTc.value() };
    out.probability = m_probability.stat(), out.blocks = m_blocks.stat(), out.blocksTc = m_blocksTc.stat();
    return out;
}

namespace {

    MetricGroup schedulingGroup(const std::string& id, const SchedulingSummary& g)
    {
        MetricGroup out { id, {} };
        MetricValue p;
        p.fields = { { "out_of_order_ns", g.total.outOfOrder }, { "either_running_ns", g.total.eitherRunning },
            { "probability", ratio(g.total.outOfOrder, g.total.eitherRunning) } };
        p.subStats.push_back({ "per_instance", g.probability });
        out.metrics.push_back({ "OUT_OF_ORDER_PROBABILITY", p });
        MetricValue b;
        b.fields = { { "blocking_ns", g.total.blocking }, { "fraction", ratio(g.total.blocking, g.total.outOfOrder) } };
        b.subStats.push_back({ "per_instance", g.blocks });
        out.metrics.push_back({ "OUT_OF_ORDER_SCHEDULING_BLOCKS_ANOTHER_CONTEXT", b });
        MetricValue tc;
        tc.fields
            = { { "blocking_ns", g.total.blockingTc }, { "fraction", ratio(g.total.blockingTc, g.total.outOfOrder) } };
        tc.subStats.push_back({ "per_instance", g.blocksTc });
        out.metrics.push_back({ "OUT_OF_ORDER_SCHEDULING_BLOCKS_ANOTHER_CONTEXT_TC", tc });
        return out;
    }

} // namespace

// All groups first, then each group that has an instance with two conjuncts or more.
MetricSection buildSchedulingSection(const InstanceFigures& figures, const GroupSummaries& summaries)
{
    MetricSection scheduling { "scheduling", {} };
    scheduling.groups.push_back(schedulingGroup("all", summaries.schedulingOfAll));
    for (size_t g = 0; g < figures.groupCount(); ++g)
        if (summaries.conjunctions[g].scheduling.instances > 0)
            scheduling.groups.push_back(schedulingGroup(figures.groups.names[g], summaries.conjunctions[g].scheduling));
    return scheduling;
}

} // namespace sparkscope::core::detail
