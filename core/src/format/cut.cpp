// cutTrace (cut.h): one time-ordered pass over the trace. Events before the range update a small
// replay of the state (definitions in order, each context's creation/label/engine, each engine's
// state by the engine states' rules: asleep, searching, collecting); at the first event inside the
// range that state is written, re-timed to `from`, and the range's events follow. Output goes
// through per-engine pending buffers flushed as blocks, like a runtime's per-capability buffers, so
// the writer's blocks stay one engine each.
#include "sparkscope/core/cut.h"

#include "sparkscope/core/byte_order.h"
#include "sparkscope/core/decompressed_file.h"
#include "sparkscope/core/engine_states.h"
#include "sparkscope/core/reader.h"
#include "sparkscope/core/trace_stream.h"
#include "sparkscope/core/writer.h"

#include "format/kept_events.h"

#include <algorithm>
#include <deque>
#include <unordered_map>
#include <utility>

namespace sparkscope::core {

namespace {

    constexpr size_t kBlockBytes = 512 * 1024; // flush an engine's pending events at this size
    constexpr size_t kMarkerBytes = 24;

    // Events that define something later events refer to, or say what the run is: kept from before
    // the range, in their order.
    bool isDefinition(uint16_t type)
    {
        switch (type) {
        case ev::Startup:
        case ev::CapsetCreate:
        case ev::CapsetDelete:
        case ev::CapsetAssignCap:
        case ev::CapsetRemoveCap:
        case ev::CapCreate:
        case ev::CapDelete:
        case ev::CapDisable:
        case ev::CapEnable:
        case ev::RtsIdentifier:
        case ev::ProgramArgs:
        case ev::ProgramEnv:
        case ev::OsProcessPid:
        case ev::OsProcessPpid:
        case ev::WallClockTime:
        case ev::InternString:
        case ev::HeapInfoGhc:
        case ev::EdenVersion:
        case ev::EdenProgramInvocation:
        case ev::PerfName:
        case ev::HeapProfBegin:
        case ev::HeapProfCostCentre:
        case ev::ProfBegin:
        case ev::Ipe:
        case ev::TickyCounterDef:
            return true;
        default:
            return false;
        }
    }

    // Every kind of event StateReplay reads; the others before the range change nothing.
    bool makesState(uint16_t type)
    {
        if (isDefinition(type))
            return true;
        switch (type) {
        case ev::CreateThread:
        case ev::CreateSparkThread:
        case ev::MerReuseContext:
        case ev::ThreadLabel:
        case ev::RunThread:
        case ev::StopThread:
        case ev::ThreadRunnable:
        case ev::ThreadWakeup:
        case ev::MerReleaseContext:
        case ev::GcStart:
        case ev::GcWork:
        case ev::GcIdle:
        case ev::GcDone:
        case ev::GcEnd:
        case ev::SparkCounters:
        case ev::HeapAllocated:
        case ev::MerEngineSleeping:
        case ev::MerLookingForGlobalContext:
        case ev::MerWorkStealing:
        case ev::MerLookingForLocalSpark:
        case ev::MerSparkRun:
        case ev::MerSparkSteal:
        case ev::Shutdown:
            return true;
        default:
            return false;
        }
    }

    // One event to write: the original, at a (possibly new) time, with a replaced payload if any.
    struct Pending {
        const Event* event;
        uint64_t timeNs;
        const std::vector<uint8_t>* payload; // nullptr: the original payload
    };

    // The state at `from`, replayed from the events before it.
    struct StateReplay {
        struct ContextState {
            const Event* created = nullptr; // CREATE_THREAD, CREATE_SPARK_THREAD or REUSE_CONTEXT
            const Event* label = nullptr;
            const Event* run = nullptr; // the RUN_THREAD it is running under, if running
            const Event* lastRun = nullptr; // the last RUN_THREAD, running or not
            const Event* blockedBy = nullptr; // the blocking STOP_THREAD, while it is blocked
            // Woken from blocked and not run since: the STOP_THREAD that blocked it and the wake-up
            // (THREAD_RUNNABLE or THREAD_WAKEUP). Its next run is a resume (ParModel::resumes).
            const Event* wokenFrom = nullptr;
            const Event* wokenBy = nullptr;
        };
        std::vector<const Event*> definitions;
        std::unordered_map<uint32_t, ContextState> contexts;
        std::unordered_map<uint16_t, uint32_t> running; // engine -> the context it last ran
        // The last sample of each cumulative counter before the range, per engine: GHC's spark
        // counters and allocation count from the program's start, so the metrics measure their growth
        // from such a sample (metrics.md, "the trace's first instant").
        std::unordered_map<uint16_t, const Event*> sparkCounters, heapAllocated;
        // Per engine: its states' scanner (engine_states.h), fed every event before `from`, and the
        // last events that can put it back in the state the scanner says it is in at `from`:
        // ENGINE_SLEEPING, a search event (LOOKING_FOR_GLOBAL_CONTEXT, WORK_STEALING,
        // LOOKING_FOR_LOCAL_SPARK), and the event that began the collection it is in (GC_START, or a
        // GC_WORK, GC_IDLE or GC_DONE without one). The cut re-emits those at `from`, so the cut's
        // engine states are the original's over the range by the same rules, not a copy of them.
        struct EngineReplay {
            EngineStateScanner scanner { false }; // its state only: a cut late in a big trace stays small
            const Event* sleep = nullptr;
            const Event* search = nullptr;
            const Event* gcBegan = nullptr;
        };
        std::vector<EngineReplay> engines; // by engine number (a lookup per event before the range)

        void engineState(const Trace& trace, const Event& e)
        {
            if (!e.hasEngine())
                return;
            if (e.engine >= engines.size())
                engines.resize(size_t(e.engine) + 1);
            EngineReplay& r = engines[e.engine];
            const bool collecting = r.scanner.state() == EngineState::Gc;
            r.scanner.add(e, trace.bytes());
            switch (e.type) {
            case ev::MerEngineSleeping:
                r.sleep = &e;
                break;
            case ev::MerLookingForGlobalContext:
            case ev::MerWorkStealing:
            case ev::MerLookingForLocalSpark:
                r.search = &e;
                break;
            default:
                if (!collecting && r.scanner.state() == EngineState::Gc)
                    r.gcBegan = &e;
            }
        }

        // The events that put each engine back in its state at `from` (engine order): asleep or
        // searching, then the collection that interrupted it, if any.
        std::vector<const Event*> stateAtFrom() const
        {
            std::vector<const Event*> out;
            for (const EngineReplay& r : engines) {
                const EngineState now = r.scanner.state();
                const EngineState before = now == EngineState::Gc ? r.scanner.stateBeforeGc() : now;
                if (before == EngineState::Sleeping && r.sleep)
                    out.push_back(r.sleep);
                else if (before == EngineState::Searching && r.search)
                    out.push_back(r.search);
                if (now == EngineState::Gc && r.gcBegan)
                    out.push_back(r.gcBegan);
            }
            return out;
        }

        void add(const Trace& trace, const Event& e)
        {
            engineState(trace, e); // (every event: any wakes a sleeping engine)
            if (!makesState(e.type)) // what cutFile leaves out before the range, but for waking
                return;
            const Payload p = trace.payload(e);
            if (isDefinition(e.type)) {
                definitions.push_back(&e);
                return;
            }
            switch (e.type) {
            case ev::CreateThread:
            case ev::CreateSparkThread:
            case ev::MerReuseContext: {
                // A second creation of a live context creates nothing, as the model reads it: GHC posts
                // CREATE_THREAD, THREAD_LABEL, then CREATE_SPARK_THREAD for one spark thread, and the
                // first two are what the cut must write. One known only from its runs takes this one.
                auto [it, fresh] = contexts.try_emplace(p.u32(0), ContextState { &e });
                if (!fresh && !it->second.created)
                    it->second.created = &e;
                break;
            }
            case ev::ThreadLabel:
                contexts[p.u32(0)].label = &e;
                break;
            case ev::RunThread:
                if (e.hasEngine()) {
                    // An engine runs one context at a time: whatever ran here before has stopped.
                    auto [slot, fresh] = running.try_emplace(e.engine, p.u32(0));
                    if (!fresh && slot->second != p.u32(0)) {
                        if (auto it = contexts.find(slot->second);
                            it != contexts.end() && it->second.run && it->second.run->engine == e.engine)
                            it->second.run = nullptr;
                        slot->second = p.u32(0);
                    }
                    ContextState& c = contexts[p.u32(0)];
                    c.run = c.lastRun = &e;
                    c.blockedBy = c.wokenFrom = c.wokenBy = nullptr;
                }
                break;
            case ev::StopThread:
                if (p.u16(4) == kStopFinished) {
                    contexts.erase(p.u32(0));
                } else if (auto it = contexts.find(p.u32(0)); it != contexts.end()) {
                    it->second.run = nullptr;
                    it->second.blockedBy = isBlockingStopStatus(p.u16(4)) ? &e : nullptr;
                    it->second.wokenFrom = it->second.wokenBy = nullptr;
                }
                break;
            case ev::ThreadRunnable:
            case ev::ThreadWakeup:
                if (auto it = contexts.find(p.u32(0)); it != contexts.end() && it->second.blockedBy) {
                    it->second.wokenFrom = std::exchange(it->second.blockedBy, nullptr);
                    it->second.wokenBy = &e;
                }
                break;
            case ev::SparkCounters:
                sparkCounters[e.engine] = &e;
                break;
            case ev::HeapAllocated:
                heapAllocated[e.engine] = &e;
                break;
            case ev::MerReleaseContext:
                contexts.erase(p.u32(0));
                break;
            default:
                break;
            }
        }
    };

    class CutWriter {
    public:
        CutWriter(const Trace& trace)
            : m_trace(trace)
            , m_out(trace.header)
            , m_pending(trace.engines.size() + 1)
            , m_pendingBytes(trace.engines.size() + 1, 0)
        {
        }

        // `onEngine`: the engine whose block the event goes in, if not its own.
        void add(const Event& e, uint64_t timeNs, const std::vector<uint8_t>* payload = nullptr,
            uint16_t onEngine = kNoEngine)
        {
            const size_t slot = slotOf(onEngine != kNoEngine ? onEngine : e.engine);
            m_pending[slot].push_back({ &e, timeNs, payload });
            m_pendingBytes[slot] += e.headerSize + (payload ? payload->size() : e.payloadSize);
            if (m_pendingBytes[slot] + kMarkerBytes >= kBlockBytes)
                flush(slot);
        }

        // Writes an empty block for every engine that has nothing pending, so the cut keeps the
        // original's engines even when some are idle in the range. (End times are at least 1: an
        // end time of 0 is how a block never closed reads.)
        void markEveryEngine(uint64_t timeNs)
        {
            for (size_t engine = 0; engine < m_trace.engines.size(); ++engine)
                if (m_pending[engine].empty()) {
                    m_out.beginBlock(static_cast<uint16_t>(engine), timeNs);
                    m_out.endBlock(std::max<uint64_t>(timeNs, 1));
                }
        }

        // Writes what is pending, each engine's last block ending at `endNs`: the cut lasts to the
        // range's end, as the original does, not to its last event (the metrics of the cut and of the
        // original's range then measure the same stretch).
        std::vector<uint8_t> finish(uint64_t endNs)
        {
            bool reachesEnd = false;
            for (size_t slot = 0; slot < m_pending.size(); ++slot) {
                reachesEnd = reachesEnd || !m_pending[slot].empty();
                flush(slot, endNs);
            }
            if (!reachesEnd
                && !m_trace.engines.empty()) { // nothing after the state: one empty block says where the cut ends
                m_out.beginBlock(0, endNs);
                m_out.endBlock(std::max<uint64_t>(endNs, 1));
            }
            return m_out.finish();
        }

    private:
        size_t slotOf(uint16_t engine) const
        {
            return engine < m_trace.engines.size() ? engine : m_trace.engines.size();
        }

        void flush(size_t slot, uint64_t endNs = 0)
        {
            auto& events = m_pending[slot];
            if (events.empty())
                return;
            const uint16_t engine = slot < m_trace.engines.size() ? static_cast<uint16_t>(slot) : kNoEngine;
            m_out.beginBlock(engine, events.front().timeNs);
            uint64_t last = events.front().timeNs;
            for (const Pending& p : events) {
                const auto payload
                    = p.payload ? std::span<const uint8_t>(*p.payload) : m_trace.payload(*p.event).bytes();
                m_out.event(p.event->type, p.timeNs, payload);
                last = std::max(last, p.timeNs);
            }
            m_out.endBlock(std::max<uint64_t>({ last, endNs, 1 })); // an end time of 0 reads as a block never closed
            events.clear();
            m_pendingBytes[slot] = 0;
        }

        const Trace& m_trace;
        EventlogWriter m_out;
        std::vector<std::vector<Pending>> m_pending; // per engine, the last slot for kNoEngine
        std::vector<size_t> m_pendingBytes;
    };

    // A per-engine map's events by engine number, so that the output does not depend on the hash map's order.
    std::vector<const Event*> inEngineOrder(const std::unordered_map<uint16_t, const Event*>& perEngine)
    {
        std::vector<const Event*> out;
        for (const auto& [engine, e] : perEngine)
            out.push_back(e);
        std::sort(out.begin(), out.end(), [](const Event* a, const Event* b) { return a->engine < b->engine; });
        return out;
    }

    Error backwardsRange(uint64_t fromNs, uint64_t toNs)
    {
        return Error { ErrorCode::Usage,
            "the range's start (" + std::to_string(fromNs) + " ns) is after its end (" + std::to_string(toNs) + " ns)",
            std::nullopt };
    }

    // WALL_CLOCK_TIME (u32 capset, u64 seconds, u32 nanoseconds) moved later by `shiftNs`.
    std::vector<uint8_t> shiftWallClock(Payload p, uint64_t shiftNs)
    {
        const uint64_t totalNs = p.u64(4) * 1000000000ull + p.u32(12) + shiftNs;
        PayloadBuilder b;
        b.u32(p.u32(0)).u64(totalNs / 1000000000ull).u32(static_cast<uint32_t>(totalNs % 1000000000ull));
        return b.data();
    }

    // The first and last time of the events seen, for CutStats.
    struct SpanOfEvents {
        uint64_t first = UINT64_MAX, last = 0;
        void add(uint64_t t) noexcept
        {
            first = std::min(first, t);
            last = std::max(last, t);
        }
        void into(CutStats& stats) const noexcept
        {
            stats.traceFirstNs = first == UINT64_MAX ? 0 : first;
            stats.traceLastNs = last;
        }
    };

} // namespace

Result<CutOutput> cutTrace(const Trace& trace, uint64_t fromNs, uint64_t toNs)
{
    if (fromNs > toNs)
        return backwardsRange(fromNs, toNs);

    CutOutput result;
    result.warnings = trace.warnings;
    CutWriter out(trace);
    StateReplay state;
    std::deque<std::vector<uint8_t>> replaced; // payloads written instead of the original (stable addresses)
    bool stateWritten = false;
    // The range's events at exactly `from`, held until the state is written (below).
    std::vector<const Event*> atFrom;

    auto writeState = [&] {
        stateWritten = true;
        uint64_t n = 0;
        for (const Event* e : state.definitions) {
            if (e->type == ev::WallClockTime && e->timeNs < fromNs) {
                replaced.push_back(shiftWallClock(trace.payload(*e), fromNs - e->timeNs));
                out.add(*e, fromNs, &replaced.back());
            } else {
                out.add(*e, std::max(e->timeNs, fromNs));
            }
            ++n;
        }
        // Contexts in id order, so the output does not depend on the hash map's order.
        std::vector<std::pair<uint32_t, const StateReplay::ContextState*>> contexts;
        for (const auto& [id, c] : state.contexts)
            if (c.created || c.lastRun) // (a context created before the trace began is known from its runs)
                contexts.emplace_back(id, &c);
        std::sort(contexts.begin(), contexts.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        // A context's creation goes on the engine that runs it (or ran it last) at `from`: the reader
        // merges engines at one instant in engine order, and a RUN_THREAD read before its context's
        // creation would make the creation that of a context already there, not a new one.
        for (const auto& [id, c] : contexts) {
            if (c->created) {
                const Event* ran = c->run ? c->run : c->lastRun;
                out.add(*c->created, fromNs, nullptr, ran && ran->hasEngine() ? ran->engine : kNoEngine);
                ++n;
            }
            if (c->label) {
                out.add(*c->label, fromNs);
                ++n;
            }
        }
        // A context blocked at `from` runs and stops there again with its blocking status, so that it
        // reads as blocked, not runnable; one woken since, and not run since, is woken again too, so
        // that its next run reads as a resume from the engine it blocked on. All on the engine of
        // its last run: the reader takes engines at one instant in engine order. Then those that
        // were running run.
        // (The reader takes the range's events at `from` on a lower engine before these: a woken
        // context run there would be run, then moved and stopped by them. It is left runnable.)
        auto runAtFromBelow = [&](uint32_t id, uint16_t engine) {
            return std::any_of(atFrom.begin(), atFrom.end(), [&](const Event* e) {
                return e->type == ev::RunThread && e->hasEngine() && e->engine < engine
                    && trace.payload(*e).u32(0) == id;
            });
        };
        for (const auto& [id, c] : contexts) {
            const Event* stop = c->blockedBy ? c->blockedBy : c->wokenFrom;
            if (!stop || !c->lastRun || c->run)
                continue;
            const uint16_t engine = c->lastRun->engine;
            if (!c->blockedBy && runAtFromBelow(id, engine))
                continue;
            out.add(*c->lastRun, fromNs);
            out.add(*stop, fromNs, nullptr, engine);
            n += 2;
            if (c->wokenBy && !c->blockedBy) {
                out.add(*c->wokenBy, fromNs, nullptr, engine);
                ++n;
            }
        }
        for (const auto& [id, c] : contexts)
            if (c->run) {
                out.add(*c->run, fromNs);
                ++n;
            }
        for (const auto* perEngine : { &state.sparkCounters, &state.heapAllocated })
            for (const Event* e : inEngineOrder(*perEngine)) {
                out.add(*e, fromNs);
                ++n;
            }
        // Engines asleep or searching at `from` start so again there (before a collection that
        // interrupted it, which then gives it back at its end).
        for (const Event* e : state.stateAtFrom()) {
            out.add(*e, fromNs);
            ++n;
        }
        out.markEveryEngine(fromNs);
        result.stats.stateEvents = n;
    };

    auto startRange = [&] {
        writeState();
        for (const Event* e : atFrom) {
            out.add(*e, e->timeNs);
            ++result.stats.rangeEvents;
        }
        atFrom.clear();
    };
    SpanOfEvents span;
    trace.forEachInTimeOrder([&](const Event& e) {
        if (e.type == ev::BlockMarker)
            return;
        span.add(e.timeNs);
        if (e.timeNs < fromNs) {
            state.add(trace, e);
            return;
        }
        if (e.timeNs > toNs)
            return;
        if (!stateWritten) {
            if (e.timeNs == fromNs) {
                atFrom.push_back(&e);
                return;
            }
            startRange();
        }
        out.add(e, e.timeNs);
        ++result.stats.rangeEvents;
    });
    if (!stateWritten)
        startRange();
    // The original's range ends at `toNs` or at the original's own end, whichever is first.
    result.bytes = out.finish(std::max(fromNs, std::min(toNs, trace.lastTimeNs)));
    span.into(result.stats);
    return result;
}

Result<CutOutput> cutFile(const std::string& path, uint64_t fromNs, uint64_t toNs)
{
    if (fromNs > toNs)
        return backwardsRange(fromNs, toNs);
    // The kept events, each engine's in the order the stream hands them out (readTrace's).
    detail::KeptEvents kept;
    SpanOfEvents span; // of every event, kept or not
    // Per engine, whether its last kept event before the range put it to sleep: any event wakes it
    // (engine_states.h), so the next one is kept too, whatever its kind.
    std::vector<bool> asleep;
    auto streamed = streamTrace(path, [&](const StreamBatch& batch) {
        for (const Event& e : batch.events) {
            if (e.type != ev::BlockMarker)
                span.add(e.timeNs);
            if (e.timeNs > toNs)
                continue;
            if (e.timeNs >= fromNs) {
                kept.keep(batch.engine, e, batch.stream);
                continue;
            }
            if (e.type == ev::BlockMarker)
                continue;
            const size_t slot = batch.engine == kNoEngine ? 0 : size_t(batch.engine) + 1;
            if (slot >= asleep.size())
                asleep.resize(slot + 1, false);
            if (makesState(e.type) || asleep[slot]) {
                kept.keep(batch.engine, e, batch.stream);
                asleep[slot] = e.type == ev::MerEngineSleeping;
            }
        }
    });
    // A compressed file cannot be mapped: its decompressed copy is cut instead (decompressed_file.h),
    // or, where no copy can be written, it is read whole. A file with an inversion longer than the
    // stream's hold-back would not give cutTrace's order: it is read whole.
    if (!streamed && streamed.error().code == ErrorCode::Unsupported) {
        if (auto copy = DecompressedFile::create(path))
            return cutFile(copy.value()->path(), fromNs, toNs);
    }
    if (!streamed || streamed->lateEvents > 0) {
        if (!streamed && streamed.error().code != ErrorCode::Unsupported)
            return streamed.error();
        auto whole = readTrace(path);
        if (!whole)
            return whole.error();
        return cutTrace(whole.value(), fromNs, toNs);
    }
    auto cut = cutTrace(std::move(kept).into(std::move(streamed.value().summary)), fromNs, toNs);
    if (cut)
        span.into(cut->stats); // the kept events' span is not the file's
    return cut;
}

} // namespace sparkscope::core
