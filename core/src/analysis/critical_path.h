#pragma once
// Internal to core (not installed). The critical path of the recorded run (analysis.md §3), walked
// backwards over the DAG (run_dag.h) with the contexts' actual states.
//
// Where it starts: the latest instant any context ran (the end of the last running interval of any
// engine, EngineActivity: Gc and searching do not count), in the node of the strand running there.
// In a node, walking back from the current time: the strand's running pieces are `running` (gc or
// searching where the engine did that instead), and the gaps between them are waiting by the
// context's state (Runnable: `runnable`; Blocked or anything else: `resume`). At the node's first
// running instant r the walk steps to the dependency met last: the pred whose node ends latest (ties:
// the same context first, then a dependency from another strand before the node before it in its own
// strand, then the lower node id). The time from that moment m to r is waiting: for the first node of
// a conjunct spawned as a spark, `spark_queued` until the SPARK_RUN/SPARK_STEAL and `runnable` until
// the context runs it; otherwise by the context's state as above. The walk stops at a node without
// preds (normally the first context's first node), at that node's first running instant.
//
// So the segments are contiguous, running segments lie on one DAG path (running ≤ span) and the
// length is running + waiting. Cost: linear in the contexts' segments (the walk goes back in time,
// and the time ranges it reads in one context never overlap).
#include "analysis/engine_activity.h"
#include "analysis/run_dag.h"
#include "sparkscope/core/analysis.h"

#include <optional>

namespace sparkscope::core::detail {

// The whole run's path; nullopt when no context ever ran. Segments are filled; the summaries are not
// (summarisePath does that for a range).
std::optional<CriticalPathReport> walkCriticalPath(const RunDag& dag, const EngineActivity& activity);

// The first instant any context ran (the start of the first running interval of any engine), or 0.
uint64_t firstRunningNs(const EngineActivity& activity);

// The part of `path` within [from, to) with its summaries (length, running, waiting by kind, per site).
CriticalPathReport summarisePath(const CriticalPathReport& path, const ParModel& model, uint64_t fromNs, uint64_t toNs);

} // namespace sparkscope::core::detail
