// streamTrace and decodeBlocks (trace_stream.h): the reader's decode loop run over a memory-mapped
// file one range at a time, with each engine's events kept back in a short sorted buffer.
#include "sparkscope/core/trace_stream.h"

#include "format/mapped_file.h"
#include "format/reader_decode.h"
#include "format/reader_input.h"

#include <algorithm>
#include <fstream>

namespace sparkscope::core {

namespace {
    using namespace detail;

    // Appends the extents of one range's events of one engine (in file order) to `extents`. Events
    // before the range's first marker of the engine continue its last block.
    void recordBlocks(std::span<const Event> events, std::span<const uint8_t> stream, std::vector<BlockExtent>& extents)
    {
        for (const Event& e : events) {
            const bool marker = e.type == ev::BlockMarker;
            if (marker || extents.empty() || extents.back().events >= BlockExtent::kExtentEvents) {
                BlockExtent next;
                next.offset = e.offset;
                if (marker) {
                    // The decoder trusts a block's size when it covers at least the marker.
                    const Payload p = payloadIn(stream, e);
                    const uint64_t declared = p.u32(0);
                    next.blockOffset = e.offset;
                    next.blockEnd = declared >= uint64_t(e.headerSize) + e.payloadSize ? e.offset + declared : 0;
                    next.blockEndNs = p.u64(4);
                } else if (!extents.empty()) {
                    next.blockOffset = extents.back().blockOffset;
                    next.blockEnd = extents.back().blockEnd;
                    next.blockEndNs = extents.back().blockEndNs;
                }
                extents.push_back(next);
            }
            BlockExtent& b = extents.back();
            b.bytes = std::max(b.bytes, e.endOffset() - b.offset);
            b.firstNs = std::min(b.firstNs, e.timeNs);
            b.lastNs = std::max(b.lastNs, e.timeNs);
            ++b.events;
        }
    }

    // Where handed-out events stand, per engine, to count late arrivals.
    struct HandedOut {
        uint64_t lastNs = 0; // time of the last event handed out
        bool any = false;
    };

    // Runs the ranges' events through one EventSink that is kept from range to range: each engine's
    // vector starts with the events held back from the range before, the decoder appends the new
    // ones, and after a sort (linear: the held ones are sorted, the new ones nearly) all but the
    // newest `holdBack` are handed out. Keeping the vectors keeps their pages: a fresh sink per
    // range cost more in zeroed pages and regrowth than the decoding itself.
    class Streamer {
    public:
        Streamer(size_t holdBack, StreamedTrace& out)
            : m_holdBack(holdBack)
            , m_out(out)
        {
        }

        EventSink& sink() noexcept { return m_sink; }

        // The range just decoded into sink() is in: hands out what is safe. `stream` is the whole
        // stream as mapped now (events' offsets index it).
        void take(std::span<const uint8_t> stream, const TraceStreamer::Consumer& consume)
        {
            if (m_sink.engines.size() > m_handed.size()) {
                m_handed.resize(m_sink.engines.size());
                m_held.resize(m_sink.engines.size(), 0);
                m_out.blocks.resize(m_sink.engines.size());
            }
            for (size_t e = 0; e < m_sink.engines.size(); ++e) {
                auto& v = m_sink.engines[e];
                recordBlocks(std::span<const Event>(v).subspan(m_held[e]), stream, m_out.blocks[e]);
                m_held[e] = handOut(v, m_held[e], m_handed[e], uint16_t(e), m_holdBack, stream, consume);
            }
            m_heldGlobal = handOut(m_sink.global, m_heldGlobal, m_handedGlobal, kNoEngine, m_holdBack, stream, consume);
        }

        void finish(std::span<const uint8_t> stream, const TraceStreamer::Consumer& consume)
        {
            for (size_t e = 0; e < m_sink.engines.size(); ++e)
                handOut(m_sink.engines[e], m_held[e], m_handed[e], uint16_t(e), 0, stream, consume);
            handOut(m_sink.global, m_heldGlobal, m_handedGlobal, kNoEngine, 0, stream, consume);
        }

        // Hands the events held back to `consume` (each stream's sorted, as they would come out),
        // keeping them; returns how many.
        uint64_t peekHeld(std::span<const uint8_t> stream, const TraceStreamer::Consumer& consume) const
        {
            uint64_t n = 0;
            for (size_t e = 0; e < m_sink.engines.size(); ++e)
                if (!m_sink.engines[e].empty()) {
                    consume(StreamBatch { uint16_t(e), m_sink.engines[e], stream });
                    n += m_sink.engines[e].size();
                }
            if (!m_sink.global.empty()) {
                consume(StreamBatch { kNoEngine, m_sink.global, stream });
                n += m_sink.global.size();
            }
            return n;
        }

        size_t engineCount() const noexcept { return m_sink.engines.size(); }

    private:
        // v = [held events, new events]; returns how many it holds back now.
        size_t handOut(std::vector<Event>& v, size_t held, HandedOut& handed, uint16_t engine, size_t holdBack,
            std::span<const uint8_t> stream, const TraceStreamer::Consumer& consume)
        {
            if (held == v.size() && holdBack > 0)
                return held; // nothing new (most engines of a range, with many engines)
            if (handed.any)
                for (size_t i = held; i < v.size(); ++i)
                    m_out.lateEvents += v[i].timeNs < handed.lastNs ? 1 : 0;
            stableSortByTime(v);
            if (v.size() <= holdBack)
                return v.size();
            const size_t n = v.size() - holdBack;
            consume(StreamBatch { engine, std::span<const Event>(v.data(), n), stream });
            m_out.events += n;
            handed.lastNs = std::max(handed.any ? handed.lastNs : 0, v[n - 1].timeNs);
            handed.any = true;
            v.erase(v.begin(), v.begin() + long(n)); // moves the held ones to the front; capacity stays
            return v.size();
        }

        size_t m_holdBack;
        StreamedTrace& m_out;
        EventSink m_sink;
        std::vector<size_t> m_held;
        std::vector<HandedOut> m_handed;
        size_t m_heldGlobal = 0;
        HandedOut m_handedGlobal;
    };

} // namespace

// Everything a stream carries from one advance to the next: the mapping, where decoding stands (its
// position and block state), the events held back, and the summary so far.
struct TraceStreamer::State {
    std::string path;
    StreamOptions options;
    MappedFile file;
    std::span<const uint8_t> bytes; // the mapped file's first `endBytes`
    std::optional<SizeTable> sizes; // once the header is parsed
    uint64_t dataStart = 0;
    uint64_t position = 0; // where the next advance decodes from (0: the header is not read yet)
    uint64_t decoded = 0; // stream bytes decoded, for progress
    BlockState block;
    StreamedTrace out;
    Streamer streamer { options.holdBack, out };
    uint64_t minTime = UINT64_MAX, maxTime = 0, events = 0;
    DecodeOutcome outcome; // of the last decode
    bool ended = false; // DATA_END, or a tail that can take no more
    bool spent = false; // an advance failed or was cancelled

    State(std::string p, StreamOptions o)
        : path(std::move(p))
        , options(std::move(o))
    {
    }

    std::optional<Error> advance(uint64_t endBytes, const Consumer& consume);
    Error shrankError(std::optional<uint64_t> at) const
    {
        return Error { ErrorCode::Io, path + " shrank while it was being read", at };
    }
    std::optional<Error> go(uint64_t endBytes, const Consumer& consume);
    std::optional<Error> decodeFrom(uint64_t from, const Consumer& consume);
    void account()
    {
        minTime = std::min(minTime, outcome.minTimeNs);
        maxTime = std::max(maxTime, outcome.maxTimeNs);
        events += outcome.events;
        appendWarnings(out.summary.warnings, outcome.warnings);
    }
    // The summary as streamTrace would end it at the current end (the outcome's stop recorded).
    void close(StreamedTrace& result, DecodeOutcome stop) const
    {
        Trace& trace = result.summary;
        // The complete part of a growing file ends where its last whole block does: as finished as
        // the follower's whole read makes it by appending DATA_END.
        if (options.endBytes != UINT64_MAX && stop.stop == DecodeStop::Truncated && stop.position == bytes.size())
            stop.stop = DecodeStop::DataEnd;
        recordStop(trace, stop, bytes.size(), events);
        trace.engines.resize(streamer.engineCount());
        result.blocks.resize(streamer.engineCount());
        if (events > 0) {
            trace.firstTimeNs = minTime;
            trace.lastTimeNs = maxTime;
        }
    }
};

std::optional<Error> TraceStreamer::State::advance(uint64_t endBytes, const Consumer& consume)
{
    if (spent)
        return Error { ErrorCode::Io, "the stream of " + path + " failed before and cannot go on", std::nullopt };
    if (ended)
        return std::nullopt;
    auto failed = go(endBytes, consume);
    if (failed)
        spent = true; // whatever stopped it, what it holds may point past what is mapped now
    return failed;
}

std::optional<Error> TraceStreamer::State::go(uint64_t endBytes, const Consumer& consume)
{
    if (options.cancel && options.cancel->load(std::memory_order_relaxed))
        return Error { ErrorCode::Cancelled, "reading was cancelled", std::nullopt };
    // The file may have grown since the last step: map it again (offsets stay the same). The new
    // mapping replaces the old only once it is known to hold all that was streamed.
    MappedFile again;
    auto mapped = again.open(path);
    if (!mapped)
        return mapped.error();
    const std::span<const uint8_t> now = mapped.value().first(std::min<uint64_t>(mapped.value().size(), endBytes));
    if (now.size() < position)
        return Error { ErrorCode::Io,
            path + " is shorter than what was streamed of it (" + std::to_string(position) + " bytes)", now.size() };
    file = std::move(again);
    bytes = now;
    options.endBytes = endBytes;
    if (position == 0) {
        if (detectCompression(bytes.first(std::min<size_t>(bytes.size(), 8))) != Compression::None)
            return Error { ErrorCode::Unsupported, path + " is compressed; streaming reads uncompressed eventlogs only",
                std::nullopt };
        out.summary.path = path;
        auto parsed = parseHeader(bytes);
        if (!parsed)
            return parsed.error();
        out.summary.header = std::move(parsed->header);
        sizes.emplace(out.summary.header);
        dataStart = position = parsed->dataStart;
    }
    out.summary.fileSize = bytes.size();
    auto failed = decodeFrom(position, consume);
    if (!failed && options.progress)
        options.progress(bytes.size() - dataStart, bytes.size() - dataStart);
    return failed;
}

std::optional<Error> TraceStreamer::State::decodeFrom(uint64_t from, const Consumer& consume)
{
    DecodeContext ctx;
    ctx.sizes = &*sizes;
    const uint64_t streamBytes = bytes.size() - dataStart;
    // The decoder stops at its next check (every MB) when cancelled, or when pages of the file
    // vanished under it: past that it would read only zeros (MappedFile).
    std::atomic<bool> stop { false };
    ctx.cancel = &stop;
    ctx.advanced = [&](uint64_t delta) {
        if (options.progress)
            options.progress(decoded += delta, streamBytes);
        if ((options.cancel && options.cancel->load(std::memory_order_relaxed)) || file.lostPages())
            stop.store(true, std::memory_order_relaxed);
    };
    // Each range is walked (walkRange, as the reader plans its parallel ranges) just before it is
    // decoded, so that the walk maps no more of the file than the decoding does. A range ends on an
    // event boundary; where the walk gets stuck, the rest of the stream is the last range, decoded
    // with the reader's full checks. The block state carries over from range to range (and from
    // one advance to the next), so the result is that of one sequential decode.
    for (;;) {
        const RangeWalk walk = walkRange(bytes, from, *sizes, std::max<uint64_t>(1, options.windowBytes));
        const uint64_t to = walk.stuck ? bytes.size() : walk.end;
        outcome = decodeEvents(bytes, from, to, block, streamer.sink(), ctx);
        // Stopped short of a range end that is not the stream's: the walk stepped over a block by a
        // size that lies, so `to` is not where an event ends as the decoder reads the stream (or a
        // garbage tail starts before it). Decoding goes on from where it stopped, in the state it
        // stopped in, as one whole decode would: the next walk starts there (and a garbage tail
        // stops it again at once, as the last range). Where it could not even start, the rest is
        // decoded in one go.
        const bool shortOfRange = outcome.stop == DecodeStop::Truncated && to < bytes.size();
        if (shortOfRange && outcome.position == from) {
            account();
            outcome = decodeEvents(bytes, from, bytes.size(), block, streamer.sink(), ctx);
        }
        // (A file that shrank reads as zeros past its new end, MappedFile: whatever the decoder made
        // of them, the change is what to report, and nothing from the range is handed out.)
        if (!file.unchanged(path))
            return shrankError(outcome.position);
        if (outcome.stop == DecodeStop::Cancelled)
            return Error { ErrorCode::Cancelled, "reading was cancelled", std::nullopt };
        if (outcome.stop == DecodeStop::Failed)
            return *outcome.error;
        account();
        streamer.take(bytes, consume);
        file.release(from, outcome.position);
        position = outcome.position;
        if (shortOfRange && outcome.position > from) {
            from = outcome.position;
            continue;
        }
        if (outcome.stop != DecodeStop::RangeEnd || to == bytes.size())
            break;
        from = to;
    }
    // DATA_END, or a stop before the end (damage, a garbage tail): nothing appended can change
    // what was read. A stop exactly at the end is where a growing file's next block will start.
    ended = outcome.stop == DecodeStop::DataEnd
        || (outcome.stop == DecodeStop::Truncated && outcome.position < bytes.size());
    return std::nullopt;
}

TraceStreamer::TraceStreamer(std::string path, StreamOptions options)
    : m(std::make_unique<State>(std::move(path), std::move(options)))
{
}

TraceStreamer::~TraceStreamer() = default;
TraceStreamer::TraceStreamer(TraceStreamer&&) noexcept = default;
TraceStreamer& TraceStreamer::operator=(TraceStreamer&&) noexcept = default;

std::optional<Error> TraceStreamer::advance(uint64_t endBytes, const Consumer& consume)
{
    try {
        return m->advance(endBytes, consume);
    } catch (const std::bad_alloc&) {
        m->spent = true;
        return Error { ErrorCode::Io, "not enough memory to stream " + m->path, std::nullopt };
    }
}

void TraceStreamer::setCancel(const std::atomic<bool>* cancel) noexcept { m->options.cancel = cancel; }

uint64_t TraceStreamer::position() const noexcept { return m->position; }

bool TraceStreamer::ended() const noexcept { return m->ended; }

std::optional<Error> TraceStreamer::fileShrank() const
{
    if (m->file.unchanged(m->path))
        return std::nullopt;
    return m->shrankError(std::nullopt);
}

StreamedTrace TraceStreamer::summary(const Consumer& consume) const
{
    StreamedTrace result = m->out;
    if (!m->spent) // a spent stream's held events may lie past what is mapped
        result.events += m->streamer.peekHeld(m->bytes, consume);
    m->close(result, m->outcome);
    return result;
}

StreamedTrace TraceStreamer::finish(const Consumer& consume) &&
{
    if (!m->spent)
        m->streamer.finish(m->bytes, consume);
    StreamedTrace result = std::move(m->out);
    m->close(result, m->outcome);
    return result;
}

Result<StreamedTrace> streamTrace(
    const std::string& path, const std::function<void(const StreamBatch&)>& consume, const StreamOptions& options)
{
    try {
        TraceStreamer streamer(path, options);
        if (auto failed = streamer.advance(options.endBytes, consume))
            return *failed;
        StreamedTrace out = std::move(streamer).finish(consume);
        if (auto shrank = streamer.fileShrank()) // (the held-back events handed out last were read from the mapping)
            return *shrank;
        return out;
    } catch (const std::bad_alloc&) {
        return Error { ErrorCode::Io, "not enough memory to stream " + path, std::nullopt };
    }
}

Result<Trace> decodeBlocks(
    const std::string& path, const Header& header, uint16_t engine, std::span<const BlockExtent> blocks)
{
    // Read, not mapped: a file that shrank since it was streamed gives a short read and an error
    // here, where touching a mapped page past its new end would kill the process.
    Trace trace;
    trace.path = path;
    trace.header = header;
    trace.engines.resize(size_t(engine) + 1);
    if (blocks.empty())
        return trace;
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return Error { ErrorCode::Io, "cannot open " + path, std::nullopt };
    const SizeTable sizes(header);
    DecodeContext ctx;
    ctx.sizes = &sizes;

    // The extents' bytes, back to back, in a buffer of their own; events point into it.
    auto own = std::make_shared<std::vector<uint8_t>>();
    std::vector<Event> events;
    for (const BlockExtent& b : blocks) {
        const uint64_t base = own->size();
        own->resize(base + b.bytes);
        in.seekg(std::streamoff(b.offset));
        in.read(reinterpret_cast<char*>(own->data() + base), std::streamsize(b.bytes));
        if (uint64_t(in.gcount()) != b.bytes)
            return Error { ErrorCode::Io,
                path + " is shorter than when it was read (the events at byte " + std::to_string(b.offset)
                    + " are gone)",
                b.offset };
        // Decoding from the block's marker gives its events the attribution a whole read gives them:
        // the marker sets the whole block state. An extent inside a block starts in the state the
        // marker left: so many bytes of the block to go, or (a size that cannot be trusted, or an
        // extent past it) its engine until the next marker.
        BlockState state;
        if (b.offset != b.blockOffset) {
            state.engine = engine;
            state.sawMarker = true;
            state.blockOffset = b.blockOffset;
            state.lenient = b.blockEnd <= b.offset;
            state.remaining = state.lenient ? 0 : int64_t(b.blockEnd - b.offset);
        }
        EventSink sink;
        const DecodeOutcome o = decodeEvents(*own, base, base + b.bytes, state, sink, ctx);
        if (o.stop == DecodeStop::Failed)
            return *o.error;
        if (engine < sink.engines.size())
            events.insert(events.end(), sink.engines[engine].begin(), sink.engines[engine].end());
    }
    stableSortByTime(events);
    if (!events.empty()) {
        trace.firstTimeNs = events.front().timeNs;
        trace.lastTimeNs = events.back().timeNs;
    }
    trace.engines[engine] = std::move(events);
    trace.setBytes(std::move(own));
    return trace;
}

} // namespace sparkscope::core
