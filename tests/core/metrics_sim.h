#pragma once
// A small discrete-event simulator of a runtime like SparkScope's (engines, contexts, sparks with the
// spark chain of metrics.md, barriers, futures, work stealing, sleeping engines) running a random
// tree of parallel conjunctions. Some conjunctions of 2 or 3 leaves chain futures (one signals, the
// next waits on it and then signals the next future, ...), and a producer may signal in the middle of
// its work and yield (STOP_THREAD ThreadYielding: runnable until an engine takes it from the global
// queue again). It emits the events the real runtime would, so random traces can be
// checked against the metric invariants. Dynamic ids and future ids come from free lists, so they
// are reused as in the real runtime. Deterministic for a seed.
#include "support/trace_builder.h"

#include <cstdint>

namespace sparkscope::test {

// maxDepth: the deepest nesting level of the random conjunction tree (4 gives bushy trees; deeper
// trees grow one nesting spine below level 4). maxWidth: the most conjuncts in a conjunction (2 or
// more; the traces for a seed stay the same at the default 3).
TraceBuilder simulateRandomProgram(uint64_t seed, int maxDepth = 4, int maxWidth = 3);

} // namespace sparkscope::test
