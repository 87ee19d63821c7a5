#pragma once
// ParModelBuilder: the walk of buildParModel (rules in par_model.h), private to core/src/model.
// Its parts live in files named after what they hold: par_model_builder.cpp (sizing the arrays,
// the walk, the end of the trace), par_model_contexts.cpp, par_model_conjunctions.cpp,
// par_model_sparks.cpp and par_model_futures.cpp (one handler per event type of that family).
//
// Kept in this header, inline: the dispatch on event type and the steps every family takes (find
// the context running on an engine, record a context's segment). They run at least once per event,
// so they are inlined into each handler and into the walk; a handler itself is one direct call
// from the dispatch switch (no virtual call, no allocation per event).
#include "sparkscope/core/id_maps.h"
#include "sparkscope/core/par_model.h"
#include "util/large_array.h"

#include <string>
#include <unordered_map>
#include <vector>

namespace sparkscope::core::detail {

// The id maps hold raw uint32 values (id_maps.h): indexes are stored as value() and read back
// through the typed constructor, absent becoming none.
static_assert(IdMap::kAbsent == kNoIndex && AddressMap::kAbsent == kNoIndex);
inline constexpr uint32_t kSparkRan = kNoIndex - 1; // IdMap value of a spark id whose spark has run

// A friend of ParModel: it counts each conjunct's top pieces and children and builds the contexts'
// state lists as it goes, so the indexes need no second pass over the segments.
class ParModelBuilder {
public:
    ParModelBuilder(const Trace& trace, ParModel& m);

    // One walk over the events in time order (Trace::forEachInTimeOrder: time, then global before
    // engines, then engine number, then file order; at one instant an event that would contradict
    // the model waits for the other engines' events of that instant, par_model.h); events the model does not use are
    // skipped by type, or not merged at all when they are most of the trace (reserve). The instance vectors are sized
    // first from a count of their events, so they never reallocate while the walk fills them.
    void run(bool withTopPieces = true);

    // The event types the model uses.
    static bool relevant(uint16_t type);

private:
    // A conjunct a context executes, with its conjunction: matching an END_PAR_CONJUNCT and
    // finding a parent's depth then need no look-up in the large conjunct array (a cache miss
    // for conjuncts bound long ago).
    struct OpenConjunct {
        ConjunctIndex conjunct;
        ConjunctionIndex conjunction;
    };
    struct EngineCursor {
        ContextIndex running; // bound here: Running, or Runnable while the engine collects garbage
        OpenConjunct pending; // spark started, waiting for a context
        bool inGc = false; // between GC_START (or GC_WORK/IDLE/DONE) and GC_END, as the engine states
        ContextIndex interrupted; // the context this collection holds back: made Runnable, or run during it
    };
    struct ContextCursor {
        ContextState state = ContextState::Runnable;
        uint16_t engine = kNoEngine;
        std::vector<OpenConjunct> stack; // innermost last
        std::vector<FutureIndex> pendingFutures;
        bool suspendedWait = false;
        uint64_t suspendedAtNs = 0;
        uint16_t suspendedEngine = kNoEngine;
        uint16_t lastEngine = kNoEngine; // where it last ran
        bool wokenBlocked = false; // made runnable after blocking, not yet running again
    };

    // par_model_builder.cpp: before, around and after the walk.
    void reserve();
    // The walk's events one instant at a time: a lone event goes straight to onEvent; several at one
    // instant go in the merge's order, but for one that would contradict the model while another
    // engine's event at that instant may settle it (par_model.h), each engine's in file order.
    void walk(const Event& e)
    {
        if (m_held) {
            if (m_held->timeNs == e.timeNs) { // (m_held stays the instant's first)
                if (m_instant.empty())
                    m_instant.push_back(m_held);
                m_instant.push_back(&e);
                return;
            }
            flushInstant();
        }
        m_held = &e;
    }
    void flushInstant(); // the held event, or the instant's events; then none is held
    bool waitsForInstant(const Event& e) const;
    void finish();
    void problem(const Event& e, std::string message);
    static std::string hex(uint64_t v);

    // The dispatch, a table-like switch: one handler per event type the model uses. Events of
    // other types fall through it (no separate relevant() test in the walk).
    // As Trace::payload, with the byte span looked up once rather than per event.
    Payload payloadOf(const Event& e) const
    {
        return e.endOffset() <= m_bytes.size() ? Payload(m_bytes.subspan(e.payloadOffset(), e.payloadSize)) : Payload();
    }

    void onEvent(const Event& e)
    {
        const Payload p = payloadOf(e);
        if (e.engine != kNoEngine && e.engine >= m_engines.size())
            m_engines.resize(e.engine + 1u);
        switch (e.type) {
        case ev::InternString:
            onInternString(p);
            break;
        case ev::CreateThread:
        case ev::CreateSparkThread:
            onCreateThread(e, p);
            break;
        case ev::MerReuseContext:
            onReuseContext(e, p);
            break;
        case ev::MerReleaseContext:
            onReleaseContext(e, p);
            break;
        case ev::RunThread:
            onRunThread(e, p);
            break;
        case ev::StopThread:
            onStopThread(e, p);
            break;
        case ev::ThreadRunnable:
        case ev::ThreadWakeup:
            onThreadRunnable(e, p);
            break;
        case ev::MerStartParConj:
            onStartParConj(e, p);
            break;
        case ev::MerEndParConjunct:
            onEndParConjunct(e, p);
            break;
        case ev::MerEndParConj:
            onEndParConj(e, p);
            break;
        case ev::MerSparkCreate:
            onSparkCreate(e, p);
            break;
        case ev::MerSparkRun:
        case ev::MerSparkSteal:
            onSparkRun(e, p);
            break;
        case ev::MerFutCreate:
            onFutCreate(e, p);
            break;
        case ev::MerFutWaitNoSuspend:
        case ev::MerFutWaitSuspended:
            onFutWait(e, p);
            break;
        case ev::MerFutSignal:
            onFutSignal(e, p);
            break;
        case ev::GcStart:
        case ev::GcWork:
        case ev::GcIdle:
        case ev::GcDone:
            onGcStart(e);
            break;
        case ev::GcEnd:
            onGcEnd(e);
            break;
        default:
            break;
        }
    }

    // par_model_builder.cpp
    void onInternString(Payload p);

    // par_model_contexts.cpp
    void onCreateThread(const Event& e, Payload p);
    void onReuseContext(const Event& e, Payload p);
    void onReleaseContext(const Event& e, Payload p);
    void onRunThread(const Event& e, Payload p);
    void onStopThread(const Event& e, Payload p);
    void onThreadRunnable(const Event& e, Payload p);
    void onGcStart(const Event& e);
    void onGcEnd(const Event& e);
    ContextIndex newContext(uint32_t id, uint64_t t);
    static void growSegments(std::vector<ContextSegment>& segs);

    // par_model_conjunctions.cpp
    void onStartParConj(const Event& e, Payload p);
    void onEndParConjunct(const Event& e, Payload p);
    void onEndParConj(const Event& e, Payload p);
    void markComplete(const ConjunctionInstance& ci, const std::vector<FutureIndex>& futures, uint64_t t);
    ConjunctionIndex openConjunction(const Event& e, uint64_t dyn, const char* what);

    // par_model_sparks.cpp
    void onSparkCreate(const Event& e, Payload p);
    void onSparkRun(const Event& e, Payload p);

    // par_model_futures.cpp
    void onFutCreate(const Event& e, Payload p);
    void onFutWait(const Event& e, Payload p);
    void onFutSignal(const Event& e, Payload p);

    // The context with this id (its latest timeline), created if unknown; with createFresh, a new
    // timeline also when the known one has finished (a reused id names a new context).
    ContextIndex context(uint32_t id, uint64_t t, bool createFresh = false)
    {
        const ContextIndex known(m_contextById.get(id));
        if (known.valid() && !(createFresh && cursor(known).state == ContextState::Finished))
            return known;
        return newContext(id, t);
    }

    ContextCursor& cursor(ContextIndex c) { return m_ctx[c.value()]; }
    const ContextCursor& cursor(ContextIndex c) const { return m_ctx[c.value()]; }

    // Records the context's (state, engine, top) at t if it changed.
    void touch(ContextIndex c, uint64_t t)
    {
        ContextCursor& cc = cursor(c);
        const ConjunctIndex top = cc.stack.empty() ? ConjunctIndex() : cc.stack.back().conjunct;
        const uint16_t engine = cc.state == ContextState::Running ? cc.engine : kNoEngine;
        ContextTimeline& timeline = m.context(c);
        auto& segs = timeline.segments;
        const ContextSegment& last = segs.back();
        if (last.state == cc.state && last.engine == engine && last.top == top)
            return;
        if (last.startNs == t) {
            // A zero-length piece: replaced. Segment start times strictly increase, so the state
            // change starting at t, if any, was this segment's.
            if (last.top.valid())
                --m_pieceCounts[last.top.value()];
            if (!timeline.states.empty() && timeline.states.back().startNs == t)
                timeline.states.pop_back();
            segs.pop_back();
        }
        if (!segs.empty() && segs.back().state == cc.state && segs.back().engine == engine && segs.back().top == top)
            return;
        if (segs.size() == segs.capacity())
            growSegments(segs);
        segs.push_back({ t, cc.state, engine, top });
        if (top.valid())
            ++m_pieceCounts[top.value()];
        if (timeline.states.empty() || timeline.states.back().state != cc.state)
            timeline.states.push_back({ t, cc.state });
    }

    ContextIndex runningOn(const Event& e) const
    {
        return e.engine < m_engines.size() ? m_engines[e.engine].running : ContextIndex();
    }

    ConjunctIndex topOf(ContextIndex c) const
    {
        return (!c.valid() || cursor(c).stack.empty()) ? ConjunctIndex() : cursor(c).stack.back().conjunct;
    }

    void bindConjunct(OpenConjunct k, ContextIndex c, uint64_t t)
    {
        m.conjunct(k.conjunct).context = c;
        cursor(c).stack.push_back(k);
        touch(c, t);
    }

    const Trace& m_trace;
    Trace m_filtered; // only the events the model uses, when they are few (see reserve)
    const Trace* m_walked = &m_trace; // the events the walk goes over: m_trace or m_filtered
    const Event* m_held = nullptr; // the walk's last event, not yet handed to onEvent
    std::vector<const Event*> m_instant; // the current instant's events when there are several, in merge order
    std::vector<std::pair<size_t, size_t>> m_runs; // flushInstant's: each source's [next, end) in m_instant
    const std::span<const uint8_t> m_bytes; // the trace's decoded stream
    ParModel& m;
    std::vector<EngineCursor> m_engines;
    std::vector<ContextCursor> m_ctx;
    IdMap m_contextById; // context id -> its latest timeline (a ContextIndex)
    AddressMap m_openConj; // dyn id -> open conjunction instance (a ConjunctionIndex)
    AddressMap m_activeFuture; // future id -> future instance not yet retired (a FutureIndex)
    IdMap m_sparks; // spark id -> conjunct waiting to run (a ConjunctIndex), or kSparkRan
    // Open conjunction (its index's value) -> the futures created for it, until it ends: what ending
    // it retires. Few conjunctions have futures; the model indexes them all at the end (futuresOf).
    std::unordered_map<uint32_t, std::vector<FutureIndex>> m_futuresOfOpen;
    // Counters by conjunct and the parents by conjunction are raw integer arrays, calloc'd (which
    // only a trivial type may be) and handed to ParModel::indexFromCounts; an index's value() picks
    // the slot.
    ZeroedArray<uint32_t> m_pieceCounts; // per conjunct: its top pieces so far (its segments: < 2^32)
    ZeroedArray<uint32_t> m_childCounts; // per conjunct: conjunctions started directly inside it
    // Per conjunction: its parentConjunct's value again, packed, so the child index reads 4 bytes per
    // conjunction rather than a cache line of each.
    ZeroedArray<uint32_t> m_parentOf;
    size_t m_countsSize = 0, m_parentsSize = 0; // elements in the counters and in m_parentOf
    size_t m_bigContexts = 0, m_bigContextSegments = 0; // see reserve()
    size_t m_completeConjunctions = 0, m_completeConjuncts = 0, m_completeFutures = 0;
};

} // namespace sparkscope::core::detail
