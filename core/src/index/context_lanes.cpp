// Per-context lanes (see context_lanes.h).
//
// Why a pass of its own rather than buildParModel: the model also reconstructs every conjunction,
// spark and future, which on a 55-million-event demo trace takes seconds and gigabytes, while the
// lanes need only the context events (a few percent of a trace). So each engine's context events
// are picked out in parallel, merged in global time order (Trace::forEachInTimeOrder's tie rule:
// time, then the global buffer, then engine number, then file order), and replayed through the
// model's context rules (par_model.h) — the same transitions, checked against the model-based
// overload on real and hand-built traces. (Not the model's wait at an instant shared by engines,
// where an event would contradict it: a RUN_THREAD there of a context another engine stops at that
// instant shows its stop after its run here, for that instant only.)
//
// The model's context segments change whenever state, engine or innermost conjunct changes; a lane
// only shows state and engine, so neighbouring segments that agree on both are merged. Timelines of
// one reused id are concatenated (they do not overlap: a context is created again only after it
// finished). Each lane gets its own LodIndex with at most as many level-0 buckets as the lane has
// spans (rounded up to a power of two), because LodIndex sizes its buckets by its busiest "engine".
#include "sparkscope/core/context_lanes.h"

#include "sparkscope/core/event_types.h"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <bit>
#include <queue>
#include <string_view>
#include <unordered_map>
#include <utility>

namespace sparkscope::core {

size_t ContextLanes::memoryBytes() const noexcept
{
    size_t bytes = ids.capacity() * sizeof(uint32_t) + lanes.capacity() * sizeof(LodIndex);
    for (const LodIndex& lane : lanes)
        bytes += lane.memoryBytes();
    for (const std::string& label : labels)
        bytes += sizeof(std::string) + (label.size() > 15 ? label.capacity() : 0);
    return bytes;
}

ContextLanes computeContextLanes(const ParModel& model, uint64_t originNs, uint64_t endNs)
{
    ContextLanes out;
    out.originNs = originNs;
    out.endNs = std::max(endNs, originNs + 1);

    // Timelines grouped by id, each group in order of appearance (= time order).
    std::vector<ContextIndex> order;
    order.reserve(model.contexts.size());
    for (uint32_t c = 0; c < model.contexts.size(); ++c)
        order.push_back(ContextIndex(c));
    std::stable_sort(order.begin(), order.end(),
        [&](ContextIndex a, ContextIndex b) { return model.context(a).id < model.context(b).id; });
    std::vector<size_t> groupStart;
    for (size_t i = 0; i < order.size(); ++i)
        if (i == 0 || model.context(order[i]).id != model.context(order[i - 1]).id) {
            groupStart.push_back(i);
            out.ids.push_back(model.context(order[i]).id);
            out.labels.emplace_back(); // the model keeps no thread labels
        }
    groupStart.push_back(order.size());

    out.lanes.resize(out.ids.size());
    tbb::parallel_for(size_t(0), out.ids.size(), [&](size_t g) {
        std::vector<LodSpan> spans;
        for (size_t k = groupStart[g]; k < groupStart[g + 1]; ++k) {
            const auto& segs = model.context(order[k]).segments;
            for (size_t s = 0; s < segs.size(); ++s) {
                const ContextSegment& seg = segs[s];
                const uint64_t start = std::max(seg.startNs, out.originNs);
                const uint64_t end = std::min(s + 1 < segs.size() ? segs[s + 1].startNs : model.endNs, out.endNs);
                if (seg.state == ContextState::Finished || end <= start)
                    continue;
                const uint32_t label = seg.state == ContextState::Running ? seg.engine : kNoIndex;
                const uint8_t state = uint8_t(seg.state);
                if (!spans.empty() && spans.back().endNs == start && spans.back().state == state
                    && spans.back().label == label) {
                    spans.back().endNs = end;
                    continue;
                }
                spans.push_back({ start, end, label, state });
            }
        }
        const size_t buckets = std::bit_ceil(std::max<size_t>(spans.size(), 1));
        std::vector<std::vector<LodSpan>> one;
        one.push_back(std::move(spans));
        out.lanes[g] = LodIndex::build(std::move(one), kContextLaneStateCount, out.originNs, out.endNs, buckets);
    });
    return out;
}

namespace {

    bool isContextEvent(uint16_t type)
    {
        return isContextStateEvent(type) || type == ev::MerFutWaitSuspended || type == ev::ThreadLabel
            || type == ev::GcStart || type == ev::GcWork || type == ev::GcIdle || type == ev::GcDone
            || type == ev::GcEnd;
    }

    // The model's context rules (par_model_contexts.cpp), keeping only state and engine.
    class LaneBuilder {
    public:
        struct Change {
            uint64_t startNs;
            ContextState state;
            uint16_t engine;
        };
        struct Lane {
            uint32_t id;
            ContextState state = ContextState::Runnable;
            uint16_t engine = kNoEngine;
            uint16_t bound = kNoEngine; // the engine of its last RUN_THREAD (the model's cursor engine)
            std::vector<Change> changes;
            std::string label;
        };

        explicit LaneBuilder(const Trace& trace)
            : m_trace(trace)
            , m_running(trace.engines.size(), kNoIndex)
            , m_inGc(trace.engines.size(), false)
            , m_interrupted(trace.engines.size(), kNoIndex)
        {
        }

        void onEvent(const Event& e)
        {
            const Payload p = m_trace.payload(e);
            const uint64_t t = e.timeNs;
            switch (e.type) {
            case ev::CreateThread:
            case ev::MerReuseContext:
                context(p.u32(0), t, true);
                break;
            case ev::MerReleaseContext: {
                const uint32_t c = context(p.u32(0), t);
                set(c, t, ContextState::Finished);
                break;
            }
            case ev::RunThread: {
                if (e.engine >= m_running.size())
                    break;
                const uint32_t c = context(p.u32(0), t);
                Lane& lane = m_lanes[c];
                if (lane.bound < m_running.size() && m_running[lane.bound] == c)
                    m_running[lane.bound] = kNoIndex;
                lane.bound = e.engine;
                uint32_t& running = m_running[e.engine];
                // A lost STOP_THREAD: the context still running here stops (one blocked or finished
                // by a stop posted on another engine stays so, as in the model).
                if (running != kNoIndex && running != c && m_lanes[running].state == ContextState::Running)
                    set(running, t, ContextState::Runnable);
                running = c;
                // (While the engine collects garbage the context waits for the collection's end.)
                set(c, t, m_inGc[e.engine] ? ContextState::Runnable : ContextState::Running, e.engine);
                if (m_inGc[e.engine])
                    m_interrupted[e.engine] = c;
                break;
            }
            case ev::GcStart:
            case ev::GcWork:
            case ev::GcIdle:
            case ev::GcDone:
                if (e.engine < m_running.size() && !m_inGc[e.engine]) {
                    m_inGc[e.engine] = true;
                    const uint32_t c = m_running[e.engine];
                    if (c != kNoIndex && m_lanes[c].state == ContextState::Running) {
                        set(c, t, ContextState::Runnable, e.engine); // interrupted: still bound here
                        m_interrupted[e.engine] = c;
                    }
                }
                break;
            case ev::GcEnd:
                if (e.engine < m_running.size() && m_inGc[e.engine]) {
                    m_inGc[e.engine] = false;
                    const uint32_t c = std::exchange(m_interrupted[e.engine], kNoIndex);
                    if (c != kNoIndex && m_running[e.engine] == c && m_lanes[c].state == ContextState::Runnable)
                        set(c, t, ContextState::Running, e.engine);
                }
                break;
            case ev::StopThread: {
                if (e.engine >= m_running.size())
                    break;
                const uint32_t c = context(p.u32(0), t);
                if (m_running[e.engine] == c)
                    m_running[e.engine] = kNoIndex;
                const uint16_t status = p.u16(4);
                if (status == kStopFinished)
                    set(c, t, ContextState::Finished);
                else if (isBlockingStopStatus(status))
                    set(c, t, ContextState::Blocked);
                else if (m_lanes[c].state != ContextState::Blocked)
                    set(c, t, ContextState::Runnable);
                break;
            }
            case ev::ThreadRunnable:
            case ev::ThreadWakeup: {
                const uint32_t c = context(p.u32(0), t);
                if (m_lanes[c].state == ContextState::Blocked)
                    set(c, t, ContextState::Runnable);
                break;
            }
            case ev::ThreadLabel: {
                // Names the thread; a label for a thread not seen yet waits for its creation.
                std::string_view text = p.text(4);
                while (!text.empty() && text.back() == '\0')
                    text.remove_suffix(1);
                m_labels[p.u32(0)] = std::string(text);
                break;
            }
            case ev::MerFutWaitSuspended: {
                const uint32_t c = e.engine < m_running.size() ? m_running[e.engine] : kNoIndex;
                if (c != kNoIndex)
                    set(c, t, ContextState::Blocked);
                break;
            }
            default:
                break;
            }
        }

        std::vector<Lane>& lanes()
        {
            for (Lane& lane : m_lanes)
                if (auto it = m_labels.find(lane.id); it != m_labels.end())
                    lane.label = std::move(it->second);
            return m_lanes;
        }

    private:
        // The lane of `id`; a new life (Runnable from t) when it is unknown, or created afresh after
        // it finished.
        uint32_t context(uint32_t id, uint64_t t, bool createFresh = false)
        {
            auto [it, inserted] = m_byId.try_emplace(id, uint32_t(m_lanes.size()));
            if (inserted) {
                m_lanes.push_back({ id, ContextState::Runnable, kNoEngine, kNoEngine,
                    { { t, ContextState::Runnable, kNoEngine } }, {} });
                return it->second;
            }
            Lane& lane = m_lanes[it->second];
            if (createFresh && lane.state == ContextState::Finished)
                set(it->second, t, ContextState::Runnable);
            return it->second;
        }

        // The model's touch(): records (state, engine) at t if it changed; a zero-length piece is replaced.
        void set(uint32_t c, uint64_t t, ContextState state, uint16_t engine = kNoEngine)
        {
            Lane& lane = m_lanes[c];
            lane.state = state;
            lane.engine = engine;
            const uint16_t shown = state == ContextState::Running ? engine : kNoEngine;
            auto& changes = lane.changes;
            if (!changes.empty() && changes.back().state == state && changes.back().engine == shown)
                return;
            if (!changes.empty() && changes.back().startNs == t)
                changes.pop_back();
            if (!changes.empty() && changes.back().state == state && changes.back().engine == shown)
                return;
            changes.push_back({ t, state, shown });
        }

        const Trace& m_trace;
        std::vector<uint32_t> m_running; // per engine: the lane running there (or interrupted by a collection)
        std::vector<bool> m_inGc; // per engine: between GC_START (or GC_WORK/IDLE/DONE) and GC_END
        std::vector<uint32_t> m_interrupted; // per engine: the lane its collection holds back
        std::vector<Lane> m_lanes;
        std::unordered_map<uint32_t, uint32_t> m_byId;
        std::unordered_map<uint32_t, std::string> m_labels;
    };

} // namespace

ContextLanes computeContextLanes(const Trace& trace)
{
    // Context events of each source, picked out in parallel (source 0 = the global buffer).
    const size_t sources = trace.engines.size() + 1;
    std::vector<std::vector<const Event*>> lists(sources);
    tbb::parallel_for(size_t(0), sources, [&](size_t i) {
        for (const Event& e : i == 0 ? trace.global : trace.engines[i - 1])
            if (isContextEvent(e.type))
                lists[i].push_back(&e);
    });
    LaneBuilder builder(trace);
    using Cursor = std::pair<size_t, size_t>; // (list, position)
    auto later = [&](const Cursor& a, const Cursor& b) {
        const uint64_t ta = lists[a.first][a.second]->timeNs, tb = lists[b.first][b.second]->timeNs;
        return ta != tb ? ta > tb : a.first > b.first;
    };
    std::priority_queue<Cursor, std::vector<Cursor>, decltype(later)> heap(later);
    for (size_t i = 0; i < sources; ++i)
        if (!lists[i].empty())
            heap.push({ i, 0 });
    while (!heap.empty()) {
        Cursor c = heap.top();
        heap.pop();
        builder.onEvent(*lists[c.first][c.second]);
        if (++c.second < lists[c.first].size())
            heap.push(c);
    }
    lists.clear();

    ContextLanes out;
    out.originNs = trace.firstTimeNs;
    out.endNs = std::max(trace.lastTimeNs, trace.firstTimeNs + 1);
    auto& lanes = builder.lanes();
    std::sort(lanes.begin(), lanes.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
    out.ids.reserve(lanes.size());
    out.labels.reserve(lanes.size());
    for (auto& lane : lanes) {
        out.ids.push_back(lane.id);
        out.labels.push_back(std::move(lane.label));
    }
    out.lanes.resize(lanes.size());
    const uint64_t lastNs = trace.lastTimeNs;
    tbb::parallel_for(size_t(0), lanes.size(), [&](size_t k) {
        std::vector<LodSpan> spans;
        const auto& changes = lanes[k].changes;
        for (size_t i = 0; i < changes.size(); ++i) {
            const uint64_t start = std::max(changes[i].startNs, out.originNs);
            const uint64_t end = std::min(i + 1 < changes.size() ? changes[i + 1].startNs : lastNs, out.endNs);
            if (changes[i].state == ContextState::Finished || end <= start)
                continue;
            const uint32_t label = changes[i].state == ContextState::Running ? changes[i].engine : kNoIndex;
            const uint8_t state = uint8_t(changes[i].state);
            if (!spans.empty() && spans.back().endNs == start && spans.back().state == state
                && spans.back().label == label) {
                spans.back().endNs = end;
                continue;
            }
            spans.push_back({ start, end, label, state });
        }
        std::vector<LaneBuilder::Change>().swap(lanes[k].changes);
        const size_t buckets = std::bit_ceil(std::max<size_t>(spans.size(), 1));
        std::vector<std::vector<LodSpan>> one;
        one.push_back(std::move(spans));
        out.lanes[k] = LodIndex::build(std::move(one), kContextLaneStateCount, out.originNs, out.endNs, buckets);
    });
    return out;
}

} // namespace sparkscope::core
