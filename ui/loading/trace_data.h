#pragma once
// TraceData: a loaded trace plus every index the views paint from — engine-state level-of-detail
// pyramid, CPUs-over-time step function, per-engine instant events, user markers. Built once on a
// worker thread (buildTraceData), immutable afterwards and shared read-only by all views
// (std::shared_ptr<const TraceData>). Memory: the trace, plus ~24 bytes per engine-state interval,
// and the pyramid (bounded). The trace keeps only the bytes of events that carry a payload
// (keepOnlyPayloadBytes): a GHC log is mostly payload-free events whose type and time the Event
// handles already hold, so its decoded stream (108 MB for parfib-4-37) would be dead weight.
#include "sparkscope/core/conjunction_starts.h"
#include "sparkscope/core/decompressed_file.h"
#include "sparkscope/core/engine_states.h"
#include "sparkscope/core/lod_index.h"
#include "sparkscope/core/result.h"
#include "sparkscope/core/step_function.h"
#include "sparkscope/core/trace.h"
#include "sparkscope/core/trace_stream.h"
#include "ui/loading/streamed_events.h"

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace sparkscope::ui {

// What an instant event is drawn as (ticks on an engine row).
enum class TickKind : uint8_t { SparkCreate, SparkRun, SparkSteal, Conjunction, Future, Thread, Message, Other, Count };
// The tick kind of an event type, or TickKind::Count for events that are not drawn as ticks
// (durations such as RUN_THREAD/GC_START, bookkeeping such as block markers).
TickKind tickKindOf(uint16_t type) noexcept;
const char* tickKindName(TickKind kind) noexcept;

struct Marker {
    int64_t timeNs = 0;
    std::string label;
    uint16_t engine = core::kNoEngine;
};

struct TraceData {
    std::shared_ptr<const core::Trace> trace;
    core::LodIndex lod; // state = core::EngineState value, label = context id (kNoContext if none)
    core::StepFunction cpus; // CPUS_OVER_TIME
    std::vector<Marker> markers; // USER_MARKER events, by time
    int64_t startNs = 0;
    int64_t endNs = 1;

    // Set when the trace was opened by streaming (big files): `trace` then holds no events (its
    // header, times, warnings and engine count only), and they are decoded again on demand.
    std::shared_ptr<const StreamedEvents> streamed;
    // A compressed trace opened by streaming is streamed from this decompressed copy (its events are
    // decoded again from it on demand), removed with the last holder. `trace->path` is the
    // compressed file's, as always.
    std::shared_ptr<const core::DecompressedFile> decompressed;
    // A streamed trace's conjunction starts by site, gathered by the streaming pass (the comparison's
    // anchors, ui/compare/time_alignment.h, cannot scan events it does not hold). Empty otherwise.
    core::ConjunctionStarts streamedConjunctionStarts;
    // What core::checkFormat finds wrong with the file beyond the reader's warnings (an engine no
    // CAP_CREATE names, a block that ends before it begins, a header that contradicts every layout),
    // at most 100 (then how many more). Only for a finished file read whole: a streamed one is not
    // scanned again for them, and a followed one may still be missing the block that names its engines.
    std::vector<std::string> formatProblems;
    // Our runtime's flush interval for a trace meant to be followed (core::flushMsOf): that runtime
    // also writes an engine's wake-up at once, so an engine asleep at its last written event is not
    // behind (unwrittenFrom).
    std::optional<uint64_t> flushMs;

    size_t engineCount() const noexcept { return lod.engineCount(); }
    bool isStreamed() const noexcept { return streamed != nullptr; }
    // Events in the trace, streamed or held.
    uint64_t eventCount() const noexcept { return streamed ? streamed->eventCount() : trace->eventCount(); }
    // The events of `engine` with time in [fromNs, toNs) (instant or not: callers check tickKindOf),
    // or nullopt when more than `limit` fall there. No separate index is kept: the engine's events
    // are sorted by time, and ticks are drawn only when few events fall in the window, so filtering
    // while drawing is cheap and saves 4 bytes per event.
    std::optional<EventWindow> events(size_t engine, int64_t fromNs, int64_t toNs, size_t limit) const;
};

// Replaces the trace's decoded stream by the records (header + payload) of the events that carry a
// payload, and re-points those events' offsets into the new buffer; an event without payload points
// at offset 0, where its empty payload is a valid empty span, and one whose payload was cut off
// still reads as none. Trace::payload gives the same bytes for every event as before; what no longer
// holds is that Event::offset is a position in the file (the viewer never shows or writes those).
// Done only when the kept records are at most a quarter of the stream (GHC logs: ~0.1%); returns
// whether it was done. O(events).
bool keepOnlyPayloadBytes(core::Trace& trace);

// Per engine, the time of its latest event in `data` (INT64_MIN for an engine with none). In a trace
// still being written, an engine's events reach the file when its buffer fills: after that time,
// what it did is not known yet (it may have been running all along), though the timeline shows it idle.
std::vector<int64_t> lastEventTimes(const TraceData& data);

// Per engine, the time before which all its events are in the file: its latest event's time, or the
// time its latest complete block was closed when that is later (INT64_MIN: nothing of it written).
// GHC closes every capability's block at each flush (--eventlog-flush-interval), an idle one's empty,
// so an idle capability's blocks say it did nothing until the flush; our runtime closes a block when
// it writes it. (GHC may post GC_START or GC_END a few µs after stamping them, in the next block: far
// below what counts as behind, below.)
std::vector<int64_t> writtenUntil(const TraceData& data);

// Per engine, where the part of a trace still being written that its events do not cover yet starts:
// writtenUntil (the trace's start for an engine with nothing written) when that is more than 1 % of
// the trace's span, and at least 1 ms, before the trace's end; INT64_MAX for an engine that is not
// behind, and for one asleep at its latest event in a trace whose runtime writes wake-ups at once
// (TraceData::flushMs): it is asleep still. What the live indicator names, the timeline hatches and
// the live analysis stops before.
std::vector<int64_t> unwrittenFrom(const TraceData& data);
// The same from writtenUntil(data), for a caller that shows those too.
std::vector<int64_t> unwrittenFrom(const TraceData& data, std::vector<int64_t> written);
// The earliest of those: where the part every engine has written ends (INT64_MAX: none is behind).
int64_t writtenByAllUntil(const std::vector<int64_t>& unwritten) noexcept;

// Builds the indexes of a decoded trace (TBB-parallel per engine), after keepOnlyPayloadBytes.
// Returns null when `cancel` became true.
// `formatProblems`: TraceData::formatProblems, found by the caller before keepOnlyPayloadBytes
// re-points the events' offsets.
std::shared_ptr<const TraceData> buildTraceData(
    core::Trace trace, const std::atomic<bool>* cancel = nullptr, std::vector<std::string> formatProblems = {});

// The complete first part of a trace being written, read whole and indexed: `bytes` are the file's
// first `completeBytes` (whole blocks, core::completePrefix) and are read as a finished stream (a
// DATA_END is appended unless `ended`), on one thread. What TraceFollower shows of a file below
// followStreamThresholdBytes. Null data when `cancel` became true.
core::Result<std::shared_ptr<const TraceData>> readTraceDataPart(std::vector<uint8_t> bytes, uint64_t completeBytes,
    bool ended, const std::string& path, const std::atomic<bool>* cancel = nullptr);

// Streams `path` (trace_stream.h) and builds the same indexes without holding its events. Fails with
// ErrorCode::Unsupported for a compressed file unless `copy`, its decompressed copy, is given (which
// is then what is streamed). `endBytes`: only the file's complete first part of that many bytes (a
// trace being written: StreamOptions::endBytes).
core::Result<std::shared_ptr<const TraceData>> streamTraceData(const std::string& path,
    const std::function<void(int)>& progress = {}, const std::atomic<bool>* cancel = nullptr,
    uint64_t endBytes = UINT64_MAX, std::shared_ptr<const core::DecompressedFile> copy = nullptr);

// The streaming pass behind streamTraceData, kept between calls: a followed trace's update streams
// only the bytes appended since the last one (TraceFollower). snapshot() builds the TraceData of
// what was streamed so far and leaves the pass able to go on: it costs the indexes (copies of the
// state runs and conjunction starts, and the pyramid built from them), not a pass over the file.
// A snapshot equals streamTraceData of the same part of the file (tested). After a failed advance
// (cancelled included) the streamer is spent. Not thread-safe; it may move between threads.
class TraceDataStreamer {
public:
    // `copy`: a compressed `path`'s decompressed copy, which is what is streamed.
    explicit TraceDataStreamer(std::string path, const std::function<void(int)>& progress = {},
        std::shared_ptr<const core::DecompressedFile> copy = nullptr);
    // Streams on to the file's first `endBytes` bytes (a complete part: StreamOptions::endBytes).
    std::optional<core::Error> advance(uint64_t endBytes = UINT64_MAX, const std::atomic<bool>* cancel = nullptr);
    uint64_t position() const noexcept { return m_stream.position(); }
    bool ended() const noexcept { return m_stream.ended(); }
    std::shared_ptr<const TraceData> snapshot() const;
    // The last snapshot, without the copies.
    std::shared_ptr<const TraceData> finish() &&;
    // Whether the file shrank under the last snapshot or finish (core::TraceStreamer::fileShrank):
    // it may then hold zeros read from vanished pages, and is not to be shown.
    std::optional<core::Error> fileShrank() const { return m_stream.fileShrank(); }

private:
    // What the pass gathers beside the stream's own summary.
    struct Pass {
        std::vector<core::EngineStateScanner> scanners;
        uint64_t marks = 0; // events a compact read would hold as marks (MetricsPanels::showStreamed)
        core::ConjunctionStartScanner starts;
        std::vector<uint32_t> handed; // per stream (0: global, e + 1: engine e), events handed out so far
        std::vector<Marker> markers;
        std::optional<uint64_t> flushMs; // core::flushMsOfIdentifier of the first RTS_IDENTIFIER passed that names one
        void add(const core::StreamBatch& batch);
    };
    std::shared_ptr<const TraceData> build(Pass pass, core::StreamedTrace s) const;

    std::string m_path;
    std::shared_ptr<const core::DecompressedFile> m_copy;
    core::TraceStreamer m_stream;
    Pass m_pass;
    uint64_t m_endBytes = UINT64_MAX;
};

// Files at least this big (uncompressed) are streamed rather than read whole: reading a 1 GiB GHC
// eventlog whole holds ~3.4 GB. SPARKSCOPE_STREAM_BYTES overrides it (0 streams every file). A
// compressed file of at least a sixteenth of it (eventlogs compress 5-10 times) is decompressed into
// a temporary copy first (core::DecompressedFile), which is streamed when it reaches the threshold
// and read whole otherwise. A value that is not a whole number of bytes is ignored, with a warning.
uint64_t streamThresholdBytes();
// Files at least this big are followed the streamed way (TraceFollower), though opened whole: a
// whole-read update reads and indexes the whole complete part again, ~0.35-0.6 s of CPU per 100 MB
// (sparkscope-follow-bench), so past ~64 MiB a new block could not be on screen within a second,
// while the kept streaming pass costs tens of milliseconds at any size. 64 MiB unless
// SPARKSCOPE_FOLLOW_STREAM_BYTES says otherwise (read as SPARKSCOPE_STREAM_BYTES is); never above
// streamThresholdBytes().
uint64_t followStreamThresholdBytes();

// Reads and indexes `path` on the calling thread, streaming it when it is big (see above).
// progress(permille) is called now and then.
core::Result<std::shared_ptr<const TraceData>> loadTraceData(
    const std::string& path, const std::function<void(int)>& progress = {}, const std::atomic<bool>* cancel = nullptr);

} // namespace sparkscope::ui
