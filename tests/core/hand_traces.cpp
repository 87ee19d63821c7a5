// Hand-built traces that several tests work out by hand (hand_traces.h).
#include "hand_traces.h"

#include "support/trace_builder.h"

using namespace sparkscope::core;
using sparkscope::test::TraceBuilder;

// Two engines with a steal: ctx 1 on engine 0 runs a conjunction whose second conjunct engine 1 steals.
Trace sparkscope::test::stealTrace()
{
    TraceBuilder b(2);
    b.internString(0, 1, "fib.m:10");
    // ctx 1 on engine 0 from 0; conjunction A (G1 in ctx 1) at 100, G2's spark at 110.
    b.runThread(0, 0, 1).startParConj(0, 100, 0xA, 1).sparkCreate(0, 110, 0xA, 5);
    // Engine 1 searches from 105, steals the spark at 120; ctx 2 is created at 125 and runs G2 from 130.
    b.lookingForLocal(1, 105)
        .workStealing(1, 115)
        .sparkSteal(1, 120, 0, 5)
        .createThread(1, 125, 2)
        .runThread(1, 130, 2);
    // G1 ends at 200; ctx 1 parks at A's barrier at 210. G2 ends at 300 and wakes ctx 1 at 305; ctx 2
    // finishes at 310. ctx 1 runs again on engine 0 at 330, ends A at 340, finishes at 400.
    b.endParConjunct(0, 200, 0xA).stopThread(0, 210, 1, kStopBlocked);
    b.endParConjunct(1, 300, 0xA).threadRunnable(1, 305, 1).stopThread(1, 310, 2, kStopFinished);
    b.runThread(0, 330, 1).endParConj(0, 340, 0xA).stopThread(0, 400, 1, kStopFinished);
    b.endAt(400);
    return b.roundTrip();
}

// A future whose wait suspends: ctx 1 on engine 0 runs a conjunction whose second conjunct, stolen by
// engine 1, waits on a future the first conjunct signals.
Trace sparkscope::test::futureTrace()
{
    TraceBuilder b(2);
    b.internString(0, 1, "fib.m:10").internString(0, 2, "X");
    // ctx 1 on engine 0 creates future X at 90, starts B at 100 (G1 in ctx 1) and sparks G2 at 105.
    b.runThread(0, 0, 1).futureCreate(0, 90, 0xF, 2).startParConj(0, 100, 0xB, 1).sparkCreate(0, 105, 0xB, 7);
    // Engine 1 steals G2 at 110; ctx 2 runs it from 112 and waits on X at 120 before the signal.
    b.sparkSteal(1, 110, 0, 7)
        .runThread(1, 112, 2)
        .futureWaitSuspended(1, 120, 0xF)
        .stopThread(1, 125, 2, kStopBlocked);
    // G1 signals X at 150 and wakes ctx 2 at 152; ctx 2 runs again at 160, ends G2 at 200.
    b.futureSignal(0, 150, 0xF).threadRunnable(0, 152, 2);
    b.runThread(1, 160, 2)
        .futureWaitNoSuspend(1, 170, 0xF)
        .endParConjunct(1, 200, 0xB)
        .stopThread(1, 205, 2, kStopFinished);
    // G1 ends at 180, ctx 1 parks at 185, is woken at 202, runs at 210, ends B at 220, finishes at 230.
    b.endParConjunct(0, 180, 0xB).stopThread(0, 185, 1, kStopBlocked).threadRunnable(1, 202, 1);
    b.runThread(0, 210, 1).endParConj(0, 220, 0xB).stopThread(0, 230, 1, kStopFinished);
    return b.roundTrip();
}
