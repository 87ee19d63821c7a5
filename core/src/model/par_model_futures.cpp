// ParModelBuilder (par_model_builder.h): the future events. A future belongs to the conjunction its
// context starts next; waits and the signal are recorded on it, and a suspended wait blocks the
// waiting context until it runs again. Future ids are addresses, retired when the conjunction ends.
#include "model/par_model_builder.h"

namespace sparkscope::core::detail {

// FUT_CREATE(future, name): pending in the running context until its next START_PAR_CONJ.
void ParModelBuilder::onFutCreate(const Event& e, Payload p)
{
    const ContextIndex c = runningOn(e);
    const FutureIndex f(static_cast<uint32_t>(m.futures.size()));
    FutureInstance fi;
    fi.futureId = p.u64(0);
    fi.nameId = p.u32(8);
    fi.createNs = e.timeNs;
    m.futures.push_back(std::move(fi));
    m_activeFuture.set(m.futures.back().futureId, f.value());
    if (c.valid())
        cursor(c).pendingFutures.push_back(f);
    else
        problem(e, "FUT_CREATE on an engine that runs no context");
}

// FUT_WAIT_NOSUSPEND / FUT_WAIT_SUSPENDED(future): a wait by the running context and its innermost
// conjunct; a suspended wait blocks the context (a problem at the end if it never runs again).
void ParModelBuilder::onFutWait(const Event& e, Payload p)
{
    const uint64_t t = e.timeNs;
    const uint64_t fid = p.u64(0);
    const FutureIndex f(m_activeFuture.find(fid));
    const bool suspended = e.type == ev::MerFutWaitSuspended;
    const ContextIndex c = runningOn(e);
    if (!f.valid())
        problem(e, "wait on unknown future " + hex(fid));
    else
        m.future(f).waits.push_back({ t, suspended, c, topOf(c), e.engine });
    if (suspended && c.valid()) {
        ContextCursor& cc = cursor(c);
        cc.state = ContextState::Blocked;
        cc.suspendedWait = true;
        cc.suspendedAtNs = t;
        cc.suspendedEngine = e.engine;
        touch(c, t);
    }
}

// FUT_SIGNAL(future): the first signal counts; every signal is counted, since a future signalled
// twice is not complete.
void ParModelBuilder::onFutSignal(const Event& e, Payload p)
{
    const uint64_t fid = p.u64(0);
    const FutureIndex fi(m_activeFuture.find(fid));
    if (!fi.valid()) {
        problem(e, "signal of unknown future " + hex(fid));
        return;
    }
    FutureInstance& f = m.future(fi);
    if (f.signalled) {
        problem(e, "future " + hex(fid) + " signalled again");
    } else {
        f.signalled = true;
        f.signalNs = e.timeNs;
        f.signalConjunct = topOf(runningOn(e));
    }
    ++f.signalCount;
}

} // namespace sparkscope::core::detail
