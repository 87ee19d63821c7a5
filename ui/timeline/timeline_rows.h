#pragma once
// TimelineRows: the data of the timeline's optional rows — one lane per context and one spark-deque
// size curve per engine — and of what the analysis adds to the timeline: the loss ledger over time
// (the utilisation row) and the critical path. The analysis parts are computed by the analysis view
// (ui/analysis) once the trace's analysis is ready and handed to the widget. Neither is built at load: the widget computes each in the background when
// the person switches its row on (computeContextLaneRows / computeDequeRows, on a worker thread) and
// drops it when the row is switched off, so the rows cost nothing while off.
//
// Immutable once built; shared read-only (std::shared_ptr<const ...>) between the GUI thread and
// the frame function. Memory: lanes about 24 bytes per context-state span plus their pyramids;
// deques about 25 bytes per change of a deque's size.
#include "sparkscope/core/analysis.h"
#include "sparkscope/core/context_lanes.h"
#include "sparkscope/core/ledger_curves.h"
#include "sparkscope/core/step_function.h"
#include "ui/analysis/site_running.h"
#include "sparkscope/core/trace.h"

#include <QString>

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace sparkscope::ui {

struct DequeRows {
    std::vector<core::StepFunction> engines; // SPARK_DEQUE_SIZE per engine (core/deque_sizes.h)
    int64_t maxValue = 0; // over every engine and the whole trace
};

// The critical path of the recorded run (core::CriticalPathReport::segments, in time order) and the
// names of the static ids its segments name.
struct CriticalPathRows {
    std::vector<core::PathSegment> segments;
    std::vector<std::pair<uint32_t, std::string>> sites; // static id -> name, sorted by id
    QString siteName(uint32_t staticId) const;
};

// What the frame draws under the engine rows: a null member is not shown (off, or not computed yet).
struct TimelineRows {
    std::shared_ptr<const core::ContextLanes> lanes;
    std::shared_ptr<const DequeRows> deques;
    std::shared_ptr<const core::LedgerCurves> ledger; // the utilisation row
    std::shared_ptr<const CriticalPathRows> criticalPath;
    std::shared_ptr<const SiteRows> sites; // the engine rows coloured by static id
    // A trace still being written: per engine, where the part its events do not cover yet starts
    // (ui/loading/trace_data.h, unwrittenFrom; INT64_MAX: none), hatched on its row.
    std::shared_ptr<const std::vector<int64_t>> unwritten;
    bool lanesPending = false; // switched on, still being computed
    bool dequesPending = false;
    bool ledgerPending = false; // the analysis is still being computed
};

// Both run on any thread; O(events) (see core/context_lanes.h and core/deque_sizes.h).
std::shared_ptr<const core::ContextLanes> computeContextLaneRows(const core::Trace& trace);
std::shared_ptr<const DequeRows> computeDequeRows(const core::Trace& trace);

} // namespace sparkscope::ui
