#pragma once
// Spark deque sizes: how many sparks each engine's deque (GHC: capability's spark pool) held at
// every instant, derived from the spark events. The timeline's optional "spark deque" rows draw
// these; the metric SPARK_DEQUE_SIZE summarises the same quantity.
//
// Rules, per engine e (each engine's events are already sorted by time):
//   +1  SPARK_CREATE on e (GHC 35, Mercury/SparkScope 103) — the spark entered e's deque;
//   -1  SPARK_RUN on e (GHC 38, 114): e took one of its own sparks;
//   -1  SPARK_FIZZLE / SPARK_GC on e (GHC 40, 41): a spark left e's pool without running;
//   -1  SPARK_STEAL(victim = e) on any engine (GHC 39, 115): another engine took one;
//   =r  SPARK_COUNTERS on e (GHC 34) carries `remaining`, the pool's exact size at that moment:
//       the value is reset to it (GHC posts a fizzle found while stealing on the thief, not on the
//       victim, so the running count drifts between counter events; the reset removes the drift).
// Sparks that never enter a deque (GHC's SPARK_DUD, SPARK_OVERFLOW) do not count. The count never
// goes below 0 (a trace that starts mid-run, or a thief-side fizzle, would otherwise make it
// negative): a decrement at 0 is dropped.
//
// Result: one StepFunction per engine over [trace.firstTimeNs, trace.lastTimeNs] (an engine without
// spark events is 0 throughout, i.e. an empty function).
// Cost: O(events) for the per-engine scans (engines in parallel, TBB) plus O(s log s) for s steals.
// Thread safety: reentrant; the result is a plain value.
#include "sparkscope/core/step_function.h"
#include "sparkscope/core/trace.h"

#include <vector>

namespace sparkscope::core {

struct DequeSizeOptions {
    bool resetAtCounters = true; // apply SPARK_COUNTERS' `remaining` (see the file comment)
};

std::vector<StepFunction> computeSparkDequeSizes(const Trace& trace, DequeSizeOptions options = {});

} // namespace sparkscope::core
