#pragma once
// Internal to core (not installed). EngineActivity: what each engine did at every instant, as the
// loss ledger and the DAG's node weights need it — one of Idle, RunningIn (a context inside a
// conjunct), RunningOut (a context outside every conjunct), Gc and Searching — with the idle time
// left for the idle classes (idle_classes.h) to split.
//
// Sources, by priority at each instant:
//   1. Gc: the engine states' Gc intervals (engine_states.h: GC_START..GC_END, overriding a run);
//   2. Searching: a search episode, from the first LOOKING_FOR_GLOBAL_CONTEXT / LOOKING_FOR_LOCAL_SPARK
//      / WORK_STEALING to the moment the engine runs what it found — the RUN_THREAD, or the
//      SPARK_RUN / SPARK_STEAL itself when a context already runs on the engine (our runtime searches
//      on a free context's stack) — or to ENGINE_SLEEPING or SHUTDOWN. Unlike the engine states, an episode also
//      covers searching done while a context is nominally running, and the STOP_THREAD and
//      RELEASE_CONTEXT of that free context on the way;
//   3. RunningIn / RunningOut: a context of the model (par_model.h) in its Running state on this
//      engine, inside a conjunct (segment top set) or not;
//   4. Idle: anything else (idle, sleeping, and the instants between a FUT_WAIT_SUSPENDED and the
//      STOP_THREAD that follows it, where the model has the context blocked already).
// The running time of a DAG node is its context's Running time less the Gc and Searching time on
// the engine it ran on (excludedIn), so the nodes' weights add up to the ledger's running time.
//
// Invariants: per engine, intervals are sorted, gap-free, non-empty, cover exactly [firstNs, lastNs)
// and no two neighbours have the same (activity, context). Cost: O(n log n) in the merged running
// pieces (segments of one context on one engine with the same inside/outside are merged first)
// plus one scan of every engine's events; engines in parallel. Immutable after construction.
#include "sparkscope/core/engine_states.h"
#include "sparkscope/core/par_model.h"
#include "sparkscope/core/trace.h"

#include <cstdint>
#include <vector>

namespace sparkscope::core::detail {

enum class Activity : uint8_t { Idle, RunningIn, RunningOut, Gc, Searching };

struct ActivityInterval {
    uint64_t startNs = 0;
    uint64_t endNs = 0; // exclusive
    uint32_t context = kNoIndex; // index into ParModel::contexts when running
    Activity activity = Activity::Idle;
};

class EngineActivity {
public:
    EngineActivity() = default;
    EngineActivity(const Trace& trace, const EngineStates& states, const ParModel& model);

    uint64_t firstNs() const noexcept { return m_firstNs; }
    uint64_t lastNs() const noexcept { return m_lastNs; }
    size_t engineCount() const noexcept { return m_engines.size(); }
    const std::vector<ActivityInterval>& intervals(size_t engine) const noexcept { return m_engines[engine]; }
    // Index of the interval of `engine` containing t (t clamped into [firstNs, lastNs)). O(log n).
    size_t indexAt(size_t engine, uint64_t t) const noexcept;
    // Gc and Searching time of `engine` within [a, b). O(log n); O(1) amortised when successive calls
    // move forward in time with the same `hint` (an interval index the call keeps up to date).
    uint64_t excludedIn(size_t engine, uint64_t a, uint64_t b, size_t& hint) const noexcept;
    // The union over engines of their Idle intervals, sorted and disjoint.
    std::vector<std::pair<uint64_t, uint64_t>> idleUnion() const;

private:
    uint64_t excludedBefore(size_t engine, uint64_t t, size_t i) const noexcept; // in [first, t); i contains t

    uint64_t m_firstNs = 0, m_lastNs = 0;
    std::vector<std::vector<ActivityInterval>> m_engines;
    std::vector<std::vector<uint64_t>> m_excludedBefore; // per interval: Gc + Searching before its start
};

} // namespace sparkscope::core::detail
