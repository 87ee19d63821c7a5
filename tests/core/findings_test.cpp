// The findings (core/findings.h, docs/analysis.md "Findings") on hand-built traces: for each rule a
// trace where it fires, with its recoverable time worked out by hand from the ledger in the
// comments, the ranking, and a well-balanced run where no rule fires. Traces go through the real
// writer and reader (TraceBuilder::roundTrip). "Run" is the time from the first to the last instant a
// context ran; E the engines; a rule's recoverable time is the engine time it names / E (rounded
// down). Thresholds: whole-program causes from 5 % of E × run (GC 10 %); per-site patterns from a
// recoverable time of 1 % of the run.
#include "metrics_sim.h"
#include "scenario_traces.h"
#include "sparkscope/core/findings.h"
#include "sparkscope/core/metrics_export.h"
#include "support/trace_builder.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>

using namespace sparkscope::core;
using sparkscope::test::TraceBuilder;

namespace {

// "rule@site recoverable" for each finding, in rank order: compact and comparable.
std::vector<std::string> summary(const AnalysisReport& r)
{
    std::vector<std::string> out;
    for (const Finding& f : r.findings)
        out.push_back(f.rule + "@" + f.site + " " + std::to_string(f.recoverableNs));
    return out;
}

const Finding& finding(const AnalysisReport& r, const std::string& rule)
{
    for (const Finding& f : r.findings)
        if (f.rule == rule)
            return f;
    FAIL("no finding " << rule);
    static Finding none;
    return none;
}

// Three instances of a two-conjunct conjunction (static id 1 "shape.m:7"), one after the other:
// ctx 1 on engine 0 starts instance i at b, sparks G2 at b+1 and ends G1 at b+20; engine 1 steals G2
// at b+2 and runs it in a new context until b+g (g = g2End[i]); ctx 1 parks at the barrier at b+21, is
// woken at b+g, runs again at b+g+2 and ends the conjunction at b+g+3. The next instance starts at
// b+g+8; ctx 1 finishes 8 ns after the last one's start + g.
Trace shapeTrace(const std::vector<uint64_t>& g2End)
{
    TraceBuilder b(2);
    b.internString(0, 1, "shape.m:7");
    b.runThread(0, 0, 1);
    uint64_t base = 0;
    for (size_t i = 0; i < g2End.size(); ++i) {
        const uint64_t g = g2End[i];
        const uint32_t spark = uint32_t(i + 1), ctx = uint32_t(i + 2);
        b.startParConj(0, base, 0xA, 1).sparkCreate(0, base + 1, 0xA, spark);
        b.sparkSteal(1, base + 2, 0, spark).runThread(1, base + 2, ctx);
        b.endParConjunct(0, base + 20, 0xA).stopThread(0, base + 21, 1, kStopBlocked);
        b.endParConjunct(1, base + g, 0xA)
            .threadRunnable(1, base + g, 1)
            .stopThread(1, base + g + 1, ctx, kStopFinished);
        b.runThread(0, base + g + 2, 1).endParConj(0, base + g + 3, 0xA);
        base += g + 8;
    }
    b.stopThread(0, base, 1, kStopFinished);
    return b.roundTrip();
}

} // namespace

TEST_CASE("no finding on a well-balanced run", "[core][analysis][findings]")
{
    // 2 engines, run [0,1000): ctx 1 runs on engine 0 throughout; conjunction 0xA from 10 with G1 in
    // ctx 1 until 990; G2 sparked at 11, stolen by engine 1 at 12 and run by ctx 2 until 990.
    TraceBuilder b(2);
    b.internString(0, 1, "even.m:3");
    b.runThread(0, 0, 1).startParConj(0, 10, 0xA, 1).sparkCreate(0, 11, 0xA, 1);
    b.sparkSteal(1, 12, 0, 1).runThread(1, 12, 2).endParConjunct(1, 990, 0xA).stopThread(1, 991, 2, kStopFinished);
    b.endParConjunct(0, 990, 0xA).endParConj(0, 991, 0xA).stopThread(0, 1000, 1, kStopFinished);
    const AnalysisReport r = computeAnalysisReport(b.roundTrip());
    // Engine 1 is idle [0,12) (nothing to run but [11,12), the spark in engine 0's deque) and
    // [991,1000): sequential code before the conjunction 10 (0.5 % of E × run = 2000), after it 9,
    // nothing to run while the conjunction runs 1, work waiting 1; the site's idle time 2 (1 ns to
    // win back, below 1 % of the run). G2 runs 978 ns, far above 10 × its 1 ns hand-over.
    CHECK(r.findings.empty());
    CHECK(r.analysis.ledger.total.totalNs() == 2000);
}

TEST_CASE("sequential code and too little parallelism, ranked", "[core][analysis][findings]")
{
    // 2 engines, run [0,1000). ctx 1 on engine 0 runs sequential code [0,400), starts 0xA at 400 (G1
    // until 600) and sparks G2 at 405; engine 1 steals it at 410 and ctx 2 runs it until 450 (and
    // finishes at 455). G1 ends at 600 and the conjunction with it; ctx 1 runs sequential code to 1000.
    TraceBuilder b(2);
    b.internString(0, 1, "seq.m:5");
    b.runThread(0, 0, 1).startParConj(0, 400, 0xA, 1).sparkCreate(0, 405, 0xA, 1);
    b.sparkSteal(1, 410, 0, 1).runThread(1, 410, 2).endParConjunct(1, 450, 0xA).stopThread(1, 455, 2, kStopFinished);
    b.endParConjunct(0, 600, 0xA).endParConj(0, 600, 0xA).stopThread(0, 1000, 1, kStopFinished);
    const AnalysisReport r = computeAnalysisReport(b.roundTrip());
    // E × run = 2000. Engine 1 has nothing to run [0,405), [455,1000); the spark waits [405,410).
    //   [0,400): engine 0 outside every conjunct, engine 1 idle: sequential code before seq.m:5, 400
    //     (20 %) -> 200;
    //   [600,1000): the same after seq.m:5 (ctx 1 starts no later conjunction), 400 -> 200;
    //   [400,405) and [455,600): engine 0 in G1, engine 1 idle with nothing to run: 5 + 145 = 150
    //     (7.5 %) -> too_little_parallelism 75;
    //   seq.m:5's one instance [400,600): G2 ends 150 before G1 (TIME_AFTER 150 against 0, and
    //     PARCONJ_TIME 200: ≥ 1/4), one instance so not "stable": imbalance; the site's idle time is
    //     engine 1's 5 + 5 (work) + 145 = 155 -> 77.
    //   Work waiting 5 (0.25 %) is below 5 %. G2 runs 40 ns, under 10 × its 5 ns hand-over, but the
    //   site's searching + work waiting, 5, wins back 2, below 1 % of the run: no sparks_too_fine.
    CHECK(summary(r)
        == std::vector<std::string> { "sequential_code@seq.m:5 200", "sequential_code@seq.m:5 200",
            "imbalance@seq.m:5 77", "too_little_parallelism@seq.m:5 75" });
    // Equal times: the stretch before first. Ranges: the stretches that lost the most first.
    CHECK(r.findings[0].ranges == std::vector<TimeRange> { { 0, 400 } });
    CHECK(r.findings[0].text.find("before the parallel conjunction at seq.m:5") != std::string::npos);
    CHECK(r.findings[1].ranges == std::vector<TimeRange> { { 600, 1000 } });
    CHECK(r.findings[1].text.find("after the parallel conjunction at seq.m:5") != std::string::npos);
    CHECK(r.findings[2].ranges == std::vector<TimeRange> { { 450, 600 } }); // [G2's end, the conjunction's end)
    CHECK(r.findings[3].ranges == std::vector<TimeRange> { { 455, 600 }, { 400, 405 } });
    // All 150 of it with no work anywhere (no context waits at a barrier or is blocked).
    CHECK(r.findings[3].text.find("(150 ns, all with no work anywhere)") != std::string::npos);
    // Work 1045 over a span of 1000: parallelism 1.045, below the 2 engines.
    CHECK(r.findings[3].text.find("parallelism (work / span) is only 1.0") != std::string::npos);
}

TEST_CASE(
    "sequential code after a conjunction with a nested one is keyed by the outer one", "[core][analysis][findings]")
{
    // 2 engines, run [0,1000). ctx 1 on engine 0 starts out.m:10 (0xA) at 100 and sparks G2, which
    // engine 1 steals at 110 and ctx 2 runs until 380. Inside G1, ctx 1 starts in.m:20 (0xB) at 150,
    // ends its G1 at 200, runs its spark itself until 300, where 0xB ends. G1 ends at 400 and 0xA
    // with it; ctx 1 then runs sequential code until 1000 while engine 1 has nothing to run.
    TraceBuilder b(2);
    b.internString(0, 1, "out.m:10").internString(0, 2, "in.m:20");
    b.runThread(0, 0, 1).startParConj(0, 100, 0xA, 1).sparkCreate(0, 105, 0xA, 1);
    b.sparkSteal(1, 110, 0, 1).runThread(1, 110, 2).endParConjunct(1, 380, 0xA).stopThread(1, 381, 2, kStopFinished);
    b.startParConj(0, 150, 0xB, 2).sparkCreate(0, 155, 0xB, 2).endParConjunct(0, 200, 0xB);
    b.sparkRun(0, 200, 2).endParConjunct(0, 300, 0xB).endParConj(0, 300, 0xB);
    b.endParConjunct(0, 400, 0xA).endParConj(0, 400, 0xA).stopThread(0, 1000, 1, kStopFinished);
    const AnalysisReport r = computeAnalysisReport(b.roundTrip());
    // [400,1000): engine 1 idle with nothing to run while ctx 1 runs outside every conjunct: 600 of
    // E × run = 2000 (30 %) -> 300, after out.m:10, which it follows, though in.m:20 started later.
    const auto after = std::find_if(r.findings.begin(), r.findings.end(), [](const Finding& f) {
        return f.rule == "sequential_code" && f.text.find("after the parallel conjunction") != std::string::npos;
    });
    REQUIRE(after != r.findings.end());
    CHECK(after->site == "out.m:10");
    CHECK(after->text.find("after the parallel conjunction at out.m:10") != std::string::npos);
    CHECK(after->ranges == std::vector<TimeRange> { { 400, 1000 } });
    CHECK(after->recoverableNs == 300);
}

TEST_CASE("the findings' shares are of the run, from the first to the last instant a context ran, which the "
          "report gives",
    "[core][analysis][findings]")
{
    // 2 engines, trace [0,1600): ctx 1 is created at 0 and engine 0 runs it only [300,1300); both
    // engines collect [500,700), which holds ctx 1 back. The run is [300,1300): E × run = 2000.
    //   gc: 2 × 200 = 400, 20 % of the run (12.5 % of the trace's 3200) -> 200;
    //   engine 1 idle with nothing to run while ctx 1 runs outside every conjunct: [300,500) +
    //   [700,1300) = 800 (40 %) -> 400. Engine 1's idle [0,300) and [1300,1600), and ctx 1 runnable
    //   [0,300), are outside the run: no work_waited_for_engine.
    TraceBuilder b(2);
    b.createThread(0, 0, 1).runThread(0, 300, 1).gcStart(0, 500).gcStart(1, 500).gcEnd(0, 700).gcEnd(1, 700);
    b.stopThread(0, 1300, 1, kStopFinished).endAt(1600);
    const Trace trace = b.roundTrip();
    const AnalysisReport r = computeAnalysisReport(trace);
    CHECK(r.analysis.fromNs == 0);
    CHECK(r.analysis.toNs == 1600);
    CHECK(r.run == TimeRange { 300, 1300 });
    CHECK(r.runIsPartOfRange());
    CHECK(summary(r) == std::vector<std::string> { "sequential_code@ 400", "gc_share@ 200" });
    CHECK(finding(r, "gc_share").text.find("took 20% of the run's engine time") != std::string::npos);
    const auto json = nlohmann::json::parse(analysisReportToJson(r));
    CHECK(json["analysis"]["findings_run"] == nlohmann::json { { "from_ns", 300 }, { "to_ns", 1300 } });

    // A range in which no context runs has no run, and no findings; the JSON says so with null.
    AnalysisOptions startUp;
    startUp.toNs = 250;
    const AnalysisReport none = computeAnalysisReport(trace, startUp);
    CHECK_FALSE(none.run);
    CHECK_FALSE(none.runIsPartOfRange());
    CHECK(none.findings.empty());
    CHECK(nlohmann::json::parse(analysisReportToJson(none))["analysis"]["findings_run"].is_null());
    // A range that cuts the run: the run within it.
    AnalysisOptions part;
    part.fromNs = 400;
    part.toNs = 1000;
    const AnalysisReport within = computeAnalysisReport(trace, part);
    CHECK(within.run == TimeRange { 400, 1000 });
    CHECK_FALSE(within.runIsPartOfRange()); // the run fills the range: nothing to say
}

TEST_CASE("garbage collection, work waiting for an engine, and sequential code outside every conjunction",
    "[core][analysis][findings]")
{
    // 2 engines, run [0,1000): ctx 1 runs on engine 0 throughout; both engines collect [200,400);
    // ctx 2 is created (runnable) at 500 and engine 1 runs it only at 700, until 800.
    TraceBuilder b(2);
    b.runThread(0, 0, 1).gcStart(0, 200).gcStart(1, 200).gcEnd(0, 400).gcEnd(1, 400);
    b.createThread(0, 500, 2).runThread(1, 700, 2).stopThread(1, 800, 2, kStopFinished);
    b.stopThread(0, 1000, 1, kStopFinished);
    const AnalysisReport r = computeAnalysisReport(b.roundTrip());
    // E × run = 2000. gc: 2 × 200 = 400 (20 % ≥ 10 %) -> 200. Engine 1 idle while ctx 2 is runnable
    // [500,700): 200 (10 %) -> 100. Engine 1 idle with nothing to run while ctx 1 runs outside every
    // conjunct (there is none): [0,200) + [400,500) + [800,1000) = 500 -> 250.
    CHECK(summary(r)
        == std::vector<std::string> { "sequential_code@ 250", "gc_share@ 200", "work_waited_for_engine@ 100" });
    const Finding& gc = finding(r, "gc_share");
    CHECK(gc.ranges == std::vector<TimeRange> { { 200, 400 } });
    CHECK(gc.text.find("20%") != std::string::npos);
    CHECK(gc.text.find("1 collection, the longest 200 ns") != std::string::npos);
    CHECK(gc.text.find("more than 5.00 times faster") != std::string::npos); // Amdahl: 1 / 0.2
    CHECK(finding(r, "work_waited_for_engine").ranges == std::vector<TimeRange> { { 500, 700 } });
    const Finding& sequential = finding(r, "sequential_code");
    CHECK(sequential.text.find("outside every parallel conjunction") != std::string::npos);
    CHECK(sequential.ranges == std::vector<TimeRange> { { 0, 200 }, { 800, 1000 }, { 400, 500 } });
}

TEST_CASE("a future waited on too early, and sparks too fine", "[core][analysis][findings]")
{
    // The future trace (scenario_traces.h): 2 engines, run [0,230), E × run = 460.
    const AnalysisReport r = computeAnalysisReport(sparkscope::test::futureTrace());
    // Future X at fib.m:10: the one consumer's first wait (120) comes before the signal (150): it
    // suspends 30 ns, probability 1, FIRST_WAITS -30. While fib.m:10 [100,220) was open, engine 1 was
    // idle on the future [120,152): 32; X is its only suspended variable -> 32 / 2 = 16. Range
    // [120,150).
    // Sequential code before fib.m:10, [0,100), engine 1 idle: 100 (22 %) -> 50. After it, [210,230):
    // 20 (4.3 %): not reported.
    // Work waiting: engine 1 [105,110) (the spark), [152,160) (ctx 2 runnable), [205,210); engine 0
    // [202,210) (ctx 1 runnable): 26 (5.7 %) -> 13; stretches [202,210) 13, [152,160) 8, [105,110) 5.
    // G2 runs 48 ns against a hand-over of 5 ns (no search events: the quickest TIME_AS_SPARK, 110 -
    // 105): under 10 × 5, and fib.m:10's searching + work waiting is 26 -> 13: sparks_too_fine, ranked
    // before work_waited_for_engine at the same time (the more specific rule), its range the site's span.
    // Nothing to run elsewhere: [100,105) 5, [110,112) 2, ctx 1 at the barrier [185,200) 15 = 22
    // (4.8 %): no too_little_parallelism. TIME_AFTER 40 and 20 against 120: balanced enough.
    CHECK(summary(r)
        == std::vector<std::string> { "sequential_code@fib.m:10 50", "future_waited_early@fib.m:10 16",
            "sparks_too_fine@fib.m:10 13", "work_waited_for_engine@fib.m:10 13" });
    const Finding& future = finding(r, "future_waited_early");
    CHECK(future.ranges == std::vector<TimeRange> { { 120, 150 } });
    CHECK(future.text.find("future X comes before its signal in 100% of cases") != std::string::npos);
    CHECK(finding(r, "work_waited_for_engine").ranges
        == std::vector<TimeRange> { { 202, 210 }, { 152, 160 }, { 105, 110 } });
    CHECK(finding(r, "sparks_too_fine").ranges == std::vector<TimeRange> { { 100, 220 } });
    // All 26 ns of work waiting came while fib.m:10 was open.
    CHECK(finding(r, "work_waited_for_engine").text.find(", most of it while the conjunctions at fib.m:10 were open")
        != std::string::npos);
}

TEST_CASE("stable TIME_AFTERs far apart: Amdahl's law limits the conjunction", "[core][analysis][findings]")
{
    // shapeTrace with G2 ending at b+102 three times: instances [0,105), [110,215), [220,325), run
    // [0,330), E × run = 660. Per instance: PARCONJ_TIME 105; TIME_AFTER G1 85, G2 3, each without
    // variation: stable (≤ 10.5) and far apart (82 ≥ 105 / 4) -> amdahl_limited, conjunct 2 last.
    // The site's idle time per instance: engine 0 at the barrier [21,102) 81 and ctx 1 runnable
    // [102,104) 2; engine 1 [0,1) nothing, [1,2) the spark, [103,104) ctx 1 runnable, [104,105)
    // nothing: 4. 3 × 87 = 261 -> 130.
    // Nothing to run in the run: per instance [0,1) 1 + the barrier 81 = 82, 246 (37 %) -> 123.
    const AnalysisReport r = computeAnalysisReport(shapeTrace({ 102, 102, 102 }));
    CHECK(summary(r)
        == std::vector<std::string> { "amdahl_limited@shape.m:7 130", "too_little_parallelism@shape.m:7 123" });
    const Finding& amdahl = finding(r, "amdahl_limited");
    CHECK(amdahl.text.find("conjunct 2 always ends last") != std::string::npos);
    // The 246 split as the ledger splits it: ctx 1 parked at the barrier 3 × 81, no work 3 × 1.
    CHECK(
        finding(r, "too_little_parallelism")
            .text.find("(246 ns: 243 ns while the rest of the program waited at a barrier, 3 ns with no work anywhere)")
        != std::string::npos);
    // Ranges: [G1's end, the conjunction's end) of each instance, the longest first (equal: earlier first).
    CHECK(amdahl.ranges == std::vector<TimeRange> { { 20, 105 }, { 130, 215 }, { 240, 325 } });
}

TEST_CASE("TIME_AFTERs far apart that vary: the conjuncts are unbalanced", "[core][analysis][findings]")
{
    // shapeTrace with G2 ending at b+102, b+42, b+72: instances [0,105), [110,155), [160,235), run
    // [0,240), E × run = 480. PARCONJ_TIME 105, 45, 75 (mean 75); TIME_AFTER G1 85, 25, 55 (mean 55,
    // standard deviation 24.5 > 7.5: not stable), G2 3: 52 apart ≥ 75 / 4 -> imbalance. The site's idle
    // time per instance is (g - 21) + 2 + 4: 87 + 27 + 57 = 171 -> 85. Nothing to run: per instance
    // 1 + (g - 21): 82 + 22 + 52 = 156 (32.5 %) -> 78.
    const AnalysisReport r = computeAnalysisReport(shapeTrace({ 102, 42, 72 }));
    CHECK(summary(r) == std::vector<std::string> { "imbalance@shape.m:7 85", "too_little_parallelism@shape.m:7 78" });
    CHECK(finding(r, "imbalance").ranges == std::vector<TimeRange> { { 20, 105 }, { 180, 235 }, { 130, 155 } });
}

TEST_CASE("a conjunction whose conjuncts never run at once", "[core][analysis][findings]")
{
    // 2 engines (engine 1 has no events: idle throughout), run [0,120): ctx 1 starts 0xA at 10, ends G1
    // at 11, only then sparks G2 (12) and runs it itself from 13 to 113; the conjunction ends at 114.
    TraceBuilder b(2);
    b.internString(0, 1, "late.m:2");
    b.runThread(0, 0, 1).startParConj(0, 10, 0xA, 1).endParConjunct(0, 11, 0xA).sparkCreate(0, 12, 0xA, 1);
    b.sparkRun(0, 13, 1).endParConjunct(0, 113, 0xA).endParConj(0, 114, 0xA).stopThread(0, 120, 1, kStopFinished);
    const AnalysisReport r = computeAnalysisReport(b.roundTrip());
    // RUNNABLE_SELF: G1 [10,11), G2 from its spark at 12: never 2 at once, max 1 < 3/4 × min(2, 2) ->
    // parallelism_not_achieved. late.m:2's span [10,114): engine 1 idle 104 (the spark [12,13) is
    // work waiting, the rest nothing) -> 52. Nothing to run while G1 or G2 runs: [10,11) + [13,113) =
    // 101 (42 %) -> 50. Sequential code before it 10 and after it [11,12) + [113,120) 8: below 5 %.
    CHECK(summary(r)
        == std::vector<std::string> { "parallelism_not_achieved@late.m:2 52", "too_little_parallelism@late.m:2 50" });
    CHECK(finding(r, "parallelism_not_achieved").ranges == std::vector<TimeRange> { { 10, 114 } });
}

TEST_CASE("conjuncts runnable together only briefly, blocked on a future", "[core][analysis][findings]")
{
    // 3 engines. ctx 1 (engine 0) creates future X at 5 and starts 0xA (static id "brief.m:4") at 10,
    // running G1 until 299 and signalling X at 290; its spark for G2.. (11) is stolen by engine 1 at 12,
    // where ctx 2 runs G2 and sparks G3 (13), stolen by engine 2 at 14 and run by ctx 3. G2 waits on X
    // at 20 and G3 at 22, both before the signal; both are woken at 290, run again [292,297) and finish
    // at 298. The conjunction ends at 300; ctx 1 finishes at 310.
    TraceBuilder b(3);
    b.internString(0, 1, "brief.m:4").internString(0, 2, "X");
    b.runThread(0, 0, 1).futureCreate(0, 5, 0xF, 2).startParConj(0, 10, 0xA, 1).sparkCreate(0, 11, 0xA, 1);
    b.sparkSteal(1, 12, 0, 1).runThread(1, 12, 2).sparkCreate(1, 13, 0xA, 2);
    b.sparkSteal(2, 14, 1, 2).runThread(2, 14, 3);
    b.futureWaitSuspended(1, 20, 0xF).stopThread(1, 21, 2, kStopBlocked);
    b.futureWaitSuspended(2, 22, 0xF).stopThread(2, 23, 3, kStopBlocked);
    b.futureSignal(0, 290, 0xF).threadRunnable(0, 290, 2).threadRunnable(0, 290, 3);
    b.runThread(1, 292, 2).endParConjunct(1, 297, 0xA).stopThread(1, 298, 2, kStopFinished);
    b.runThread(2, 292, 3).endParConjunct(2, 297, 0xA).stopThread(2, 298, 3, kStopFinished);
    b.endParConjunct(0, 299, 0xA).endParConj(0, 300, 0xA).stopThread(0, 310, 1, kStopFinished);
    const AnalysisReport r = computeAnalysisReport(b.roundTrip());
    // RUNNABLE_SELF over [10,300): [10,11) 1, [11,13) 2, [13,20) 3, [20,22) 2, [22,290) 1, [290,297) 3,
    // [297,299) 1, [299,300) 0: max 3 (≥ 3/4 × min(3, 3)), average 321 / 290 = 1.11 < 1.5, the same
    // with descendants; TIME_AFTER 1, 3, 3 (far less than 290 / 4) -> parallelism_brief. The site's idle
    // time: engine 1 [10,11) 1, [11,12) 1, [20,290) 270, [290,292) 2, [298,300) 2 = 276; engine 2 [10,11)
    // 1, [11,12) 1, [12,13) 1, [13,14) 1, [22,290) 268, [290,292) 2, [298,300) 2 = 276: 552 / 3 = 184.
    // Future X: both first waits suspend (270 and 268 ns), probability 1; the site's idle time on
    // futures, 538, is all X's -> 538 / 3 = 179.
    // E × run = 930: sequential code before (20) and after (22), nothing to run elsewhere (5) and work
    // waiting (7) are all below 5 %.
    CHECK(summary(r)
        == std::vector<std::string> { "parallelism_brief@brief.m:4 184", "future_waited_early@brief.m:4 179" });
    CHECK(finding(r, "future_waited_early").ranges == std::vector<TimeRange> { { 20, 290 }, { 22, 290 } });
    CHECK(finding(r, "parallelism_brief").text.find("on average only 1.11") != std::string::npos);
}

// What every report's findings satisfy: known rules, text, at most 5 ranges inside the range, ranked,
// and no more to win back than the range lasts.
static void checkFindings(const AnalysisReport& r)
{
    const std::set<std::string_view> rules(findingRules().begin(), findingRules().end());
    for (size_t i = 0; i < r.findings.size(); ++i) {
        const Finding& f = r.findings[i];
        CHECK(rules.count(f.rule) == 1);
        CHECK(!f.text.empty());
        CHECK(f.recoverableNs <= r.analysis.toNs - r.analysis.fromNs);
        CHECK(f.ranges.size() <= 5);
        for (const TimeRange& t : f.ranges) {
            CHECK(t.fromNs < t.toNs);
            CHECK(t.fromNs >= r.analysis.fromNs);
            CHECK(t.toNs <= r.analysis.toNs);
        }
        if (i > 0)
            CHECK(r.findings[i - 1].recoverableNs >= f.recoverableNs);
    }
}

TEST_CASE("every finding names a known rule, ranges inside the range and a recoverable time within the run",
    "[core][analysis][findings]")
{
    CHECK(findingRules().size() == 10);
    size_t found = 0;
    for (uint64_t seed = 1; seed <= 30; ++seed) {
        INFO("seed " << seed);
        const Trace trace = sparkscope::test::simulateRandomProgram(seed, seed > 20 ? 9 : 4, 3).build();
        const AnalysisReport r = computeAnalysisReport(trace);
        checkFindings(r);
        found += r.findings.size();
        // A range: the findings of that range only.
        AnalysisOptions part;
        part.fromNs = trace.firstTimeNs + (trace.lastTimeNs - trace.firstTimeNs) / 4;
        part.toNs = trace.lastTimeNs - (trace.lastTimeNs - trace.firstTimeNs) / 4;
        checkFindings(computeAnalysisReport(trace, part));
    }
    CHECK(found > 0);
}

TEST_CASE(
    "findings of truncated and damaged traces: no crash, no figure outside the range", "[core][analysis][findings]")
{
    for (uint64_t seed = 1; seed <= 20; ++seed) {
        INFO("seed " << seed);
        const Trace trace = sparkscope::test::simulateRandomProgram(seed).build();
        checkFindings(computeAnalysisReport(sparkscope::test::truncatedAtRandom(trace, seed)));
        checkFindings(computeAnalysisReport(sparkscope::test::damagedAtRandom(trace, seed * 7919)));
    }
}

TEST_CASE("the ledger over time sums to the ledger of every range", "[core][analysis][findings]")
{
    for (uint64_t seed = 1; seed <= 20; ++seed) {
        INFO("seed " << seed);
        const Trace trace = sparkscope::test::simulateRandomProgram(seed).build();
        const AnalysisSession session(trace);
        const uint64_t first = trace.firstTimeNs, last = trace.lastTimeNs;
        for (auto [from, to] :
            { std::pair { first, last }, std::pair { first + (last - first) / 3, last - (last - first) / 4 } }) {
            AnalysisOptions options;
            options.fromNs = from;
            options.toNs = to;
            const Analysis a = session.analyze(options);
            LossLedger total;
            std::vector<LossLedger> perEngine(a.ledger.engines);
            uint64_t at = a.fromNs;
            bool contiguous = true;
            session.forEachLedgerPiece(from, to, [&](const LedgerPiece& p) {
                contiguous = contiguous && p.fromNs == at && p.toNs > p.fromNs;
                at = p.toNs;
                for (size_t e = 0; e < p.categories.size(); ++e) {
                    total[p.categories[e]] += p.toNs - p.fromNs;
                    perEngine[e][p.categories[e]] += p.toNs - p.fromNs;
                    CHECK((p.contexts[e] != kNoIndex)
                        == (p.categories[e] == LossCategory::RunningInConjunct
                            || p.categories[e] == LossCategory::RunningOutsideConjunct));
                }
            });
            CHECK(contiguous);
            CHECK(at == a.toNs);
            CHECK(total.ns == a.ledger.total.ns);
            for (size_t e = 0; e < perEngine.size(); ++e)
                CHECK(perEngine[e].ns == a.ledger.perEngine[e].ns);
        }
    }
}

TEST_CASE("a whole-program finding says how much of its time a site saw, not 'most' when it was less",
    "[core][analysis][findings]")
{
    // The steal trace's conjunction (fib.m:10, open [100,340)), then ctx 1 yields at 400 and waits
    // runnable with both engines idle until engine 0 runs it again at 600; it finishes at 650.
    // Work waiting: in the site, engine 1 [110,125) 15 (the spark, then ctx 2 created at 120: engine 1
    // posts no search), engine 0 [305,330) 25 and engine 1 [310,330) 20 = 60; outside it, both
    // engines [400,600) = 400. 460 of E × run = 1300 (35 %): the finding fires, and the site saw
    // 60 / 460 = 13 % of it.
    TraceBuilder b(2);
    b.internString(0, 1, "fib.m:10");
    b.createThread(0, 0, 1).runThread(0, 0, 1);
    b.startParConj(0, 100, 0xA, 1).sparkCreate(0, 110, 0xA, 5);
    b.createThread(1, 120, 2).runThread(1, 125, 2).sparkSteal(1, 130, 0, 5);
    b.endParConjunct(0, 200, 0xA).stopThread(0, 210, 1, kStopBlocked);
    b.endParConjunct(1, 300, 0xA).threadRunnable(1, 305, 1).stopThread(1, 310, 2, kStopFinished);
    b.runThread(0, 330, 1).endParConj(0, 340, 0xA).stopThread(0, 400, 1, kStopYielding);
    b.runThread(0, 600, 1).stopThread(0, 650, 1, kStopFinished);
    const AnalysisReport r = computeAnalysisReport(b.roundTrip());
    const Finding& waited = finding(r, "work_waited_for_engine");
    INFO(waited.text);
    CHECK(waited.site == "fib.m:10");
    CHECK(waited.text.find("(460 ns) while sparks or runnable contexts waited for an engine, 13% of it while the "
                           "conjunctions at fib.m:10 were open.")
        != std::string::npos);
    CHECK(waited.text.find("most of it") == std::string::npos);
}

namespace {

// The trace of the finding above, work waiting for an engine: 2 engines, ctx 1 running on engine 0
// throughout but for a collection on both [200,400); ctx 2 created at 500 and run by engine 1 only at
// 700. From our runtime when `ident` gives its RTS_IDENTIFIER's text.
Trace waitingTrace(const std::optional<std::string>& ident)
{
    TraceBuilder b(2);
    if (ident) {
        std::vector<uint8_t> payload { 0, 0, 0, 0 }; // the capset, then the text
        payload.insert(payload.end(), ident->begin(), ident->end());
        b.event(kNoEngine, 0, ev::RtsIdentifier, payload);
    }
    b.runThread(0, 0, 1).gcStart(0, 200).gcStart(1, 200).gcEnd(0, 400).gcEnd(1, 400);
    b.createThread(0, 500, 2).runThread(1, 700, 2).stopThread(1, 800, 2, kStopFinished);
    b.stopThread(0, 1000, 1, kStopFinished);
    return b.roundTrip();
}

} // namespace

TEST_CASE("work waiting for an engine at the runtime's context limit blames the limit, not the wake-up",
    "[core][analysis][findings]")
{
    // The trace above, from our runtime: its RTS_IDENTIFIER gives the live-context limit. One context
    // is created (ctx 2 at 500; ctx 1 was running from the start): with a limit of 1 the runtime was
    // at it, so the waiting work is the limit's doing; with 2 it was not, and the finding says what
    // it says without a limit.
    auto withLimit = [](std::optional<uint64_t> limit) {
        const Trace trace
            = waitingTrace(limit ? std::optional<std::string>("sparkscope-0.1.0 max-contexts=" + std::to_string(*limit))
                                 : std::nullopt);
        CHECK(contextLimitOf(trace) == limit);
        return finding(computeAnalysisReport(trace), "work_waited_for_engine").text;
    };
    const std::string atLimit = withLimit(1), belowLimit = withLimit(2), unknown = withLimit(std::nullopt);
    CHECK(atLimit.find("Live contexts reached the runtime's limit of 1") != std::string::npos);
    CHECK(belowLimit.find("limit") == std::string::npos);
    CHECK(belowLimit == unknown);
}

TEST_CASE("work waiting for an engine on more engines than CPUs blames their taking turns, not the wake-up",
    "[core][analysis][findings]")
{
    // The trace above (2 engines; ctx 2 runnable [500,700) while engine 1 is idle: 200 of E × run =
    // 2000, 10 % -> 100), from our runtime on 1 CPU, then on 2: with 1, the engines took turns on it,
    // and the advice is to run at most 1 engine; with 2 the finding is the one without a CPU count.
    auto onCpus = [](std::optional<uint64_t> cpus) {
        const Trace trace = waitingTrace(
            "sparkscope-0.1.0 max-contexts=128" + (cpus ? " cpus=" + std::to_string(*cpus) : std::string()));
        CHECK(cpusOf(trace) == cpus);
        CHECK_FALSE(flushMsOf(trace)); // written without a flush interval
        CHECK(contextLimitOf(trace) == std::optional<uint64_t>(128));
        const AnalysisReport r = computeAnalysisReport(trace);
        CHECK(finding(r, "work_waited_for_engine").recoverableNs == 100);
        return finding(r, "work_waited_for_engine").text;
    };
    const std::string shared = onCpus(1), enough = onCpus(2), unknown = onCpus(std::nullopt);
    CHECK(shared.find("The run had 2 engines on 1 CPU: the operating system ran them in turn") != std::string::npos);
    CHECK(shared.find("With 1 CPU, run at most 1 engine: each engine more only takes turns.") != std::string::npos);
    CHECK(shared.find("let engines look for work longer") == std::string::npos);
    CHECK(enough == unknown);
    CHECK(enough.find("CPU") == std::string::npos);
}

TEST_CASE("the context limit is read from our runtime's RTS_IDENTIFIER only", "[core][analysis][findings]")
{
    auto identified = [](const std::string& ident) { return contextLimitOf(waitingTrace(ident)); };
    CHECK(identified("sparkscope-0.1.0 max-contexts=128") == std::optional<uint64_t>(128));
    CHECK(identified("sparkscope-0.1.0 max-contexts=128 cpus=4") == std::optional<uint64_t>(128));
    CHECK_FALSE(identified("sparkscope-0.1.0")); // a trace of an older build
    CHECK_FALSE(identified("GHC-9.0.2 rts_thr"));
    CHECK_FALSE(identified("mmc-22.01 max-contexts=4")); // another runtime's text is not ours to read
    CHECK_FALSE(identified("sparkscope-0.1.0 max-contexts=x"));
}
