// The contention coefficient calibrated from a pair of traces (core/calibration.h, docs/analysis.md
// "A coefficient from a pair of traces"): hand-built pairs whose coefficient is worked out by hand, the
// cross-predictions against the what-if with the coefficient given, and the pairs it refuses.
#include "sparkscope/core/calibration.h"

#include "scenario_traces.h"
#include "support/test_data.h"
#include "support/trace_builder.h"

#include <catch2/catch.hpp>

using namespace sparkscope::core;
using sparkscope::test::contentionTrace;
using sparkscope::test::TraceBuilder;

namespace {

// One engine, the program of contentionTrace() (static id 1 = "sort.cpp:10", three instances of two
// conjuncts of `conjunctNs` each, run one after the other from 100, 20,000 ns apart), ctx 1 running
// [0, wall).
Trace oneEngineRun(uint64_t wall, uint64_t conjunctNs = 40000, const char* site = "sort.cpp:10")
{
    TraceBuilder b(1);
    b.internString(0, 1, site);
    b.runThread(0, 0, 1);
    uint64_t t = 100;
    for (uint64_t dyn : { 0xAu, 0xBu, 0xCu }) {
        b.startParConj(0, t, dyn, 1).sparkCreate(0, t, dyn, uint32_t(dyn));
        b.endParConjunct(0, t + conjunctNs, dyn).sparkRun(0, t + conjunctNs, uint32_t(dyn));
        b.endParConjunct(0, t + 2 * conjunctNs, dyn).endParConj(0, t + 2 * conjunctNs, dyn);
        t += 2 * conjunctNs + 20000;
    }
    b.stopThread(0, wall, 1, kStopFinished);
    return b.roundTrip();
}

uint64_t predicted(const CalibrationInput& in, uint32_t engines, CostModel costs, double c)
{
    WhatIfOptions options;
    options.engines = { engines };
    costs.contention = c;
    options.costs = costs;
    return in.session->predict(options).at(0).wallNs;
}

} // namespace

TEST_CASE("calibrate: the coefficient with which the 2-engine trace predicts the 1-engine wall", "[analysis][whatif]")
{
    // The 2-engine trace (contentionTrace) ran 210,010 engine-ns alone (R1) and 99,980 beside the other
    // engine (R2); its work W = R1 + R2 = 309,990. At P = 1 its prediction is the recorded running time
    // with the load divided out, R1 + R2 / (1 + c), plus what its measured costs add at P = 1 (K: none of
    // them applies on one engine, which always runs its own spark in its own context).
    const CalibrationInput many = calibrationInput(contentionTrace());
    const CostModel costs = many.session->measuredCosts();
    const uint64_t k = predicted(many, 1, costs, 0) - 309990;
    CHECK(k == 0);
    // A 1-engine run of 289,994 ns = R1 + R2 / 1.25: c = 0.25 (to the bisection's 1/8192 and the whole-ns
    // rounding of the work clock, a few ns of the 20,000 that c = 0.25 takes off).
    const CalibrationInput one = calibrationInput(oneEngineRun(289994));
    CHECK(one.engines == 1);
    CHECK(many.engines == 2);
    const auto cal = calibrateContention(one, many);
    REQUIRE(cal);
    CHECK(cal->reached);
    CHECK(cal->coefficient == Approx(0.25).margin(5e-4));
    CHECK(cal->notes.empty());
    CHECK(cal->one.path == one.path);
    CHECK(cal->one.recordedWallNs == 289994);
    CHECK(cal->one.workNs == 289994); // ctx 1 ran throughout
    CHECK(cal->many.recordedWallNs == 260000);
    CHECK(cal->many.workNs == 309990);
    CHECK(cal->one.predictsEngines == 2);
    CHECK(cal->many.predictsEngines == 1);
    // Without the coefficient, each trace predicts with the contention its own fit found: 0 for the
    // 1-engine trace, about 0.25 for this one (its like conjuncts ran alone and beside the other engine,
    // analysis_contention_test.cpp), so about the 1-engine wall too. With it, the 1-engine wall.
    CHECK(costs.contention == Approx(0.25).epsilon(0.002));
    CHECK(one.session->measuredCosts().contention == 0);
    CHECK(cal->many.predictedNs == predicted(many, 1, costs, costs.contention));
    CHECK(double(cal->many.predictedNs) == Approx(210010 + 99980 / (1 + costs.contention)).margin(10));
    CHECK(double(cal->many.predictedWithNs) == Approx(289994).margin(10));
    // Each figure is the what-if's with the trace's measured costs, without and with the coefficient.
    CHECK(cal->one.predictedNs == predicted(one, 2, one.session->measuredCosts(), 0));
    CHECK(cal->one.predictedWithNs == predicted(one, 2, one.session->measuredCosts(), cal->coefficient));
    CHECK(cal->many.predictedWithNs == predicted(many, 1, costs, cal->coefficient));
    // The order of the arguments does not matter.
    const auto swapped = calibrateContention(many, one);
    REQUIRE(swapped);
    CHECK(swapped->coefficient == cal->coefficient);
    CHECK(swapped->one.path == one.path);

    // c = 1/3: R1 + R2 × 3/4 = 284,995.
    const auto third = calibrateContention(calibrationInput(oneEngineRun(284995)), many);
    REQUIRE(third);
    CHECK(third->coefficient == Approx(1.0 / 3).margin(5e-4));
}

TEST_CASE("calibrate: a 1-engine run no faster than the other trace's work gives 0", "[analysis][whatif]")
{
    // The 2-engine trace predicts 309,990 ns at c = 0: a 1-engine run of 320,000 ns needs no contention.
    const CalibrationInput many = calibrationInput(contentionTrace());
    const auto cal = calibrateContention(calibrationInput(oneEngineRun(320000)), many);
    REQUIRE(cal);
    CHECK(cal->coefficient == 0);
    CHECK(cal->reached);
    CHECK(cal->many.predictedWithNs == 309990);
    REQUIRE(cal->notes.size() == 1);
    CHECK_THAT(cal->notes[0], Catch::Contains("the coefficient is 0"));
    // A 1-engine run shorter than what any coefficient allows (R1 + R2 / 65 = 211,548 at the bound, c = 64;
    // its conjuncts took half as long as the 2-engine run's): the bound, said.
    const auto bound = calibrateContention(calibrationInput(oneEngineRun(200000, 20000)), many);
    REQUIRE(bound);
    CHECK(!bound->reached);
    CHECK(bound->coefficient > kMaxCalibratedContention / 2);
    CHECK_THAT(bound->notes.back(), Catch::Contains("no coefficient up to 64"));
}

TEST_CASE("calibrate: the JSON and the costs file", "[analysis][whatif]")
{
    const CalibrationInput many = calibrationInput(contentionTrace());
    const auto cal = calibrateContention(calibrationInput(oneEngineRun(289994)), many);
    REQUIRE(cal);
    // The costs file reads back as the 2-engine trace's costs and exactly the coefficient.
    const auto costs = parseCostModel(calibrationCostsText(cal.value()));
    REQUIRE(costs);
    CHECK(costs->contention == cal->coefficient);
    CHECK(costs->ns == many.session->measuredCosts().ns);
    const std::string json = calibrationToJson(cal.value());
    CHECK_THAT(json, Catch::Contains("\"coefficient\": ") && Catch::Contains("\"reached\": true")
            && Catch::Contains("\"recorded_wall_ns\": 289994") && Catch::Contains("\"work_ns\": 309990"));
}

TEST_CASE("calibrate: pairs it cannot use say why", "[analysis][whatif]")
{
    const CalibrationInput many = calibrationInput(contentionTrace());
    // Both on 2 engines.
    const auto same = calibrateContention(many, calibrationInput(contentionTrace()));
    REQUIRE(!same);
    CHECK_THAT(same.error().message, Catch::Contains("both traces were recorded on 2 engine(s)"));
    // Another program: its site is not the other's.
    const CalibrationInput other = calibrationInput(oneEngineRun(289994, 40000, "merge.cpp:7"));
    const auto different = calibrateContention(other, many);
    REQUIRE(!different);
    CHECK_THAT(different.error().message,
        Catch::Contains("different programs") && Catch::Contains("'merge.cpp:7' only in")
            && Catch::Contains("'sort.cpp:10' only in"));
    // A file that does not read.
    const auto missing = loadCalibrationInput("/nonexistent/run.eventlog");
    REQUIRE(!missing);
    CHECK_THAT(missing.error().message, Catch::StartsWith("/nonexistent/run.eventlog: "));
    // A GHC eventlog: no conjunctions, no DAG to re-simulate.
    const auto ghcPath = sparkscope::test::sharedTestData("ghc/parfib-12-30.eventlog");
    if (!ghcPath)
        return;
    const auto ghc = loadCalibrationInput(ghcPath->string());
    REQUIRE(ghc);
    const auto none = calibrateContention(ghc.value(), many);
    REQUIRE(!none);
    CHECK_THAT(none.error().message, Catch::Contains("records no parallel conjunctions"));
}
