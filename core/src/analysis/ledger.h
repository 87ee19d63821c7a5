#pragma once
// Internal to core (not installed). The loss ledger of a range [from, to) (analysis.md §1): one
// sweep per engine over its activity intervals (engine_activity.h), splitting idle time by the
// idle classes (idle_classes.h) and adding each piece to the engine's ledger and to the ledger of
// every static id whose instances' union covers it (SiteSpans). Every piece of [from, to) lands in
// exactly one category, so each engine's ledger sums to to − from and each site's to engines × its
// covered time, in integers.
// Cost: O(intervals and idle-class changes in the range + engines × site boundaries), engines in
// parallel. Pure function of its inputs.
#include "analysis/engine_activity.h"
#include "analysis/idle_classes.h"
#include "sparkscope/core/analysis.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace sparkscope::core::detail {

// The union of one static id's instance spans within the range.
struct SiteSpans {
    uint32_t staticId = 0;
    uint64_t instances = 0; // instances overlapping the range
    std::vector<std::pair<uint64_t, uint64_t>> spans; // sorted, disjoint, within [from, to)
};

// The ledger category of an engine's activity; idle time has the category of its idle class (an
// idle engine without any class, i.e. outside every idle window, is idle_no_work).
LossCategory ledgerCategory(Activity activity) noexcept;
LossCategory ledgerCategory(IdleClass idleClass) noexcept;

// Per static id, sorted by id. An instance spans [START_PAR_CONJ, END_PAR_CONJ), or to the trace's
// end when it never ended. O(conjunctions).
std::vector<SiteSpans> siteUnions(const ParModel& model, uint64_t fromNs, uint64_t toNs);

LedgerReport computeLedger(const EngineActivity& activity, const IdleClasses& classes, const ParModel& model,
    const std::vector<SiteSpans>& sites, uint64_t fromNs, uint64_t toNs);

} // namespace sparkscope::core::detail
