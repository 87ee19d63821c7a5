// The analysis (ledger, work and span, critical path) on hand-built traces: every expected value is
// worked out by hand in the comments. Traces go through the real writer and reader
// (TraceBuilder::roundTrip). Ledgers are written {running_in, running_out, gc, searching,
// work_available, blocked_future, blocked_barrier, blocked_other, no_work}.
#include "analysis_test_util.h"
#include "scenario_traces.h"
#include "sparkscope/core/analysis.h"
#include "sparkscope/core/reader.h"
#include "support/trace_builder.h"

#include <algorithm>

#include <catch2/catch.hpp>

using namespace sparkscope::core;
using sparkscope::test::checkLedger;
using sparkscope::test::ledgerOf;
using sparkscope::test::nestedTrace;
using sparkscope::test::pathOf;
using sparkscope::test::siteLedger;
using sparkscope::test::siteWorkSpan;
using sparkscope::test::stealTrace;
using sparkscope::test::TraceBuilder;

TEST_CASE("analysis of two engines with a steal", "[core][analysis]")
{
    // The steal trace (scenario_traces.h).
    const Analysis a = analyze(stealTrace());

    // Engine 0: ctx 1 runs [0,100) outside, [100,200) in G1, [200,210) outside, idle [210,330), runs
    // [330,400) outside. Idle: ctx 1 is Blocked at A's barrier [210,305) (G1 ended at 200, A open),
    // nothing else exists: blocked_barrier 95; ctx 1 Runnable [305,330): work_available 25.
    checkLedger(a.ledger.perEngine[0], ledgerOf({ 100, 180, 0, 0, 25, 0, 95, 0, 0 }));
    // Engine 1: idle [0,105) with nothing to do (the spark is created at 110): no_work 105; searching
    // [105,130) (the steal at 120 ran on no context, so the episode lasts to RUN_THREAD); ctx 2 runs
    // G2 [130,300) and [300,310) outside; idle [310,330) while ctx 1 is Runnable (work_available 20),
    // [330,400) no_work 70.
    checkLedger(a.ledger.perEngine[1], ledgerOf({ 170, 10, 0, 25, 20, 0, 0, 0, 175 }));
    checkLedger(a.ledger.total, ledgerOf({ 270, 190, 0, 25, 45, 0, 95, 0, 175 }));
    CHECK(a.ledger.total.totalNs() == 2 * 400);
    // fib.m:10 over A's span [100,340): engine 0 in 100, out 10 + 10, barrier 95, work 25; engine 1
    // no_work [100,105) + [330,340) = 15, searching 25, in 170, out 10, work [310,330) 20.
    const SiteLedger& site = siteLedger(a, "fib.m:10");
    CHECK(site.coveredNs == 240);
    checkLedger(site.ledger, ledgerOf({ 270, 30, 0, 25, 45, 0, 95, 0, 15 }));

    // DAG: G1 = [100,110) 10 | Create | [110,200) 90; G2 = [120,300) 170 (runs from 130).
    // Root of ctx 1 (R1): [0,100) 100 | Fork | [100,200) 0 | Return(G1) | [200,210) 10 | Join (the park
    // at 210) | [210,400) 70. Root of ctx 2: [125,300) 0 | Return(G2) | [300,310) 10.
    // Work 460 = the ledger's running. Depths: R1 100, G1 110 and 200, G2 (after G1's Create) 110 + 170
    // = 280, R1's Return node 200 + 10 = 210, the Join node max(210, 200, 280) + 70 = 350: the span.
    CHECK(a.workSpan.workNs == 460);
    CHECK(a.workSpan.workNs == a.ledger.total.runningNs());
    REQUIRE(a.workSpan.spanNs);
    CHECK(*a.workSpan.spanNs == 350);
    CHECK(*a.workSpan.parallelism == Approx(460.0 / 350));
    REQUIRE(a.workSpan.bounds.size() == 7);
    CHECK(a.workSpan.bounds[1].engines == 2);
    CHECK(a.workSpan.bounds[1].upper == Approx(460.0 / 350)); // min(2, 1.31)
    CHECK(a.workSpan.bounds[1].lower == Approx(460.0 / (460.0 / 2 + 350)));
    // A's sub-DAG: work G1 100 + G2 170 = 270; span max(200, 280) - 100 (the Fork's depth) = 180.
    const SiteWorkSpan& ws = siteWorkSpan(a, "fib.m:10");
    CHECK(ws.complete == 1);
    CHECK(ws.work.sum == 270);
    CHECK(ws.span.sum == 180);
    CHECK(ws.parallelism.mean == Approx(270.0 / 180));

    // Critical path, back from ctx 1's end at 400: its Join node runs [330,400); the last of its
    // dependencies met is G2's end at 300, so [300,305) ctx 1 still blocked (resume) and [305,330)
    // runnable. G2 runs [130,300); its spark was created at 110 (G1's Create): queued [110,120), then
    // taken but its context not yet running [120,130) (runnable). G1 runs [100,110) from the Fork; R1
    // runs [0,100). Running 350 = the span; waiting 10 + 10 + 5 + 25 = 50.
    CHECK(pathOf(a)
        == std::vector<std::string> { "running 0-100 c1/0", "running 100-110 c1/1", "spark_queued 110-120 c2/2",
            "runnable 120-130 c2/2", "running 130-300 c2/2", "resume 300-305 c1/0", "runnable 305-330 c1/0",
            "running 330-400 c1/0" });
    const CriticalPathReport& p = *a.criticalPath;
    CHECK(p.lengthNs == 400);
    CHECK(p.runningNs == 350);
    CHECK(p.waitingNs == 50);
    CHECK(p.byKind[size_t(PathKind::SparkQueued)] == 10);
    CHECK(p.byKind[size_t(PathKind::Runnable)] == 35);
    CHECK(p.byKind[size_t(PathKind::Resume)] == 5);
    CHECK(p.outsideConjunctNs == 200);
    REQUIRE(p.perConjunction.size() == 1);
    CHECK(p.perConjunction[0].ns == 200);
    CHECK(p.perConjunction[0].runningNs == 180);
}

TEST_CASE("analysis of a future whose wait suspends", "[core][analysis]")
{
    // The future trace (scenario_traces.h).
    const Analysis a = analyze(sparkscope::test::futureTrace());

    // Engine 0: out [0,100) + [180,185) + [210,230) = 125, in G1 [100,180) 80; idle [185,210): ctx 1
    // at the barrier [185,202) (17; ctx 2 runs until 205 but nothing waits on a future), Runnable
    // [202,210) (8).
    checkLedger(a.ledger.perEngine[0], ledgerOf({ 80, 125, 0, 0, 8, 0, 17, 0, 0 }));
    // Engine 1: idle [0,112): the spark sits in engine 0's deque [105,110) (5), else nothing (107).
    // ctx 2 runs G2 [112,120); the model blocks it at the suspending wait (120), not at the STOP_THREAD:
    // idle [120,160): blocked on the future [120,152) (32), Runnable [152,160) (8). G2 runs [160,200)
    // and [200,205) outside; idle [205,210) ctx 1 Runnable (5), [210,230) nothing (20).
    checkLedger(a.ledger.perEngine[1], ledgerOf({ 48, 5, 0, 0, 18, 32, 0, 0, 127 }));
    CHECK(a.ledger.total.totalNs() == 2 * 230);

    // DAG: G1 = [100,105) 5 | Create | [105,150) 45 | Signal | [150,180) 30; G2 = [110,120) 8 | Wait |
    // [120,200) 40; R1 = [0,100) 100 | Fork | [100,180) 0 | Return | [180,185) 5 | Join (park 185) |
    // [185,230) 20; R2 = [112,200) 0 | Return | [200,205) 5. Work 258.
    // Depths: G1 105, 150, 180; G2 105 + 8 = 113, then after the Wait max(113, Signal node 150) + 40 =
    // 190; R1's Join node max(185, 180, 190) + 20 = 210: the span.
    CHECK(a.workSpan.workNs == 258);
    CHECK(a.workSpan.workNs == a.ledger.total.runningNs());
    CHECK(*a.workSpan.spanNs == 210);
    // B's sub-DAG: work 80 + 48 = 128; span max(180, 190) - 100 = 90 (G1 to the signal 50, G2's rest 40).
    const SiteWorkSpan& ws = siteWorkSpan(a, "fib.m:10");
    CHECK(ws.work.sum == 128);
    CHECK(ws.span.sum == 90);

    // Critical path back from 230: R1's Join node runs [210,230); last met: G2's end at 200, then ctx
    // 1 blocked [200,202) and runnable [202,210). G2 runs [160,200) after its Wait; last met: the
    // signal at 150: ctx 2 blocked [150,152), runnable [152,160). G1 runs [100,150) to the signal, R1
    // [0,100). Running 100 + 50 + 40 + 20 = 210 = the span; waiting 2 + 8 + 2 + 8 = 20.
    CHECK(pathOf(a)
        == std::vector<std::string> { "running 0-100 c1/0", "running 100-150 c1/1", "resume 150-152 c2/2",
            "runnable 152-160 c2/2", "running 160-200 c2/2", "resume 200-202 c1/0", "runnable 202-210 c1/0",
            "running 210-230 c1/0" });
    CHECK(a.criticalPath->runningNs == 210);
    CHECK(a.criticalPath->byKind[size_t(PathKind::Resume)] == 4);
    CHECK(a.criticalPath->byKind[size_t(PathKind::Runnable)] == 16);
}

TEST_CASE("analysis of a nested conjunction with a context that waits runnable", "[core][analysis]")
{
    // nestedTrace() (scenario_traces.h): outer A from ctx 1, inner B inside G1, G2 stolen by engine 1,
    // ctx 1 runnable over [200, 215) until engine 1 runs it.
    const Analysis a = analyze(nestedTrace());

    // Engine 0: out [0,100) + [190,195), in [100,190); idle [195,196) at A's barrier (1), searching
    // [196,198), asleep [198,250): at the barrier [198,200) (2), ctx 1 Runnable [200,215) (15), then
    // nothing (35).
    checkLedger(a.ledger.perEngine[0], ledgerOf({ 90, 105, 0, 2, 15, 0, 3, 0, 35 }));
    // Engine 1: idle [0,112): nothing [0,105) (105), s1 in engine 0's deque [105,112) (7); searching
    // [112,125) and [210,215); G2 [125,200) in, [200,205) out; idle [205,210) ctx 1 Runnable (5); ctx 1
    // runs [215,240) outside; idle [240,250) (10).
    checkLedger(a.ledger.perEngine[1], ledgerOf({ 75, 30, 0, 18, 12, 0, 0, 0, 115 }));
    CHECK(a.ledger.total.totalNs() == 2 * 250);
    // outer's union [100,220): engine 0 in 90, out 5, barrier 1 + 2, searching 2, work 15, no_work
    // [215,220) 5; engine 1 no_work [100,105) 5, work [105,112) 7 + [205,210) 5, searching 13 + 5, in
    // 75, out 5 + 5.
    checkLedger(siteLedger(a, "outer").ledger, ledgerOf({ 165, 15, 0, 20, 27, 0, 3, 0, 10 }));
    // inner's union [110,180): engine 0 in 70; engine 1 work [110,112) 2, searching 13, in 55.
    checkLedger(siteLedger(a, "inner").ledger, ledgerOf({ 125, 0, 0, 13, 2, 0, 0, 0, 0 }));
    CHECK(siteLedger(a, "inner").coveredNs == 70);

    // DAG: G1 = [100,105) 5 | Create | [105,110) 5 | Fork B | [110,150) 0 | Return H1 | [150,175) 5 |
    // Return H2 | [175,180) 5 | Join B (no park) | [180,190) 10. H1 = [110,115) 5 | Create | [115,150) 35.
    // H2 = [155,175) 20. G2 = [120,200) 75. R1 = [0,100) 100 | Fork A | [100,190) 0 | Return G1 |
    // [190,195) 5 | Join A (park 195) | [195,240) 25. R2 = [122,200) 0 | Return | [200,205) 5. Work 300.
    // Depths: G1 105, 110, 110; H1 115, 150; H2 115 + 20 = 135; G1 after H1 155, after H2 160, after
    // B's join max(160, 150, 135) + 10 = 170; G2 105 + 75 = 180; R1 after G1 175, Join A max(175, 170,
    // 180) + 25 = 205: the span.
    CHECK(a.workSpan.workNs == 300);
    CHECK(a.workSpan.workNs == a.ledger.total.runningNs());
    CHECK(*a.workSpan.spanNs == 205);
    // A: work G1 30 + B 60 + G2 75 = 165, span max(170, 180) - 100 = 80. B: work 40 + 20 = 60, span
    // max(150, 135) - 110 (G1's node before the Fork) = 40.
    CHECK(siteWorkSpan(a, "outer").work.sum == 165);
    CHECK(siteWorkSpan(a, "outer").span.sum == 80);
    CHECK(siteWorkSpan(a, "inner").work.sum == 60);
    CHECK(siteWorkSpan(a, "inner").span.sum == 40);

    // Critical path back from 240: R1's Join node runs [215,240) on engine 1; last met G2's end at
    // 200; ctx 1 runnable [200,215). G2 runs [125,200); its spark (G1's Create at 105) queued until the
    // steal at 120, its context not running until 125. G1 [100,105), R1 [0,100).
    CHECK(pathOf(a)
        == std::vector<std::string> { "running 0-100 c1/0", "running 100-105 c1/1", "spark_queued 105-120 c2/2",
            "runnable 120-125 c2/2", "running 125-200 c2/2", "runnable 200-215 c1/0", "running 215-240 c1/0" });
    CHECK(a.criticalPath->runningNs == *a.workSpan.spanNs);
    CHECK(a.criticalPath->lengthNs == 240);
    CHECK(a.criticalPath->segments.back().engine == 1); // ctx 1 resumed on the other engine
}

TEST_CASE("analysis of a run with a garbage collection", "[core][analysis]")
{
    TraceBuilder b(2);
    b.internString(0, 1, "gc.m:1");
    // ctx 1 on engine 0: A from 50, G2's spark at 60; engine 1 steals it at 70 and ctx 2 runs G2 from
    // 80. Both engines collect garbage [100,150). G2 ends at 180 (ctx 2 finishes at 185); G1 ends at
    // 200, last, so ctx 1 does not park: END_PAR_CONJ at 205; ctx 1 finishes at 300.
    b.runThread(0, 0, 1).startParConj(0, 50, 0xA, 1).sparkCreate(0, 60, 0xA, 9);
    b.sparkSteal(1, 70, 0, 9).runThread(1, 80, 2);
    b.gcStart(0, 100).gcStart(1, 100).gcEnd(0, 150).gcEnd(1, 150);
    b.endParConjunct(1, 180, 0xA).stopThread(1, 185, 2, kStopFinished);
    b.endParConjunct(0, 200, 0xA).endParConj(0, 205, 0xA).stopThread(0, 300, 1, kStopFinished);
    const Analysis a = analyze(b.roundTrip());

    // Engine 0: out [0,50) + [200,300), in [50,100) + [150,200), gc 50. Engine 1: idle [0,80) (the
    // spark in the deque [60,70): work 10; else no_work 70), in [80,100) + [150,180), gc 50, out
    // [180,185), idle [185,300) no_work 115.
    checkLedger(a.ledger.perEngine[0], ledgerOf({ 100, 150, 50, 0, 0, 0, 0, 0, 0 }));
    checkLedger(a.ledger.perEngine[1], ledgerOf({ 50, 5, 50, 0, 10, 0, 0, 0, 185 }));
    checkLedger(siteLedger(a, "gc.m:1").ledger, ledgerOf({ 150, 10, 100, 0, 10, 0, 0, 0, 40 })); // over [50,205)

    // Node weights leave the collection out: G1 = [50,60) 10 | Create | [60,200) 140 - 50 = 90; G2 =
    // [70,180) 100 - 50 = 50; R1 = [0,50) 50 | Fork | [50,200) 0 | Return | [200,205) 5 | Join (at
    // END_PAR_CONJ: no park) | [205,300) 95; R2's [180,185) 5. Work 305. Depths: G1 60, 150; G2 110;
    // R1 after G1 155, Join max(155, 150, 110) + 95 = 250: the span.
    CHECK(a.workSpan.workNs == 305);
    CHECK(a.workSpan.workNs == a.ledger.total.runningNs());
    CHECK(*a.workSpan.spanNs == 250);
    CHECK(siteWorkSpan(a, "gc.m:1").span.sum == 100); // max(150, 110) - 50

    // Critical path: R1 [200,300) (its Return node's last dependency is G1's end, from the same
    // context, preferred to R1's own previous node met at the same instant), G1 [50,200) with the
    // collection [100,150) as a gc wait, R1 [0,50). Running 250 = the span.
    CHECK(pathOf(a)
        == std::vector<std::string> { "running 0-50 c1/0", "running 50-100 c1/1", "gc 100-150 c1/1",
            "running 150-200 c1/1", "running 200-300 c1/0" });
    CHECK(a.criticalPath->byKind[size_t(PathKind::Gc)] == 50);
    CHECK(a.criticalPath->runningNs == 250);
}

TEST_CASE("a context stopped for a collection waits on the critical path as gc, as one the collection interrupts",
    "[core][analysis]")
{
    // The trace above, with each context stopped (STOP_THREAD status 1, as Mercury's runtime posts
    // before it collects) at 100 and run again at 150: the context is runnable in the collection
    // either way, and the path's wait there is the collection's, on engine 0.
    TraceBuilder b(2);
    b.internString(0, 1, "gc.m:1");
    b.runThread(0, 0, 1).startParConj(0, 50, 0xA, 1).sparkCreate(0, 60, 0xA, 9);
    b.sparkSteal(1, 70, 0, 9).runThread(1, 80, 2);
    b.stopThread(0, 100, 1, 1).stopThread(1, 100, 2, 1);
    b.gcStart(0, 100).gcStart(1, 100).gcEnd(0, 150).gcEnd(1, 150);
    b.runThread(0, 150, 1).runThread(1, 150, 2);
    b.endParConjunct(1, 180, 0xA).stopThread(1, 185, 2, kStopFinished);
    b.endParConjunct(0, 200, 0xA).endParConj(0, 205, 0xA).stopThread(0, 300, 1, kStopFinished);
    const Analysis a = analyze(b.roundTrip());
    CHECK(pathOf(a)
        == std::vector<std::string> { "running 0-50 c1/0", "running 50-100 c1/1", "gc 100-150 c1/1",
            "running 150-200 c1/1", "running 200-300 c1/0" });
    CHECK(a.criticalPath->byKind[size_t(PathKind::Gc)] == 50);
    CHECK(a.criticalPath->byKind[size_t(PathKind::Runnable)] == 0);
    CHECK(*a.workSpan.spanNs == 250);
}

TEST_CASE("analysis of a range counts only the range", "[core][analysis]")
{
    // The steal trace, analysed over [150, 350).
    AnalysisOptions options;
    options.fromNs = 150;
    options.toNs = 350;
    const Analysis a = analyze(stealTrace(), options);
    // Engine 0: in [150,200) 50, out [200,210) + [330,350) 30, barrier [210,305) 95, work [305,330)
    // 25. Engine 1: in [150,300) 150, out 10, work [310,330) 20, no_work [330,350) 20.
    checkLedger(a.ledger.total, ledgerOf({ 200, 40, 0, 0, 45, 0, 95, 0, 20 }));
    // Work in the range: the running above (240). Span with the weights clipped to the range: G1's
    // second node 50, G2 150 ([150,300)), R1's Return node 10 and Join node 20 ([330,350)), R2's 10:
    // the heaviest path is G2 then R1's Join node, 170.
    CHECK(a.workSpan.workNs == 240);
    CHECK(*a.workSpan.spanNs == 170);
    // The whole run's critical path clipped to the range: G2 running [150,300), resume [300,305),
    // runnable [305,330), running [330,350).
    REQUIRE(a.criticalPath);
    CHECK(a.criticalPath->fromNs == 150);
    CHECK(a.criticalPath->toNs == 350);
    CHECK(a.criticalPath->runningNs == 170);
    CHECK(a.criticalPath->waitingNs == 30);
}

TEST_CASE("a future signalled outside a nested conjunction that waits on it", "[core][analysis]")
{
    TraceBuilder b(2);
    b.internString(0, 1, "outer").internString(0, 3, "inner").internString(0, 2, "X");
    // ctx 1 on engine 0: future X at 90, outer A from 100 (G1), G2's spark at 105; G1 signals X at
    // 150 (waking ctx 2 at 151) and ends at 200, last: A ends at 205 without a park; ctx 1 ends at 220.
    b.runThread(0, 0, 1).futureCreate(0, 90, 0xF, 2).startParConj(0, 100, 0xA, 1).sparkCreate(0, 105, 0xA, 1);
    b.futureSignal(0, 150, 0xF).threadRunnable(0, 151, 2);
    b.endParConjunct(0, 200, 0xA).endParConj(0, 205, 0xA).stopThread(0, 220, 1, kStopFinished);
    // Engine 1 steals G2 at 110 (ctx 2 from 112). G2 starts inner B at 120 (H1 in ctx 2), H2's spark at
    // 125; H1 waits on X at 130 and suspends; engine 1 takes H2 at 133 and ctx 3 runs it [135,145).
    // ctx 2 runs again at 155, H1 ends at 170, B at 172 (no park: H2 is done), G2 at 180.
    b.sparkSteal(1, 110, 0, 1).runThread(1, 112, 2).startParConj(1, 120, 0xB, 3).sparkCreate(1, 125, 0xB, 2);
    b.futureWaitSuspended(1, 130, 0xF).stopThread(1, 131, 2, kStopBlocked);
    b.lookingForLocal(1, 132).sparkRun(1, 133, 2).createThread(1, 134, 3).runThread(1, 135, 3);
    b.endParConjunct(1, 145, 0xB).stopThread(1, 146, 3, kStopFinished);
    b.runThread(1, 155, 2).endParConjunct(1, 170, 0xB).endParConj(1, 172, 0xB);
    b.endParConjunct(1, 180, 0xA).stopThread(1, 185, 2, kStopFinished);
    AnalysisOptions options;
    options.instances = true;
    const Analysis a = analyze(b.roundTrip(), options);

    // Nodes: G1 [100,105) 5 | Create | [105,150) 45 | Signal | [150,200) 50. G2 [110,120) 8 | Fork B |
    // [120,170) 0 | Return H1 | [170,172) 2 | Join B | [172,180) 8. H1 [120,125) 5 | Create | [125,130) 5
    // | Wait X | [130,170) 15. H2 [133,145) 10. R1 [0,100) 100 | Fork A | [100,200) 0 | Return G1 |
    // [200,205) 5 | Join A | [205,220) 15; R2's [180,185) 5; R3's [145,146) 1. Work 279.
    // Depths: G1 105, 150, 200; G2 113, 113; H1 118, 123, then max(123, G1's Signal node 150) + 15 =
    // 165; H2 118 + 10 = 128; G2 max(113, 165) + 2 = 167, max(167, 165, 128) + 8 = 175; R1 205, then
    // max(205, 200, 175) + 15 = 220: the span.
    CHECK(a.workSpan.workNs == 279);
    CHECK(*a.workSpan.spanNs == 220);
    // A: work 100 + 18 + 35 = 153, span max(200, 175) - 100 = 100. B is entered from outside by the
    // wait on X, so depth - depth(Fork) would count G1's way to the signal (165 - 113 = 52); its own
    // sub-DAG's longest path is H1 alone, 5 + 5 + 15 = 25 (the wait's edge comes from outside it).
    const SiteWorkSpan& outer = siteWorkSpan(a, "outer");
    const SiteWorkSpan& inner = siteWorkSpan(a, "inner");
    REQUIRE(outer.instances.size() == 1);
    REQUIRE(inner.instances.size() == 1);
    CHECK(outer.instances[0].workNs == 153);
    CHECK(outer.instances[0].spanNs == 100);
    CHECK(inner.instances[0].workNs == 35);
    CHECK(inner.instances[0].spanNs == 25);
    // The path is ctx 1 all along: R1 [200,220) after G1's end (a dependency from another strand
    // preferred to R1's own node at the same instant), G1 [100,200), R1 [0,100).
    CHECK(
        pathOf(a) == std::vector<std::string> { "running 0-100 c1/0", "running 100-200 c1/1", "running 200-220 c1/0" });
}

TEST_CASE("searching covers a free context's search and lasts until the engine finds work or stops", "[core][analysis]")
{
    TraceBuilder b(2);
    b.internString(0, 1, "s.m:1");
    // Engine 0: ctx 1 runs from 0, starts A at 10 (G1), sparks G2 at 15; G1 ends at 30; ctx 1 parks at
    // 35, is woken at 41, runs again at 45, ends A at 48, finishes at 55; the engine stops at 58.
    b.runThread(0, 0, 1).startParConj(0, 10, 0xA, 1).sparkCreate(0, 15, 0xA, 1);
    b.endParConjunct(0, 30, 0xA).stopThread(0, 35, 1, kStopBlocked);
    b.runThread(0, 45, 1).endParConj(0, 48, 0xA).stopThread(0, 55, 1, kStopFinished).event(0, 58, ev::Shutdown);
    // Engine 1 steals G2 at 20 (no search posted) and ctx 2 runs it [22,40), wakes ctx 1 at 41; still
    // running, ctx 2 looks for more work from 42 (our runtime's free context), finds none, finishes
    // at 46 and is released at 47; the engine goes on searching without posting until it stops at 60.
    b.sparkSteal(1, 20, 0, 1).runThread(1, 22, 2).endParConjunct(1, 40, 0xA).threadRunnable(1, 41, 1);
    b.lookingForGlobal(1, 42).lookingForLocal(1, 43).workStealing(1, 44).stopThread(1, 46, 2, kStopFinished);
    b.releaseContext(1, 47, 2).event(1, 60, ev::Shutdown);
    b.endAt(100);
    const Analysis a = analyze(b.roundTrip());
    // Engine 0: out [0,10) + [30,35) + [45,55), in [10,30); idle [35,41) at the barrier, [41,45) ctx 1
    // Runnable, [55,100) nothing (SHUTDOWN opens no search: none was going on).
    checkLedger(a.ledger.perEngine[0], ledgerOf({ 20, 25, 0, 0, 4, 0, 6, 0, 45 }));
    // Engine 1: idle [0,15) nothing, [15,20) the spark in engine 0's deque, [20,22) nothing (the
    // spark taken, its context not yet there); in [22,40), out [40,42); searching [42,60) although
    // ctx 2 still runs until 46; idle [60,100) after SHUTDOWN.
    checkLedger(a.ledger.perEngine[1], ledgerOf({ 18, 2, 0, 18, 5, 0, 0, 0, 57 }));
    // Work leaves the search on ctx 2 out: ctx 1 45 + ctx 2 [22,42) 20 = 65, the ledger's running.
    CHECK(a.workSpan.workNs == 65);
    // Span: R1 [0,10) 10, G1 15 + 5 + 15 = 30, G2 after G1's Create (15) + 18 = 33, R1 after G1 35,
    // R1's Join node (the park at 35) max(35, 30, 33) + [45,55) 10 = 45.
    CHECK(*a.workSpan.spanNs == 45);
}

TEST_CASE(
    "a context that started after the first one ended, depending on nothing, is named in a note", "[core][analysis]")
{
    // Two Runtime::run calls one after the other on one engine: ctx 1 runs [0,100), the host runs its
    // own code, ctx 2 runs [150,250). Nothing in the trace links them, so the DAG takes them as side
    // by side: work 200, span 100 (the longer alone), and the critical path walks back from 250 to
    // ctx 2's start at 150 and stops there. The note says so, naming both instants.
    TraceBuilder b(1);
    b.runThread(0, 0, 1).stopThread(0, 100, 1, kStopFinished);
    b.runThread(0, 150, 2).stopThread(0, 250, 2, kStopFinished);
    b.endAt(300);
    const Analysis a = analyze(b.roundTrip());
    CHECK(a.workSpan.workNs == 200);
    CHECK(*a.workSpan.spanNs == 100);
    CHECK(pathOf(a) == std::vector<std::string> { "running 150-250 c2/0" });
    const auto note = std::find_if(a.notes.begin(), a.notes.end(),
        [](const std::string& n) { return n.rfind("the critical path starts at 150 ns", 0) == 0; });
    REQUIRE(note != a.notes.end());
    CHECK(note->find("after the first context ran (at 0 ns)") != std::string::npos);
    CHECK(note->find("truncated") == std::string::npos);
    // The same file without its end-of-data marker: truncated, and the note says the maker may be lost.
    std::vector<uint8_t> cut = b.eventlogBytes();
    cut.resize(cut.size() - 2);
    const auto truncated = sparkscope::core::readTraceFromBytes(std::move(cut));
    REQUIRE(truncated);
    REQUIRE(truncated.value().truncated);
    const Analysis t = analyze(truncated.value());
    CHECK(std::any_of(t.notes.begin(), t.notes.end(), [](const std::string& n) {
        return n.rfind("the critical path starts at 150 ns", 0) == 0
            && n.find("the trace is truncated: what made that context may be among the events lost") != std::string::npos;
    }));
    // A run whose path reaches back to its first context has no such note.
    const Analysis steal = analyze(sparkscope::test::stealTrace());
    CHECK(std::none_of(steal.notes.begin(), steal.notes.end(),
        [](const std::string& n) { return n.find("the critical path starts at") != std::string::npos; }));
}
