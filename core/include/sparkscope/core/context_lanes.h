#pragma once
// ContextLanes: what every context (GHC: Haskell thread) was doing over time, as one level-of-detail
// index per context, for the timeline's optional per-context lanes.
//
// The states come from the parallel model (par_model.h: Running between RUN_THREAD and STOP_THREAD,
// Blocked on a blocking STOP_THREAD or a suspended future wait until it is made runnable, Finished
// after it ends, Runnable otherwise), so the lanes agree with the metrics. A context id that is
// created again after it finished (our runtime reuses contexts) stays on one lane. Finished time is
// not stored: a lane is empty before the context exists and after it finished.
//
// Each lane is its own LodIndex (one "engine", states = ContextLaneState, label = the engine a
// running span ran on), so a lane's pyramid is sized by its own spans: a trace with thousands of
// short-lived threads costs memory in proportion to their spans, not lanes × trace length.
//
// Invariants: ids sorted ascending and unique; lanes[i] belongs to ids[i]; every lane's spans are
// disjoint, non-empty, inside [originNs, endNs], and no two neighbours have equal (state, label).
// Thread safety: immutable after computeContextLanes; any number of threads may query it.
// Cost: see computeContextLanes; lanes are indexed in parallel (TBB). Memory about 24 bytes per span
// plus each lane's pyramid (about 2 × bit_ceil(spans) × 3 × 8 bytes).
#include "sparkscope/core/lod_index.h"
#include "sparkscope/core/par_model.h"
#include "sparkscope/core/trace.h"

#include <cstdint>
#include <string>
#include <vector>

namespace sparkscope::core {

// The lane states, numbered as ContextState (Finished is not stored).
enum class ContextLaneState : uint8_t { Runnable = 0, Running = 1, Blocked = 2 };
inline constexpr unsigned kContextLaneStateCount = 3;

struct ContextLanes {
    uint64_t originNs = 0;
    uint64_t endNs = 0;
    std::vector<uint32_t> ids; // context ids (GHC thread ids), ascending
    std::vector<LodIndex> lanes; // lanes[i]: engine 0 of it is context ids[i]
    std::vector<std::string> labels; // labels[i]: the last THREAD_LABEL of ids[i] ("" if none)

    size_t size() const noexcept { return ids.size(); }
    size_t memoryBytes() const noexcept;
};

// Lanes straight from the trace: only its context events are walked (the model's context rules,
// without building the model), and GHC's THREAD_LABEL events name the lanes. O(e log k) for e context events on k
// engines, plus the lanes.
ContextLanes computeContextLanes(const Trace& trace);
// Lanes from an already built model (the same result; the tests check one against the other).
ContextLanes computeContextLanes(const ParModel& model, uint64_t originNs, uint64_t endNs);

} // namespace sparkscope::core
