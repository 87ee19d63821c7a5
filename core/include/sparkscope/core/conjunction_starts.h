#pragma once
// The start of every conjunction instance, by site, from one pass over the trace's START_PAR_CONJ and
// INTERN_STRING events, without building the model (par_model.h): the instants one can align two
// runs at (the app's comparison, ui/compare/time_alignment.h). The same instants in the same order
// as ParModel::conjunctions grouped by ParModel::staticName (tested), since the model makes one
// instance of every START_PAR_CONJ, in the trace's time order, and names a static id by the last
// INTERN_STRING of it.
//
// Thread safety: a pure function of the trace. Cost: one scan of every event's type, and a sort of the
// START_PAR_CONJ and INTERN_STRING events; memory for those alone.
#include "sparkscope/core/trace.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace sparkscope::core {

// Site (its INTERN_STRING text, else "static#<id>") → the start times of its instances, in the order
// Trace::forEachInTimeOrder meets their START_PAR_CONJ.
std::map<std::string, std::vector<uint64_t>> conjunctionStartsBySite(const Trace& trace);

} // namespace sparkscope::core
