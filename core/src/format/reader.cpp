// readTrace / readTraceFromBytes: load the bytes (reader_input.cpp), parse the header and decode
// the events (reader_decode.cpp), in parallel where the stream's blocks allow it, then sort each
// engine's events stably by time.
//
// Memory: the stream's bytes plus 24 bytes per event (about 2.4x a GHC eventlog's size). Parallel
// decoding holds each range's events in its own vectors and moves them into the per-engine vectors
// engine by engine, freeing each range's part as soon as it is copied, so the extra peak is about
// one engine's share of the events.
//
// Progress: reading a file reports (done, total) with total = 2 x the file size; the first half is
// reading (and decompressing), the second decoding. readTraceFromBytes reports decoding only, with
// total = the buffer's size.
#include "sparkscope/core/reader.h"

#include "format/reader_decode.h"
#include "format/reader_input.h"

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <filesystem>
#include <memory>

namespace sparkscope::core {

namespace {
    using namespace detail;

    constexpr uint64_t kParallelMinBytes = 4u << 20; // below this, threads cost more than they save
    constexpr uint64_t kMinRangeBytes = 2u << 20;

    // Maps one phase's (done, of) onto the caller's progress scale, monotonically.
    class ProgressMapper {
    public:
        ProgressMapper(const ReadOptions& options, uint64_t base, uint64_t span, uint64_t total)
            : m_options(options)
            , m_base(base)
            , m_span(span)
            , m_total(total)
        {
        }
        void operator()(uint64_t done, uint64_t of) const
        {
            if (!m_options.progress || of == 0)
                return;
            const double fraction = std::min(1.0, double(done) / double(of));
            const uint64_t value = m_base + static_cast<uint64_t>(fraction * double(m_span));
            // Never report less than before (a parallel attempt that falls back starts over).
            uint64_t last = m_last.load();
            while (value > last || (value == last && last == 0))
                if (m_last.compare_exchange_weak(last, value)) {
                    m_options.progress(value, m_total);
                    break;
                }
        }

    private:
        const ReadOptions& m_options;
        uint64_t m_base, m_span, m_total;
        mutable std::atomic<uint64_t> m_last { 0 };
    };

    bool isCancelled(const ReadOptions& options)
    {
        return options.cancel && options.cancel->load(std::memory_order_relaxed);
    }

    Error cancelledError() { return Error { ErrorCode::Cancelled, "reading was cancelled", std::nullopt }; }

    // Moves the ranges' per-engine parts into `into`, in range order.
    void concatenate(std::vector<EventSink>& parts, EventSink& into, tbb::task_arena& arena)
    {
        size_t engineCount = 0;
        for (const auto& p : parts)
            engineCount = std::max(engineCount, p.engines.size());
        into.engines.resize(engineCount);
        // Part i's events of engine `engine` (engineCount = the global ones), or nullptr.
        auto pick = [&](EventSink& p, size_t engine) -> std::vector<Event>* {
            if (engine == engineCount)
                return &p.global;
            return engine < p.engines.size() ? &p.engines[engine] : nullptr;
        };
        arena.execute([&] {
            tbb::parallel_for(size_t(0), engineCount + 1, [&](size_t engine) {
                std::vector<Event>& target = engine == engineCount ? into.global : into.engines[engine];
                size_t total = 0;
                for (auto& p : parts)
                    if (auto* v = pick(p, engine))
                        total += v->size();
                reserveEvents(target, total);
                for (auto& p : parts)
                    if (auto* v = pick(p, engine)) {
                        target.insert(target.end(), v->begin(), v->end());
                        std::vector<Event>().swap(*v);
                    }
            });
        });
    }

    Result<Trace> decodeStreamUnguarded(std::shared_ptr<std::vector<uint8_t>> bytesOwner, Trace trace,
        const ReadOptions& options, const ProgressMapper& progress)
    {
        const std::span<const uint8_t> bytes(*bytesOwner);
        auto parsed = parseHeader(bytes);
        if (!parsed)
            return parsed.error();
        trace.header = std::move(parsed->header);
        const uint64_t dataStart = parsed->dataStart;
        const SizeTable sizes(trace.header);

        const unsigned threads
            = options.threads ? options.threads : static_cast<unsigned>(std::max(1, tbb::info::default_concurrency()));
        // More ranges than cores is fine; more worker threads than cores is not.
        tbb::task_arena arena(
            static_cast<int>(std::min<unsigned>(threads, unsigned(tbb::info::default_concurrency()))));

        std::atomic<uint64_t> decoded { 0 };
        const uint64_t streamBytes = bytes.size() - dataStart;
        DecodeContext ctx;
        ctx.sizes = &sizes;
        ctx.cancel = options.cancel;
        if (options.progress)
            ctx.advanced = [&](uint64_t delta) { progress(decoded.fetch_add(delta) + delta, streamBytes); };

        EventSink sink;
        DecodeOutcome tail;
        bool done = false;
        if (threads > 1 && streamBytes >= kParallelMinBytes) {
            const uint64_t target = std::max<uint64_t>(kMinRangeBytes, streamBytes / (uint64_t(threads) * 4));
            const RangePlan plan = planRanges(bytes, dataStart, sizes, target);
            const size_t ranges = plan.cuts.size() - 1; // whole-block ranges; one more for the tail
            if (ranges >= 2) {
                std::vector<EventSink> parts(ranges + 1);
                std::vector<DecodeOutcome> outcomes(ranges + 1);
                arena.execute([&] {
                    tbb::parallel_for(size_t(0), ranges + 1, [&](size_t i) {
                        BlockState state;
                        if (i < ranges) {
                            outcomes[i] = decodeEvents(bytes, plan.cuts[i], plan.cuts[i + 1], state, parts[i], ctx);
                            if (outcomes[i].stop == DecodeStop::RangeEnd && (state.remaining != 0 || state.lenient))
                                outcomes[i].stop = DecodeStop::Failed; // ended inside a block: not a clean cut
                        } else {
                            state.sawMarker = plan.tailSawMarker;
                            outcomes[i] = decodeEvents(bytes, plan.cuts[i], bytes.size(), state, parts[i], ctx);
                        }
                    });
                });
                bool clean = true;
                for (size_t i = 0; i < ranges; ++i) {
                    if (outcomes[i].stop == DecodeStop::Cancelled)
                        return cancelledError();
                    clean = clean && outcomes[i].stop == DecodeStop::RangeEnd && outcomes[i].warnings.empty();
                }
                if (clean) {
                    tail = std::move(outcomes[ranges]);
                    for (size_t i = 0; i < ranges; ++i) {
                        tail.minTimeNs = std::min(tail.minTimeNs, outcomes[i].minTimeNs);
                        tail.maxTimeNs = std::max(tail.maxTimeNs, outcomes[i].maxTimeNs);
                        tail.events += outcomes[i].events;
                    }
                    if (tail.stop != DecodeStop::Failed && tail.stop != DecodeStop::Cancelled)
                        concatenate(parts, sink, arena);
                    done = true;
                } else {
                    decoded = 0; // start over sequentially (the progress mapper never reports less)
                }
            }
        }
        if (!done) {
            BlockState state;
            tail = decodeEvents(bytes, dataStart, bytes.size(), state, sink, ctx);
        }

        if (tail.stop == DecodeStop::Cancelled)
            return cancelledError();
        if (tail.stop == DecodeStop::Failed)
            return *tail.error;
        recordStop(trace, tail, bytes.size(), tail.events);

        if (isCancelled(options))
            return cancelledError();
        trace.engines = std::move(sink.engines);
        trace.global = std::move(sink.global);
        arena.execute([&] {
            tbb::parallel_for(size_t(0), trace.engines.size() + 1, [&](size_t i) {
                if (isCancelled(options))
                    return;
                stableSortByTime(i < trace.engines.size() ? trace.engines[i] : trace.global);
            });
        });
        if (isCancelled(options))
            return cancelledError();
        if (tail.events > 0) {
            trace.firstTimeNs = tail.minTimeNs;
            trace.lastTimeNs = tail.maxTimeNs;
        }
        progress(streamBytes, streamBytes);
        trace.setBytes(std::move(bytesOwner));
        return trace;
    }

    // Memory is the one resource bad input can still exhaust (a huge valid-looking stream): report
    // it as an error instead of letting std::bad_alloc cross the API.
    Result<Trace> decodeStream(std::shared_ptr<std::vector<uint8_t>> bytesOwner, Trace trace,
        const ReadOptions& options, const ProgressMapper& progress)
    {
        const std::string path = trace.path;
        try {
            return decodeStreamUnguarded(std::move(bytesOwner), std::move(trace), options, progress);
        } catch (const std::bad_alloc&) {
            return Error { ErrorCode::Io, "not enough memory to decode " + path, std::nullopt };
        }
    }
} // namespace

Result<Trace> readTrace(const std::string& path, const ReadOptions& options)
{
    Trace trace;
    trace.path = path;
    // Total = 2 x file size: first half reading, second half decoding (see the file comment).
    std::error_code ec;
    uint64_t fileSize = std::filesystem::file_size(path, ec);
    if (ec)
        fileSize = 0;
    const uint64_t total = std::max<uint64_t>(1, 2 * fileSize);
    const ProgressMapper readProgress(options, 0, total / 2, total);
    auto loaded = loadFile(path, options.cancel, [&](uint64_t done, uint64_t of) { readProgress(done, of); });
    if (!loaded)
        return loaded.error();
    trace.fileSize = loaded->fileSize;
    trace.compression = loaded->compression;
    trace.warnings = std::move(loaded->warnings);
    auto bytes = std::make_shared<std::vector<uint8_t>>(std::move(loaded->bytes));
    const ProgressMapper decodeProgress(options, total / 2, total - total / 2, total);
    return decodeStream(std::move(bytes), std::move(trace), options, decodeProgress);
}

Result<Trace> readTraceFromBytes(std::vector<uint8_t> bytes, const ReadOptions& options, std::string name)
{
    Trace trace;
    trace.path = std::move(name);
    trace.fileSize = bytes.size();
    const Compression kind = detectCompression(bytes);
    if (kind != Compression::None) {
        auto loaded = decompressBuffer(bytes, kind, options.cancel, {});
        if (!loaded)
            return loaded.error();
        trace.compression = kind;
        trace.warnings = std::move(loaded->warnings);
        bytes = std::move(loaded->bytes);
    }
    const uint64_t total = std::max<uint64_t>(1, bytes.size());
    const ProgressMapper decodeProgress(options, 0, total, total);
    return decodeStream(
        std::make_shared<std::vector<uint8_t>>(std::move(bytes)), std::move(trace), options, decodeProgress);
}

} // namespace sparkscope::core
