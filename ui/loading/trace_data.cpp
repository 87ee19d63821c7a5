#include "ui/loading/trace_data.h"

#include "sparkscope/core/check.h"
#include "sparkscope/core/engine_states.h"
#include "sparkscope/core/event_types.h"
#include "sparkscope/core/metrics.h"
#include "sparkscope/core/reader.h"
#include "sparkscope/core/trace_stream.h"

#include <tbb/parallel_for.h>

#include <QtGlobal>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <set>
#include <string>
#include <string_view>

namespace sparkscope::ui {

using namespace sparkscope::core;

TickKind tickKindOf(uint16_t type) noexcept
{
    switch (type) {
    case ev::SparkCreate:
    case ev::MerSparkCreate:
    case ev::CreateSparkThread:
        return TickKind::SparkCreate;
    case ev::SparkRun:
    case ev::MerSparkRun:
    case ev::RunSparkOld:
        return TickKind::SparkRun;
    case ev::SparkSteal:
    case ev::MerSparkSteal:
    case ev::StealSparkOld:
        return TickKind::SparkSteal;
    case ev::MerStartParConj:
    case ev::MerEndParConj:
    case ev::MerEndParConjunct:
        return TickKind::Conjunction;
    case ev::MerFutCreate:
    case ev::MerFutWaitNoSuspend:
    case ev::MerFutWaitSuspended:
    case ev::MerFutSignal:
        return TickKind::Future;
    case ev::CreateThread:
    case ev::ThreadRunnable:
    case ev::MigrateThread:
    case ev::ThreadWakeup:
    case ev::MerReleaseContext:
    case ev::MerReuseContext:
        return TickKind::Thread;
    case ev::LogMsg:
    case ev::UserMsg:
    case ev::UserMarker:
        return TickKind::Message;
    case ev::RequestSeqGc:
    case ev::RequestParGc:
    case ev::SparkDud:
    case ev::SparkOverflow:
    case ev::SparkFizzle:
    case ev::SparkGc:
    case ev::Shutdown:
        return TickKind::Other;
    default:
        return TickKind::Count;
    }
}

const char* tickKindName(TickKind kind) noexcept
{
    switch (kind) {
    case TickKind::SparkCreate:
        return "spark created";
    case TickKind::SparkRun:
        return "spark run";
    case TickKind::SparkSteal:
        return "spark stolen";
    case TickKind::Conjunction:
        return "conjunction start/end";
    case TickKind::Future:
        return "future create/wait/signal";
    case TickKind::Thread:
        return "context created/woken/migrated";
    case TickKind::Message:
        return "message/marker";
    case TickKind::Other:
        return "other";
    case TickKind::Count:
        break;
    }
    return "";
}

std::optional<EventWindow> TraceData::events(size_t engine, int64_t fromNs, int64_t toNs, size_t limit) const
{
    if (streamed)
        return streamed->window(engine, fromNs, toNs, limit);
    if (engine >= trace->engines.size())
        return EventWindow {};
    const auto& all = trace->engines[engine];
    auto timeLess = [](const core::Event& e, int64_t t) { return int64_t(e.timeNs) < t; };
    const auto a = std::lower_bound(all.begin(), all.end(), fromNs, timeLess);
    const auto b = std::lower_bound(a, all.end(), toNs, timeLess);
    if (size_t(b - a) > limit)
        return std::nullopt;
    return EventWindow { trace, std::span<const core::Event>(all.data() + (a - all.begin()), size_t(b - a)) };
}

bool keepOnlyPayloadBytes(Trace& trace)
{
    const std::span<const uint8_t> bytes = trace.bytes();
    // Offsets for events whose payload is not in the buffer (a truncated record): past any buffer,
    // so Trace::payload still answers "no payload"; far enough from the top not to overflow.
    constexpr uint64_t kBeyond = UINT64_MAX / 2;
    // Every event without payload points at offset 0: its empty payload lies inside the zero padding.
    constexpr size_t kPad = 16;
    static_assert(kPad >= 12, "the longest event header");
    auto hasPayload = [&](const Event& e) { return e.payloadSize > 0 && e.endOffset() <= bytes.size(); };
    size_t kept = kPad;
    auto count = [&](const std::vector<Event>& events) {
        for (const Event& e : events)
            if (hasPayload(e))
                kept += e.endOffset() - e.offset;
    };
    count(trace.global);
    for (const auto& events : trace.engines)
        count(events);
    if (kept > bytes.size() / 4)
        return false; // little to gain, and the copy would add to the peak
    auto out = std::make_shared<std::vector<uint8_t>>(kPad, uint8_t(0));
    out->reserve(kept);
    auto move = [&](std::vector<Event>& events) {
        for (Event& e : events) {
            if (hasPayload(e)) {
                const uint64_t at = out->size();
                out->insert(out->end(), bytes.begin() + long(e.offset), bytes.begin() + long(e.endOffset()));
                e.offset = at;
            } else {
                e.offset = e.payloadSize == 0 ? 0 : kBeyond;
            }
        }
    };
    move(trace.global);
    for (auto& events : trace.engines)
        move(events);
    trace.setBytes(std::move(out)); // frees the stream
    return true;
}

namespace {

    // The CPUs curve and the pyramid, from the engine states (which it frees as it goes: peak memory
    // matters).
    void indexStates(TraceData& data, EngineStates states)
    {
        data.cpus = cpusOverTime(states);
        std::vector<std::vector<LodSpan>> spans(states.engines.size());
        tbb::parallel_for(size_t(0), spans.size(), [&](size_t e) {
            auto& in = states.engines[e];
            spans[e].reserve(in.size());
            for (const StateInterval& s : in)
                spans[e].push_back({ s.startNs, s.endNs, s.context, uint8_t(s.state) });
            std::vector<StateInterval>().swap(in);
        });
        data.lod = LodIndex::build(std::move(spans), kEngineStateCount, uint64_t(data.startNs), uint64_t(data.endNs));
    }

    Marker markerOf(const Event& e, const Payload& payload)
    {
        auto text = payload.text(0);
        if (auto nul = text.find('\0'); nul != std::string_view::npos)
            text = text.substr(0, nul);
        return { int64_t(e.timeNs), std::string(text), e.engine };
    }

    void addMarkers(TraceData& data, const Trace& trace, std::span<const Event> events)
    {
        for (const Event& e : events)
            if (e.type == ev::UserMarker)
                data.markers.push_back(markerOf(e, trace.payload(e)));
    }

    void sortMarkers(TraceData& data)
    {
        std::stable_sort(data.markers.begin(), data.markers.end(),
            [](const Marker& a, const Marker& b) { return a.timeNs < b.timeNs; });
    }

    void setSpan(TraceData& data, const Trace& trace)
    {
        data.startNs = int64_t(trace.firstTimeNs);
        data.endNs = std::max<int64_t>(int64_t(trace.lastTimeNs), data.startNs + 1);
    }

} // namespace

std::shared_ptr<const TraceData> buildTraceData(
    Trace trace, const std::atomic<bool>* cancel, std::vector<std::string> formatProblems)
{
    auto cancelled = [&] { return cancel && cancel->load(std::memory_order_relaxed); };
    keepOnlyPayloadBytes(trace);
    auto data = std::make_shared<TraceData>();
    data->formatProblems = std::move(formatProblems);
    auto shared = std::make_shared<const Trace>(std::move(trace));
    data->trace = shared;
    data->flushMs = flushMsOf(*shared);
    setSpan(*data, *shared);
    {
        EngineStates states = computeEngineStates(*shared);
        if (cancelled())
            return nullptr;
        indexStates(*data, std::move(states));
    }
    if (cancelled())
        return nullptr;
    addMarkers(*data, *shared, shared->global);
    for (const auto& events : shared->engines)
        addMarkers(*data, *shared, events);
    sortMarkers(*data);
    return data;
}

// One event of the streaming pass: what streamTraceData gathers beside the state runs.
void TraceDataStreamer::Pass::add(const StreamBatch& batch)
{
    EngineStateScanner* scanner = nullptr;
    if (batch.engine != kNoEngine) {
        if (batch.engine >= scanners.size())
            scanners.resize(size_t(batch.engine) + 1);
        scanner = &scanners[batch.engine];
    }
    const size_t stream = batch.engine == kNoEngine ? 0 : size_t(batch.engine) + 1;
    if (stream >= handed.size())
        handed.resize(stream + 1);
    for (const Event& e : batch.events) {
        const uint32_t index = handed[stream]++;
        if (e.type == ev::UserMarker) [[unlikely]]
            markers.push_back(markerOf(e, batch.payload(e)));
        if (e.type == ev::MerStartParConj || e.type == ev::InternString) [[unlikely]]
            starts.add(e, batch.payload(e), uint32_t(stream), index);
        if (e.type == ev::RtsIdentifier && e.payloadSize > 4 && !flushMs) [[unlikely]]
            flushMs = flushMsOfIdentifier(batch.payload(e).text(4)); // the first that has it, as flushMsOf
        if (scanner) {
            scanner->add(e, batch.stream);
            marks += Mark::fits(e);
        }
    }
}

TraceDataStreamer::TraceDataStreamer(
    std::string path, const std::function<void(int)>& progress, std::shared_ptr<const DecompressedFile> copy)
    : m_path(path)
    , m_copy(std::move(copy))
    , m_stream(m_copy ? m_copy->path() : std::move(path), [&] {
        StreamOptions options;
        if (progress)
            options.progress = [progress](uint64_t done, uint64_t total) {
                progress(total ? int(900.0 * double(done) / double(total)) : 0);
            };
        return options;
    }())
{
}

std::optional<Error> TraceDataStreamer::advance(uint64_t endBytes, const std::atomic<bool>* cancel)
{
    m_stream.setCancel(cancel);
    m_endBytes = endBytes;
    return m_stream.advance(endBytes, [this](const StreamBatch& batch) { m_pass.add(batch); });
}

std::shared_ptr<const TraceData> TraceDataStreamer::build(Pass pass, StreamedTrace s) const
{
    auto data = std::make_shared<TraceData>();
    pass.scanners.resize(s.summary.engineCount());
    setSpan(*data, s.summary);
    EngineStates states;
    states.firstNs = s.summary.firstTimeNs;
    states.lastNs = std::max(s.summary.lastTimeNs, s.summary.firstTimeNs);
    for (auto& scanner : pass.scanners)
        states.engines.push_back(scanner.finish(states.firstNs, states.lastNs));
    std::vector<EngineStateScanner>().swap(pass.scanners);
    indexStates(*data, std::move(states));
    data->markers = std::move(pass.markers);
    data->flushMs = pass.flushMs;
    sortMarkers(*data);
    if (s.lateEvents > 0)
        s.summary.warnings.push_back({ std::to_string(s.lateEvents)
                + " events came later in the file than the streaming window allows; the engine bars around "
                  "them may differ slightly from reading the trace whole",
            0 });
    data->streamedConjunctionStarts = pass.starts.finish();
    data->streamed = std::make_shared<const StreamedEvents>(m_copy ? m_copy->path() : m_path, s.summary.header,
        std::move(s.blocks), s.events, s.lateEvents > 0 ? 0 : pass.marks, m_endBytes,
        m_copy); // with late events a compact read reads whole (compact_trace.h)
    if (m_copy) {
        // The trace is the compressed file, as readTrace names it; its copy is what is decoded again.
        m_copy->nameAfterSource(s.summary);
        data->decompressed = m_copy;
    }
    data->trace = std::make_shared<const Trace>(std::move(s.summary));
    return data;
}

std::shared_ptr<const TraceData> TraceDataStreamer::snapshot() const
{
    Pass pass = m_pass; // the held-back events go to a copy: the pass goes on without them
    StreamedTrace s = m_stream.summary([&pass](const StreamBatch& batch) { pass.add(batch); });
    return build(std::move(pass), std::move(s));
}

std::shared_ptr<const TraceData> TraceDataStreamer::finish() &&
{
    StreamedTrace s = std::move(m_stream).finish([this](const StreamBatch& batch) { m_pass.add(batch); });
    return build(std::move(m_pass), std::move(s));
}

std::vector<int64_t> lastEventTimes(const TraceData& data)
{
    std::vector<int64_t> out(data.engineCount(), INT64_MIN);
    for (size_t e = 0; e < out.size(); ++e) {
        if (data.streamed) {
            if (e < data.streamed->blocks().size())
                for (const BlockExtent& b : data.streamed->blocks()[e])
                    if (b.firstNs != UINT64_MAX)
                        out[e] = std::max(out[e], int64_t(b.lastNs));
        } else if (e < data.trace->engines.size() && !data.trace->engines[e].empty()) {
            out[e] = int64_t(data.trace->engines[e].back().timeNs); // sorted by time
        }
    }
    return out;
}

namespace {

    // When `engine` closed its latest complete block, by the block's marker (INT64_MIN: not known).
    // Only a complete block is trusted: a file cut inside one lost the events after the cut.
    int64_t latestBlockClosed(const TraceData& data, size_t engine)
    {
        uint64_t closed = 0;
        if (data.streamed) {
            if (engine >= data.streamed->blocks().size() || data.streamed->blocks()[engine].empty())
                return INT64_MIN;
            // The engine's last extent ends its last block in the file: complete when it reaches the
            // end the marker declares.
            const BlockExtent& b = data.streamed->blocks()[engine].back();
            if (b.blockEnd == 0 || b.offset + b.bytes != b.blockEnd)
                return INT64_MIN;
            closed = b.blockEndNs;
        } else {
            if (data.trace->truncated || engine >= data.trace->engines.size())
                return INT64_MIN;
            const std::vector<Event>& events = data.trace->engines[engine];
            // A marker is stamped when its engine's block before it was closed, so markers' times grow
            // block by block and, the events being sorted by time, the last marker is the latest
            // block's. (A block's events may come a few µs before its marker: GHC stamps GC_START and
            // GC_END before posting them, and a full buffer flushed in between puts them in the next
            // block. They are still before the block's end time.)
            const auto marker = std::find_if(
                events.rbegin(), events.rend(), [](const Event& x) { return x.type == ev::BlockMarker; });
            if (marker == events.rend())
                return INT64_MIN;
            const Payload p = data.trace->payload(*marker);
            if (p.u32(0) < uint64_t(marker->headerSize) + marker->payloadSize) // the reader did not trust it
                return INT64_MIN;
            closed = p.u64(4);
        }
        // (The reader counts a trusted block's end time in the trace's end; this bounds the others.)
        return closed == 0 ? INT64_MIN : std::min<int64_t>(int64_t(std::min<uint64_t>(closed, INT64_MAX)), data.endNs);
    }

} // namespace

std::vector<int64_t> writtenUntil(const TraceData& data)
{
    std::vector<int64_t> out = lastEventTimes(data);
    for (size_t e = 0; e < out.size(); ++e)
        out[e] = std::max(out[e], latestBlockClosed(data, e));
    return out;
}

std::vector<int64_t> unwrittenFrom(const TraceData& data, std::vector<int64_t> written)
{
    // The state each engine's last event left it in matters only in a trace that writes wake-ups at once.
    const std::vector<int64_t> last = data.flushMs ? lastEventTimes(data) : std::vector<int64_t>();
    const int64_t lag = std::max<int64_t>((data.endNs - data.startNs) / 100, 1'000'000);
    for (size_t e = 0; e < written.size(); ++e) {
        int64_t& t = written[e];
        if (t == INT64_MIN) { // nothing written yet
            t = data.startNs;
            continue;
        }
        const LodSpan* at = e < last.size() && last[e] != INT64_MIN ? data.lod.spanAt(e, uint64_t(last[e])) : nullptr;
        const bool asleep = at && at->state == uint8_t(EngineState::Sleeping);
        if (data.endNs - t <= lag || asleep)
            t = INT64_MAX;
    }
    return written;
}

std::vector<int64_t> unwrittenFrom(const TraceData& data) { return unwrittenFrom(data, writtenUntil(data)); }

int64_t writtenByAllUntil(const std::vector<int64_t>& unwritten) noexcept
{
    return unwritten.empty() ? INT64_MAX : *std::min_element(unwritten.begin(), unwritten.end());
}

Result<std::shared_ptr<const TraceData>> readTraceDataPart(std::vector<uint8_t> bytes, uint64_t completeBytes,
    bool ended, const std::string& path, const std::atomic<bool>* cancel)
{
    bytes.resize(completeBytes);
    if (!ended) {
        bytes.push_back(0xFF); // DATA_END: the complete part reads as a finished stream
        bytes.push_back(0xFF);
    }
    ReadOptions options;
    options.threads = 1; // as readWholeData, for its peak memory
    options.cancel = cancel;
    auto trace = readTraceFromBytes(std::move(bytes), options, path);
    if (!trace)
        return trace.error();
    trace->fileSize = completeBytes;
    return buildTraceData(std::move(trace).value(), cancel);
}

Result<std::shared_ptr<const TraceData>> streamTraceData(const std::string& path,
    const std::function<void(int)>& progress, const std::atomic<bool>* cancel, uint64_t endBytes,
    std::shared_ptr<const DecompressedFile> copy)
{
    TraceDataStreamer streamer(path, progress, std::move(copy));
    if (auto failed = streamer.advance(endBytes, cancel))
        return *failed;
    auto data = std::move(streamer).finish();
    if (auto shrank = streamer.fileShrank())
        return *shrank;
    if (progress)
        progress(1000);
    return data;
}

namespace {

    // A size in bytes from the environment variable `name`, or `otherwise` when it is unset or empty.
    // A value that is not a whole number of bytes ("64M", "abc", "-1") is ignored with a warning:
    // read as 0 it would stream, or follow streamed, every file.
    uint64_t bytesFromEnvironment(const char* name, uint64_t otherwise)
    {
        const char* v = std::getenv(name);
        if (!v || !*v)
            return otherwise;
        const std::string_view text(v);
        uint64_t bytes = 0;
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), bytes);
        if (error == std::errc() && end == text.data() + text.size())
            return bytes;
        // Once per name and value: a follow reads both sizes at its start and again when it ends.
        static std::mutex warnedMutex;
        static std::set<std::string> warned;
        const std::lock_guard lock(warnedMutex);
        if (warned.insert(std::string(name) + '=' + v).second)
            qWarning("%s=%s is not a whole number of bytes; it is ignored (%llu is used)", name, v,
                static_cast<unsigned long long>(otherwise));
        return otherwise;
    }

} // namespace

uint64_t streamThresholdBytes() { return bytesFromEnvironment("SPARKSCOPE_STREAM_BYTES", uint64_t(1) << 30); }

uint64_t followStreamThresholdBytes()
{
    return std::min(bytesFromEnvironment("SPARKSCOPE_FOLLOW_STREAM_BYTES", uint64_t(64) << 20), streamThresholdBytes());
}

namespace {

    // `path` read whole and indexed; named after the compressed file when it is `copy`'s path.
    Result<std::shared_ptr<const TraceData>> readWholeData(const std::string& path,
        const std::function<void(int)>& progress, const std::atomic<bool>* cancel, const DecompressedFile* copy)
    {
        ReadOptions options;
        options.cancel = cancel;
        // One decoding thread: on parfib-4-37 (108 MB) it peaked at 368 MB against 453-459 MB with 2
        // or all threads (the parallel path keeps per-range buffers), and was no slower on 2 cores.
        // Peak memory is what limits which traces a person can open at all.
        options.threads = 1;
        if (progress)
            options.progress = [&progress](uint64_t done, uint64_t total) {
                // Reading is ~80% of the work; indexing the rest.
                progress(total ? int(800.0 * double(done) / double(total)) : 0);
            };
        Result<Trace> trace = readTrace(path, options);
        if (!trace)
            return trace.error();
        if (copy)
            copy->nameAfterSource(trace.value());
        // At most 100, as the reader's warnings (a damaged file can give one per block).
        constexpr size_t kKept = 100;
        std::vector<std::string> problems;
        size_t more = 0;
        for (core::Problem& p : core::checkFormat(trace.value())) {
            if (p.isNote)
                continue;
            if (problems.size() < kKept)
                problems.push_back(std::move(p.message));
            else
                ++more;
        }
        if (more)
            problems.push_back(std::to_string(more) + " more format problem(s)");
        if (progress)
            progress(820);
        auto data = buildTraceData(std::move(trace).value(), cancel, std::move(problems));
        if (!data)
            return Error { ErrorCode::Cancelled, "cancelled", std::nullopt };
        if (progress)
            progress(1000);
        return data;
    }

} // namespace

Result<std::shared_ptr<const TraceData>> loadTraceData(
    const std::string& path, const std::function<void(int)>& progress, const std::atomic<bool>* cancel)
{
    std::error_code ec;
    const uint64_t size = std::filesystem::file_size(path, ec);
    const uint64_t threshold = streamThresholdBytes();
    const bool compressed = !ec && compressionOf(path) != Compression::None;
    if (!ec && !compressed && size >= threshold)
        return streamTraceData(path, progress, cancel);
    if (compressed && size >= threshold / 16) {
        // Decompressed to disk first (the first tenth of the progress), then streamed or read whole
        // by the copy's size; where no copy can be written, read whole in memory below (which says
        // what is wrong with a damaged stream in its own words).
        auto copy = DecompressedFile::create(path, cancel, [&progress](uint64_t done, uint64_t total) {
            if (progress && total > 0)
                progress(int(100.0 * double(done) / double(total)));
        });
        if (!copy && copy.error().code == ErrorCode::Cancelled)
            return copy.error();
        auto afterCopy = [&progress](int permille) {
            if (progress)
                progress(100 + permille * 9 / 10);
        };
        if (copy && copy.value()->bytes() >= threshold)
            return streamTraceData(path, afterCopy, cancel, UINT64_MAX, copy.value());
        if (copy)
            return readWholeData(copy.value()->path(), afterCopy, cancel, copy.value().get());
    }
    return readWholeData(path, progress, cancel, nullptr);
}

} // namespace sparkscope::ui
