#pragma once
// Checks over a decoded trace, for `sparkscope-cli check` and the UI's problem list.
//
// checkStructure looks at the format: what the reader had to warn about (a cut file, block markers
// whose sizes lie, bytes after DATA_END), header declarations that contradict every known layout
// of an event, blocks that end before they begin, and timestamps that run backwards within one
// engine's file order. The last is normal in GHC logs (GC_END is written after GC_STATS_GHC with an
// earlier time), so it is reported once per engine as a note, not a problem.
//
// Semantic checks (conjunctions, sparks, futures) live beside the trace model and are added to
// the CLI's check command through its list of checks (app/cli/check_command.cpp).
//
// Pure functions; thread-safe; O(events).
#include "sparkscope/core/trace.h"

#include <cstdint>
#include <string>
#include <vector>

namespace sparkscope::core {

struct Problem {
    uint64_t timeNs = 0; // when it happened (0 when it is not tied to an event, e.g. a header problem)
    uint16_t engine = kNoEngine; // kNoEngine when it is not tied to one engine
    std::string message;
    bool isNote = false; // worth knowing, but not a defect: does not fail `check`
};

std::vector<Problem> checkStructure(const Trace& trace);
// The same without the reader's warnings (the first of checkStructure's problems): what a viewer that
// already shows those adds to them.
std::vector<Problem> checkFormat(const Trace& trace);

} // namespace sparkscope::core
