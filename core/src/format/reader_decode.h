#pragma once
// Private to the reader: header parsing, the event decode loop, the block planner used for parallel
// decoding, and the per-engine stable sort. See reader_decode.cpp for the algorithm and its rules.
#include "sparkscope/core/result.h"
#include "sparkscope/core/trace.h"

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

namespace sparkscope::core::detail {

// What the decode loop needs to know of each event number: its payload size, or one of two flags.
// 65,536 entries (256 KB), indexed directly by the u16 type: one load per event, no branches on the
// header's contents.
struct SizeTable {
    static constexpr uint32_t kVariable = 0x10000;
    static constexpr uint32_t kUndeclared = 0x20000;
    std::array<uint32_t, 65536> size;
    explicit SizeTable(const Header& header);
};

struct ParsedHeader {
    Header header;
    uint64_t dataStart = 0; // offset of the first byte after "datb"
};

// Parses "hdrb" ... "datb". Errors carry the offset of the offending field.
Result<ParsedHeader> parseHeader(std::span<const uint8_t> bytes);

// Decoded events of one stretch of the stream, split by engine, in file order.
struct EventSink {
    std::vector<std::vector<Event>> engines;
    std::vector<Event> global;
    std::vector<Event>& forEngine(uint16_t engine)
    {
        if (engine == kNoEngine)
            return global;
        if (engine >= engines.size())
            engines.resize(size_t(engine) + 1);
        return engines[engine];
    }
};

// The attribution state carried from one event to the next (see the rules in reader_decode.cpp).
struct BlockState {
    uint16_t engine = kNoEngine;
    int64_t remaining = 0; // bytes of the current block not yet consumed; 0 = outside any block
    bool lenient = false; // the block's size is unusable: attribute to `engine` until the next marker
    bool sawMarker = false;
    uint64_t blockOffset = 0; // offset of the current block's marker
};

struct DecodeContext {
    const SizeTable* sizes = nullptr;
    const std::atomic<bool>* cancel = nullptr;
    // Called with the number of stream bytes decoded since the previous call (about every MB).
    std::function<void(uint64_t)> advanced;
};

enum class DecodeStop {
    DataEnd, // DATA_END found
    RangeEnd, // reached `limit` exactly at an event boundary
    Truncated, // the stream ends inside an event or without DATA_END, or a garbage tail starts
    Failed, // error (see DecodeOutcome::error)
    Cancelled,
};

struct DecodeOutcome {
    DecodeStop stop = DecodeStop::RangeEnd;
    uint64_t position = 0; // where decoding stopped
    std::vector<Warning> warnings; // block-size problems (truncation is reported by the caller)
    std::optional<Error> error;
    std::string truncation; // why it stopped early, for Truncated
    uint64_t minTimeNs = UINT64_MAX;
    uint64_t maxTimeNs = 0; // includes block end times
    uint64_t events = 0;
};

// Decodes events from `begin` until DATA_END, `limit` (an event boundary) or the end of `bytes`.
// `isTail` says whether the end of `bytes` is the real end of the stream (truncation) or whether
// `limit` is a block boundary the range must end on exactly.
DecodeOutcome decodeEvents(std::span<const uint8_t> bytes, uint64_t begin, uint64_t limit, BlockState& state,
    EventSink& sink, const DecodeContext& ctx);

// Moves `from`'s warnings to the end of `to`, keeping to the cap one decode keeps (the rest are
// summed up in one line), so that decoding in several steps warns as decoding in one does.
void appendWarnings(std::vector<Warning>& to, std::vector<Warning>& from);

// Records how decoding ended in `trace`: truncation (the flag and a warning saying where and why),
// bytes after DATA_END, and the outcome's block warnings. `events` = all events decoded before the
// stop. For the outcomes other than Failed and Cancelled, which the caller reports itself.
void recordStop(Trace& trace, DecodeOutcome& outcome, uint64_t streamBytes, uint64_t events);

// One step of planRanges: walks whole events (a block in one step, by its declared size) from
// `from` until at least `targetBytes` are passed. `end` is where it stopped: an event boundary, or,
// when `stuck`, the first place it could not walk past (the end, DATA_END, an undeclared type, a
// block reaching the end of the stream: the tail's business, decoded with full checks).
struct RangeWalk {
    uint64_t end = 0;
    bool stuck = false;
    bool sawMarker = false; // the walk passed a block marker
};
RangeWalk walkRange(std::span<const uint8_t> bytes, uint64_t from, const SizeTable& sizes, uint64_t targetBytes);

// Offsets that split [dataStart, end) into ranges that each start and end on block boundaries
// (walking marker to marker by declared size), about `targetBytes` each. The last cut is where the
// walk stopped; the rest of the stream from there is the "tail", decoded with full checks.
struct RangePlan {
    std::vector<uint64_t> cuts;
    bool tailSawMarker = false; // a block marker lies before the tail
};
RangePlan planRanges(std::span<const uint8_t> bytes, uint64_t dataStart, const SizeTable& sizes, uint64_t targetBytes);

// Grows `v`'s capacity to at least `capacity`, advising huge pages before the old elements are
// copied over (reserveAdvised, util/large_array.h).
void reserveEvents(std::vector<Event>& v, size_t capacity);

// Stable sort by time; linear for already sorted input and nearly linear for a few local
// inversions, O(n log n) in the worst case.
void stableSortByTime(std::vector<Event>& events);

} // namespace sparkscope::core::detail
