#pragma once
// streamTrace: one pass over an uncompressed eventlog in memory bounded by a window of the file,
// not by its size. It is how the viewer opens traces too big to hold as a Trace (docs/
// performance.md, "Big traces"): a 2 GB eventlog holds ~200 M events, whose 24-byte handles alone
// would take 4.8 GB.
//
// How: the file is memory-mapped and decoded a range of about `windowBytes` at a time by the
// reader's own decode loop (so every rule of attribution, truncation and damage is the reader's),
// and the pages of each decoded range are handed back to the kernel (MADV_DONTNEED: they stay in
// the page cache, and a later access maps them again). Each engine's events are kept back in a
// small sorted buffer and handed to `consume` in time order, stably, as the reader's per-engine
// sort orders them: the newest `holdBack` events of an engine wait, because GHC writes a few events
// out of order inside a block. An event that arrives earlier than one already handed out (an
// inversion longer than the hold-back) is handed out anyway and counted in `lateEvents`, so a
// caller can tell that its result may differ from reading the trace whole.
//
// Besides the events, the pass records where each engine's blocks lie and which times they hold
// (BlockExtent), so that a window of time can later be decoded again from the file alone
// (decodeBlocks).
//
// Compressed input cannot be mapped: it is refused with ErrorCode::Unsupported, and callers read it
// whole. Neither function throws on bad input; errors name the byte offset.
#include "sparkscope/core/result.h"
#include "sparkscope/core/trace.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace sparkscope::core {

// A run of at most kExtentEvents consecutive events of one block of one engine, as found in the
// file: a whole block, or a piece of a big one (GHC's hold ~100,000 events), so that a narrow window
// of time decodes a few thousand events, not a whole block.
struct BlockExtent {
    static constexpr uint32_t kExtentEvents = 4096;
    uint64_t offset = 0; // of the first event (the block marker for a block's first extent)
    uint64_t bytes = 0; // from `offset` to the end of the last event
    uint64_t blockOffset = 0; // of the block's marker
    uint64_t blockEnd = 0; // where the marker says the block ends; 0 when its size cannot be trusted
    uint64_t blockEndNs = 0; // the time the marker says the engine closed the block (0: none given)
    uint64_t firstNs = UINT64_MAX; // earliest event time in the extent (UINT64_MAX if none)
    uint64_t lastNs = 0; // latest event time in the extent
    uint32_t events = 0; // events in the extent, the marker included
};

// Events of one engine (or the global ones: engine == kNoEngine), in time order. `stream` is the
// whole decoded stream: Event::offset indexes into it, and it stays readable for the whole pass.
struct StreamBatch {
    uint16_t engine = kNoEngine;
    std::span<const Event> events;
    std::span<const uint8_t> stream;

    Payload payload(const Event& e) const noexcept { return payloadIn(stream, e); }
};

struct StreamOptions {
    uint64_t windowBytes = uint64_t(32) << 20; // stream bytes decoded per step
    size_t holdBack = 4096; // events of each engine kept back for late arrivals
    const std::atomic<bool>* cancel = nullptr;
    std::function<void(uint64_t done, uint64_t total)> progress; // stream bytes
    // Streams only the file's first `endBytes` bytes, read as a finished stream: the complete part
    // of a trace still being written (TraceFollower: it ends on a block boundary, and the file may
    // grow meanwhile). Reaching that end without DATA_END is then no truncation.
    uint64_t endBytes = UINT64_MAX;
};

struct StreamedTrace {
    // Everything of a Trace but its events: path, sizes, header, warnings, truncation, the time span,
    // and `engines` sized to the engine count (each empty).
    Trace summary;
    std::vector<std::vector<BlockExtent>> blocks; // per engine, in file order (extents of blocks)
    uint64_t events = 0; // events handed out, global ones included
    uint64_t lateEvents = 0; // events that came after a later one of their engine had been handed out
};

// Streams `path`, calling consume(batch) for each run of events of one engine, from one thread,
// as the pass goes. All of an engine's events, in order, across its batches, are what readTrace's
// trace.engines[engine] holds (when lateEvents is 0).
Result<StreamedTrace> streamTrace(
    const std::string& path, const std::function<void(const StreamBatch&)>& consume, const StreamOptions& options = {});

// A stream that goes on as its file grows: what the follower (the app's TraceFollower) runs, so that
// each update decodes only the bytes appended since the last one instead of the whole file again.
// advance() streams on to a new end, handing events out exactly as streamTrace does; summary()
// gives what streamTrace would return had the file ended there, handing the events still held back
// to its `consume` without giving them up. Streamed in any number of steps, each ending where a
// block ends (a complete part, completePrefixOfFile), the events handed out — those summary() hands
// included — are those one streamTrace to the same end hands, each engine's (and the global ones)
// in the same order, when no event comes late (lateEvents == 0 in both: the hold-back is a count of
// events, and the steps cut the ranges elsewhere, so an inversion near the hold-back's length may be
// late in one and not the other); the extents and the summary are the same too (tested). How the
// batches of different engines interleave depends on where the steps fall.
// After an advance fails (cancelled included) the streamer is spent: start a new one. Not
// thread-safe; it may move between threads between calls.
class TraceStreamer {
public:
    using Consumer = std::function<void(const StreamBatch&)>;

    // options.endBytes is not used: each advance says where to stop.
    TraceStreamer(std::string path, StreamOptions options = {});
    ~TraceStreamer();
    TraceStreamer(TraceStreamer&&) noexcept;
    TraceStreamer& operator=(TraceStreamer&&) noexcept;

    // Streams on to the file's first `endBytes` bytes (UINT64_MAX: to its end as it is now), read as
    // a finished stream (StreamOptions::endBytes). Each end must be where a block ends (a complete
    // part): a stream that stops inside an event has ended for good (ended()), as a truncated file
    // has. Nothing is done once the stream has ended. An end before position() is an error.
    std::optional<Error> advance(uint64_t endBytes, const Consumer& consume);
    // The cancel flag the next advances poll (StreamOptions::cancel).
    void setCancel(const std::atomic<bool>* cancel) noexcept;
    // The stream bytes decoded so far (the file offset the next advance starts from).
    uint64_t position() const noexcept;
    // DATA_END was reached, or decoding stopped before the end (damage, a garbage tail): nothing a
    // longer file adds can change what was read.
    bool ended() const noexcept;
    // What streamTrace to the last advance's end returns; the events held back go to `consume` (after
    // all of their stream handed out before) and stay held.
    StreamedTrace summary(const Consumer& consume) const;
    // The same, ending the stream: the held events are handed out for good.
    StreamedTrace finish(const Consumer& consume) &&;
    // The error to report when the file shrank since it was last mapped (its vanished pages read as
    // zeros), nullopt when it did not: asked after summary() or finish(), whose held-back events
    // were read from the mapping, it says whether what they handed out can be trusted. (Valid after
    // finish too.)
    std::optional<Error> fileShrank() const;

private:
    struct State;
    std::unique_ptr<State> m;
};

// The events of the given extents of `engine`, decoded again from the file and sorted by time
// (stably), in a Trace of their own that holds just those extents' bytes. The extents must come
// from streamTrace of the same, unchanged file.
Result<Trace> decodeBlocks(const std::string& path, const Header& header, uint16_t engine,
    std::span<const BlockExtent> blocks);

} // namespace sparkscope::core
