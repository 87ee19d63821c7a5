// The scheduling section (docs/metrics.md "Scheduling order"): OUT_OF_ORDER_PROBABILITY and
// OUT_OF_ORDER_SCHEDULING_BLOCKS_ANOTHER_CONTEXT[_TC] over all instances, then per static id, counting
// only instances with two conjuncts or more (pairs to order). The integrals per instance come from the
// descendant pass (group_summaries.h, OutOfOrder); here they are added up and their ratios summarised.
#include "metrics/group_summaries.h"

namespace sparkscope::core::detail {

namespace {

    // Builds one SchedulingSummary: visit() every instance of the group in instance order, then
    // endFirstPass(), then visit() the same instances again, then summary().
    class SchedulingSummariser {
    public:
        explicit SchedulingSummariser(const std::vector<DescValues>& desc)
            : m_desc(desc)
        {
        }
        void visit(uint32_t j)
        {
            const DescValues& d = m_desc[j];
            if (!m_secondPass) {
                ++m_out.instances;
                m_out.total.outOfOrder += d.outOfOrder;
                m_out.total.eitherRunning += d.eitherRunning;
                m_out.total.blocking += d.blocking;
                m_out.total.blockingTc += d.blockingTc;
            }
            if (d.eitherRunning > 0)
                m_stats.push(kProbability, d.outOfOrder / d.eitherRunning);
            if (d.outOfOrder > 0) {
                m_stats.push(kBlocks, d.blocking / d.outOfOrder);
                m_stats.push(kBlocksTc, d.blockingTc / d.outOfOrder);
            }
        }
        void endFirstPass()
        {
            m_stats.endFirstPass();
            m_secondPass = true;
        }
        SchedulingSummary summary()
        {
            m_stats.endSecondPass();
            m_out.probability = m_stats.stat(kProbability), m_out.blocks = m_stats.stat(kBlocks);
            m_out.blocksTc = m_stats.stat(kBlocksTc);
            return m_out;
        }

    private:
        enum { kProbability, kBlocks, kBlocksTc, kRatioCount };
        const std::vector<DescValues>& m_desc;
        StatColumns m_stats { kRatioCount };
        SchedulingSummary m_out;
        bool m_secondPass = false;
    };

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

SchedulingSummary summariseScheduling(
    std::span<const uint32_t> instances, const SelfFigures* self, const std::vector<DescValues>& desc)
{
    SchedulingSummariser summariser(desc);
    for (bool firstPass : { true, false }) {
        for (uint32_t j : instances)
            if (self[j].hasPairs)
                summariser.visit(j);
        if (firstPass)
            summariser.endFirstPass();
    }
    return summariser.summary();
}

SchedulingSummary summariseSchedulingOfAll(const ParModel& m, Range r, const std::vector<DescValues>& desc)
{
    SchedulingSummariser all(desc);
    for (bool firstPass : { true, false }) {
        for (size_t j = 0; j < m.conjunctions.size(); ++j) {
            const ConjunctionInstance& ci = m.conjunctions[j];
            if (ci.complete && r.contains(ci.startNs) && hasPairs(ci))
                all.visit(uint32_t(j));
        }
        if (firstPass)
            all.endFirstPass();
    }
    return all.summary();
}

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
