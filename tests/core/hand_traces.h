#pragma once
// Hand-built traces that several tests work out by hand: the analysis (analysis_hand_test.cpp), the
// what-if (analysis_whatif_test.cpp) and the metrics (metrics_hand_test.cpp). Each goes through the real
// writer and reader (TraceBuilder::roundTrip).
#include "sparkscope/core/trace.h"

namespace sparkscope::test {

// Two engines with a steal: ctx 1 on engine 0 runs [0,100), starts a conjunction at 100 (G1) and
// sparks G2 at 110; engine 1 searches from 105, steals the spark at 120 and ctx 2 runs G2 [130,300);
// G1 ends at 200, ctx 1 parks at 210, is woken at 305 and runs again [330,400).
core::Trace stealTrace();

// A future whose wait suspends: ctx 1 on engine 0 creates future X at 90, starts B at 100 (G1) and
// sparks G2 at 105; engine 1 steals it at 110, ctx 2 runs G2 from 112 and waits on X at 120 before the
// signal (suspends); G1 signals at 150 and wakes ctx 2, which runs again at 160, waits again at 170
// (no suspend) and ends G2 at 200; G1 ends at 180, ctx 1 parks at 185, is woken at 202, runs from 210,
// ends B at 220 and finishes at 230.
core::Trace futureTrace();

} // namespace sparkscope::test
