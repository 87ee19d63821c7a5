// Contention (docs/analysis.md "Contention", core/src/analysis/contention.h): the coefficient fitted on
// a hand-built trace whose conjuncts ran alone and beside another engine, worked out by hand; the
// recorded run's rate; the simulation stretching running time by it; the costs file's key.
#include "analysis/contention.h"
#include "analysis/engine_activity.h"
#include "sparkscope/core/analysis.h"
#include "scenario_traces.h"
#include "support/trace_builder.h"

#include <catch2/catch.hpp>
#include <cmath>

using namespace sparkscope::core;
using sparkscope::test::contentionTrace;
using sparkscope::test::TraceBuilder;

TEST_CASE("contention is fitted on like conjuncts that ran alone and beside another engine", "[analysis][whatif]")
{
    const Trace trace = contentionTrace();
    const ParModel model = buildParModel(trace);
    const EngineStates states = computeEngineStates(trace);
    const detail::EngineActivity activity(trace, states, model);
    const detail::Contention c = detail::measureContention(model, activity);
    // Position 1: x (other engines running, mean) = 49990/50030 at y = ln 50030, and 0, 0 at ln 40000;
    // position 2: x = 1 at ln 49990, and 0, 0 at ln 40000. Within-group sums: xx 2/3 × x1², xy 2/3 ×
    // x1 × (y1 − ln 40000) for each; b = Σxy / Σxx; c = e^b − 1.
    const double x1 = 49990.0 / 50030.0;
    const double sxx = 2.0 / 3 * x1 * x1 + 2.0 / 3;
    const double sxy = 2.0 / 3 * x1 * std::log(50030.0 / 40000) + 2.0 / 3 * std::log(49990.0 / 40000);
    CHECK(c.samples == 6);
    CHECK(c.coefficient == Approx(std::expm1(sxy / sxx)).epsilon(1e-9));
    CHECK(c.coefficient == Approx(0.25).epsilon(0.002));
    // The recorded load: ctx 1 ran on engine 0 throughout [0, 260000), ctx 2 on engine 1 [130, 50120):
    // 2 × 49,990 engine-ns at k = 2, the other 210,010 alone.
    REQUIRE(c.runningAt.size() == 2);
    CHECK(c.runningAt[1] == 99980);
    CHECK(c.runningAt[0] == 210010);
    // Its mean rate under c: the time at k = 2 is 1 + c as slow.
    const double total = double(c.runningAt[0] + c.runningAt[1]);
    CHECK(detail::recordedRate(c.runningAt, 0.25) == Approx((210010 + 99980 / 1.25) / total));
    CHECK(detail::recordedRate(c.runningAt, 0.0) == 1.0);
}

TEST_CASE("a trace on one engine cannot measure contention", "[analysis][whatif]")
{
    TraceBuilder b(1);
    b.internString(0, 1, "sort.cpp:10");
    b.runThread(0, 0, 1);
    uint64_t t = 100;
    for (uint64_t dyn : { 0xAu, 0xBu, 0xCu }) {
        b.startParConj(0, t, dyn, 1).sparkCreate(0, t, dyn, uint32_t(dyn));
        b.endParConjunct(0, t + 40000, dyn).sparkRun(0, t + 40000, uint32_t(dyn));
        b.endParConjunct(0, t + 80000, dyn).endParConj(0, t + 80000, dyn);
        t += 100000;
    }
    b.stopThread(0, t, 1, kStopFinished);
    const Trace trace = b.roundTrip();
    const AnalysisSession session(trace);
    const CostModel costs = session.measuredCosts();
    CHECK(costs.contention == 0);
    CHECK(costs.contentionSamples == 0);
}

TEST_CASE("the simulation stretches running time by the contention", "[analysis][whatif]")
{
    // The trace above predicts its own work at P = 1 with zero costs; with c = 0.25 its running at
    // k = 2 (99,980 engine-ns) is work 79,984 and the rest stays: P = 1 predicts the work less 19,996 ns
    // (all of it run alone on one engine; the work clock's ends are rounded up to whole ns, a few ns in
    // all).
    const Trace trace = contentionTrace();
    const AnalysisSession session(trace);
    const uint64_t work = session.analyze().workSpan.workNs;
    WhatIfOptions options;
    options.engines = { 1, 2 };
    options.costs = CostModel {};
    const auto plain = session.predict(options);
    REQUIRE(plain.size() == 2);
    CHECK(plain[0].wallNs == work);
    options.costs->contention = 0.25;
    const auto stretched = session.predict(options);
    REQUIRE(stretched.size() == 2);
    CHECK(work == 309990);
    CHECK(double(stretched[0].wallNs) == Approx(double(work) - 19996).margin(10));
    // On two engines the first instance's conjuncts run side by side again: 1.25 × their work, as
    // recorded; the alone ones at their work.
    CHECK(stretched[1].wallNs > plain[1].wallNs - 20000);
    CHECK(stretched[1].ledger.totalNs() == 2 * stretched[1].wallNs);
}

TEST_CASE("a costs file gives the contention", "[analysis][whatif]")
{
    auto c = parseCostModel("steal_ns=100\ncontention=0.125\n");
    REQUIRE(c);
    CHECK(c->contention == 0.125);
    CHECK(c->ns[size_t(CostKind::Steal)] == 100);
    CHECK(!parseCostModel("contention=-1\n"));
    CHECK(!parseCostModel("contention=x\n"));
    CHECK(!parseCostModel("contention=0.1\ncontention=0.2\n"));
}
