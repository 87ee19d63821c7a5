#pragma once
// Semantic check: events that contradict the parallel model (par_model.h). Each problem carries the
// time and engine of the offending event:
//   - END_PAR_CONJUNCT for no open conjunct, or for a dyn id with no open conjunction;
//   - END_PAR_CONJ without START_PAR_CONJ, a conjunction started again while open, a conjunction
//     that never ends, a conjunction that ends before all its conjuncts;
//   - SPARK_CREATE for no open conjunction; a spark run twice or never created;
//   - a wait on, or a signal of, an unknown future; a future signalled more than once;
//   - a context that runs on two engines at once;
//   - a context suspended on a future (106) that never runs again.
// Metrics never abort on these: the affected instances are marked incomplete and left out.
// Pure function; O(events); thread-safe.
#include "sparkscope/core/check.h"
#include "sparkscope/core/trace.h"

#include <vector>

namespace sparkscope::core {

std::vector<Problem> checkModel(const Trace& trace);

} // namespace sparkscope::core
