// The futures section (docs/metrics.md): per "<static id>/<variable>" (named_groups.h), the Stats of
// the waits' times after the signal (first waits of each consumer, all waits), how often a wait
// suspended, and the time from the signal to the end of the signalling conjunct. Groups are
// summarised in parallel.
#include "metrics/named_groups.h"

#include "metrics/exact_stat.h"

#include <algorithm>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

namespace sparkscope::core::detail {

namespace {

    // One group of the futures section.
    struct FuturesSummary {
        Stat firstWaits, allWaits, waitedEnd, signalEnd;
        uint64_t firstSuspended = 0, firstTotal = 0, allSuspended = 0, allTotal = 0;
    };

    // Summarises a group's complete futures. A first wait is a consuming conjunct's (or, outside any
    // conjunct, context's) first wait on the future.
    FuturesSummary summariseFutures(const ParModel& m, std::span<const uint32_t> futures)
    {
        FuturesSummary out;
        ExactStat firstWaits, allWaits, waitedEnd, signalEnd;
        std::vector<uint32_t> seen; // the consumers of the current future so far
        for (uint32_t index : futures) {
            const FutureInstance& f = m.futures[index];
            seen.clear();
            bool anySuspended = false;
            for (const FutureWait& w : f.waits) {
                const double d = double(I(w.timeNs) - I(f.signalNs));
                allWaits.add(d);
                anySuspended = anySuspended || w.suspended;
                const uint32_t who = waitConsumer(w);
                const bool first = std::find(seen.begin(), seen.end(), who) == seen.end();
                if (first) {
                    seen.push_back(who);
                    firstWaits.add(d);
                }
                ++out.allTotal;
                out.allSuspended += w.suspended;
                out.firstTotal += first;
                out.firstSuspended += first && w.suspended;
            }
            if (f.signalConjunct.valid() && m.conjunct(f.signalConjunct).ended) {
                const double d = double(I(m.conjunct(f.signalConjunct).endNs) - I(f.signalNs));
                signalEnd.add(d);
                if (anySuspended)
                    waitedEnd.add(d);
            }
        }
        out.firstWaits = firstWaits.stat(), out.allWaits = allWaits.stat();
        out.waitedEnd = waitedEnd.stat(), out.signalEnd = signalEnd.stat();
        return out;
    }

    MetricGroup futuresGroup(const std::string& id, const FuturesSummary& s, uint64_t incomplete)
    {
        MetricGroup out { id, {} };
        out.metrics.push_back(
            { "INSTANCES", fieldsValue({ { "complete", I(s.signalEnd.count) }, { "incomplete", I(incomplete) } }) });
        out.metrics.push_back({ "FUTURE_SUSPEND_TIME_FIRST_WAITS", statValue(s.firstWaits) });
        out.metrics.push_back({ "FUTURE_SUSPEND_TIME_ALL_WAITS", statValue(s.allWaits) });
        out.metrics.push_back({ "FUTURE_SUSPEND_PROBABILITY_FIRST_WAIT",
            fieldsValue({ { "suspended", I(s.firstSuspended) }, { "no_suspend", I(s.firstTotal - s.firstSuspended) },
                { "probability", ratio(double(s.firstSuspended), double(s.firstTotal)) } }) });
        out.metrics.push_back({ "FUTURE_SUSPEND_PROBABILITY_ALL_WAITS",
            fieldsValue({ { "suspended", I(s.allSuspended) }, { "no_suspend", I(s.allTotal - s.allSuspended) },
                { "probability", ratio(double(s.allSuspended), double(s.allTotal)) } }) });
        out.metrics.push_back({ "WAITED_FUTURE_SIGNAL_TO_CONJUNCT_END_TIME", statValue(s.waitedEnd) });
        out.metrics.push_back({ "FUTURE_SIGNAL_TO_CONJUNCT_END_TIME", statValue(s.signalEnd) });
        return out;
    }

} // namespace

MetricSection buildFuturesSection(const MetricsBasis& b)
{
    const FutureGroups groups = groupFutures(b.model, b.range);
    std::vector<FuturesSummary> summaries(groups.names.size());
    tbb::parallel_for(
        tbb::blocked_range<size_t>(0, summaries.size(), 1),
        [&](const tbb::blocked_range<size_t>& range) {
            for (size_t g = range.begin(); g != range.end(); ++g)
                summaries[g] = summariseFutures(b.model, groups.complete.members(g));
        },
        tbb::simple_partitioner());
    MetricSection futures { "futures", {} };
    for (size_t g = 0; g < summaries.size(); ++g)
        futures.groups.push_back(futuresGroup(groups.names[g], summaries[g], groups.incomplete[g]));
    return futures;
}

} // namespace sparkscope::core::detail
