// Writing eventlogs (eventlog-format.md sections 1.1-1.5, 1.9, 1.10).
//
// The writer appends to one growing byte vector: the header first, then events. A block is opened
// by reserving a 24-byte BLOCK_MARKER whose size and end time are back-patched when the block is
// closed; the size counts the whole block including the marker, as GHC and Mercury write it, so an
// empty block has size 24. Events carry no engine themselves: the enclosing block gives it.
//
// writeTrace re-encodes a decoded Trace. It walks the events in their original file order (Event::
// offset) and rebuilds the original block structure from the BLOCK_MARKER events the reader kept:
// an event stays in the current block while it lies inside the original block's byte range and
// belongs to the same engine; an engine event with no matching open block gets a fresh block.
// For a well-formed file this reproduces the input byte for byte; for a damaged one (a block size
// that lies, a cut file) it still produces a valid file whose events decode to the same engines.
#include "sparkscope/core/writer.h"

#include "sparkscope/core/byte_order.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace sparkscope::core {

namespace {

    constexpr uint32_t kHeaderBegin = 0x68647262; // hdrb
    constexpr uint32_t kHetBegin = 0x68657462; // hetb
    constexpr uint32_t kEtBegin = 0x65746200; // etb\0
    constexpr uint32_t kEtEnd = 0x65746500; // ete\0
    constexpr uint32_t kHetEnd = 0x68657465; // hete
    constexpr uint32_t kHeaderEnd = 0x68647265; // hdre
    constexpr uint32_t kDataBegin = 0x64617462; // datb
    constexpr uint16_t kDataEnd = 0xFFFF;
    constexpr size_t kBlockMarkerBytes = 24; // 2 type + 8 time + 4 size + 8 end time + 2 cap
    constexpr size_t kMaxVariablePayload = 0xFFFF;

    void put16(std::vector<uint8_t>& out, uint16_t v)
    {
        const size_t at = out.size();
        out.resize(at + 2);
        storeBE16(&out[at], v);
    }
    void put32(std::vector<uint8_t>& out, uint32_t v)
    {
        const size_t at = out.size();
        out.resize(at + 4);
        storeBE32(&out[at], v);
    }
    void put64(std::vector<uint8_t>& out, uint64_t v)
    {
        const size_t at = out.size();
        out.resize(at + 8);
        storeBE64(&out[at], v);
    }
    void putString(std::vector<uint8_t>& out, std::string_view s) { out.insert(out.end(), s.begin(), s.end()); }

    EventTypeDecl declare(uint16_t number, std::string_view description = {}, int extends = -1)
    {
        const EventTypeInfo* info = knownEventType(number);
        EventTypeDecl d;
        d.number = number;
        d.size = info ? info->size : kVariableSize;
        d.description = std::string(description.empty() && info ? info->description : description);
        if (extends >= 0) {
            // One extension record: type 1 (MR_EXT_TYPE_EXTENSION), payload size 2, base event.
            const uint8_t rec[6] = { 0, 1, 0, 2, static_cast<uint8_t>(extends >> 8), static_cast<uint8_t>(extends) };
            d.extra.assign(reinterpret_cast<const char*>(rec), sizeof rec);
        }
        return d;
    }

} // namespace

// ---------------------------------------------------------------------------------------------
// PayloadBuilder

PayloadBuilder& PayloadBuilder::u8(uint8_t v)
{
    m_bytes.push_back(v);
    return *this;
}
PayloadBuilder& PayloadBuilder::u16(uint16_t v)
{
    put16(m_bytes, v);
    return *this;
}
PayloadBuilder& PayloadBuilder::u32(uint32_t v)
{
    put32(m_bytes, v);
    return *this;
}
PayloadBuilder& PayloadBuilder::u64(uint64_t v)
{
    put64(m_bytes, v);
    return *this;
}
PayloadBuilder& PayloadBuilder::bytes(std::span<const uint8_t> v)
{
    m_bytes.insert(m_bytes.end(), v.begin(), v.end());
    return *this;
}
PayloadBuilder& PayloadBuilder::text(std::string_view v)
{
    putString(m_bytes, v);
    return *this;
}
PayloadBuilder& PayloadBuilder::cstring(std::string_view v)
{
    putString(m_bytes, v);
    m_bytes.push_back(0);
    return *this;
}

// ---------------------------------------------------------------------------------------------
// Header

std::vector<uint8_t> encodeHeader(const Header& header)
{
    std::vector<uint8_t> out;
    size_t bytes = 4 * 5;
    for (const auto& t : header.types)
        bytes += 20 + t.description.size() + t.extra.size();
    out.reserve(bytes);
    put32(out, kHeaderBegin);
    put32(out, kHetBegin);
    for (const auto& t : header.types) {
        put32(out, kEtBegin);
        put16(out, t.number);
        put16(out, t.size);
        put32(out, static_cast<uint32_t>(t.description.size()));
        putString(out, t.description);
        put32(out, static_cast<uint32_t>(t.extra.size()));
        putString(out, t.extra);
        put32(out, kEtEnd);
    }
    put32(out, kHetEnd);
    put32(out, kHeaderEnd);
    put32(out, kDataBegin);
    return out;
}

Header mercuryHeader()
{
    // The GHC-numbered events Mercury's runtime posts (eventlog-format.md 2.4), the user message
    // and marker events, and Mercury's 100-116. Descriptions come from the event table, which
    // holds Mercury's texts for all of these but USER_MSG and USER_MARKER. STOP_THREAD is declared
    // with GHC's current 10-byte layout (thread, status, info) rather than Mercury's 6 bytes, so
    // current GHC tools decode it.
    Header h;
    for (uint16_t n : { ev::CreateThread, ev::RunThread, ev::StopThread, ev::ThreadRunnable, ev::Shutdown, ev::GcStart,
             ev::GcEnd, ev::CreateSparkThread, ev::LogMsg, ev::Startup, ev::BlockMarker, ev::UserMsg, ev::CapsetCreate,
             ev::CapsetDelete, ev::CapsetAssignCap, ev::CapsetRemoveCap, ev::RtsIdentifier, ev::InternString,
             ev::GcGlobalSync, ev::UserMarker })
        h.types.push_back(declare(n));
    for (uint16_t n = ev::MerStartParConj; n <= ev::MerReuseContext; ++n) {
        int base = -1;
        if (n == ev::MerSparkCreate)
            base = ev::SparkCreate;
        else if (n == ev::MerSparkRun)
            base = ev::SparkRun;
        else if (n == ev::MerSparkSteal)
            base = ev::SparkSteal;
        else if (n == ev::MerReuseContext)
            base = ev::CreateThread;
        h.types.push_back(declare(n, {}, base));
    }
    return h;
}

// ---------------------------------------------------------------------------------------------
// EventlogWriter

EventlogWriter::EventlogWriter(Header header)
    : m_header(std::move(header))
{
    // Blocks need BLOCK_MARKER declared; add it when a hand-made header forgot it.
    if (!m_header.find(ev::BlockMarker))
        m_header.types.push_back(declare(ev::BlockMarker));
    // The writer writes its block markers itself, with 14-byte payloads: a header copied from a
    // damaged trace that declares them another size (a cut of it) would make its own output
    // unreadable, so the declaration says what is written.
    for (auto& t : m_header.types)
        if (t.number == ev::BlockMarker)
            t.size = declare(ev::BlockMarker).size;
    for (const auto& t : m_header.types) {
        if (t.number >= m_sizes.size())
            m_sizes.resize(size_t(t.number) + 1, -1);
        if (m_sizes[t.number] < 0) // the first declaration wins, as in the reader
            m_sizes[t.number] = t.size;
    }
    m_out = encodeHeader(m_header);
}

void EventlogWriter::beginBlock(uint16_t engine, uint64_t timeNs)
{
    if (m_blockStart != SIZE_MAX)
        endBlock(m_blockLastTimeNs);
    m_blockStart = m_out.size();
    m_blockEngine = engine;
    m_blockLastTimeNs = timeNs;
    put16(m_out, ev::BlockMarker);
    put64(m_out, timeNs);
    put32(m_out, 0); // size, back-patched by endBlock
    put64(m_out, 0); // end time, back-patched by endBlock
    put16(m_out, engine);
}

void EventlogWriter::endBlock(uint64_t endTimeNs)
{
    if (m_blockStart == SIZE_MAX)
        return;
    uint8_t* marker = m_out.data() + m_blockStart;
    storeBE32(marker + 10, static_cast<uint32_t>(m_out.size() - m_blockStart));
    storeBE64(marker + 14, endTimeNs);
    m_blockStart = SIZE_MAX;
}

bool EventlogWriter::event(uint16_t type, uint64_t timeNs, std::span<const uint8_t> payload)
{
    if (type == ev::BlockMarker || type >= m_sizes.size() || m_sizes[type] < 0)
        return false;
    const uint16_t declared = static_cast<uint16_t>(m_sizes[type]);
    if (declared == kVariableSize) {
        if (payload.size() > kMaxVariablePayload)
            return false;
    } else if (payload.size() != declared) {
        return false;
    }
    put16(m_out, type);
    put64(m_out, timeNs);
    if (declared == kVariableSize)
        put16(m_out, static_cast<uint16_t>(payload.size()));
    m_out.insert(m_out.end(), payload.begin(), payload.end());
    if (m_blockStart != SIZE_MAX)
        m_blockLastTimeNs = std::max(m_blockLastTimeNs, timeNs);
    return true;
}

std::vector<uint8_t> EventlogWriter::finishInsideBlock(uint64_t endTimeNs)
{
    put16(m_out, kDataEnd);
    endBlock(endTimeNs);
    return std::move(m_out);
}

std::vector<uint8_t> EventlogWriter::finish()
{
    endBlock(m_blockLastTimeNs);
    put16(m_out, kDataEnd);
    return std::move(m_out);
}

// ---------------------------------------------------------------------------------------------
// writeTrace

std::vector<uint8_t> writeTrace(const Trace& trace)
{
    std::vector<const Event*> order;
    order.reserve(trace.eventCount());
    for (const auto& e : trace.global)
        order.push_back(&e);
    for (const auto& engine : trace.engines)
        for (const auto& e : engine)
            order.push_back(&e);
    std::sort(order.begin(), order.end(), [](const Event* a, const Event* b) { return a->offset < b->offset; });

    EventlogWriter out(trace.header);
    out.reserve(trace.bytes().size() + 64);
    bool open = false;
    uint16_t openEngine = kNoEngine; // engine of the open block's events (cap 0xFFFF = kNoEngine)
    uint64_t openEnd = UINT64_MAX; // end offset of the original block, UINT64_MAX if unknown
    bool openIsOriginal = false; // the block has an original marker: keep its end time verbatim
    uint64_t openEndTimeNs = 0;
    uint64_t openLastTimeNs = 0;
    auto close = [&] {
        if (open)
            out.endBlock(openIsOriginal ? openEndTimeNs : openLastTimeNs);
        open = false;
    };

    for (const Event* e : order) {
        const Payload p = trace.payload(*e);
        if (e->type == ev::BlockMarker) {
            close();
            const uint32_t size = p.u32(0);
            const uint16_t cap = p.u16(12);
            out.beginBlock(cap, e->timeNs);
            open = true;
            openEngine = cap;
            openEnd = size >= kBlockMarkerBytes ? e->offset + size : UINT64_MAX;
            openIsOriginal = true;
            openEndTimeNs = p.u64(4);
            openLastTimeNs = e->timeNs;
            continue;
        }
        const bool fits = open && e->engine == openEngine && e->offset < openEnd;
        if (!fits) {
            close();
            if (e->engine != kNoEngine) {
                // An engine event with no marker of its own (a block the reader split): a fresh block.
                out.beginBlock(e->engine, e->timeNs);
                open = true;
                openEngine = e->engine;
                openEnd = UINT64_MAX;
                openIsOriginal = false;
                openLastTimeNs = e->timeNs;
            }
        }
        if (open)
            openLastTimeNs = std::max(openLastTimeNs, e->timeNs);
        out.event(e->type, e->timeNs, p.bytes());
    }
    // GHC writes DATA_END into its global buffer before the last flush, so the last block's size
    // counts those 2 bytes: keep that.
    if (open && openIsOriginal && !order.empty() && openEnd == order.back()->endOffset() + 2)
        return out.finishInsideBlock(openEndTimeNs);
    close();
    return out.finish();
}

Result<bool> writeFile(const std::string& path, std::span<const uint8_t> bytes)
{
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f)
        return Error { ErrorCode::Io, "cannot create " + path + ": " + std::strerror(errno), std::nullopt };
    const size_t written = bytes.empty() ? 0 : std::fwrite(bytes.data(), 1, bytes.size(), f);
    const int writeErrno = errno;
    const bool closed = std::fclose(f) == 0;
    if (written != bytes.size() || !closed)
        return Error { ErrorCode::Io,
            "cannot write " + path + ": " + std::strerror(written != bytes.size() ? writeErrno : errno), std::nullopt };
    return true;
}

} // namespace sparkscope::core
