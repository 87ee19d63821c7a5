#pragma once
// Cutting a time range out of a trace: cutTrace writes a valid eventlog holding the original header,
// every event whose time lies in [fromNs, toNs] (block markers aside: the writer makes its own), and
// the state a reader needs at fromNs, re-timed to fromNs:
//   - the definitions posted before the range: STARTUP, capsets and capabilities (created, assigned,
//     enabled, deleted), RTS identifier, program arguments and environment, process ids, interned
//     strings (the conjunction events' static ids name them), heap/profiling/ticky/IPE definitions;
//     WALL_CLOCK_TIME is moved to fromNs with its wall time moved by the same amount, so it still
//     pins the eventlog's clock to the wall clock;
//   - each context alive at fromNs: its creation (CREATE_THREAD, CREATE_SPARK_THREAD or
//     REUSE_CONTEXT) and last THREAD_LABEL, and RUN_THREAD on its engine when it was running there;
//     one blocked then, its last RUN_THREAD and blocking STOP_THREAD, so that it reads blocked;
//     one woken since and not run since, those and its wake-up, so that its next run is a resume
//     (but not when the range runs it at exactly fromNs on a lower engine, which the reader takes
//     first: then it starts runnable, and that run is no resume);
//   - on each engine asleep or searching at fromNs, its ENGINE_SLEEPING or search event; on each
//     collecting, the event that began the collection (GC_START, or GC_WORK/IDLE/DONE), after them:
//     which engines are in which state is decided by the engine states' own rules
//     (EngineStateScanner) over the events before fromNs;
//   - each engine's last SPARK_COUNTERS and HEAP_ALLOCATED (cumulative: the metrics measure growth
//     from a sample at the trace's first instant);
//   - one block per engine of the original, so the cut has as many engines; the last ones end at
//     min(toNs, the original's end), so the cut lasts as long as the range.
// Conjunctions, sparks and futures that began before fromNs are not recreated: their events inside
// the range are kept as they are, so the model sees them as it would in a trace whose recording
// started at fromNs (their ends without starts are reported by `check`), and those still open at
// toNs as in a trace whose recording stopped there.
//
// Engines' events go out in time order in blocks of at most ~512 KB per engine, flushed the way a
// runtime flushes its buffers, so blocks of different engines interleave roughly by time.
// Cost: one time-ordered pass over the trace (O(n log k)), output built in memory.
#include "sparkscope/core/result.h"
#include "sparkscope/core/trace.h"

#include <cstdint>
#include <string>
#include <vector>

namespace sparkscope::core {

struct CutStats {
    uint64_t rangeEvents = 0; // events of the original inside [from, to] (block markers aside)
    uint64_t stateEvents = 0; // events written as the state at `from`
    // The times of the original's first and last event (block markers aside), to say where its
    // events lie when the range holds none; both 0 when it has none.
    uint64_t traceFirstNs = 0, traceLastNs = 0;
};

struct CutOutput {
    std::vector<uint8_t> bytes; // a whole eventlog, ending with DATA_END
    CutStats stats;
    std::vector<Warning> warnings; // the original's reader warnings (cut short, damaged blocks)
};

// Fails (ErrorCode::Usage) when fromNs > toNs.
Result<CutOutput> cutTrace(const Trace& trace, uint64_t fromNs, uint64_t toNs);

// The same cut of the file at `path`, byte for byte, without holding the whole trace: an
// uncompressed file is streamed (trace_stream.h), keeping only the events of the range and, from
// before it, those the state at `fromNs` is made of (definitions, contexts' creations, labels, runs
// and stops, the collections' events, sleep and search events, and the event that wakes a sleeping
// engine); cutTrace then runs on those. Memory: the range, plus those kinds
// of events before it (`sparkscope-cli info` counts: 0.03 % of parfib-4-37's events, whose bulk is
// sparks; 53 % of sumfib-30-3000's, which switches threads often). A compressed file, or one whose events are out of
// order by more than the stream's hold-back, is read whole.
Result<CutOutput> cutFile(const std::string& path, uint64_t fromNs, uint64_t toNs);

} // namespace sparkscope::core
