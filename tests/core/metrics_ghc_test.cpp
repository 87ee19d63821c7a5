// GHC eventlogs: the GC figures agree with the events themselves, counted independently here, and
// with ThreadScope's definitions (a collection is the union over capabilities of GC_START..GC_END;
// GC time / total time, productivity = 1 - that).
#include "scenario_traces.h"
#include "sparkscope/core/metrics.h"
#include "sparkscope/core/event_types.h"
#include "sparkscope/core/reader.h"
#include "support/trace_builder.h"

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

TEST_CASE(
    "GHC heap allocation is summed over capabilities; a range counts only its contexts and GC time", "[core][metrics]")
{
    for (const auto& [name, trace] : sparkscope::test::sharedGhcTraces({ "parfib-8-32.eventlog" })) {
        // A range that cuts through collections (4.27 ms falls inside one that starts at 4.2485 ms).
        MetricsOptions options;
        options.fromNs = 4'270'000;
        options.toNs = 17'200'000;
        // Independent count: each capability's HEAP_ALLOCATED is its own running total, so the
        // allocation in the range is the sum of each one's last value in it less its last before it;
        // GHC posts CREATE_THREAD once per thread (CREATE_SPARK_THREAD repeats it for a spark thread).
        uint64_t allocated = 0, allocatedWhole = 0, created = 0;
        for (const auto& engine : trace.engines) {
            uint64_t before = 0, last = 0, lastWhole = 0;
            for (const auto& e : engine) {
                if (e.type == ev::CreateThread && e.timeNs >= options.fromNs && e.timeNs < options.toNs)
                    ++created;
                if (e.type != ev::HeapAllocated)
                    continue;
                const uint64_t v = trace.payload(e).u64(4); // after the heap capset (u32)
                lastWhole = std::max(lastWhole, v);
                if (e.timeNs < options.fromNs)
                    before = std::max(before, v);
                else if (e.timeNs < options.toNs)
                    last = std::max(last, v);
            }
            allocated += last > before ? last - before : 0;
            allocatedWhole += lastWhole;
        }
        REQUIRE(allocatedWhole > 0);
        CHECK(allocatedWhole == 8'837'680); // also what an independent decoder of the file gives
        const Metrics whole = computeMetrics(trace);
        CHECK(uint64_t(field(whole, "HEAP", "total_allocated_bytes")) == allocatedWhole);
        const Metrics m = computeMetrics(trace, options);
        CHECK(uint64_t(field(m, "HEAP", "total_allocated_bytes")) == allocated);
        CHECK(created == 2);
        CHECK(uint64_t(field(m, "CONTEXT_COUNTS", "created")) == created);
        CHECK(uint64_t(field(whole, "CONTEXT_COUNTS", "created")) == 10);
        // gen0's two collections in the range: the one cut at 4.27 ms counts from there, as GC_STATS
        // counts it (61,671 ns in all; 83,166 when counted whole).
        const MetricValue* gen0 = m.find("program", "gen0", "GC_GENERATION");
        REQUIRE(gen0);
        for (const auto& [k, x] : gen0->fields)
            if (k == "elapsed_ns")
                CHECK(std::get<double>(x) == 61'671);
    }
}

TEST_CASE("samples at the trace's last instant count, and a heap figure without samples is absent",
    "[core][metrics]")
{
    // Two capabilities over [0, 1000]. Cap 0: SPARK_COUNTERS at 0 (all 0: the baseline), HEAP_ALLOCATED
    // 10,000 at 500 and 30,000 at 1000. Cap 1: SPARK_COUNTERS at 1000 with 3 converted. Both samples
    // at 1000 are the trace's last instant: the whole trace holds them, so 3 converted and 30,000
    // bytes allocated (not 0 and 10,000). No HEAP_SIZE or HEAP_LIVE: their maxima are absent, not 0.
    auto counters = [](uint64_t converted) {
        std::vector<uint8_t> p(56, 0);
        for (int k = 0; k < 8; ++k)
            p[24 + size_t(k)] = uint8_t(converted >> (56 - 8 * k));
        return p;
    };
    auto allocated = [](uint64_t bytes) {
        std::vector<uint8_t> p(12, 0);
        for (int k = 0; k < 8; ++k)
            p[4 + size_t(k)] = uint8_t(bytes >> (56 - 8 * k));
        return p;
    };
    sparkscope::test::TraceBuilder b(2);
    b.event(0, 0, ev::SparkCounters, counters(0)).event(0, 500, ev::HeapAllocated, allocated(10'000));
    b.event(0, 1000, ev::HeapAllocated, allocated(30'000)).event(1, 1000, ev::SparkCounters, counters(3));
    b.endAt(1000);
    const Trace trace = b.build();
    REQUIRE(trace.lastTimeNs == 1000);
    const Metrics m = computeMetrics(trace);
    CHECK(field(m, "SPARK_COUNTS", "converted") == 3);
    CHECK(field(m, "HEAP", "total_allocated_bytes") == 30'000);
    CHECK(field(m, "HEAP", "max_heap_size_bytes") == -1); // absent
    CHECK(field(m, "HEAP", "max_live_bytes") == -1);
    // A range that ends before the last instant leaves the samples there out.
    MetricsOptions range;
    range.toNs = 999;
    const Metrics before = computeMetrics(trace, range);
    CHECK(field(before, "SPARK_COUNTS", "converted") == 0);
    CHECK(field(before, "HEAP", "total_allocated_bytes") == 10'000);
}
