#pragma once
// Internal to core (not installed): the inputs of the conjunctions, conjuncts, scheduling and futures
// sections grouped by name. Conjunction instances are grouped by static id, futures by "<static
// id>/<variable>"; ids that share a name share a group, and groups are in name order, since the
// report's groups are keyed by name. Each input is looked up once (an IdMap load, or a hash lookup),
// in input order, and the groups are then made by one counting sort (index_groups.h), so each group
// lists its complete inputs in input order: the order the summaries are defined over.
#include "metrics/index_groups.h"
#include "metrics/metrics_sections.h"

#include <string>
#include <vector>

namespace sparkscope::core::detail {

// Summary groups, in name order: what is left out of each, and the rest in input order.
struct NamedGroups {
    std::vector<std::string> names;
    std::vector<uint64_t> incomplete; // per group: inputs left out of the summaries
    IndexGroups complete; // per group: the complete inputs, in input order
};

// The conjunction instances that start in the range, grouped by static id.
struct ConjunctionGroups : NamedGroups {
    std::vector<uint32_t> groupOf; // per instance: its group if complete, else IndexGroups::kNoGroup
};
ConjunctionGroups groupConjunctions(const ParModel& m, Range r);

// The futures of the conjunction instances that start in the range, grouped by "<static
// id>/<variable>".
using FutureGroups = NamedGroups; // (the inputs are futures)
FutureGroups groupFutures(const ParModel& m, Range r);

} // namespace sparkscope::core::detail
