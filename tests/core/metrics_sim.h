#pragma once
// A small discrete-event simulator of a runtime like SparkScope's (engines, contexts, sparks with the
// spark chain of metrics.md, barriers, futures, work stealing, sleeping engines) running a random
// tree of parallel conjunctions. It emits the events the real runtime would, so random traces can be
// checked against the metric invariants. Dynamic ids and future ids come from free lists, so they
// are reused as in the real runtime. Deterministic for a seed.
#include "support/trace_builder.h"

#include <cstdint>

namespace sparkscope::test {

TraceBuilder simulateRandomProgram(uint64_t seed);

} // namespace sparkscope::test
