// Comparing runs (compare.h): hand-built traces whose differences are worked out by hand in the
// comments, a trace compared with itself, demo traces recorded at 1 and 2 engines, and a GHC pair.
#include "scenario_traces.h"
#include "sparkscope/core/compare.h"
#include "support/trace_builder.h"

#include <catch2/catch.hpp>

#include <cmath>

using namespace sparkscope::core;
using sparkscope::test::TraceBuilder;

namespace {

// The steal trace (scenario_traces.h) with G2 running `extra` ns longer: every event from G2's end
// on moves by `extra`. extra = 0 is the steal trace itself. Site `site` (static id 1).
Trace stealTraceSlower(uint64_t extra, const std::string& site = "fib.m:10")
{
    TraceBuilder b(2);
    b.internString(0, 1, site);
    b.runThread(0, 0, 1).startParConj(0, 100, 0xA, 1).sparkCreate(0, 110, 0xA, 5);
    b.lookingForLocal(1, 105)
        .workStealing(1, 115)
        .sparkSteal(1, 120, 0, 5)
        .createThread(1, 125, 2)
        .runThread(1, 130, 2);
    b.endParConjunct(0, 200, 0xA).stopThread(0, 210, 1, kStopBlocked);
    const uint64_t d = extra;
    b.endParConjunct(1, 300 + d, 0xA).threadRunnable(1, 305 + d, 1).stopThread(1, 310 + d, 2, kStopFinished);
    b.runThread(0, 330 + d, 1).endParConj(0, 340 + d, 0xA).stopThread(0, 400 + d, 1, kStopFinished);
    b.endAt(400 + d);
    return b.roundTrip();
}

// The same program on one engine: ctx 1 runs throughout [0, 450); it starts A at 100 and sparks G2 at
// 110; G1 ends at 200, and ctx 1 takes its own spark at 205 and runs G2 to 375; A ends at 380.
Trace stealProgramOnOneEngine()
{
    TraceBuilder b(1);
    b.internString(0, 1, "fib.m:10");
    b.runThread(0, 0, 1).startParConj(0, 100, 0xA, 1).sparkCreate(0, 110, 0xA, 5);
    b.endParConjunct(0, 200, 0xA).sparkRun(0, 205, 5).endParConjunct(0, 375, 0xA).endParConj(0, 380, 0xA);
    b.stopThread(0, 450, 1, kStopFinished).endAt(450);
    return b.roundTrip();
}

RunInput input(const Trace& trace, const std::string& name, const ProfileOptions& options = {})
{
    RunProfile p = profileTrace(trace, options);
    p.path = name;
    return RunInput { name, std::move(p), {} };
}

const FigureComparison& fig(const std::vector<FigureComparison>& figures, const std::string& key)
{
    for (const auto& f : figures)
        if (f.key == key)
            return f;
    FAIL("no figure " << key);
    static FigureComparison none;
    return none;
}

// A, B and B − A of one figure.
void checkFigure(const FigureComparison& f, std::optional<double> a, std::optional<double> b)
{
    INFO(f.key);
    CHECK(f.a == a);
    CHECK(f.b == b);
    if (a && b) {
        REQUIRE(f.difference);
        CHECK(*f.difference == Approx(*b - *a));
        if (*a != 0)
            CHECK(*f.ratio == Approx(*b / *a));
    } else {
        CHECK(!f.difference);
        CHECK(!f.ratio);
    }
}

// Every difference 0 and every ratio 1 (where A is not 0), A and B the same.
void checkAllZero(const std::vector<FigureComparison>& figures)
{
    for (const auto& f : figures) {
        INFO(f.key);
        CHECK(f.a == f.b);
        if (f.a) {
            CHECK(*f.difference == 0);
            if (*f.a != 0)
                CHECK(*f.ratio == 1);
        }
    }
}

void checkSelfComparison(const RunComparison& c)
{
    CHECK(c.warnings.empty());
    checkAllZero(c.program);
    checkAllZero(c.ledger);
    for (const auto& s : c.sites) {
        INFO(s.site);
        CHECK(s.presence == Presence::Both);
        CHECK(s.timeDifferenceNs == 0);
        checkAllZero(s.figures);
        for (const auto& k : s.conjuncts) {
            CHECK(k.presence == Presence::Both);
            checkAllZero(k.figures);
        }
    }
}

} // namespace

TEST_CASE("compare: a conjunct 50 ns slower shows in wall, work, span and its site", "[core][compare]")
{
    const RunComparison c = compareRuns(input(stealTraceSlower(0), "A"), input(stealTraceSlower(50), "B"));
    CHECK(c.warnings.empty());

    // A is the steal trace: work 460, span 350, wall (first context start to last end) 400, the critical
    // path 400 long (analysis_hand_test.cpp works these out). In B, G2 runs 170 + 50 = 220: work 510;
    // G2's depth is 110 + 220 = 330, so the Join node max(210, 200, 330) + 70 = 400 is the span; ctx 1
    // ends at 450: wall and path 450.
    checkFigure(fig(c.program, "engines"), 2, 2);
    checkFigure(fig(c.program, "wall_ns"), 400, 450);
    checkFigure(fig(c.program, "range_ns"), 400, 450);
    checkFigure(fig(c.program, "work_ns"), 460, 510);
    checkFigure(fig(c.program, "span_ns"), 350, 400);
    checkFigure(fig(c.program, "critical_path_ns"), 400, 450);
    checkFigure(fig(c.program, "parallelism"), 460.0 / 350, 510.0 / 400);
    checkFigure(fig(c.program, "conjunction_instances"), 1, 1);
    checkFigure(fig(c.program, "sparks_stolen"), 1, 1);
    // The ledger: running = work; total = 2 engines × the range.
    checkFigure(fig(c.ledger, "running_ns"), 460, 510);
    checkFigure(fig(c.ledger, "total_ns"), 800, 900);
    checkFigure(fig(c.ledger, "running_fraction"), 460.0 / 800, 510.0 / 900);

    // fib.m:10: covered [100, 340) = 240 in A, [100, 390) = 290 in B. Its instance's sub-DAG: work
    // G1 100 + G2 170 (220), span max(200, 280 (330)) − 100 = 180 (230).
    REQUIRE(c.sites.size() == 1);
    const SiteComparison& s = c.sites[0];
    CHECK(s.site == "fib.m:10");
    CHECK(s.presence == Presence::Both);
    CHECK(s.timeDifferenceNs == 50);
    checkFigure(fig(s.figures, "instances"), 1, 1);
    checkFigure(fig(s.figures, "covered_ns"), 240, 290);
    checkFigure(fig(s.figures, "time_mean_ns"), 240, 290);
    checkFigure(fig(s.figures, "work_mean_ns"), 270, 320);
    checkFigure(fig(s.figures, "span_mean_ns"), 180, 230);
    // Conjuncts: G1 runs 100 in both and waits at the barrier from 200 to A's end (340 / 390); G2 runs
    // 170 / 220 and ends 40 before A's end in both.
    REQUIRE(s.conjuncts.size() == 2);
    CHECK(s.conjuncts[0].position == 1);
    checkFigure(fig(s.conjuncts[0].figures, "running_mean_ns"), 100, 100);
    checkFigure(fig(s.conjuncts[0].figures, "after_mean_ns"), 140, 190);
    checkFigure(fig(s.conjuncts[0].figures, "as_spark_mean_ns"), std::nullopt, std::nullopt);
    CHECK(s.conjuncts[1].position == 2);
    checkFigure(fig(s.conjuncts[1].figures, "running_mean_ns"), 170, 220);
    checkFigure(fig(s.conjuncts[1].figures, "after_mean_ns"), 40, 40);
    // G2's spark: created at 110, run (stolen) at 120.
    checkFigure(fig(s.conjuncts[1].figures, "as_spark_mean_ns"), 10, 10);
}

TEST_CASE("compare: a trace compared with itself gives all-zero differences", "[core][compare]")
{
    for (const Trace& t : { stealTraceSlower(0), sparkscope::test::futureTrace(), stealProgramOnOneEngine() }) {
        const RunComparison c = compareRuns(input(t, "A"), input(t, "A"));
        checkSelfComparison(c);
        CHECK(!c.program.empty());
        CHECK(c.sites.size() == 1);
    }
}

TEST_CASE(
    "compare: runs of different programs compare with a warning and their sites listed as such", "[core][compare]")
{
    // B is A with G2 50 ns slower and its conjunction at another source location: no site matches.
    const RunComparison c = compareRuns(input(stealTraceSlower(0), "A"), input(stealTraceSlower(50, "other.m:7"), "B"));
    REQUIRE(c.warnings.size() == 1);
    CHECK_THAT(c.warnings[0], Catch::Contains("no conjunction site of A matches one of B"));
    checkFigure(fig(c.program, "work_ns"), 460, 510);
    // Each listed alone, its time against 0: other.m:7's 290 first, then fib.m:10's 240.
    REQUIRE(c.sites.size() == 2);
    CHECK(c.sites[0].site == "other.m:7");
    CHECK(c.sites[0].presence == Presence::OnlyB);
    CHECK(c.sites[0].timeDifferenceNs == 290);
    checkFigure(fig(c.sites[0].figures, "covered_ns"), std::nullopt, 290);
    CHECK(c.sites[0].conjuncts.size() == 2);
    CHECK(c.sites[0].conjuncts[0].presence == Presence::OnlyB);
    CHECK(c.sites[1].site == "fib.m:10");
    CHECK(c.sites[1].presence == Presence::OnlyA);
    CHECK(c.sites[1].timeDifferenceNs == 240);
    checkFigure(fig(c.sites[1].figures, "covered_ns"), 240, std::nullopt);
}

TEST_CASE("compare: a run that did not read is named and the other's figures are kept", "[core][compare]")
{
    const RunInput missing { "gone.eventlog", std::nullopt, "gone.eventlog: cannot open" };
    const RunComparison c = compareRuns(input(stealTraceSlower(0), "A"), missing);
    REQUIRE(c.warnings.size() == 1);
    CHECK(c.warnings[0] == "B could not be read: gone.eventlog: cannot open");
    checkFigure(fig(c.program, "work_ns"), 460, std::nullopt);
    checkFigure(fig(c.ledger, "running_ns"), 460, std::nullopt);
    REQUIRE(c.sites.size() == 1);
    checkFigure(fig(c.sites[0].figures, "covered_ns"), 240, std::nullopt);
    // The JSON says which did not read and why; absent figures are null.
    const std::string json = comparisonToJson(c);
    CHECK_THAT(json, Catch::Contains("\"read\": false"));
    CHECK_THAT(json, Catch::Contains("\"error\": \"gone.eventlog: cannot open\""));
    CHECK_THAT(json, Catch::Contains("\"b\": null"));

    const RunComparison none = compareRuns(missing, missing);
    CHECK(none.warnings.size() == 2);
    CHECK(none.program.empty());
}

TEST_CASE("compare and scaling: a site none of whose instances completed has no means, not 0", "[core][compare]")
{
    // B is the steal trace whose conjunction never ends (its END_PAR_CONJ at 340 lost): fib.m:10 has
    // one instance in each run, complete in A only. A's PARCONJ_TIME mean is 340 − 100 = 240; B has
    // no complete instance to take a mean over, so its means (time, work, span, parallelism, and
    // its conjuncts') are absent, and so are their differences and ratios.
    TraceBuilder b(2);
    b.internString(0, 1, "fib.m:10");
    b.runThread(0, 0, 1).startParConj(0, 100, 0xA, 1).sparkCreate(0, 110, 0xA, 5);
    b.lookingForLocal(1, 105).workStealing(1, 115).sparkSteal(1, 120, 0, 5).createThread(1, 125, 2).runThread(1, 130, 2);
    b.endParConjunct(0, 200, 0xA).stopThread(0, 210, 1, kStopBlocked);
    b.endParConjunct(1, 300, 0xA).threadRunnable(1, 305, 1).stopThread(1, 310, 2, kStopFinished);
    b.runThread(0, 330, 1).stopThread(0, 400, 1, kStopFinished);
    b.endAt(400);
    const Trace unfinished = b.roundTrip();
    const RunComparison c = compareRuns(input(stealTraceSlower(0), "a"), input(unfinished, "b"));
    REQUIRE(c.sites.size() == 1);
    const SiteComparison& site = c.sites[0];
    CHECK(site.site == "fib.m:10");
    checkFigure(fig(site.figures, "instances"), 1, 1);
    checkFigure(fig(site.figures, "time_mean_ns"), 240, std::nullopt);
    for (const char* key : { "work_mean_ns", "span_mean_ns", "parallelism_mean" }) {
        INFO(key);
        const FigureComparison& f = fig(site.figures, key);
        CHECK(f.a.has_value());
        CHECK_FALSE(f.b.has_value());
        CHECK_FALSE(f.difference.has_value());
    }
    // Scaling the two (both on 2 engines): B's site point has no means either.
    const std::vector<RunInput> runs { input(stealTraceSlower(0), "a"), input(unfinished, "b") };
    const ScalingReport r = scalingSeries(runs);
    REQUIRE(r.sites.size() == 1);
    REQUIRE(r.sites[0].points.size() == 2);
    CHECK(r.sites[0].points[0].workMeanNs.has_value());
    CHECK_FALSE(r.sites[0].points[1].workMeanNs.has_value());
    CHECK_FALSE(r.sites[0].points[1].spanMeanNs.has_value());
    CHECK_FALSE(r.sites[0].points[1].parallelismMean.has_value());
}

TEST_CASE("scaling: a prediction of a run whose measured wall time is 0 has no error", "[core][compare]")
{
    // "idle": one engine, a collection and no context ever running (wall 0). The steal trace on 2
    // engines predicts it at 1 engine: (predicted − 0) / 0 is undefined, so the error is absent.
    TraceBuilder b(1);
    b.gcStart(0, 0).gcEnd(0, 100).endAt(100);
    const std::vector<RunInput> runs { input(b.roundTrip(), "idle"), input(stealTraceSlower(0), "two", { { 1 } }) };
    const ScalingReport r = scalingSeries(runs);
    REQUIRE(r.points.size() == 2);
    REQUIRE(r.points[0].wallNs == 0);
    REQUIRE(r.points[0].predictions.size() == 1);
    CHECK(r.points[0].predictions[0].wallNs > 0);
    CHECK_FALSE(r.points[0].predictions[0].error.has_value());
}

TEST_CASE("scaling: speed-up, efficiency and Karp-Flatt against the smallest engine count", "[core][compare]")
{
    // 1000 ns on 1 engine, 600 on 2: S = 5/3, efficiency 5/6, e = (0.6 − 0.5) / (1 − 0.5) = 0.2.
    Scaling s = scalingOf(1000, 1, 600, 2);
    CHECK(*s.speedup == Approx(1000.0 / 600));
    CHECK(*s.efficiency == Approx(1000.0 / 600 / 2));
    CHECK(*s.serialFraction == Approx(0.2));
    // 400 on 4: S = 2.5, efficiency 0.625, e = (0.4 − 0.25) / 0.75 = 0.2: the same serial fraction.
    s = scalingOf(1000, 1, 400, 4);
    CHECK(*s.serialFraction == Approx(0.2));
    // A series starting at 2 engines: 4 engines is p = 2 against it.
    s = scalingOf(1000, 2, 600, 4);
    CHECK(*s.efficiency == Approx(1000.0 / 600 / 2));
    CHECK(*s.serialFraction == Approx(0.2));
    // At the base's count the serial fraction is undefined; without a wall time nothing is defined.
    s = scalingOf(1000, 1, 1000, 1);
    CHECK(*s.speedup == 1);
    CHECK(*s.efficiency == 1);
    CHECK(!s.serialFraction);
    s = scalingOf(0, 1, 1000, 2);
    CHECK(!s.speedup);
    CHECK(!s.efficiency);
}

TEST_CASE("scaling: one program on one and two engines, each predicting the other", "[core][compare]")
{
    const Trace one = stealProgramOnOneEngine();
    const Trace two = stealTraceSlower(0);
    // Given in the order 2, 1: the series is sorted by engine count, its base is the 1-engine run.
    const std::vector<RunInput> runs { input(two, "two", ProfileOptions { { 1 } }),
        input(one, "one", ProfileOptions { { 2 } }),
        RunInput { "bad.eventlog", std::nullopt, "bad.eventlog: not an eventlog" } };
    const ScalingReport r = scalingSeries(runs);
    CHECK(r.failed == std::vector<std::string> { "bad.eventlog: not an eventlog" });
    REQUIRE(r.points.size() == 2);
    CHECK(r.base == 0);
    CHECK(r.points[0].path == "one");
    CHECK(r.points[0].engines == 1);
    CHECK(r.points[1].engines == 2);
    // One engine: ctx 1 runs [0, 450): wall and work 450. Two: wall 400, work 460.
    CHECK(r.points[0].wallNs == 450);
    CHECK(r.points[0].workNs == 450);
    CHECK(r.points[1].wallNs == 400);
    CHECK(*r.points[1].scaling.speedup == Approx(450.0 / 400));
    CHECK(*r.points[1].scaling.efficiency == Approx(450.0 / 400 / 2));
    // e = (1/S − 1/2) / (1 − 1/2) = (400/450 − 0.5) / 0.5.
    CHECK(*r.points[1].scaling.serialFraction == Approx((400.0 / 450 - 0.5) / 0.5));
    CHECK(*r.points[1].workGrowth == Approx(460.0 / 450));
    CHECK(!r.points[0].scaling.serialFraction);

    // Each point has the other run's prediction at its engine count, the very figure the other's
    // session predicts, and its error against the measured wall.
    for (size_t i = 0; i < 2; ++i) {
        INFO("point " << i);
        REQUIRE(r.points[i].predictions.size() == 1);
        const PointPrediction& pr = r.points[i].predictions[0];
        CHECK(pr.from == 1 - i);
        const Trace& other = i == 0 ? two : one;
        const AnalysisSession session(other);
        WhatIfOptions w;
        w.engines = { r.points[i].engines };
        CHECK(pr.wallNs == session.predict(w).at(0).wallNs);
        CHECK(pr.error == Approx((double(pr.wallNs) - double(r.points[i].wallNs)) / double(r.points[i].wallNs)));
    }

    // fib.m:10 ran in both: covered [100, 380) = 280 on one engine, 240 on two.
    REQUIRE(r.sites.size() == 1);
    CHECK(r.sites[0].site == "fib.m:10");
    REQUIRE(r.sites[0].points.size() == 2);
    CHECK(r.sites[0].points[0].coveredNs == 280);
    CHECK(r.sites[0].points[1].coveredNs == 240);
    CHECK(*r.sites[0].points[1].scaling.speedup == Approx(280.0 / 240));
    CHECK(r.sites[0].points[1].workMeanNs == 270);
}

TEST_CASE("scaling: sites not in every run are left out with a warning", "[core][compare]")
{
    const std::vector<RunInput> runs { input(stealTraceSlower(0), "a"), input(stealTraceSlower(50, "other.m:7"), "b") };
    const ScalingReport r = scalingSeries(runs);
    CHECK(r.sites.empty());
    REQUIRE(r.warnings.size() == 3);
    CHECK_THAT(r.warnings[0], Catch::Contains("2 conjunction site(s) ran in some traces only"));
    CHECK_THAT(r.warnings[1], Catch::Contains("no conjunction site is in every trace"));
    CHECK_THAT(r.warnings[2], Catch::Contains("every trace ran on 2 engines"));
    // No prediction was asked for: none is shown.
    CHECK(r.points[0].predictions.empty());
}

TEST_CASE("compare and scaling: demo parfib recorded on 1 and 2 engines", "[core][compare][demo]")
{
    const std::vector<std::string> workload { "parfib --n 22 --cutoff 12" };
    const auto one = sparkscope::test::demoTraces("compare-demo", workload, 1);
    const auto two = sparkscope::test::demoTraces("compare-demo", workload, 2);
    if (one.empty() || two.empty())
        return;
    const Trace& t1 = one[0].trace;
    const Trace& t2 = two[0].trace;
    CHECK(engineCountOf(t1) == 1);
    CHECK(engineCountOf(t2) == 2);

    const RunComparison c = compareRuns(input(t1, "one", { { 2 } }), input(t2, "two", { { 1 } }));
    CHECK(c.warnings.empty());
    checkFigure(fig(c.program, "engines"), 1, 2);
    // The same program and input: the same conjunctions and sparks, whatever the engines.
    CHECK(*fig(c.program, "conjunction_instances").difference == 0);
    CHECK(*fig(c.program, "conjunction_instances").a > 0);
    CHECK(*fig(c.program, "sparks_created").difference == 0);
    CHECK(*fig(c.program, "incomplete_conjunctions").b == 0);
    // Each ledger sums to its engines × its range; work = running.
    for (auto side : { &FigureComparison::a, &FigureComparison::b }) {
        CHECK(*(fig(c.ledger, "total_ns").*side)
            == *(fig(c.program, "engines").*side) * *(fig(c.program, "range_ns").*side));
        CHECK(*(fig(c.ledger, "running_ns").*side) == *(fig(c.program, "work_ns").*side));
        CHECK(*(fig(c.program, "span_ns").*side) <= *(fig(c.program, "work_ns").*side));
    }
    // Every site matches, with the same instance count.
    REQUIRE(!c.sites.empty());
    for (const auto& s : c.sites) {
        INFO(s.site);
        CHECK(s.presence == Presence::Both);
        CHECK(*fig(s.figures, "instances").difference == 0);
    }
    // Sorted by the change in covered time, largest first.
    for (size_t i = 1; i < c.sites.size(); ++i)
        CHECK(c.sites[i - 1].timeDifferenceNs >= c.sites[i].timeDifferenceNs);

    checkSelfComparison(compareRuns(input(t2, "two"), input(t2, "two")));

    const std::vector<RunInput> runs { input(t2, "two", { { 1 } }), input(t1, "one", { { 2 } }) };
    const ScalingReport r = scalingSeries(runs);
    REQUIRE(r.points.size() == 2);
    CHECK(r.points[0].engines == 1);
    CHECK(r.points[1].engines == 2);
    CHECK(r.points[1].scaling.serialFraction.has_value());
    CHECK(r.sites.size() == c.sites.size());
    for (const ScalingPoint& p : r.points) {
        REQUIRE(p.predictions.size() == 1);
        CHECK(p.predictions[0].wallNs > 0);
        REQUIRE(p.predictions[0].error);
        CHECK(std::isfinite(*p.predictions[0].error));
    }
}

TEST_CASE("compare and scaling: a pair of GHC eventlogs has the figures that apply", "[core][compare][ghc]")
{
    const auto traces = sparkscope::test::sharedGhcTraces({ "parfib-12-30.eventlog", "parfib-8-32.eventlog" });
    if (traces.size() < 2)
        return; // (reported as not run)
    const RunComparison c = compareRuns(input(traces[0].trace, "a", { { 2 } }), input(traces[1].trace, "b", { { 2 } }));
    CHECK(c.warnings.empty());
    // GHC eventlogs record no joins: no span, parallelism, critical path or conjunctions (null, not 0).
    for (const char* key : { "span_ns", "parallelism", "critical_path_ns", "conjunction_instances" })
        checkFigure(fig(c.program, key), std::nullopt, std::nullopt);
    CHECK(c.sites.empty());
    // What they have: both ran on 2 capabilities; work, wall, GC and sparks.
    checkFigure(fig(c.program, "engines"), 2, 2);
    for (const char* key : { "work_ns", "wall_ns", "gc_ns", "sparks_created" }) {
        INFO(key);
        CHECK(*fig(c.program, key).a > 0);
        CHECK(*fig(c.program, key).b > 0);
    }
    // parfib 8 32 does more work than parfib 12 30.
    CHECK(*fig(c.program, "work_ns").difference > 0);
    checkSelfComparison(compareRuns(input(traces[0].trace, "a"), input(traces[0].trace, "a")));

    const std::vector<RunInput> runs { input(traces[0].trace, "a", { { 2 } }), input(traces[1].trace, "b", { { 2 } }) };
    const ScalingReport r = scalingSeries(runs);
    REQUIRE(r.points.size() == 2);
    for (const ScalingPoint& p : r.points) {
        CHECK(p.predictions.empty());
        CHECK(!p.spanNs);
        CHECK(!p.scaling.serialFraction);
    }
    CHECK_THAT(r.warnings[0], Catch::Contains("no span and no predictions"));
}
