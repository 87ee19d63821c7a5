#pragma once
// forEachEventInTimeOrder: every event of an eventlog file in global time order — exactly the order
// Trace::forEachInTimeOrder gives the same file read whole (ties: the events outside every block
// first, then by engine number, then file order) — in memory bounded by how far the engines' blocks
// overlap in time, not by the file's size. It is how `sparkscope-cli show` prints a trace of
// gigabytes: read whole, a 2 GB eventlog takes ~7 GB.
//
// How: a first streaming pass (streamTrace) records where each engine's events lie in the file and
// which times they hold (BlockExtent: a block, or 4,096 events of a big one), and keeps the few
// events outside every block. The second pass merges: extents are decoded again from the file
// (decodeBlocks) in order of their first time, each one just before the merge could reach it — no
// event of an extent not yet decoded can come before the earliest time it holds — and a heap of
// the decoded extents hands out the earliest event by (time, engine, file position), which is the
// stable per-engine sort readTrace makes followed by its merge.
//
// Held at once: the events outside every block (a few in any writer's traces), the extents'
// places (48 bytes per 4,096 events or per block), and the decoded extents whose times overlap the
// event being handed out — in GHC's and our runtime's traces a few per engine, since each engine
// writes its blocks in time order.
//
// A compressed file is decompressed to a temporary file first (decompressed_file.h). Bad input is
// reported as readTrace reports it: the summary's warnings say what was cut short or damaged, and
// what was read is handed out.
#include "sparkscope/core/result.h"
#include "sparkscope/core/trace.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace sparkscope::core {

struct TimeOrderOptions {
    // Only this engine's events (kNoEngine: those outside every block); all when unset. Extents of
    // other engines are never decoded again.
    std::optional<uint16_t> engine;
    // Only events with fromNs ≤ time ≤ toNs; extents wholly outside are never decoded again.
    uint64_t fromNs = 0, toNs = UINT64_MAX;
    const std::atomic<bool>* cancel = nullptr;
};

// Calls f(event, payload) for each event in time order until f returns false. The event's `offset`
// is its place in a buffer of the pass's own, not in the file; its other fields are readTrace's.
// Returns the trace without its events (StreamedTrace::summary: path, sizes, header, warnings,
// truncation, time span), named after the compressed file when it was one.
Result<Trace> forEachEventInTimeOrder(const std::string& path,
    const std::function<bool(const Event&, const Payload&)>& f, const TimeOrderOptions& options = {});

} // namespace sparkscope::core
