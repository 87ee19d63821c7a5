// Metrics on hand-built traces: every expected value below is worked out by hand in the comments.
// Traces go through the real writer and reader (TraceBuilder::roundTrip).
#include "metric_field.h"
#include "scenario_traces.h"
#include "sparkscope/core/check_model.h"
#include "sparkscope/core/metrics.h"
#include "sparkscope/core/metrics_query.h"
#include "sparkscope/core/reader.h"
#include "support/trace_builder.h"

#include <catch2/catch.hpp>

using namespace sparkscope::core;
using sparkscope::test::field;
using sparkscope::test::TraceBuilder;

namespace {

const Stat& stat(const Metrics& m, const std::string& section, const std::string& id, const std::string& key)
{
    const MetricValue* v = m.find(section, id, key);
    INFO(section << "/" << id << "/" << key);
    REQUIRE(v);
    REQUIRE(v->stat);
    return *v->stat;
}

const Stat& subStat(const Metrics& m, const std::string& section, const std::string& id, const std::string& key,
    const std::string& name)
{
    const MetricValue* v = m.find(section, id, key);
    REQUIRE(v);
    for (const auto& [k, s] : v->subStats)
        if (k == name)
            return s;
    FAIL("no sub-statistic " << name);
    static Stat none;
    return none;
}

} // namespace

TEST_CASE("metrics of a two-conjunct conjunction across two engines", "[core][metrics]")
{
    // The steal trace (scenario_traces.h).
    const Trace trace = sparkscope::test::stealTrace();
    CHECK(checkModel(trace).empty());
    const Metrics m = computeMetrics(trace);

    // PARCONJ_TIME = 340 - 100 = 240
    CHECK(stat(m, "conjunctions", "fib.m:10", "PARCONJ_TIME").mean == 240);
    // G1: as context [100,200) all running; after = 340 - 200 = 140.
    CHECK(stat(m, "conjuncts", "fib.m:10/1", "CONJUNCT_TIME_AS_CONTEXT").sum == 100);
    CHECK(stat(m, "conjuncts", "fib.m:10/1", "CONJUNCT_TIME_RUNNING").sum == 100);
    CHECK(stat(m, "conjuncts", "fib.m:10/1", "CONJUNCT_TIME_AFTER").sum == 140);
    CHECK(m.find("conjuncts", "fib.m:10/1", "CONJUNCT_TIME_AS_SPARK") == nullptr); // absent for G1
    // G2: spark 110 -> 120 = 10; as context [120,300) = 180: runnable [120,130) while no context ran
    // it, running [130,300) = 170; after = 340 - 300 = 40.
    CHECK(stat(m, "conjuncts", "fib.m:10/2", "CONJUNCT_TIME_AS_SPARK").sum == 10);
    CHECK(stat(m, "conjuncts", "fib.m:10/2", "CONJUNCT_TIME_AS_CONTEXT").sum == 180);
    CHECK(stat(m, "conjuncts", "fib.m:10/2", "CONJUNCT_TIME_RUNNABLE").sum == 10);
    CHECK(stat(m, "conjuncts", "fib.m:10/2", "CONJUNCT_TIME_RUNNING").sum == 170);
    CHECK(stat(m, "conjuncts", "fib.m:10/2", "CONJUNCT_TIME_BLOCKED").sum == 0);
    CHECK(stat(m, "conjuncts", "fib.m:10/2", "CONJUNCT_TIME_AFTER").sum == 40);

    // RUNNABLE_SELF over [100,340): [100,110) 1, [110,200) 2, [200,300) 1, [300,340) 0
    //   integral 10 + 180 + 100 = 290, max 2.
    CHECK(subStat(m, "conjunctions", "fib.m:10", "PARCONJ_RUNNABLE_SELF", "max").mean == 2);
    CHECK(subStat(m, "conjunctions", "fib.m:10", "PARCONJ_RUNNABLE_SELF", "average").mean == Approx(290.0 / 240));
    // RUNNING_SELF: [100,130) 1, [130,200) 2, [200,300) 1: integral 30 + 140 + 100 = 270.
    CHECK(subStat(m, "conjunctions", "fib.m:10", "PARCONJ_RUNNING_SELF", "average").mean == Approx(270.0 / 240));
    CHECK(
        subStat(m, "conjunctions", "fib.m:10", "PARCONJ_RUNNING_SELF_AND_DESC", "average").mean == Approx(270.0 / 240));
    // CPUS: engine 0 runs [0,210) and [330,400), engine 1 [130,310).
    // AVAIL = 2 - CPUS + RUNNING_SELF_AND_DESC: [100,130) 2, [130,200) 2, [200,210) 1, [210,300) 2,
    //   [300,310) 1, [310,330) 2, [330,340) 1: integral 60+140+10+180+10+40+10 = 450.
    CHECK(subStat(m, "conjunctions", "fib.m:10", "PARCONJ_AVAIL_CPUS", "max").mean == 2);
    CHECK(subStat(m, "conjunctions", "fib.m:10", "PARCONJ_AVAIL_CPUS", "average").mean == Approx(450.0 / 240));
    // Starts and ends on engine 0: continue-on-before 1; the last conjunct (G2) ended on engine 1: 0.
    CHECK(stat(m, "conjunctions", "fib.m:10", "PARCONJ_CONTINUE_ON_BEFORE").mean == 1);
    CHECK(stat(m, "conjunctions", "fib.m:10", "PARCONJ_CONTINUE_ON_LAST").mean == 0);

    // CPUS_OVER_TIME over [0,400): running 210 + 70 + 180 = 460 ns.
    CHECK(m.cpusOverTime.integral(0, 400) == 460);
    CHECK(field(m, "program", "all", "CPUS_OVER_TIME", "average") == Approx(460.0 / 400));
    CHECK(field(m, "program", "all", "CPUS_OVER_TIME", "fraction_at_2") == Approx(80.0 / 400)); // [130,210)
    // Engine 1: one search episode from 105, success (steal) at 120: 15 ns; local 1 try 0 successes.
    CHECK(stat(m, "engines", "1", "ENGINE_TIME_TO_FIND_WORK").sum == 15);
    CHECK(field(m, "engines", "1", "ENGINE_SEARCH_SUCCESS", "steal_successes") == 1);
    CHECK(field(m, "engines", "1", "ENGINE_SEARCH_SUCCESS", "local_deque_tries") == 1);
    CHECK(field(m, "engines", "1", "ENGINE_SEARCH_SUCCESS", "local_deque_successes") == 0);
    CHECK(field(m, "engines", "1", "SPARK_COUNTS", "stolen") == 1);
    CHECK(field(m, "engines", "0", "SPARK_COUNTS", "created") == 1);
    // Deque of engine 0: 1 during [110,120), over [0,400): max 1, average 10/400.
    CHECK(field(m, "engines", "0", "SPARK_DEQUE_SIZE", "max") == 1);
    CHECK(field(m, "engines", "0", "SPARK_DEQUE_SIZE", "average") == Approx(10.0 / 400));
    // ctx 1 blocked on engine 0 and resumed on engine 0.
    CHECK(field(m, "engines", "all", "CONTEXT_RESUME_LOCALITY", "fraction") == 1);
    // Out of order: G1 never waits, so 0 of the time when G1 [100,200) or G2 [130,300) runs (200 ns).
    CHECK(field(m, "scheduling", "fib.m:10", "OUT_OF_ORDER_PROBABILITY", "out_of_order_ns") == 0);
    CHECK(field(m, "scheduling", "fib.m:10", "OUT_OF_ORDER_PROBABILITY", "either_running_ns") == 200);
}

TEST_CASE("a collection interrupts the conjunct running on its engine: AVAIL_CPUS stays within the engines",
    "[core][metrics]")
{
    // 2 engines, run [0,400). ctx 1 on engine 0 starts gc.m:1 (0xA) at 100 and sparks G2 at 101;
    // engine 1 steals it at 110 and ctx 2 runs it until 290, but engine 1 collects garbage [200,250)
    // with no STOP_THREAD around it. G1 ends at 300 and the conjunction with it.
    TraceBuilder b(2);
    b.internString(0, 1, "gc.m:1");
    b.runThread(0, 0, 1).startParConj(0, 100, 0xA, 1).sparkCreate(0, 101, 0xA, 1);
    b.sparkSteal(1, 110, 0, 1).runThread(1, 110, 2).gcStart(1, 200).gcEnd(1, 250);
    b.endParConjunct(1, 290, 0xA).stopThread(1, 291, 2, kStopFinished);
    b.endParConjunct(0, 300, 0xA).endParConj(0, 300, 0xA).stopThread(0, 400, 1, kStopFinished);
    const Metrics m = computeMetrics(b.roundTrip());
    // Over [100,300): CPUS_OVER_TIME 1, 2 from 110, 1 in the collection, 2 after it until 291. G2
    // runs only when its engine does: RUNNING_SELF 1, 2 on [110,200) and [250,290): 10 + 180 + 50 +
    // 80 + 10 = 330.
    // So CPUS − RUNNING_SELF_AND_DESC is 0 but on [290,291), where ctx 2 runs outside the
    // conjunction: AVAIL_CPUS 2, and 1 there: (2 × 200 − 1) / 200. (It was 3 in the collection when
    // G2 counted as running there.)
    CHECK(subStat(m, "conjunctions", "gc.m:1", "PARCONJ_RUNNING_SELF", "max").mean == 2);
    CHECK(subStat(m, "conjunctions", "gc.m:1", "PARCONJ_RUNNING_SELF", "average").mean == Approx(330.0 / 200));
    CHECK(subStat(m, "conjunctions", "gc.m:1", "PARCONJ_AVAIL_CPUS", "max").mean == 2);
    CHECK(subStat(m, "conjunctions", "gc.m:1", "PARCONJ_AVAIL_CPUS", "average").mean == Approx(399.0 / 200));
    // G2 can still make progress in the collection: RUNNABLE_SELF 1, 2 on [101,290): 1 + 378 + 10.
    CHECK(subStat(m, "conjunctions", "gc.m:1", "PARCONJ_RUNNABLE_SELF", "average").mean == Approx(389.0 / 200));
    // G2's 180 ns as a context: running 90 + 40, runnable in the collection 50 (the three still add up).
    CHECK(stat(m, "conjuncts", "gc.m:1/2", "CONJUNCT_TIME_AS_CONTEXT").sum == 180);
    CHECK(stat(m, "conjuncts", "gc.m:1/2", "CONJUNCT_TIME_RUNNING").sum == 130);
    CHECK(stat(m, "conjuncts", "gc.m:1/2", "CONJUNCT_TIME_RUNNABLE").sum == 50);
    CHECK(stat(m, "conjuncts", "gc.m:1/2", "CONJUNCT_TIME_BLOCKED").sum == 0);
}

TEST_CASE("CONTEXT_COUNTS counts a context made for a spark, and a GHC spark thread once", "[core][metrics]")
{
    // Context 1: CREATE_THREAD (main). Context 2: CREATE_SPARK_THREAD alone, as Mercury and our
    // runtime post for a context made to run a spark; released at 310. Context 3: GHC's spark
    // thread, CREATE_THREAD then CREATE_SPARK_THREAD for the same live thread: one creation.
    TraceBuilder b(2);
    b.createThread(0, 100, 1).runThread(0, 110, 1);
    b.createSparkThread(1, 200, 2).runThread(1, 210, 2).stopThread(1, 300, 2, 5).releaseContext(1, 310, 2);
    b.createThread(1, 400, 3).createSparkThread(1, 401, 3).runThread(1, 410, 3).stopThread(1, 500, 3, 5);
    b.stopThread(0, 600, 1, 5);
    const Trace trace = b.roundTrip();
    const Metrics m = computeMetrics(trace);
    CHECK(field(m, "program", "all", "CONTEXT_COUNTS", "created") == 3);
    CHECK(field(m, "program", "all", "CONTEXT_COUNTS", "reused") == 0);
    CHECK(field(m, "program", "all", "CONTEXT_COUNTS", "released") == 1);
    CHECK(m.model.contexts.size() == 3);
    // Context 2 exists from its creation: runnable [200,210) before it runs.
    CHECK(m.model.contexts[1].id == 2);
    CHECK(m.model.contexts[1].segments.front().startNs == 200);
}

TEST_CASE("metrics of futures waited on before and after their signal", "[core][metrics]")
{
    // The future trace (scenario_traces.h).
    const Trace trace = sparkscope::test::futureTrace();
    CHECK(checkModel(trace).empty());
    const Metrics m = computeMetrics(trace);
    const std::string id = "fib.m:10/X";
    // First wait of the one consumer (G2): 120 - 150 = -30 (suspended 30 ns).
    CHECK(stat(m, "futures", id, "FUTURE_SUSPEND_TIME_FIRST_WAITS").count == 1);
    CHECK(stat(m, "futures", id, "FUTURE_SUSPEND_TIME_FIRST_WAITS").sum == -30);
    // All waits: -30 and 170 - 150 = +20: mean -5, variance ((-25)^2 + 25^2) / 2 = 625.
    const Stat& all = stat(m, "futures", id, "FUTURE_SUSPEND_TIME_ALL_WAITS");
    CHECK(all.count == 2);
    CHECK(all.min == -30);
    CHECK(all.max == 20);
    CHECK(all.mean == -5);
    CHECK(all.variance == 625);
    CHECK(field(m, "futures", id, "FUTURE_SUSPEND_PROBABILITY_FIRST_WAIT", "probability") == 1);
    CHECK(field(m, "futures", id, "FUTURE_SUSPEND_PROBABILITY_ALL_WAITS", "probability") == 0.5);
    // Signal at 150 by G1, which ends at 180: 30; someone was blocked, so the WAITED variant too.
    CHECK(stat(m, "futures", id, "FUTURE_SIGNAL_TO_CONJUNCT_END_TIME").sum == 30);
    CHECK(stat(m, "futures", id, "WAITED_FUTURE_SIGNAL_TO_CONJUNCT_END_TIME").sum == 30);
    // G2 [110,200) = 90: runnable [110,112) unbound + [152,160) woken = 10, running [112,120) +
    // [160,200) = 48, blocked from the suspending wait at 120 to the wake-up at 152 = 32.
    CHECK(stat(m, "conjuncts", "fib.m:10/2", "CONJUNCT_TIME_BLOCKED").sum == 32);
    CHECK(stat(m, "conjuncts", "fib.m:10/2", "CONJUNCT_TIME_RUNNABLE").sum == 10);
    CHECK(stat(m, "conjuncts", "fib.m:10/2", "CONJUNCT_TIME_RUNNING").sum == 48);
}

TEST_CASE("metrics of nested conjunctions count descendants and out-of-order scheduling", "[core][metrics]")
{
    TraceBuilder b(2);
    b.internString(0, 1, "outer").internString(0, 3, "inner");
    // ctx 1 on engine 0: A = (G1 & G2) starts at 100, G2's spark s1 at 110; inside G1, B = (H1 & H2)
    // starts at 120, H2's spark s2 at 125; H1 ends at 150; ctx 1 runs s2 itself at 160 (H2 until 170);
    // B ends at 175; G1 ends at 190; ctx 1 blocks at 195, resumes at 210 and ends A at 220.
    b.runThread(0, 0, 1).startParConj(0, 100, 0xA, 1).sparkCreate(0, 110, 0xA, 1);
    b.startParConj(0, 120, 0xB, 3).sparkCreate(0, 125, 0xB, 2).endParConjunct(0, 150, 0xB);
    b.sparkRun(0, 160, 2).endParConjunct(0, 170, 0xB).endParConj(0, 175, 0xB);
    b.endParConjunct(0, 190, 0xA).stopThread(0, 195, 1, kStopBlocked);
    // engine 1 steals s1 (G2) at 130 and runs it in ctx 2 until 200.
    b.sparkSteal(1, 130, 0, 1).runThread(1, 130, 2).endParConjunct(1, 200, 0xA).stopThread(1, 205, 2, kStopFinished);
    b.threadRunnable(1, 206, 1).runThread(0, 210, 1).endParConj(0, 220, 0xA).stopThread(0, 230, 1, kStopFinished);
    const Trace trace = b.roundTrip();
    CHECK(checkModel(trace).empty());
    const Metrics m = computeMetrics(trace);
    const ParModel& pm = m.model;
    REQUIRE(pm.conjunctions.size() == 2);
    CHECK(pm.conjunctions[1].parentConjunct == pm.conjunctions[0].conjuncts[0]); // B inside A's G1
    CHECK(pm.conjunctions[1].depth == 1);
    // A over [100,220): RUNNABLE_SELF: G1 [100,190) + G2 spark [110,130) and running [130,200):
    //   [100,110) 1, [110,190) 2, [190,200) 1: integral 10 + 160 + 10 = 180, max 2.
    CHECK(subStat(m, "conjunctions", "outer", "PARCONJ_RUNNABLE_SELF", "average").mean == Approx(180.0 / 120));
    // RUNNABLE_SELF_AND_DESC: ctx 1's innermost conjunct is always in A's tree during [100,190) (1),
    //   plus H2's spark [125,160) (1), plus G2 [110,200) (1):
    //   [100,110) 1, [110,125) 2, [125,160) 3, [160,190) 2, [190,200) 1: 10+30+105+60+10 = 215, max 3.
    CHECK(subStat(m, "conjunctions", "outer", "PARCONJ_RUNNABLE_SELF_AND_DESC", "max").mean == 3);
    CHECK(subStat(m, "conjunctions", "outer", "PARCONJ_RUNNABLE_SELF_AND_DESC", "average").mean == Approx(215.0 / 120));
    // RUNNING_SELF_AND_DESC: ctx 1 [100,190) and ctx 2 [130,200): 90 + 70 = 160, max 2.
    CHECK(subStat(m, "conjunctions", "outer", "PARCONJ_RUNNING_SELF_AND_DESC", "average").mean == Approx(160.0 / 120));
    // B over [120,175): H1 [120,150), H2 spark [125,160) then running [160,170):
    //   [120,125) 1, [125,150) 2, [150,170) 1: 5 + 50 + 20 = 75.
    CHECK(stat(m, "conjunctions", "inner", "PARCONJ_TIME").sum == 55);
    CHECK(subStat(m, "conjunctions", "inner", "PARCONJ_RUNNABLE_SELF", "average").mean == Approx(75.0 / 55));
    // Out of order at A: pairs (G1,G2), (H1,G2), (H2,G2). H2 waits as a spark [125,160) while G2 runs
    // [130,160): 30 ns out of order. Time where A or B of some pair runs (r_i n_j + r_j n_i - r_i r_j
    // with n_1 = 3, n_2 = 1): [100,130) 1 x 30, [130,190) 3 x 60, [190,200) 3 x 10 = 240.
    CHECK(field(m, "scheduling", "outer", "OUT_OF_ORDER_PROBABILITY", "out_of_order_ns") == 30);
    CHECK(field(m, "scheduling", "outer", "OUT_OF_ORDER_PROBABILITY", "either_running_ns") == 240);
    CHECK(field(m, "scheduling", "outer", "OUT_OF_ORDER_PROBABILITY", "probability") == Approx(0.125));
    // At B: H1 never waits: 0 of [120,150) + [160,170) = 40.
    CHECK(field(m, "scheduling", "inner", "OUT_OF_ORDER_PROBABILITY", "either_running_ns") == 40);
    CHECK(field(m, "scheduling", "all", "OUT_OF_ORDER_PROBABILITY", "probability") == Approx(30.0 / 280));
}

TEST_CASE("metrics rename reused dynamic ids apart", "[core][metrics]")
{
    TraceBuilder b(1);
    b.internString(0, 1, "loop.m:3");
    b.runThread(0, 0, 1);
    // Two instances with dyn id 0xA: [100,150) and [200,280); each G2 is run locally by ctx 1.
    b.startParConj(0, 100, 0xA, 1).sparkCreate(0, 110, 0xA, 1).endParConjunct(0, 120, 0xA);
    b.sparkRun(0, 125, 1).endParConjunct(0, 140, 0xA).endParConj(0, 150, 0xA);
    b.startParConj(0, 200, 0xA, 1).sparkCreate(0, 210, 0xA, 2).endParConjunct(0, 230, 0xA);
    b.sparkRun(0, 235, 2).endParConjunct(0, 270, 0xA).endParConj(0, 280, 0xA);
    b.stopThread(0, 300, 1, kStopFinished);
    const Trace trace = b.roundTrip();
    CHECK(checkModel(trace).empty());
    const Metrics m = computeMetrics(trace);
    // PARCONJ_TIME 50 and 80: mean 65, variance (15^2 + 15^2) / 2 = 225.
    const Stat& t = stat(m, "conjunctions", "loop.m:3", "PARCONJ_TIME");
    CHECK(t.count == 2);
    CHECK(t.min == 50);
    CHECK(t.max == 80);
    CHECK(t.mean == 65);
    CHECK(t.variance == 225);
    CHECK(t.sum == 130);
    // G2 as spark: 125 - 110 = 15 and 235 - 210 = 25.
    CHECK(stat(m, "conjuncts", "loop.m:3/2", "CONJUNCT_TIME_AS_SPARK").mean == 20);
    // Run by the same engine: continue-on-last is 1 for both.
    CHECK(stat(m, "conjunctions", "loop.m:3", "PARCONJ_CONTINUE_ON_LAST").mean == 1);
}

TEST_CASE("damaged and truncated traces mark instances incomplete and report problems", "[core][metrics]")
{
    TraceBuilder b(2);
    b.internString(0, 1, "a.m:1");
    b.runThread(0, 0, 1);
    b.endParConjunct(0, 50, 0x99); // END_PAR_CONJUNCT for nothing
    b.futureWaitNoSuspend(0, 60, 0x77); // wait on an unknown future
    b.startParConj(0, 100, 0xA, 1).sparkCreate(0, 110, 0xA, 1).endParConjunct(0, 120, 0xA);
    b.sparkRun(0, 125, 1).sparkRun(1, 126, 1); // spark run twice
    b.endParConjunct(0, 140, 0xA).endParConj(0, 150, 0xA);
    b.runThread(1, 160, 1); // ctx 1 on two engines at once
    b.startParConj(0, 200, 0xB, 1); // never ends: truncated
    b.endAt(300);
    const Trace trace = b.roundTrip();
    const auto problems = checkModel(trace);
    auto has = [&](const std::string& text, uint64_t t, uint16_t engine) {
        for (const auto& p : problems)
            if (p.message.find(text) != std::string::npos && p.timeNs == t && p.engine == engine)
                return true;
        return false;
    };
    CHECK(has("END_PAR_CONJUNCT", 50, 0));
    CHECK(has("unknown future", 60, 0));
    CHECK(has("already ran", 126, 1));
    CHECK(has("while still running on engine 0", 160, 1));
    CHECK(has("never ended", 300, kNoEngine));
    const Metrics m = computeMetrics(trace);
    CHECK(field(m, "conjunctions", "a.m:1", "INSTANCES", "complete") == 1);
    CHECK(field(m, "conjunctions", "a.m:1", "INSTANCES", "incomplete") == 1);
    CHECK(stat(m, "conjunctions", "a.m:1", "PARCONJ_TIME").count == 1);
    CHECK(field(m, "program", "all", "INCOMPLETE_INSTANCES", "conjunctions") == 1);
    // A range takes the instances that start in it, as INSTANCES does: [0,190) has the complete 0xA
    // only, and the problems at 50, 60, 126 and 160; [190,300) the open 0xB and the one at 300 (the
    // trace's end, outside [190,300)).
    MetricsOptions before;
    before.toNs = 190;
    const Metrics early = computeMetrics(trace, before);
    CHECK(field(early, "conjunctions", "a.m:1", "INSTANCES", "incomplete") == 0);
    CHECK(field(early, "program", "all", "INCOMPLETE_INSTANCES", "conjunctions") == 0);
    CHECK(field(early, "program", "all", "INCOMPLETE_INSTANCES", "problems") == 4);
    MetricsOptions after;
    after.fromNs = 190;
    const Metrics late = computeMetrics(trace, after);
    CHECK(field(late, "conjunctions", "a.m:1", "INSTANCES", "incomplete") == 1);
    CHECK(field(late, "program", "all", "INCOMPLETE_INSTANCES", "conjunctions") == 1);
}

TEST_CASE("a lost STOP_THREAD, a STOP_THREAD of a context not running and a GC_END without a collection are "
          "problems",
    "[core][metrics]")
{
    // Engine 0 runs ctx 1 from 0; ctx 2 runs there at 100 without ctx 1's STOP_THREAD (the model stops
    // ctx 1 there, which changes its figures, so it says so); ctx 2 stops at 150, and ctx 7, which
    // never ran, "stops" at 160. Engine 1 posts GC_END at 200 with no collection going on. A STOP_THREAD
    // of the context that runs, and a GC_END after GC_START, are not problems.
    TraceBuilder b(2);
    b.runThread(0, 0, 1).runThread(0, 100, 2).stopThread(0, 150, 2, kStopYielding);
    b.stopThread(0, 160, 7, kStopYielding);
    b.gcEnd(1, 200).gcStart(1, 210).gcEnd(1, 220);
    b.endAt(300);
    const auto problems = checkModel(b.roundTrip());
    std::vector<std::string> got;
    for (const auto& p : problems)
        got.push_back(std::to_string(p.timeNs) + " " + std::to_string(p.engine) + " " + p.message);
    CHECK(got
        == std::vector<std::string> {
            "100 0 context 2 runs on engine 0 while context 1 still runs there (its STOP_THREAD is missing): it is "
            "taken to stop here",
            "160 0 STOP_THREAD of context 7 on engine 0, where it is not running",
            "200 1 GC_END on engine 1 without a collection going on there" });

    // A spark engine 0 made, stolen by engine 1 from "engine 1's" deque, and one run locally by the
    // engine that did not make it: both contradict the deques (engine 0's would never come down).
    TraceBuilder s(2);
    s.runThread(0, 0, 1).startParConj(0, 10, 0xA, 1).sparkCreate(0, 20, 0xA, 1).sparkCreate(0, 25, 0xA, 2);
    s.sparkSteal(1, 30, 1, 1).sparkRun(1, 40, 2).sparkCreate(0, 50, 0xA, 3).sparkSteal(1, 60, 0, 3);
    s.endAt(100);
    std::vector<std::string> sparks;
    for (const auto& p : checkModel(s.roundTrip()))
        sparks.push_back(std::to_string(p.timeNs) + " " + std::to_string(p.engine) + " " + p.message);
    CHECK(sparks
        == std::vector<std::string> { "30 1 SPARK_STEAL of spark 1 from engine 1's deque, but engine 0 made it",
            "40 1 SPARK_RUN of spark 2 from engine 1's deque, but engine 0 made it",
            "100 65535 conjunction with dyn id 0xa never ended (truncated trace?)" });
}

TEST_CASE(
    "events at one instant on two engines: an END_PAR_CONJ waits for its last conjunct's end there", "[core][metrics]")
{
    // Engine 0: ctx 1 starts A at 100 (G1), sparks G2 at 110, ends G1 at 200 and parks at 210; at 300 it
    // runs again and ends A. Engine 1: steals G2 at 120, ctx 2 runs it from 130, ends it at 300 and
    // wakes ctx 1 at 300. The merge's order at 300 (engine 0 first) would end A before G2 and run
    // ctx 1 before it is woken; cause first, A is complete: PARCONJ_TIME 200, no problem.
    TraceBuilder b(2);
    b.internString(0, 1, "a.m:1");
    b.runThread(0, 0, 1).startParConj(0, 100, 0xA, 1).sparkCreate(0, 110, 0xA, 1).endParConjunct(0, 200, 0xA);
    b.stopThread(0, 210, 1, kStopBlocked).runThread(0, 300, 1).endParConj(0, 300, 0xA);
    b.stopThread(0, 400, 1, kStopFinished);
    b.sparkSteal(1, 120, 0, 1).runThread(1, 130, 2).endParConjunct(1, 300, 0xA).threadRunnable(1, 300, 1);
    b.stopThread(1, 310, 2, kStopFinished);
    b.endAt(500);
    const Trace trace = b.roundTrip();
    CHECK(checkModel(trace).empty());
    const Metrics m = computeMetrics(trace);
    CHECK(field(m, "conjunctions", "a.m:1", "INSTANCES", "complete") == 1);
    CHECK(stat(m, "conjunctions", "a.m:1", "PARCONJ_TIME").sum == 200);

    // The conjunct's end behind another event of its engine at that instant: engine 1 runs ctx 2 again
    // at 300 and ends G2 there; engine 0's END_PAR_CONJ at 300 waits for both. And an instant the
    // merge's order reads consistently keeps it: at 400 engine 0 runs ctx 3 and it blocks, engine 1
    // wakes it; woken after it blocked, ctx 3 ends runnable (waking it first would leave it blocked).
    TraceBuilder c(2);
    c.internString(0, 1, "a.m:1");
    c.runThread(0, 0, 1).startParConj(0, 100, 0xA, 1).sparkCreate(0, 110, 0xA, 1).endParConjunct(0, 200, 0xA);
    c.stopThread(0, 210, 1, kStopBlocked).runThread(0, 300, 1).endParConj(0, 300, 0xA);
    c.stopThread(0, 350, 1, kStopFinished).runThread(0, 400, 3).stopThread(0, 400, 3, kStopBlocked);
    c.sparkSteal(1, 120, 0, 1).runThread(1, 130, 2).stopThread(1, 250, 2, kStopYielding).threadRunnable(1, 290, 1);
    c.runThread(1, 300, 2).endParConjunct(1, 300, 0xA).stopThread(1, 310, 2, kStopFinished);
    c.threadRunnable(1, 400, 3);
    c.endAt(500);
    const Trace second = c.roundTrip();
    for (const auto& p : checkModel(second))
        UNSCOPED_INFO(p.timeNs << " " << p.engine << " " << p.message);
    CHECK(checkModel(second).empty());
    CHECK(field(computeMetrics(second), "conjunctions", "a.m:1", "INSTANCES", "complete") == 1);
    const ParModel model = buildParModel(second);
    const auto ctx3 = std::find_if(
        model.contexts.begin(), model.contexts.end(), [](const ContextTimeline& t) { return t.id == 3; });
    REQUIRE(ctx3 != model.contexts.end());
    CHECK(ctx3->segments.back().state == ContextState::Runnable);
}

TEST_CASE("metrics survive an eventlog cut at every length", "[core][metrics]")
{
    TraceBuilder b(2);
    b.internString(0, 1, "a.m:1");
    b.runThread(0, 0, 1).startParConj(0, 100, 0xA, 1).sparkCreate(0, 110, 0xA, 1);
    b.sparkSteal(1, 120, 0, 1).runThread(1, 120, 2).endParConjunct(1, 150, 0xA).stopThread(1, 155, 2, kStopFinished);
    b.endParConjunct(0, 160, 0xA).endParConj(0, 170, 0xA).stopThread(0, 180, 1, kStopFinished);
    const Trace full = b.roundTrip();
    std::vector<uint8_t> bytes(full.bytes().begin(), full.bytes().end());
    size_t readable = 0;
    for (size_t cut = 0; cut < bytes.size(); cut += 3) {
        auto t
            = readTraceFromBytes(std::vector<uint8_t>(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(cut)));
        if (!t)
            continue;
        ++readable;
        const Metrics m = computeMetrics(t.value());
        const MetricValue* inc = m.find("program", "all", "INCOMPLETE_INSTANCES");
        REQUIRE(inc);
    }
    CHECK(readable > 0);
}

TEST_CASE("out-of-order time blocks another context directly or through a chain of futures", "[core][metrics]")
{
    TraceBuilder b(3);
    b.internString(0, 1, "chain").internString(0, 2, "F1").internString(0, 3, "F2");
    // J = (G1 & G2 & G3): G1 signals F1, G2 waits on F1 and then signals F2, G3 waits on F2.
    // Engine 0, ctx 1: creates F1, F2, starts J at 100 (G1), sparks G2 (s2) at 102 and G3 (s3) at 104,
    // signals F1 at 150 and wakes ctx 2 at 152, yields at 160 (G1 runnable, not running) until it runs
    // again at 200; G1 ends at 205; ctx 1 blocks at the barrier until 222 and ends J at 230.
    b.runThread(0, 0, 1).futureCreate(0, 90, 0xF1, 2).futureCreate(0, 91, 0xF2, 3);
    b.startParConj(0, 100, 0xC, 1).sparkCreate(0, 102, 0xC, 2).sparkCreate(0, 104, 0xC, 3);
    b.futureSignal(0, 150, 0xF1).threadRunnable(0, 152, 2).stopThread(0, 160, 1, kStopYielding);
    b.runThread(0, 200, 1).endParConjunct(0, 205, 0xC).stopThread(0, 206, 1, kStopBlocked);
    // Engine 1, ctx 2 (G2): steals s2 at 110, suspends on F1 at 120, runs again at 155, signals F2 at
    // 190 (waking ctx 3 at 192) and ends G2 at 210.
    b.sparkSteal(1, 110, 0, 2)
        .runThread(1, 110, 2)
        .futureWaitSuspended(1, 120, 0xF1)
        .stopThread(1, 120, 2, kStopBlocked);
    b.runThread(1, 155, 2).futureSignal(1, 190, 0xF2).threadRunnable(1, 192, 3);
    b.endParConjunct(1, 210, 0xC).stopThread(1, 211, 2, kStopFinished);
    // Engine 2, ctx 3 (G3): steals s3 at 112, suspends on F2 at 130, runs again at 195, ends G3 at 220
    // and wakes ctx 1.
    b.sparkSteal(2, 112, 0, 3)
        .runThread(2, 112, 3)
        .futureWaitSuspended(2, 130, 0xF2)
        .stopThread(2, 130, 3, kStopBlocked);
    b.runThread(2, 195, 3).endParConjunct(2, 220, 0xC).threadRunnable(2, 221, 1).stopThread(2, 222, 3, kStopFinished);
    b.runThread(0, 225, 1).endParConj(0, 230, 0xC).stopThread(0, 235, 1, kStopFinished);
    const Trace trace = b.roundTrip();
    CHECK(checkModel(trace).empty());
    const Metrics m = computeMetrics(trace);
    // Running: G1 [100,160) [200,205); G2 [110,120) [155,210); G3 [112,130) [195,220).
    // Waiting: G1 [160,200) (ctx 1 runnable); G2 [102,110) (spark) [152,155) (woken); G3 [104,112),
    // [192,195). Out of order (w_i r_j, i < j): G1 waits while G2 runs [160,200) = 40, while G3 runs
    // [195,200) = 5; G2 waits while G3 runs: never. 45 in all.
    CHECK(field(m, "scheduling", "chain", "OUT_OF_ORDER_PROBABILITY", "out_of_order_ns") == 45);
    // A or B runs, per pair: (G1,G2) [100,210) = 110; (G1,G3) [100,160) [195,220) = 85;
    // (G2,G3) [110,130) [155,220) = 85: 280.
    CHECK(field(m, "scheduling", "chain", "OUT_OF_ORDER_PROBABILITY", "either_running_ns") == 280);
    // Directly blocked on G1: ctx 2 on F1 over [120,150), before G1 waits; on G2: ctx 3 on F2 over
    // [130,190), which meets G2's waiting only at [152,155), when G3 does not run. So 0.
    CHECK(field(m, "scheduling", "chain", "OUT_OF_ORDER_SCHEDULING_BLOCKS_ANOTHER_CONTEXT", "blocking_ns") == 0);
    // Transitively: G2 was suspended on G1's F1 from 120, so ctx 3's wait on G2's F2 counts for G1
    // from max(130, 120) to 190. G1 waits during [160,190) of it while G2 runs: 30, of 45.
    CHECK(field(m, "scheduling", "chain", "OUT_OF_ORDER_SCHEDULING_BLOCKS_ANOTHER_CONTEXT_TC", "blocking_ns") == 30);
    CHECK(field(m, "scheduling", "chain", "OUT_OF_ORDER_SCHEDULING_BLOCKS_ANOTHER_CONTEXT_TC", "fraction")
        == Approx(30.0 / 45));
    // The app's one-instance figures (segment trees) agree with the batch pass (the sweep).
    const auto fig = conjunctionFigures(m.model, m.cpusOverTime, trace.engineCount(), ConjunctionIndex(0));
    REQUIRE(fig);
    CHECK(fig->outOfOrderNs == 45);
    CHECK(fig->blockingNs == 0);
    CHECK(fig->blockingTcNs == 30);
    // What the app's hover menu shows for the instance.
    auto shown = [&](const std::string& key, const std::string& statistic) {
        for (const InstanceFigure& x : instanceMetrics(m, EventOwner(ConjunctionIndex(0))))
            if (x.key == key && x.statistic == statistic)
                return x.value;
        FAIL("not shown: " << key << " " << statistic);
        return 0.0;
    };
    CHECK(shown("OUT_OF_ORDER_PROBABILITY", "probability") == Approx(45.0 / 280));
    CHECK(shown("OUT_OF_ORDER_SCHEDULING_BLOCKS_ANOTHER_CONTEXT", "fraction") == 0);
    CHECK(shown("OUT_OF_ORDER_SCHEDULING_BLOCKS_ANOTHER_CONTEXT_TC", "fraction") == Approx(30.0 / 45));
}
