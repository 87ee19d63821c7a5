#pragma once
// Export to the Chrome Trace Event Format: the JSON that Perfetto's UI (ui.perfetto.dev) and
// chrome://tracing open. `sparkscope-cli export --format chrome` and the app's File > Export >
// Chrome/Perfetto Trace write it with writeChromeTrace.
//
// What is written (docs/cli.md "export" has the user's view, and what a GHC eventlog maps to):
//   - process 1 "Engines": one thread per engine (tid chromeEngineTid(e), named "Engine <e>"), with
//     its running pieces, GC and searching as complete slices (ph X); idle and sleeping time is
//     left empty. A running piece is a stretch during which the engine runs one context whose
//     innermost conjunct does not change: it is named after that conjunct, "<static id>/<position>"
//     as in the metrics file ("fib.m:10/2"), or "running" outside every conjunction;
//   - process 2 "Contexts": one thread per context id (tid chromeContextTid(lane), lanes in
//     ascending id order, named "Context <id>", plus ": <label>" for a GHC THREAD_LABEL), with its
//     running pieces (named as on the engines), and "runnable" and "blocked" slices;
//   - sparks as flow arrows (ph s/f, cat "spark", names "spark run" or "spark stolen") from the
//     creator's running piece at SPARK_CREATE to the first running piece of the conjunct's context
//     on or after SPARK_RUN/SPARK_STEAL, both on engine threads;
//   - futures as flow arrows (cat "future", name "future <variable>") from the signalling piece at
//     FUT_SIGNAL to the piece in which each wait that suspended before the signal runs again;
//   - USER_MARKER events as global instant events (ph i, s g);
//   - CPUS_OVER_TIME (engines running at once) as the counter "CPUs" {"running": n} of process 1, one
//     sample per step; with `sparkDeques`, each engine's spark deque size (deque_sizes.h) as the
//     counter "Spark deque (Engine <e>)" {"sparks": n}.
// Flow ends bind to slices: "s" to the slice enclosing its time, "f" (bp "e") to the slice
// starting at its time. An arrow whose end is not inside a running piece on that engine (a
// damaged trace) is left out and counted in ChromeTraceSummary::flowsSkipped.
//
// Times are microseconds with the nanoseconds as three decimals (exact, no floating point), the
// trace's own clock. Slices on one thread never overlap (a damaged trace's overlapping states are
// clipped), and no slice is empty. The file is one JSON object {"displayTimeUnit", "otherData",
// "traceEvents": [...]}, one event per line; the events are grouped by thread, each thread's in time
// order, then the flows, markers and counters: the format does not ask for a global order (both
// viewers sort on load), and within one timestamp a slice comes before the flow ends bound to it.
//
// Memory: the engine states, the parallel model and the CPUs curve of the trace (as computeMetrics
// builds them), plus a 1 MiB output buffer: the JSON is streamed out, never held whole.
// Pure function of the trace; thread-safe for distinct output streams.
#include "sparkscope/core/result.h"
#include "sparkscope/core/trace.h"

#include <cstdint>
#include <ostream>
#include <string>

namespace sparkscope::core {

inline constexpr uint32_t kChromeEnginesPid = 1;
inline constexpr uint32_t kChromeContextsPid = 2;
// Thread ids are unique across both processes (the viewers key threads by tid) and never 0.
constexpr uint32_t chromeEngineTid(size_t engine) noexcept { return uint32_t(engine) + 1; }
constexpr uint32_t chromeContextTid(size_t lane) noexcept { return 0x10000u + uint32_t(lane); }

struct ChromeTraceOptions {
    bool contextTracks = true; // process 2 (one thread per context)
    bool sparkDeques = false; // a spark deque counter per engine (GHC logs: millions of samples)
};

struct ChromeTraceSummary {
    uint64_t slices = 0; // X
    uint64_t flows = 0; // s/f pairs
    uint64_t flowsSkipped = 0; // arrows left out: an end not inside a running piece
    uint64_t instants = 0; // i
    uint64_t counterSamples = 0; // C
    uint64_t bytes = 0; // written
};

// Writes the whole document to `out`; an Io error when the stream fails.
Result<ChromeTraceSummary> writeChromeTrace(const Trace& trace, std::ostream& out, const ChromeTraceOptions& options = {});
// The same into a file (created or truncated); an Io error names the path.
Result<ChromeTraceSummary> writeChromeTraceFile(
    const Trace& trace, const std::string& path, const ChromeTraceOptions& options = {});

} // namespace sparkscope::core
