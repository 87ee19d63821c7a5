#pragma once
// The hand-built conjunction trace the panels tests share, with its answers worked out by hand.
//
// Two engines, one conjunction "fib.m:12" (dyn 0xA) with two conjuncts and one future "x":
//   engine 0: context 1 runs from 100; FUT_CREATE x at 150; START_PAR_CONJ at 200; SPARK_CREATE
//             (spark 7, conjunct 2) at 250; FUT_WAIT_SUSPENDED x at 300 and blocks at 301; runs
//             again at 650; END_PAR_CONJUNCT (conjunct 1) at 700; END_PAR_CONJ at 900; done at 1000.
//   engine 1: context 2 created at 390; SPARK_STEAL of spark 7 at 400, runs at 410; FUT_SIGNAL x at
//             600; END_PAR_CONJUNCT (conjunct 2) at 800; done at 810.
// Answers: PARCONJ_TIME = 900 - 200 = 700. CONTINUE_ON_BEFORE = 1 (ends on engine 0 where it
// started); CONTINUE_ON_LAST = 0 (the last conjunct, 2, ended on engine 1). Conjunct 2:
// TIME_AS_SPARK = 400 - 250 = 150, TIME_AS_CONTEXT = 800 - 400 = 400, TIME_AFTER = 900 - 800 = 100.
// Conjunct 1: TIME_AS_CONTEXT = 700 - 200 = 500, TIME_AFTER = 200. Future x: first wait 300 - 600 =
// -300 (suspended: 1 of 1); signal -> end of the signalling conjunct = 800 - 600 = 200, also the
// WAITED_ value since a wait suspended.
#include "support/trace_builder.h"

#include "sparkscope/core/event_types.h"

namespace sparkscope::test {

inline TraceBuilder panelsTraceBuilder()
{
    TraceBuilder b(2);
    b.internString(0, 1, "fib.m:12").internString(0, 2, "x");
    b.createThread(0, 10, 1).runThread(0, 100, 1);
    b.futureCreate(0, 150, 0xF1, 2).startParConj(0, 200, 0xA, 1).sparkCreate(0, 250, 0xA, 7);
    b.futureWaitSuspended(0, 300, 0xF1).stopThread(0, 301, 1, core::kStopBlocked);
    b.createThread(1, 390, 2).sparkSteal(1, 400, 0, 7).runThread(1, 410, 2);
    b.futureSignal(1, 600, 0xF1).threadRunnable(1, 601, 1);
    b.runThread(0, 650, 1)
        .endParConjunct(0, 700, 0xA)
        .endParConj(0, 900, 0xA)
        .stopThread(0, 1000, 1, core::kStopFinished);
    b.endParConjunct(1, 800, 0xA).stopThread(1, 810, 2, core::kStopFinished);
    b.endAt(1100);
    return b;
}

} // namespace sparkscope::test
