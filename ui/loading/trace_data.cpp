#include "ui/loading/trace_data.h"

#include "sparkscope/core/engine_states.h"
#include "sparkscope/core/event_types.h"
#include "sparkscope/core/reader.h"

#include <tbb/parallel_for.h>

#include <algorithm>

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

std::pair<size_t, size_t> TraceData::instantRange(size_t engine, int64_t fromNs, int64_t toNs) const
{
    if (engine >= trace->engines.size())
        return { 0, 0 };
    const auto& idx = trace->engines[engine];
    auto timeLess = [](const core::Event& e, int64_t t) { return int64_t(e.timeNs) < t; };
    const size_t a = size_t(std::lower_bound(idx.begin(), idx.end(), fromNs, timeLess) - idx.begin());
    const size_t b = size_t(std::lower_bound(idx.begin() + long(a), idx.end(), toNs, timeLess) - idx.begin());
    return { a, b };
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
    auto out = std::make_shared<std::vector<uint8_t>>();
    out->reserve(kept);
    out->resize(kPad, 0);
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

std::shared_ptr<const TraceData> buildTraceData(Trace trace, const std::atomic<bool>* cancel)
{
    auto cancelled = [&] { return cancel && cancel->load(std::memory_order_relaxed); };
    keepOnlyPayloadBytes(trace);
    auto data = std::make_shared<TraceData>();
    auto shared = std::make_shared<const Trace>(std::move(trace));
    data->trace = shared;
    data->startNs = int64_t(shared->firstTimeNs);
    data->endNs = std::max<int64_t>(int64_t(shared->lastTimeNs), data->startNs + 1);

    {
        EngineStates states = computeEngineStates(*shared);
        if (cancelled())
            return nullptr;
        data->cpus = cpusOverTime(states);
        std::vector<std::vector<LodSpan>> spans(states.engines.size());
        tbb::parallel_for(size_t(0), spans.size(), [&](size_t e) {
            auto& in = states.engines[e];
            spans[e].reserve(in.size());
            for (const StateInterval& s : in)
                spans[e].push_back({ s.startNs, s.endNs, s.context, uint8_t(s.state) });
            std::vector<StateInterval>().swap(in); // free as we go: peak memory matters
        });
        if (cancelled())
            return nullptr;
        data->lod
            = LodIndex::build(std::move(spans), kEngineStateCount, uint64_t(data->startNs), uint64_t(data->endNs));
    }
    if (cancelled())
        return nullptr;

    auto addMarkers = [&](const std::vector<Event>& events) {
        for (const Event& e : events)
            if (e.type == ev::UserMarker) {
                auto text = shared->payload(e).text(0);
                if (auto nul = text.find('\0'); nul != std::string_view::npos)
                    text = text.substr(0, nul);
                data->markers.push_back({ int64_t(e.timeNs), std::string(text), e.engine });
            }
    };
    addMarkers(shared->global);
    for (const auto& events : shared->engines)
        addMarkers(events);
    std::stable_sort(data->markers.begin(), data->markers.end(),
        [](const Marker& a, const Marker& b) { return a.timeNs < b.timeNs; });
    return data;
}

Result<std::shared_ptr<const TraceData>> loadTraceData(
    const std::string& path, const std::function<void(int)>& progress, const std::atomic<bool>* cancel)
{
    ReadOptions options;
    options.cancel = cancel;
    // One decoding thread: on parfib-4-37 (108 MB) it peaked at 368 MB against 453-459 MB with 2 or
    // all threads (the parallel path keeps per-range buffers), and was no slower on 2 cores. Peak
    // memory is what limits which traces a person can open at all.
    options.threads = 1;
    if (progress)
        options.progress = [&progress](uint64_t done, uint64_t total) {
            // Reading is ~80% of the work; indexing the rest.
            progress(total ? int(800.0 * double(done) / double(total)) : 0);
        };
    Result<Trace> trace = readTrace(path, options);
    if (!trace)
        return trace.error();
    if (progress)
        progress(820);
    auto data = buildTraceData(std::move(trace).value(), cancel);
    if (!data)
        return Error { ErrorCode::Cancelled, "cancelled", std::nullopt };
    if (progress)
        progress(1000);
    return data;
}

} // namespace sparkscope::ui
