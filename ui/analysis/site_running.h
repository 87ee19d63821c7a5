#pragma once
// Which code ran where: each engine's running time attributed to the static id of the conjunct its
// context was running (the innermost conjunct of the model's context segment, core/par_model.h), or
// to sequential code outside every conjunct (static id 0).
//
// runningBySite: a range's running time per static id (the Summary's split of a selection).
// computeSiteRows: the same over time as a level-of-detail index per engine (core/lod_index.h), for
// the engine rows coloured by site (View ▸ Colour by Static Id): state = a colour slot — 0 sequential,
// 1 … kSiteSlots the static ids with the most running time in the trace, kSiteSlots + 1 every other
// one — and label = the static id, so any pixel's split is exact at any zoom.
// Pure functions of the model; any thread. Cost: O(context segments) (and their sort per engine).
#include "sparkscope/core/lod_index.h"
#include "sparkscope/core/par_model.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace sparkscope::ui {

struct SiteTime {
    uint32_t staticId = 0; // 0: sequential code, outside every conjunct
    std::string site; // ParModel::staticName, "outside every conjunct" for 0
    uint64_t ns = 0; // engine-nanoseconds of running
};

// Running time in [fromNs, toNs) per static id, largest first (ties: by static id); only ids that ran.
std::vector<SiteTime> runningBySite(const core::ParModel& model, uint64_t fromNs, uint64_t toNs);

inline constexpr unsigned kSiteSlots = 6; // static ids with a colour of their own

struct SiteRows {
    core::LodIndex lod; // per engine, kSiteSlots + 2 states (see above)
    std::vector<SiteTime> slots; // slot k (1 … kSiteSlots) is slots[k - 1]; the whole trace's time
};

std::shared_ptr<const SiteRows> computeSiteRows(
    const core::ParModel& model, size_t engines, uint64_t originNs, uint64_t endNs);

} // namespace sparkscope::ui
