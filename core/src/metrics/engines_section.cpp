// The engines section (docs/metrics.md): one group per engine and "all". Time in each state comes
// from the engine states; search success, time to find work or to sleep and spark counts from the
// engine scans (engine_scan.cpp); wake latency from the sleeps and the times work became available;
// steal contention from every engine's steal attempts grouped by transitive overlap; the spark
// deque's size summarised while its events stream past (never stored: a GHC log has millions of
// steps per engine, and the metric is two numbers).
#include "metrics/metrics_sections.h"

#include "sparkscope/core/deque_sizes.h"

#include <algorithm>
#include <map>
#include <tbb/parallel_for.h>
#include <tuple>

namespace sparkscope::core::detail {

namespace {

    // SPARK_DEQUE_SIZE of `engine` over r: the sizes of deque_sizes.h (which the timeline's rows draw),
    // summarised as they stream past. O(events of the engine) time, O(1) memory beyond the transfers.
    MetricValue sparkDequeSummary(const Trace& trace, size_t engine, const SparkPoolTransfers& transfers,
        uint64_t first, uint64_t last, Range r)
    {
        StepRangeSummary curve(I(first), I(last), I(r.from), I(r.to));
        int64_t size = 0;
        forEachSparkDequeSize(trace, engine, transfers, [&](uint64_t t, int64_t next) {
            curve.add(I(t), next - size);
            size = next;
        });
        return fieldsValue({ { "max", curve.max() }, { "average", curve.average() } });
    }

    // SPARK_DEQUE_SIZE of every engine, in parallel: each with what other engines took from its pool
    // (sparkPoolTransfers: the steals from it, and the fizzles posted elsewhere of its sparks).
    std::vector<MetricValue> sparkDequeSummaries(const MetricsBasis& b)
    {
        std::vector<MetricValue> out(b.engines);
        tbb::parallel_for(size_t(0), b.engines,
            [&](size_t e) { out[e] = sparkDequeSummary(b.trace, e, b.transfers, b.firstNs, b.lastNs, b.range); });
        return out;
    }

    // Work-available times for ENGINE_WAKE_LATENCY, only needed when some engine slept: each
    // engine's list is sorted already, so they are merged rather than sorted.
    std::vector<uint64_t> workAvailableTimes(const MetricsBasis& b)
    {
        std::vector<uint64_t> work;
        bool anySleep = false;
        for (const auto& engine : b.engineStates.engines)
            for (const auto& iv : engine)
                anySleep = anySleep || iv.state == EngineState::Sleeping;
        if (anySleep)
            for (const auto& s : b.scans) {
                const auto middle = work.insert(work.end(), s.workTimes.begin(), s.workTimes.end());
                std::inplace_merge(work.begin(), middle, work.end());
            }
        return work;
    }

    // Wake latency of engine e: per sleep with work made available during it, the engine's next search
    // event − the first such work. (The sleep ends at the engine's next event; the search that shows
    // the wake is at that instant in our runtime's traces. A sleep that no search follows, as an
    // engine shut down asleep, is no wake.)
    std::vector<double> wakeLatencies(const MetricsBasis& b, size_t e, const std::vector<uint64_t>& work)
    {
        std::vector<double> wake;
        const std::vector<uint64_t>& searches = b.scans[e].wakeSearches;
        for (const auto& iv : b.engineStates.engines[e])
            if (iv.state == EngineState::Sleeping) {
                auto w = std::lower_bound(work.begin(), work.end(), iv.startNs);
                if (w == work.end() || *w >= iv.endNs)
                    continue;
                auto woke = std::lower_bound(searches.begin(), searches.end(), iv.endNs);
                if (woke != searches.end() && b.range.contains(*woke))
                    wake.push_back(double(*woke - *w));
            }
        return wake;
    }

    // STEAL_CONTENTION of one engine (or all): its attempts, and the conflicts it took part in.
    struct Contention {
        uint64_t attempts = 0, conflicts = 0, productive = 0;
        std::vector<double> durations;
        std::map<size_t, std::pair<uint64_t, uint64_t>> byEngines; // engines -> (count, duration)
    };

    // Steal contention: attempts of all engines, grouped by transitive overlap; a group of two engines
    // or more is a conflict. One Contention per engine, then the total.
    std::vector<Contention> stealContention(const MetricsBasis& b)
    {
        const size_t nEngines = b.engines;
        std::vector<EngineScan::Attempt> attempts;
        for (const auto& s : b.scans)
            attempts.insert(attempts.end(), s.steals.begin(), s.steals.end());
        std::sort(attempts.begin(), attempts.end(),
            [](const auto& a, const auto& b) { return std::tie(a.start, a.engine) < std::tie(b.start, b.engine); });
        std::vector<Contention> perEngine(nEngines + 1); // last = total
        for (size_t i = 0; i < attempts.size();) {
            size_t j = i;
            uint64_t end = attempts[i].end;
            while (j + 1 < attempts.size() && attempts[j + 1].start < end)
                end = std::max(end, attempts[++j].end);
            std::vector<uint16_t> involved;
            bool productive = false;
            for (size_t k = i; k <= j; ++k) {
                involved.push_back(attempts[k].engine);
                productive = productive || attempts[k].productive;
                if (attempts[k].engine < nEngines)
                    ++perEngine[attempts[k].engine].attempts;
                ++perEngine[nEngines].attempts;
            }
            std::sort(involved.begin(), involved.end());
            involved.erase(std::unique(involved.begin(), involved.end()), involved.end());
            if (involved.size() >= 2) {
                const uint64_t d = end - attempts[i].start;
                auto record = [&](Contention& c) {
                    ++c.conflicts;
                    c.productive += productive;
                    c.durations.push_back(double(d));
                    c.byEngines[involved.size()].first += 1;
                    c.byEngines[involved.size()].second += d;
                };
                for (uint16_t e : involved)
                    if (e < nEngines)
                        record(perEngine[e]);
                record(perEngine[nEngines]);
            }
            i = j + 1;
        }
        return perEngine;
    }

    MetricValue contentionValue(const Contention& c)
    {
        const Stat d = Stat::of(c.durations);
        MetricValue v = fieldsValue({ { "attempts", I(c.attempts) }, { "conflicts", I(c.conflicts) },
            { "productive_conflicts", I(c.productive) },
            { "conflicts_per_attempt", ratio(double(c.conflicts), double(c.attempts)) },
            { "productive_conflicts_per_attempt", ratio(double(c.productive), double(c.attempts)) },
            { "conflict_time_total_ns", d.sum }, { "conflict_time_mean_ns", d.mean },
            { "conflict_time_max_ns", d.max } });
        for (const auto& [n, cd] : c.byEngines) {
            v.fields.push_back(
                { "share_count_" + std::to_string(n) + "_engines", ratio(double(cd.first), double(c.conflicts)) });
            v.fields.push_back({ "share_time_" + std::to_string(n) + "_engines", ratio(double(cd.second), d.sum) });
        }
        return v;
    }

    using SearchCounts = std::array<uint64_t, kSearchSourceCount>;

    MetricValue searchValue(const SearchCounts& tries, const SearchCounts& ok)
    {
        MetricValue v;
        const char* names[kSearchSourceCount] = { "global_queue", "local_deque", "steal" };
        for (size_t i = 0; i < kSearchSourceCount; ++i) {
            v.fields.push_back({ std::string(names[i]) + "_tries", I(tries[i]) });
            v.fields.push_back({ std::string(names[i]) + "_successes", I(ok[i]) });
            v.fields.push_back({ std::string(names[i]) + "_success_rate", ratio(double(ok[i]), double(tries[i])) });
        }
        return v;
    }

    using StateTimes = std::array<uint64_t, kEngineStateCount>;

    MetricValue stateTimeValue(const StateTimes& times)
    {
        MetricValue states;
        for (size_t i = 0; i < kEngineStateCount; ++i)
            states.fields.push_back({ std::string(engineStateName(EngineState(i))) + "_ns", I(times[i]) });
        return states;
    }

    // CONTEXT_RESUME_LOCALITY: of the resumes in the range, those on the engine the context left.
    MetricValue resumeLocality(const MetricsBasis& b)
    {
        uint64_t resumes = 0, same = 0;
        for (const auto& rs : b.model.resumes)
            if (b.range.contains(rs.timeNs)) {
                ++resumes;
                same += rs.fromEngine == rs.toEngine;
            }
        return fieldsValue({ { "resumes", I(resumes) }, { "same_engine", I(same) },
            { "fraction", ratio(double(same), double(resumes)) } });
    }

    // What "all" adds up over the engines.
    struct EnginesTotal {
        SearchCounts tries {}, ok {};
        std::vector<double> find, sleep, wake;
        StateTimes states {};
    };

} // namespace

MetricSection buildEnginesSection(const MetricsBasis& b)
{
    const std::vector<MetricValue> dequeSummaries = sparkDequeSummaries(b);
    const std::vector<uint64_t> work = workAvailableTimes(b);
    const std::vector<Contention> contention = stealContention(b);
    MetricSection engines { "engines", {} };
    EnginesTotal total;
    for (size_t e = 0; e < b.engines; ++e) {
        const EngineScan& s = b.scans[e];
        MetricGroup g { std::to_string(e), {} };
        const StateTimes st = b.engineStates.timeInStates(e, b.range.from, b.range.to);
        g.metrics.push_back({ "ENGINE_STATE_TIME", stateTimeValue(st) });
        g.metrics.push_back({ "SPARK_COUNTS", sparkCounts(s) });
        g.metrics.push_back({ "SPARK_DEQUE_SIZE", dequeSummaries[e] });
        g.metrics.push_back({ "ENGINE_SEARCH_SUCCESS", searchValue(s.tries, s.successes) });
        g.metrics.push_back({ "ENGINE_TIME_TO_FIND_WORK", statValue(s.timeToFind) });
        g.metrics.push_back({ "ENGINE_TIME_TO_SLEEP", statValue(s.timeToSleep) });
        const std::vector<double> wake = wakeLatencies(b, e, work);
        g.metrics.push_back({ "ENGINE_WAKE_LATENCY", statValue(wake) });
        g.metrics.push_back({ "STEAL_CONTENTION", contentionValue(contention[e]) });
        for (size_t i = 0; i < kEngineStateCount; ++i)
            total.states[i] += st[i];
        for (size_t i = 0; i < kSearchSourceCount; ++i) {
            total.tries[i] += s.tries[i];
            total.ok[i] += s.successes[i];
        }
        total.find.insert(total.find.end(), s.timeToFind.begin(), s.timeToFind.end());
        total.sleep.insert(total.sleep.end(), s.timeToSleep.begin(), s.timeToSleep.end());
        total.wake.insert(total.wake.end(), wake.begin(), wake.end());
        engines.groups.push_back(std::move(g));
    }
    MetricGroup all { "all", {} };
    all.metrics.push_back({ "ENGINE_STATE_TIME", stateTimeValue(total.states) });
    all.metrics.push_back({ "ENGINE_SEARCH_SUCCESS", searchValue(total.tries, total.ok) });
    all.metrics.push_back({ "ENGINE_TIME_TO_FIND_WORK", statValue(total.find) });
    all.metrics.push_back({ "ENGINE_TIME_TO_SLEEP", statValue(total.sleep) });
    all.metrics.push_back({ "ENGINE_WAKE_LATENCY", statValue(total.wake) });
    all.metrics.push_back({ "STEAL_CONTENTION", contentionValue(contention[b.engines]) });
    all.metrics.push_back({ "CONTEXT_RESUME_LOCALITY", resumeLocality(b) });
    engines.groups.push_back(std::move(all));
    return engines;
}

} // namespace sparkscope::core::detail
