// SPARK_DEQUE_SIZE is summarised while streaming (StepRangeSummary) rather than from a stored curve:
// these tests check its max and average against values worked out by hand, and on real GHC eventlogs
// against the curves the timeline draws (computeSparkDequeSizes, the same rules) for the whole trace
// and for a sub-range, and against the pool's capacity, which counting events alone overshoots. They also check
// ENGINE_WAKE_LATENCY, whose work times are now only gathered when some engine sleeps.
#include "metric_field.h"
#include "sparkscope/core/analysis.h"
#include "sparkscope/core/deque_sizes.h"
#include "sparkscope/core/event_types.h"
#include "sparkscope/core/metrics.h"
#include "sparkscope/core/reader.h"
#include "support/test_data.h"
#include "support/trace_builder.h"

#include <catch2/catch.hpp>

using namespace sparkscope::core;
using sparkscope::test::field;
using sparkscope::test::TraceBuilder;

namespace {

// Engine e's deque curve counting events alone: +1 per spark created on e, -1 per spark run on e,
// -1 per steal (on any engine) whose victim is e.
StepFunction countedCurve(const Trace& trace, size_t e)
{
    std::vector<StepFunction::Step> deltas;
    for (size_t thief = 0; thief < trace.engines.size(); ++thief)
        for (const Event& x : trace.engines[thief]) {
            const bool own = thief == e;
            if (own && (x.type == ev::SparkCreate || x.type == ev::MerSparkCreate))
                deltas.push_back({ int64_t(x.timeNs), +1 });
            else if (own && (x.type == ev::SparkRun || x.type == ev::MerSparkRun))
                deltas.push_back({ int64_t(x.timeNs), -1 });
            else if ((x.type == ev::SparkSteal || x.type == ev::MerSparkSteal) && trace.payload(x).u16(0) == e)
                deltas.push_back({ int64_t(x.timeNs), -1 });
        }
    return StepFunction::fromDeltas(std::move(deltas), int64_t(trace.firstTimeNs), int64_t(trace.lastTimeNs));
}

} // namespace

TEST_CASE("spark deque size and wake latency of a hand-built two-engine trace", "[core][metrics]")
{
    TraceBuilder b(2);
    // Engine 0 runs context 1 from 0 and creates sparks at 10, 20, 30 and 80; it runs one itself at
    // 50. Engine 1 steals from engine 0 at 30 (the same instant as a creation) and at 60, sleeps at
    // 70 and looks for work again at 90, which ends its sleep. The trace ends at 100.
    b.runThread(0, 0, 1).sparkCreate(0, 10, 0xA, 1).sparkCreate(0, 20, 0xA, 2).sparkCreate(0, 30, 0xA, 3);
    b.sparkRun(0, 50, 1).sparkCreate(0, 80, 0xA, 4);
    b.sparkSteal(1, 30, 0, 2).sparkSteal(1, 60, 0, 3).sleeping(1, 70).lookingForLocal(1, 90);
    b.endAt(100);
    const Trace built = b.roundTrip();
    const Trace* trace = &built;
    REQUIRE(trace->firstTimeNs == 0);
    REQUIRE(trace->lastTimeNs == 100);
    {
        const Metrics m = computeMetrics(*trace);
        // Engine 0's deque: 0 on [0,10), 1 on [10,20), 2 on [20,30), 2 on [30,50) (+1 and -1 at 30),
        // 1 on [50,60), 0 on [60,80), 1 on [80,100). Integral 10 + 20 + 40 + 10 + 0 + 20 = 100 over
        // 100 ns: average 1, max 2. Engine 1 never holds a spark.
        CHECK(field(m, "engines", "0", "SPARK_DEQUE_SIZE", "max") == 2);
        CHECK(field(m, "engines", "0", "SPARK_DEQUE_SIZE", "average") == Approx(1.0));
        CHECK(field(m, "engines", "1", "SPARK_DEQUE_SIZE", "max") == 0);
        CHECK(field(m, "engines", "1", "SPARK_DEQUE_SIZE", "average") == 0.0);
        // Engine 1 sleeps on [70, 90); work became available at 80 (the spark created on engine 0):
        // one wake latency of 90 - 80 = 10.
        const MetricValue* wake = m.find("engines", "1", "ENGINE_WAKE_LATENCY");
        REQUIRE(wake);
        REQUIRE(wake->stat);
        CHECK(wake->stat->count == 1);
        CHECK(wake->stat->max == 10.0);
    }
    {
        // Restricted to [25, 55): 2 on [25,50) and 1 on [50,55): integral 55 over 30 ns.
        MetricsOptions options;
        options.fromNs = 25;
        options.toNs = 55;
        const Metrics m = computeMetrics(*trace, options);
        CHECK(field(m, "engines", "0", "SPARK_DEQUE_SIZE", "max") == 2);
        CHECK(field(m, "engines", "0", "SPARK_DEQUE_SIZE", "average") == Approx(55.0 / 30.0));
    }
}

namespace {

// Engine 0 runs context 1 from 0 and creates sparks at 30 and 60. Engine 1 sleeps at 10 and looks for
// work at 40 (woken: 40 - 30 = 10), sleeps again at 50, and shuts down at 90; `searchAt85`: it is
// woken at 85 to stop, and looks for work before it shuts down. The trace ends at 100.
Trace sleepingEngineTrace(bool searchAt85)
{
    TraceBuilder b(2);
    b.runThread(0, 0, 1).sparkCreate(0, 30, 0xA, 1).sparkCreate(0, 60, 0xA, 2);
    b.sleeping(1, 10).lookingForGlobal(1, 40).sleeping(1, 50);
    if (searchAt85)
        b.lookingForGlobal(1, 85);
    b.event(1, 90, ev::Shutdown).endAt(100);
    return b.roundTrip();
}

// ENGINE_WAKE_LATENCY of engine 1, and the what-if's wake_ns with its sample count.
void checkWakes(const Trace& trace, uint64_t latencies, double maxLatency, size_t costSamples, uint64_t cost)
{
    const Metrics m = computeMetrics(trace);
    const MetricValue* wake = m.find("engines", "1", "ENGINE_WAKE_LATENCY");
    REQUIRE(wake);
    REQUIRE(wake->stat);
    CHECK(wake->stat->count == latencies);
    CHECK(wake->stat->max == maxLatency);
    AnalysisOptions options;
    options.whatIf = WhatIfOptions {};
    options.whatIf->engines = { 2 };
    const Analysis a = analyze(trace, options);
    REQUIRE(a.whatIf);
    CHECK(a.whatIf->costs.samples[size_t(CostKind::Wake)] == costSamples);
    CHECK(a.whatIf->costs[CostKind::Wake] == cost);
}

} // namespace

TEST_CASE("a sleep that ends with the engine's shutdown is no wake: the metrics and the what-if's costs",
    "[core][metrics][whatif]")
{
    // Asleep from 50 and shut down at 90 with no search: the spark of 60 did not wake it. One wake of
    // 10 both ways.
    checkWakes(sleepingEngineTrace(false), 1, 10.0, 1, 10);
}

TEST_CASE("the what-if's wake cost leaves out the wake that stops an engine", "[core][whatif]")
{
    // Woken at 85 to stop: ENGINE_WAKE_LATENCY counts that wake (85 - 60 = 25: the spec's "next search
    // event"); the what-if's wake_ns, a cost of waking for work, does not.
    checkWakes(sleepingEngineTrace(true), 2, 25.0, 1, 10);
}

TEST_CASE("spark deque size of GHC eventlogs is the timeline's curve and stays within the pool", "[core][metrics]")
{
    for (const char* name : { "parfib-12-30.eventlog", "parfib-8-32.eventlog" }) {
        auto path = sparkscope::test::sharedTestData(std::string("ghc/") + name);
        if (!path)
            continue;
        auto trace = readTrace(path->string());
        REQUIRE(trace);
        INFO(name);
        const uint64_t first = trace->firstTimeNs, last = trace->lastTimeNs;
        MetricsOptions part;
        part.fromNs = first + (last - first) / 3;
        part.toNs = first + (last - first) / 2;
        const Metrics whole = computeMetrics(trace.value()), middle = computeMetrics(trace.value(), part);
        const std::vector<StepFunction> curves = computeSparkDequeSizes(trace.value());
        REQUIRE(curves.size() == trace->engines.size());
        bool anySteps = false, overshoots = false;
        for (size_t e = 0; e < trace->engines.size(); ++e) {
            INFO("engine " << e);
            const StepFunction& curve = curves[e];
            anySteps = anySteps || curve.steps().size() > 10;
            // GHC 9.0's pools hold 8192 sparks; it empties them at GCs without an event per spark, so
            // counting events alone climbs far above that (parfib-8-32: ~48,000).
            CHECK(curve.max(int64_t(first), int64_t(last)) <= 8192);
            overshoots = overshoots || countedCurve(trace.value(), e).max(int64_t(first), int64_t(last)) > 8192;
            const std::string id = std::to_string(e);
            // Same arithmetic (exact integer integral, one division), so the doubles are equal.
            CHECK(field(whole, "engines", id, "SPARK_DEQUE_SIZE", "max")
                == double(curve.max(int64_t(first), int64_t(last))));
            CHECK(field(whole, "engines", id, "SPARK_DEQUE_SIZE", "average")
                == curve.average(int64_t(first), int64_t(last)));
            CHECK(field(middle, "engines", id, "SPARK_DEQUE_SIZE", "max")
                == double(curve.max(int64_t(part.fromNs), int64_t(part.toNs))));
            CHECK(field(middle, "engines", id, "SPARK_DEQUE_SIZE", "average")
                == curve.average(int64_t(part.fromNs), int64_t(part.toNs)));
        }
        CHECK(anySteps); // the logs do create and run sparks
        if (std::string(name) == "parfib-8-32.eventlog")
            CHECK(overshoots);
    }
}
