// GHC eventlogs: the GC figures agree with the events themselves, counted independently here, and
// with ThreadScope's definitions (a collection is the union over capabilities of GC_START..GC_END;
// GC time / total time, productivity = 1 - that).
#include "scenario_traces.h"
#include "sparkscope/core/metrics.h"
#include "sparkscope/core/reader.h"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace sparkscope::core;

namespace {

double field(const Metrics& m, const std::string& key, const std::string& name)
{
    const MetricValue* v = m.find("program", "all", key);
    REQUIRE(v);
    for (const auto& [k, x] : v->fields)
        if (k == name)
            return std::holds_alternative<int64_t>(x) ? double(std::get<int64_t>(x)) : std::get<double>(x);
    return -1;
}

} // namespace

TEST_CASE("GC figures of GHC eventlogs agree with the GC_START and GC_END events", "[core][metrics]")
{
    for (const auto& [name, trace] : sparkscope::test::sharedGhcTraces(
             { "sumfib-30-3000.eventlog", "parfib-12-30.eventlog", "parfib-8-32.eventlog" })) {
        INFO(name);
        // Independent count: per capability pair each GC_START with the next GC_END, then merge the
        // pairs of all capabilities that overlap into collections.
        std::vector<std::pair<uint64_t, uint64_t>> pairs;
        size_t starts = 0;
        for (const auto& engine : trace.engines) {
            constexpr uint64_t kClosed = UINT64_MAX; // no GC_START waiting for its GC_END
            uint64_t open = kClosed;
            for (const auto& e : engine) {
                if (e.type == ev::GcStart) {
                    ++starts;
                    if (open == kClosed)
                        open = e.timeNs;
                } else if (e.type == ev::GcEnd && open != kClosed) {
                    pairs.push_back({ open, e.timeNs });
                    open = kClosed;
                }
            }
        }
        REQUIRE(starts > 0);
        std::sort(pairs.begin(), pairs.end());
        std::vector<std::pair<uint64_t, uint64_t>> collections;
        for (const auto& p : pairs)
            if (!collections.empty() && p.first <= collections.back().second)
                collections.back().second = std::max(collections.back().second, p.second);
            else
                collections.push_back(p);
        uint64_t total = 0;
        for (const auto& c : collections)
            total += c.second - c.first;

        const Metrics m = computeMetrics(trace);
        const MetricValue* gc = m.find("program", "all", "GC_STATS");
        REQUIRE(gc);
        REQUIRE(gc->stat);
        CHECK(gc->stat->count == collections.size());
        CHECK(gc->stat->sum == double(total));
        const double span = double(trace.lastTimeNs - trace.firstTimeNs);
        CHECK(field(m, "MUTATOR_VS_GC_TIME", "gc_ns") == double(total));
        CHECK(field(m, "MUTATOR_VS_GC_TIME", "productivity") == Approx(1.0 - double(total) / span));
        // Per generation: every GC_STATS_GHC is one collection of its generation.
        size_t reports = 0;
        for (const auto& engine : trace.engines)
            reports += size_t(
                std::count_if(engine.begin(), engine.end(), [](const Event& e) { return e.type == ev::GcStatsGhc; }));
        size_t perGeneration = 0;
        for (const auto& g : m.section("program")->groups)
            for (const auto& [k, v] : g.metrics)
                if (k == "GC_GENERATION")
                    perGeneration += size_t(std::get<int64_t>(v.fields.front().second));
        CHECK(perGeneration == reports);
        // GHC threads stop and start on capabilities: CPUS_OVER_TIME is bounded by the capabilities.
        CHECK(field(m, "CPUS_OVER_TIME", "max") <= double(trace.engineCount()));
        CHECK(field(m, "SPARK_COUNTS", "created") > 0);
    }
}
