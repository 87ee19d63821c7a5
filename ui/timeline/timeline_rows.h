#pragma once
// TimelineRows: the data of the timeline's optional rows — one lane per context and one spark-deque
// size curve per engine. Neither is built at load: the widget computes each in the background when
// the person switches its row on (computeContextLaneRows / computeDequeRows, on a worker thread) and
// drops it when the row is switched off, so the rows cost nothing while off.
//
// Immutable once built; shared read-only (std::shared_ptr<const ...>) between the GUI thread and
// the frame function. Memory: lanes about 24 bytes per context-state span plus their pyramids;
// deques about 25 bytes per change of a deque's size.
#include "sparkscope/core/context_lanes.h"
#include "sparkscope/core/step_function.h"
#include "sparkscope/core/trace.h"

#include <memory>
#include <vector>

namespace sparkscope::ui {

struct DequeRows {
    std::vector<core::StepFunction> engines; // SPARK_DEQUE_SIZE per engine (core/deque_sizes.h)
    int64_t maxValue = 0; // over every engine and the whole trace
};

// What the frame draws under the engine rows: a null member is not shown (off, or not computed yet).
struct TimelineRows {
    std::shared_ptr<const core::ContextLanes> lanes;
    std::shared_ptr<const DequeRows> deques;
    bool lanesPending = false; // switched on, still being computed
    bool dequesPending = false;
};

// Both run on any thread; O(events) (see core/context_lanes.h and core/deque_sizes.h).
std::shared_ptr<const core::ContextLanes> computeContextLaneRows(const core::Trace& trace);
std::shared_ptr<const DequeRows> computeDequeRows(const core::Trace& trace);

} // namespace sparkscope::ui
