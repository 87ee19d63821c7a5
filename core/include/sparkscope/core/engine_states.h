#pragma once
// Engine states: what each engine (GHC: capability) was doing at every instant of the trace,
// derived from its events. The timeline draws these bars and builds its level-of-detail index on
// them; the metrics derive CPUS_OVER_TIME and ENGINE_STATE_TIME from them.
//
// Per engine, one left-to-right scan of its (time-sorted) events drives a small state machine:
//   RUN_THREAD(c)                   -> Running(c)      until the next STOP_THREAD on that engine
//   GC_START .. GC_END              -> Gc              (GC_WORK / GC_IDLE / GC_DONE stay in Gc; GC
//                                                      overrides Running, and after GC_END the engine
//                                                      returns to the state it had before GC_START)
//   MER_LOOKING_FOR_GLOBAL_CONTEXT, MER_WORK_STEALING, MER_LOOKING_FOR_LOCAL_SPARK
//                                   -> Searching       until success (RUN_THREAD, MER_SPARK_RUN,
//                                                      MER_SPARK_STEAL) or MER_ENGINE_SLEEPING;
//                                                      ignored while Running or in GC
//   MER_ENGINE_SLEEPING             -> Sleeping        until the engine's next event of any kind
//                                                      but a block marker (a flush, not a wake-up)
//   anything else / no information  -> Idle
// A RUN_THREAD while already Running closes the previous run (a lost STOP_THREAD); a STOP_THREAD
// while not Running is ignored. check_model.h reports both.
//
// Invariants of the result, for every engine e:
//   - intervals[e] is sorted, non-overlapping and gap-free, and covers exactly
//     [trace.firstTimeNs, trace.lastTimeNs] (an engine without events is one Idle interval);
//   - no interval is empty and no two neighbours have the same (state, context);
//   - context == kNoContext unless state == Running.
// Cost: linear in the events; engines are scanned in parallel (TBB). Thread safety: the result is
// a plain value, immutable after the call.
#include "sparkscope/core/step_function.h"
#include "sparkscope/core/trace.h"

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

namespace sparkscope::core {

inline constexpr uint32_t kNoContext = 0xFFFFFFFF;

enum class EngineState : uint8_t { Idle = 0, Running = 1, Gc = 2, Searching = 3, Sleeping = 4 };
inline constexpr size_t kEngineStateCount = 5;
// "idle", "running", "gc", "searching", "sleeping": stable names used in the metrics file.
std::string_view engineStateName(EngineState state) noexcept;

struct StateInterval {
    uint64_t startNs = 0;
    uint64_t endNs = 0; // exclusive
    uint32_t context = kNoContext; // the running context (GHC: thread id) when Running
    EngineState state = EngineState::Idle;

    uint64_t durationNs() const noexcept { return endNs - startNs; }
    bool operator==(const StateInterval&) const = default;
};

// Per-engine state intervals for a whole trace (see the file comment for the rules and invariants).
struct EngineStates {
    uint64_t firstNs = 0; // = trace.firstTimeNs
    uint64_t lastNs = 0; // = trace.lastTimeNs
    std::vector<std::vector<StateInterval>> engines; // index = engine number

    size_t engineCount() const noexcept { return engines.size(); }
    // Total time of each state on one engine (indexed by EngineState), optionally within [fromNs, toNs).
    std::array<uint64_t, kEngineStateCount> timeInStates(
        size_t engine, uint64_t fromNs = 0, uint64_t toNs = UINT64_MAX) const;
    // The interval of `engine` containing t, or nullptr outside [firstNs, lastNs). O(log n).
    const StateInterval* at(size_t engine, uint64_t t) const noexcept;
};

// Derives the intervals. Parallel over engines; O(events).
EngineStates computeEngineStates(const Trace& trace);

// The state machine of one engine, fed its events one at a time in time order: what
// computeEngineStates runs per engine, and what a caller streaming a trace (trace_stream.h) runs as
// the events arrive, before the trace's time span is known. Equal neighbours are merged as they
// come, so it holds the result only.
class EngineStateScanner {
public:
    // `keepIntervals` false: only the current state is kept (state(), stateBeforeGc()), in constant
    // memory, and finish() gives nothing — what a cut needs of the events before its range.
    explicit EngineStateScanner(bool keepIntervals = true)
        : m_keep(keepIntervals)
    {
    }
    // `stream` is the decoded stream e's offset indexes (only RUN_THREAD's payload is read: its
    // context).
    void add(const Event& e, std::span<const uint8_t> stream);
    // The intervals over [firstNs, lastNs], firstNs and lastNs being the whole trace's (every event
    // of the engine lies inside). Leaves the scanner empty.
    std::vector<StateInterval> finish(uint64_t firstNs, uint64_t lastNs);
    // The engine's state after the events added so far; during a collection (state() == Gc), the one
    // it interrupted, which GC_END gives back. What a cut starts the engine in (cut.h).
    EngineState state() const noexcept { return m_cur.state; }
    EngineState stateBeforeGc() const noexcept { return m_savedBeforeGc.state; }

private:
    struct Current {
        EngineState state = EngineState::Idle;
        uint32_t context = kNoContext;
    };
    void switchTo(uint64_t t, EngineState state, uint32_t context);
    void push(const StateInterval& r);

    std::vector<StateInterval> m_out;
    Current m_cur, m_savedBeforeGc;
    bool m_inGc = false;
    bool m_keep = true;
    uint64_t m_curStart = 0; // the trace's first time stands in for 0 at finish()
};

// CPUS_OVER_TIME: number of engines in the Running state at each instant, over [firstNs, lastNs).
// Its integral is the total running time summed over engines. O(n log n) in intervals.
StepFunction cpusOverTime(const EngineStates& states);

} // namespace sparkscope::core
