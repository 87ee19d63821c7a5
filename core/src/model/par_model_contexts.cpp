// ParModelBuilder (par_model_builder.h): the context events. They give each context its timeline
// of states (Runnable, Running on an engine, Blocked, Finished; rules in par_model.h) and tell
// which context runs on each engine, which is where a conjunct, spark or future event posted on
// that engine belongs.
#include "model/par_model_builder.h"

#include <algorithm>

namespace sparkscope::core::detail {

// CREATE_THREAD or CREATE_SPARK_THREAD: a context is created, or one whose id is reused starts a
// new timeline: a finished context's id may name a new context (GHC reuses thread ids; our runtime
// reuses its contexts). Mercury and our runtime post CREATE_SPARK_THREAD alone for a context made to
// run a spark; GHC posts it right after the spark thread's CREATE_THREAD, for the same live thread,
// which is then not a second creation.
void ParModelBuilder::onCreateThread(const Event& e, Payload p)
{
    const size_t before = m.contexts.size();
    context(p.u32(0), e.timeNs, true);
    if (m.contexts.size() != before)
        m.contextCreations.push_back(e.timeNs);
}

void ParModelBuilder::onReuseContext(const Event& e, Payload p)
{
    m.contextReuses.push_back(e.timeNs);
    context(p.u32(0), e.timeNs, true);
}

// RELEASE_CONTEXT ends the context's timeline: it is back in the pool, finished.
void ParModelBuilder::onReleaseContext(const Event& e, Payload p)
{
    m.contextReleases.push_back(e.timeNs);
    const ContextIndex c = context(p.u32(0), e.timeNs);
    cursor(c).state = ContextState::Finished;
    touch(c, e.timeNs);
}

// RUN_THREAD: the context runs on the event's engine from now. Lost events are repaired here rather
// than rejected (a context that still runs elsewhere, an engine whose previous context never
// stopped), and a context that blocked and now runs again is a resume from its last engine. A
// spark that started on this engine before any context ran it binds to this context.
void ParModelBuilder::onRunThread(const Event& e, Payload p)
{
    if (!e.hasEngine())
        return;
    const uint64_t t = e.timeNs;
    const ContextIndex c = context(p.u32(0), t);
    ContextCursor& cc = cursor(c);
    EngineCursor& ec = m_engines[e.engine];
    if (cc.state == ContextState::Running && cc.engine != e.engine)
        problem(e,
            "context " + std::to_string(p.u32(0)) + " runs on engine " + std::to_string(e.engine)
                + " while still running on engine " + std::to_string(cc.engine));
    if (cc.engine < m_engines.size() && m_engines[cc.engine].running == c) // (a collection may hold it)
        m_engines[cc.engine].running = ContextIndex();
    if (ec.running.valid() && ec.running != c) {
        // A lost STOP_THREAD: the previous context stops here (said, as the figures change with it).
        // One blocked or finished by a STOP_THREAD posted on another engine stays so.
        ContextCursor& before = cursor(ec.running);
        if (before.state == ContextState::Running) {
            if (before.engine == e.engine)
                problem(e,
                    "context " + std::to_string(p.u32(0)) + " runs on engine " + std::to_string(e.engine)
                        + " while context " + std::to_string(m.contexts[ec.running.value()].id)
                        + " still runs there (its STOP_THREAD is missing): it is taken to stop here");
            before.state = ContextState::Runnable;
            touch(ec.running, t);
        }
    }
    cc.suspendedWait = false;
    if ((cc.state == ContextState::Blocked || cc.wokenBlocked) && cc.lastEngine != kNoEngine)
        m.resumes.push_back({ t, cc.lastEngine, e.engine });
    cc.wokenBlocked = false;
    cc.state = ec.inGc ? ContextState::Runnable : ContextState::Running; // it runs once the collection ends
    if (ec.inGc)
        ec.interrupted = c;
    cc.engine = e.engine;
    cc.lastEngine = e.engine;
    ec.running = c;
    if (ec.pending.conjunct.valid()) {
        const OpenConjunct k = ec.pending;
        ec.pending = OpenConjunct {};
        bindConjunct(k, c, t);
    }
    touch(c, t);
}

// STOP_THREAD: the engine runs no context any more; the status says whether the context finished,
// blocked, or is merely runnable again (a context blocked on a future stays blocked).
void ParModelBuilder::onStopThread(const Event& e, Payload p)
{
    if (!e.hasEngine())
        return;
    const ContextIndex c = context(p.u32(0), e.timeNs);
    ContextCursor& cc = cursor(c);
    const uint16_t status = p.u16(4);
    if (m_engines[e.engine].running == c)
        m_engines[e.engine].running = ContextIndex();
    else if (cc.state != ContextState::Running || cc.engine != e.engine)
        problem(e,
            "STOP_THREAD of context " + std::to_string(p.u32(0)) + " on engine " + std::to_string(e.engine)
                + ", where it is not running");
    if (status == kStopFinished)
        cc.state = ContextState::Finished;
    else if (isBlockingStopStatus(status))
        cc.state = ContextState::Blocked;
    else if (cc.state != ContextState::Blocked)
        cc.state = ContextState::Runnable;
    touch(c, e.timeNs);
}

// A collection on the engine (GC_START, or GC_WORK/GC_IDLE/GC_DONE without it, as the engine states
// read them) interrupts the context running there: it is Runnable, on no engine, until GC_END, when
// it runs again unless something else moved it meanwhile. Our runtime and GHC stop the context
// before they collect (STOP_THREAD, runnable); a trace that does not post that reads the same, so
// no conjunct counts as running on an engine that is collecting (RUNNING_SELF, AVAIL_CPUS).
void ParModelBuilder::onGcStart(const Event& e)
{
    if (!e.hasEngine() || m_engines[e.engine].inGc)
        return;
    EngineCursor& ec = m_engines[e.engine];
    ec.inGc = true;
    if (!ec.running.valid())
        return;
    if (ContextCursor& cc = cursor(ec.running); cc.state == ContextState::Running && cc.engine == e.engine) {
        cc.state = ContextState::Runnable;
        ec.interrupted = ec.running;
        touch(ec.running, e.timeNs);
    }
}

void ParModelBuilder::onGcEnd(const Event& e)
{
    if (!e.hasEngine())
        return;
    if (!m_engines[e.engine].inGc) {
        problem(e, "GC_END on engine " + std::to_string(e.engine) + " without a collection going on there");
        return;
    }
    EngineCursor& ec = m_engines[e.engine];
    ec.inGc = false;
    // Only the context the collection held back runs again, if it is still bound here and runnable
    // (one blocked on a future and woken meanwhile has not been run by anything).
    const ContextIndex c = ec.interrupted;
    ec.interrupted = ContextIndex();
    if (!c.valid() || ec.running != c)
        return;
    if (ContextCursor& cc = cursor(c); cc.state == ContextState::Runnable && cc.engine == e.engine) {
        cc.state = ContextState::Running;
        touch(c, e.timeNs);
    }
}

// THREAD_RUNNABLE / THREAD_WAKEUP: a blocked context may run again; remembered so that its next
// RUN_THREAD counts as a resume.
void ParModelBuilder::onThreadRunnable(const Event& e, Payload p)
{
    const ContextIndex c = context(p.u32(0), e.timeNs);
    if (ContextCursor& cc = cursor(c); cc.state == ContextState::Blocked) {
        cc.state = ContextState::Runnable;
        cc.wokenBlocked = true;
        touch(c, e.timeNs);
    }
}

// A new timeline, Runnable from t. Room for a short life at once: traces with thousands of
// contexts (GHC threads, our runtime's contexts under deep recursion) otherwise spend their time
// regrowing these. The first contexts, which do nearly all the work in our runtime, get room for
// all their segments at once (see reserve).
ContextIndex ParModelBuilder::newContext(uint32_t id, uint64_t t)
{
    const ContextIndex index(static_cast<uint32_t>(m.contexts.size()));
    ContextTimeline timeline;
    timeline.id = id;
    if (m.contexts.size() < m_bigContexts && m_bigContextSegments * sizeof(ContextSegment) >= kHugePageBytes)
        reserveAdvised(timeline.segments, hugePageFriendlyCount<ContextSegment>(m_bigContextSegments));
    else
        timeline.segments.reserve(16);
    timeline.states.reserve(8);
    timeline.segments.push_back({ t, ContextState::Runnable, kNoEngine, ConjunctIndex() });
    timeline.states.push_back({ t, ContextState::Runnable });
    m.contexts.push_back(std::move(timeline));
    m_ctx.emplace_back().stack.reserve(8);
    m_contextById.set(id, index.value());
    return index;
}

// A context's segments grow by doubling like any vector until a block reaches a huge page; from
// then on by four, which halves the copying and page faults of growth (untouched capacity costs
// only address space), and each new block is advised for huge pages before the old segments are
// copied in (large_array.h).
void ParModelBuilder::growSegments(std::vector<ContextSegment>& segs)
{
    const size_t growth = segs.capacity() * sizeof(ContextSegment) >= kHugePageBytes ? 4 : 2;
    reserveAdvised(segs, hugePageFriendlyCount<ContextSegment>(std::max<size_t>(16, growth * segs.capacity())));
}

} // namespace sparkscope::core::detail
