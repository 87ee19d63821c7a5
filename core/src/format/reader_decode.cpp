// Decoding the GHC eventlog stream (format: eventlog-format.md section 1).
//
// Why this shape: a 100 MB eventlog holds ~10 million events of ~10 bytes each, so the reader's cost
// is the per-event loop. The loop looks up each event's payload size in a 65,536-entry table built
// from the header (one load, no search), appends a 24-byte Event handle to the vector of the engine
// that owns the current block, and keeps no other per-event state. Fields are decoded later, on
// demand, from the bytes the Trace keeps.
//
// Engine attribution (ghc-events' rule, GE-I decodeEvents): a BLOCK_MARKER (18) names the engine
// and the block's size in bytes including the marker itself; following events belong to that engine
// while the block's remaining byte count stays positive; once it reaches exactly 0, events have no
// engine until the next marker. A crashed program can leave a block whose size is still the 0
// placeholder, and a corrupt one can declare a size that does not land on an event boundary: then
// the block's events are attributed to its engine until the next marker (the only reading that
// makes sense for a file written block by block), with one warning per such block.
//
// Undeclared event numbers: inside a block whose declared size we are still consuming, or before
// any block, an undeclared number means the file is not what its header says: ErrorCode::
// UndeclaredEvent with its offset. Outside blocks after at least one block, or inside a block whose
// size is unusable, it is taken as the garbage tail of a killed program (nothing there can be
// attributed or trusted): reading stops there like a truncation, keeping every event before it.
//
// Parallel decoding: planRanges walks the stream from block marker to block marker by declared size
// (a few hundred jumps for a 100 MB file, since GHC flushes 2 MB buffers) and cuts it into ranges
// that start and end on block boundaries. Each range decodes independently (the state at a block
// boundary is always "outside any block"); a range is accepted only if it decodes to exactly its end
// with no warning, so the parallel result is by construction the sequential one, and the caller
// falls back to sequential decoding otherwise.
#include "format/reader_decode.h"

#include "sparkscope/core/byte_order.h"
#include "util/large_array.h"

#include <algorithm>
#include <string>

namespace sparkscope::core::detail {

namespace {
    constexpr uint32_t kHeaderBegin = 0x68647262; // "hdrb"
    constexpr uint32_t kHetBegin = 0x68657462; // "hetb"
    constexpr uint32_t kEtBegin = 0x65746200; // "etb\0"
    constexpr uint32_t kEtEnd = 0x65746500; // "ete\0"
    constexpr uint32_t kHetEnd = 0x68657465; // "hete"
    constexpr uint32_t kHeaderEnd = 0x68647265; // "hdre"
    constexpr uint32_t kDataBegin = 0x64617462; // "datb"
    constexpr uint16_t kDataEnd = 0xFFFF;
    constexpr uint32_t kMaxTextLength = 1u << 20; // descriptions and extra info; real ones are < 200 bytes
    constexpr size_t kMaxDeclarations = 65535;
    constexpr uint64_t kCheckEveryBytes = 1u << 20; // cancel and progress granularity
    constexpr size_t kMaxWarnings = 100;
    constexpr uint64_t kMinEventBytes = 10;
    constexpr uint64_t kMaxTrustedBlockBytes = 8u << 20;

    Error headerError(ErrorCode code, std::string message, uint64_t offset)
    {
        return Error { code, std::move(message), offset };
    }

    void addWarning(std::vector<Warning>& warnings, std::string message, uint64_t offset)
    {
        if (warnings.size() < kMaxWarnings)
            warnings.push_back({ std::move(message), offset });
        else if (warnings.size() == kMaxWarnings)
            warnings.push_back({ "further warnings of this read are not shown", offset });
    }
} // namespace

SizeTable::SizeTable(const Header& header)
{
    size.fill(kUndeclared);
    for (const auto& t : header.types)
        if (size[t.number] == kUndeclared)
            size[t.number] = t.isVariable() ? kVariable : t.size;
}

Result<ParsedHeader> parseHeader(std::span<const uint8_t> bytes)
{
    const uint8_t* d = bytes.data();
    const uint64_t n = bytes.size();
    auto cut = [&](uint64_t at) {
        return headerError(
            ErrorCode::BadFormat, "the file ends inside the eventlog header (" + std::to_string(n) + " bytes)", at);
    };
    if (n == 0)
        return headerError(ErrorCode::BadFormat, "the file is empty", 0);
    if (n < 4 || loadBE32(d) != kHeaderBegin)
        return headerError(ErrorCode::BadFormat, "not an eventlog: it does not start with \"hdrb\"", 0);
    if (n < 8)
        return cut(n);
    if (loadBE32(d + 4) != kHetBegin)
        return headerError(ErrorCode::BadFormat, "expected \"hetb\" (the event-type table) after \"hdrb\"", 4);

    ParsedHeader out;
    uint64_t pos = 8;
    std::vector<uint32_t> declaredSize(65536, UINT32_MAX);
    for (;;) {
        if (pos + 4 > n)
            return cut(pos);
        const uint32_t marker = loadBE32(d + pos);
        if (marker == kHetEnd) {
            pos += 4;
            break;
        }
        if (marker != kEtBegin)
            return headerError(ErrorCode::BadFormat, "expected an event-type declaration (\"etb\") or \"hete\"", pos);
        if (out.header.types.size() >= kMaxDeclarations)
            return headerError(ErrorCode::AbsurdSize, "the header declares more than 65535 event types", pos);
        const uint64_t declAt = pos;
        if (pos + 12 > n)
            return cut(pos);
        EventTypeDecl decl;
        decl.number = loadBE16(d + pos + 4);
        decl.size = loadBE16(d + pos + 6);
        const uint32_t descLength = loadBE32(d + pos + 8);
        if (decl.number == kDataEnd)
            return headerError(
                ErrorCode::BadFormat, "event type 65535 is declared, but that number means DATA_END", pos + 4);
        if (descLength > kMaxTextLength)
            return headerError(ErrorCode::AbsurdSize,
                "event type " + std::to_string(decl.number) + " has a description of " + std::to_string(descLength)
                    + " bytes",
                pos + 8);
        pos += 12;
        if (pos + descLength + 4 > n)
            return cut(pos);
        decl.description.assign(reinterpret_cast<const char*>(d + pos), descLength);
        pos += descLength;
        const uint32_t extraLength = loadBE32(d + pos);
        if (extraLength > kMaxTextLength)
            return headerError(ErrorCode::AbsurdSize,
                "event type " + std::to_string(decl.number) + " has " + std::to_string(extraLength)
                    + " bytes of extra info",
                pos);
        pos += 4;
        if (pos + extraLength + 4 > n)
            return cut(pos);
        decl.extra.assign(reinterpret_cast<const char*>(d + pos), extraLength);
        pos += extraLength;
        if (loadBE32(d + pos) != kEtEnd)
            return headerError(ErrorCode::BadFormat,
                "the declaration of event type " + std::to_string(decl.number)
                    + " does not end with \"ete\" where its lengths say it should",
                pos);
        pos += 4;
        uint32_t& previous = declaredSize[decl.number];
        if (previous != UINT32_MAX && previous != decl.size)
            return headerError(ErrorCode::BadFormat,
                "event type " + std::to_string(decl.number) + " is declared twice with different sizes", declAt);
        previous = decl.size;
        out.header.types.push_back(std::move(decl));
    }
    if (pos + 4 > n)
        return cut(pos);
    if (loadBE32(d + pos) != kHeaderEnd)
        return headerError(ErrorCode::BadFormat, "expected \"hdre\" after the event-type table", pos);
    pos += 4;
    if (pos + 4 > n)
        return cut(pos);
    if (loadBE32(d + pos) != kDataBegin)
        return headerError(ErrorCode::BadFormat, "expected \"datb\" after the header", pos);
    out.dataStart = pos + 4;
    return out;
}

namespace {
    // The loop's rare turns, out of line: the decoding loop keeps its registers for the common
    // path (one fixed-size event inside a block), and each turn reads as what it is.
    constexpr const char* kCutInsideEvent = "the stream ends inside the event that starts there";

    [[gnu::cold, gnu::noinline]] void stopTruncated(DecodeOutcome& out, std::string why)
    {
        out.stop = DecodeStop::Truncated;
        out.truncation = std::move(why);
    }

    // Fewer than 2 bytes left before `limit`: the end of a range that another decoder continues, or
    // a stream cut short.
    [[gnu::cold, gnu::noinline]] void stopAtLimit(DecodeOutcome& out, uint64_t pos, uint64_t limit, bool isTail)
    {
        if (pos == limit && !isTail)
            out.stop = DecodeStop::RangeEnd;
        else if (pos == limit)
            stopTruncated(out, "the stream ends without DATA_END");
        else
            stopTruncated(out, kCutInsideEvent);
    }

    [[gnu::cold, gnu::noinline]] void stopAtDataEnd(DecodeOutcome& out, const BlockState& st, uint64_t pos)
    {
        out.stop = DecodeStop::DataEnd;
        // GHC flushes DATA_END with the last block, whose size then counts its 2 bytes.
        if (st.remaining > 2)
            addWarning(out.warnings,
                "the block at byte " + std::to_string(st.blockOffset) + " declares " + std::to_string(st.remaining)
                    + " more bytes than come before DATA_END",
                pos);
    }

    // An event type the header does not declare: its size is unknown, so nothing after it can be
    // read. After a block whose bytes are all accounted for, it is the garbage an interrupted
    // program left behind (the events before it stand); inside a block it is a corrupt file.
    [[gnu::cold, gnu::noinline]] void stopAtUndeclared(
        DecodeOutcome& out, const BlockState& st, uint16_t type, uint64_t pos)
    {
        if (st.sawMarker && (st.lenient || st.remaining == 0)) {
            stopTruncated(out,
                "event type " + std::to_string(type)
                    + " is not declared in the header; taking the rest as the garbage tail of an "
                      "interrupted program");
        } else {
            out.stop = DecodeStop::Failed;
            out.error = Error { ErrorCode::UndeclaredEvent,
                "event type " + std::to_string(type) + " is not declared in the header", pos };
        }
    }

    // A BLOCK_MARKER at `pos` (its payload at p): the events up to the block's declared end belong
    // to its engine. Returns the vector they go to, with room reserved for them. A block whose
    // size lies is trusted up to the next marker instead (lenient).
    [[gnu::noinline]] std::vector<Event>* enterBlock(const uint8_t* p, uint64_t pos, uint64_t markerBytes,
        uint64_t bytesAfter, BlockState& st, EventSink& sink, DecodeOutcome& out, uint64_t& maxTime)
    {
        const uint32_t blockSize = loadBE32(p);
        const uint64_t blockEnd = loadBE64(p + 4);
        const uint16_t engine = loadBE16(p + 12);
        if (st.remaining > 0)
            addWarning(out.warnings,
                "the block at byte " + std::to_string(st.blockOffset) + " declares " + std::to_string(st.remaining)
                    + " more bytes than come before the next block marker",
                pos);
        st.engine = engine;
        st.blockOffset = pos;
        st.sawMarker = true;
        if (blockSize < markerBytes) {
            addWarning(out.warnings,
                "the block marker at byte " + std::to_string(pos) + " declares a block of " + std::to_string(blockSize)
                    + " bytes; its events are given to engine " + std::to_string(engine)
                    + " up to the next block marker",
                pos);
            st.lenient = true;
            st.remaining = 0;
        } else {
            st.lenient = false;
            st.remaining = static_cast<int64_t>(blockSize - markerBytes);
            maxTime = std::max(maxTime, blockEnd);
        }
        std::vector<Event>* target = &sink.forEngine(engine);
        // Room for the block's events (at most one per 10 bytes), growing geometrically. The
        // declared size is only trusted up to 8 MB (GHC's buffers are 2 MB), so lying sizes
        // cannot make the reader reserve more than the data can fill.
        const uint64_t expected
            = std::min<uint64_t>({ uint64_t(st.remaining), bytesAfter, kMaxTrustedBlockBytes }) / kMinEventBytes + 1;
        if (target->capacity() - target->size() < expected)
            reserveEvents(*target, std::max<size_t>(target->capacity() * 2, target->size() + expected));
        return target;
    }

    // STARTUP declares the engine count: engines it declares that post nothing are engines of the run
    // all the same, idle throughout (Trace::engines), so the sink gets their (empty) vectors. A count
    // beyond kMaxDeclaredEngines is not taken (a damaged payload would make every per-engine figure
    // and row tens of thousands long); `check` says so. Returns the vector the next events go to.
    [[gnu::cold, gnu::noinline]] std::vector<Event>* declareEngines(
        uint16_t declared, const BlockState& st, EventSink& sink)
    {
        if (declared <= kMaxDeclaredEngines && sink.engines.size() < declared)
            sink.engines.resize(declared);
        return &sink.forEngine(st.engine); // (the resize may have moved the engines' vectors)
    }

    // The event at `pos` used up the block's declared bytes (remaining ≤ 0). Exactly: later events
    // are outside every block (the global buffer). Past it: the block's size lied, so its engine
    // keeps the events up to the next marker. Returns the vector the next events go to.
    [[gnu::cold, gnu::noinline]] std::vector<Event>* leaveBlock(
        uint64_t pos, BlockState& st, EventSink& sink, DecodeOutcome& out)
    {
        if (st.remaining < 0) {
            addWarning(out.warnings,
                "the event at byte " + std::to_string(pos) + " runs past the end of the block at byte "
                    + std::to_string(st.blockOffset)
                    + "; later events are given to its engine up to the next block marker",
                pos);
            st.lenient = true;
            st.remaining = 0;
            return &sink.forEngine(st.engine);
        }
        st.engine = kNoEngine;
        return &sink.global;
    }
} // namespace

DecodeOutcome decodeEvents(std::span<const uint8_t> bytes, uint64_t begin, uint64_t limit, BlockState& st,
    EventSink& sink, const DecodeContext& ctx)
{
    DecodeOutcome out;
    const uint8_t* const d = bytes.data();
    const uint64_t n = bytes.size();
    limit = std::min(limit, n);
    const bool isTail = limit == n;
    const uint32_t* const sizes = ctx.sizes->size.data();
    std::vector<Event>* target = &sink.forEngine(st.engine);
    uint64_t pos = begin;
    uint64_t reported = begin;
    uint64_t nextCheck = begin + kCheckEveryBytes;
    uint64_t minTime = UINT64_MAX, maxTime = 0, count = 0;

    for (;;) {
        if (pos >= nextCheck) [[unlikely]] {
            nextCheck = pos + kCheckEveryBytes;
            if (ctx.cancel && ctx.cancel->load(std::memory_order_relaxed)) {
                out.stop = DecodeStop::Cancelled;
                break;
            }
            if (ctx.advanced)
                ctx.advanced(pos - reported);
            reported = pos;
        }
        if (pos + 2 > limit) [[unlikely]] {
            stopAtLimit(out, pos, limit, isTail);
            break;
        }
        const uint16_t type = loadBE16(d + pos);
        if (type == kDataEnd) [[unlikely]] {
            stopAtDataEnd(out, st, pos);
            pos += 2;
            break;
        }
        if (pos + 10 > limit) [[unlikely]] {
            stopTruncated(out, kCutInsideEvent);
            break;
        }
        uint32_t size = sizes[type];
        uint32_t headerSize = 10;
        if (size >= SizeTable::kVariable) [[unlikely]] {
            if (size == SizeTable::kUndeclared) {
                stopAtUndeclared(out, st, type, pos);
                break;
            }
            if (pos + 12 > limit) {
                stopTruncated(out, kCutInsideEvent);
                break;
            }
            size = loadBE16(d + pos + 10);
            headerSize = 12;
        }
        const uint64_t next = pos + headerSize + size;
        if (next > limit) [[unlikely]] {
            stopTruncated(out, kCutInsideEvent);
            break;
        }
        Event e;
        e.timeNs = loadBE64(d + pos + 2);
        e.offset = pos;
        e.type = type;
        e.engine = st.engine;
        e.payloadSize = static_cast<uint16_t>(size);
        e.headerSize = static_cast<uint8_t>(headerSize);
        minTime = std::min(minTime, e.timeNs);
        maxTime = std::max(maxTime, e.timeNs);
        ++count;

        if (type == ev::BlockMarker && size >= 14) [[unlikely]] {
            target = enterBlock(d + pos + headerSize, pos, headerSize + size, n - next, st, sink, out, maxTime);
            e.engine = st.engine;
            target->push_back(e);
            if (!st.lenient && st.remaining == 0) {
                st.engine = kNoEngine;
                target = &sink.global;
            }
        } else {
            if (type == ev::Startup && size >= 2) [[unlikely]]
                target = declareEngines(loadBE16(d + pos + headerSize), st, sink);
            target->push_back(e);
            if (st.remaining > 0) {
                st.remaining -= static_cast<int64_t>(headerSize + size);
                if (st.remaining <= 0) [[unlikely]]
                    target = leaveBlock(pos, st, sink, out);
            }
        }
        pos = next;
    }
    if (ctx.advanced && pos > reported)
        ctx.advanced(pos - reported);
    out.position = pos;
    out.minTimeNs = minTime;
    out.maxTimeNs = maxTime;
    out.events = count;
    return out;
}

void appendWarnings(std::vector<Warning>& to, std::vector<Warning>& from)
{
    for (Warning& w : from)
        addWarning(to, std::move(w.message), w.byteOffset);
    from.clear();
}

void recordStop(Trace& trace, DecodeOutcome& outcome, uint64_t streamBytes, uint64_t events)
{
    if (outcome.stop == DecodeStop::Truncated)
        trace.truncated = true;
    appendWarnings(trace.warnings, outcome.warnings);
    if (outcome.stop == DecodeStop::Truncated)
        trace.warnings.push_back({ "reading stopped at byte " + std::to_string(outcome.position) + " of "
                + std::to_string(streamBytes) + ": " + outcome.truncation + "; the " + std::to_string(events)
                + " complete events before it are kept",
            outcome.position });
    else if (outcome.stop == DecodeStop::DataEnd && outcome.position < streamBytes)
        trace.warnings.push_back({ std::to_string(streamBytes - outcome.position) + " bytes after DATA_END (byte "
                + std::to_string(outcome.position - 2) + ") are ignored",
            outcome.position });
}

RangeWalk walkRange(std::span<const uint8_t> bytes, uint64_t from, const SizeTable& sizes, uint64_t targetBytes)
{
    RangeWalk walk { from, true, false };
    const uint8_t* const d = bytes.data();
    const uint64_t n = bytes.size();
    if (sizes.size[ev::BlockMarker] != 14)
        return walk;
    uint64_t pos = from;
    while (pos + 2 <= n) {
        const uint16_t type = loadBE16(d + pos);
        uint64_t next;
        if (type == ev::BlockMarker) {
            if (pos + 24 > n)
                break;
            const uint32_t blockSize = loadBE32(d + pos + 10);
            if (blockSize < 24)
                break;
            next = pos + blockSize;
            walk.sawMarker = true;
        } else if (type == kDataEnd || sizes.size[type] == SizeTable::kUndeclared) {
            break;
        } else if (sizes.size[type] == SizeTable::kVariable) {
            if (pos + 12 > n)
                break;
            next = pos + 12 + loadBE16(d + pos + 10);
        } else {
            next = pos + 10 + sizes.size[type];
        }
        // A block that reaches the end of the stream (GHC counts DATA_END in the last block) is left
        // to the tail, which handles DATA_END and truncation.
        if (next >= n)
            break;
        pos = next;
        if (pos - from >= targetBytes) {
            walk.end = pos;
            walk.stuck = false;
            return walk;
        }
    }
    walk.end = pos;
    return walk;
}

RangePlan planRanges(std::span<const uint8_t> bytes, uint64_t dataStart, const SizeTable& sizes, uint64_t targetBytes)
{
    RangePlan plan;
    plan.cuts.push_back(dataStart);
    bool sawMarker = false;
    for (;;) {
        const RangeWalk walk = walkRange(bytes, plan.cuts.back(), sizes, targetBytes);
        sawMarker = sawMarker || walk.sawMarker;
        if (walk.end == plan.cuts.back())
            break;
        plan.cuts.push_back(walk.end);
        plan.tailSawMarker = sawMarker;
        if (walk.stuck)
            break;
    }
    return plan;
}

// Out of line, like the decoding loop's other rare turns (enterBlock calls it once per block).
void reserveEvents(std::vector<Event>& v, size_t capacity) { reserveAdvised(v, capacity); }

void stableSortByTime(std::vector<Event>& v)
{
    const size_t n = v.size();
    size_t i = 1;
    while (i < n && v[i - 1].timeNs <= v[i].timeNs)
        ++i;
    if (i >= n)
        return;
    // Insertion sort handles the usual few, short inversions (GC_END written after GC_STATS_GHC with
    // an earlier time) in linear time; past a budget of moves the input is not "nearly sorted" and
    // std::stable_sort takes over. Both steps keep equal times in file order.
    const uint64_t budget = 8 * uint64_t(n) + 4096;
    uint64_t moves = 0;
    for (; i < n; ++i) {
        if (v[i].timeNs >= v[i - 1].timeNs)
            continue;
        const Event moving = v[i];
        size_t j = i;
        do {
            v[j] = v[j - 1];
            --j;
            ++moves;
        } while (j > 0 && v[j - 1].timeNs > moving.timeNs && moves <= budget);
        v[j] = moving;
        if (moves > budget) {
            std::stable_sort(v.begin(), v.end(), [](const Event& a, const Event& b) { return a.timeNs < b.timeNs; });
            return;
        }
    }
}

} // namespace sparkscope::core::detail
