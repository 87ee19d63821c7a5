#pragma once
// Spark deque sizes: how many sparks each engine's deque (GHC: capability's spark pool) held at
// every instant, derived from the spark events. The timeline's optional "spark deque" rows draw
// these; the metric SPARK_DEQUE_SIZE summarises the same quantity.
//
// Rules, per engine e (each engine's events are already sorted by time):
//   +1  SPARK_CREATE on e (GHC 35, Mercury/SparkScope 103) — the spark entered e's deque;
//   -1  SPARK_RUN on e (GHC 38, 114): e took one of its own sparks;
//   -1  SPARK_FIZZLE / SPARK_GC on e (GHC 40, 41): a spark left e's pool without running — but a
//       fizzle posted on e while e's pool is empty came off another pool (below);
//   -1  SPARK_STEAL(victim = e) on any engine (GHC 39, 115): another engine took one;
//   =r  SPARK_COUNTERS on e (GHC 34) carries `remaining`, the pool's exact size at that moment:
//       the count is reset to it;
//   =C  SPARK_OVERFLOW on e (GHC 37): a spark found e's pool full, so the count is reset to the
//       pool's capacity C, taken as the smallest count (by the other rules) at any of e's overflows;
//       and the count never exceeds C (a creation that would is one GHC could only have made after
//       an unposted removal).
// Why the resets: GHC does not post every removal. It empties pools at garbage collections without
// a SPARK_GC or SPARK_FIZZLE per spark (parfib-8-32: 8192 created, 1 converted, none collected or
// fizzled, 0 remaining), and posts a fizzle found while stealing on the thief, not the victim. So
// the count alone runs above the truth by thousands; the resets bring it back to the truth at every
// counter event and to the capacity at every overflow (GHC 9.0: 8192, where every parfib-8-32 and
// parfib-4-37 pool first overflows), and the cap keeps it within what a pool can hold. Between
// them it can still be too high after a silent emptying (at most C).
// Fizzles found while stealing: GHC's findSpark takes from the capability's own pool first, then
// from the others in capability order (0 first), skipping empty ones, and posts every fizzle it finds
// on the capability that looks, whichever pool the spark was in. So a SPARK_FIZZLE on e while e's pool
// is empty is taken off the lowest-numbered other pool that is not (parfib-12-30: capability 1 posts
// all 6,791 fizzles, 2,173 of them sparks of capability 0's pool, which read full until its next
// SPARK_COUNTERS without this). Which pools are empty is decided in one walk of every engine's spark
// events in time order (sparkPoolTransfers), on the counts of these rules without the capacity (which
// the transfers themselves change); only traces with a SPARK_FIZZLE need it.
// Sparks that never enter a deque (GHC's SPARK_DUD, SPARK_OVERFLOW) do not count. The count never
// goes below 0 (a trace that starts mid-run would otherwise make it negative): a decrement at 0 is
// dropped. Ties at one time: the engine's own events first (in file order), then what others took.
//
// Result: one StepFunction per engine over [trace.firstTimeNs, trace.lastTimeNs] (an engine without
// spark events is 0 throughout, i.e. an empty function).
// Cost: O(events) for the per-engine scans (engines in parallel, TBB; an engine with overflows is
// scanned once more) plus O(s log s) for s steals, and with fizzles O(n log k) for the walk in time
// order (k engines; a log k set of the pools holding sparks). At one instant that walk takes engines
// in number order where the per-engine walk takes an engine's own events before what others took:
// a tie between engines to the nanosecond can then read a pool's emptiness differently (rare). Memory: the result, ~25 bytes per change.
// Thread safety: reentrant; the result is a plain value.
#include "sparkscope/core/step_function.h"
#include "sparkscope/core/trace.h"

#include <functional>
#include <vector>

namespace sparkscope::core {

struct DequeSizeOptions {
    bool resetAtCounters = true; // apply SPARK_COUNTERS' `remaining` (see the file comment)
    bool resetAtOverflow = true; // set the count to the pool's capacity at SPARK_OVERFLOW
};

std::vector<StepFunction> computeSparkDequeSizes(const Trace& trace, DequeSizeOptions options = {});

// What other engines took from each engine's pool: per engine, sorted, the times of the steals from it
// (SPARK_STEAL, GHC 39 and 115, by their victim field) and of the fizzles posted elsewhere that came
// off it (`takenFrom`), and the times of its own fizzles that came off another pool
// (`fizzledElsewhere`; the file comment says which). One scan of the engines' events (in parallel), and
// when the trace has a SPARK_FIZZLE, one walk of every engine's spark events in time order; steals
// naming an engine the trace does not have are left out.
struct SparkPoolTransfers {
    std::vector<std::vector<uint64_t>> takenFrom;
    std::vector<std::vector<uint64_t>> fizzledElsewhere;
};
SparkPoolTransfers sparkPoolTransfers(const Trace& trace, DequeSizeOptions options = {});

// The same walk for one engine without storing it: changed(timeNs, size) at every change of the
// engine's deque size, in time order (the size starts at 0). `transfers`: sparkPoolTransfers of the
// trace. The metric SPARK_DEQUE_SIZE summarises it as it streams past.
void forEachSparkDequeSize(const Trace& trace, size_t engine, const SparkPoolTransfers& transfers,
    const std::function<void(uint64_t timeNs, int64_t size)>& changed, DequeSizeOptions options = {});

} // namespace sparkscope::core
