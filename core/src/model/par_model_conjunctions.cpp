// ParModelBuilder (par_model_builder.h): the conjunction events. A START_PAR_CONJ opens a new
// instance under its dynamic id (ids are addresses that the runtime reuses, so the instance, not
// the id, is what the model keeps), END_PAR_CONJUNCT ends a conjunct in the context that runs it,
// and END_PAR_CONJ closes the instance, which is when its completeness becomes final.
#include "model/par_model_builder.h"

namespace sparkscope::core::detail {

namespace {
    // A conjunction or conjunct instance ends at this event.
    template <class Instance> void endAt(Instance& instance, const Event& e)
    {
        instance.ended = true;
        instance.endNs = e.timeNs;
        instance.endEngine = e.engine;
    }
} // namespace

// START_PAR_CONJ(dyn, static): a new conjunction instance whose first conjunct starts at once in
// the running context. Its parent is that context's innermost conjunct; the futures the context
// created since its previous conjunction belong to it.
void ParModelBuilder::onStartParConj(const Event& e, Payload p)
{
    const uint64_t t = e.timeNs;
    const uint64_t dyn = p.u64(0);
    const ContextIndex c = runningOn(e);
    if (!c.valid())
        problem(e, "START_PAR_CONJ on an engine that runs no context");
    const ConjunctionIndex j(static_cast<uint32_t>(m.conjunctions.size()));
    const ConjunctIndex k(static_cast<uint32_t>(m.conjuncts.size()));
    if (m_openConj.exchange(dyn, j.value()) != kNoIndex) // the older instance is forgotten
        problem(e, "START_PAR_CONJ for dyn id " + hex(dyn) + " while an instance with that id is still open");
    ConjunctionInstance& ci = m.conjunctions.emplace_back();
    ci.dynId = dyn;
    ci.staticId = p.u32(8);
    ci.startNs = t;
    ci.startEngine = e.engine;
    ci.startContext = c;
    if (c.valid() && !cursor(c).stack.empty()) {
        const OpenConjunct parent = cursor(c).stack.back();
        ci.parentConjunct = parent.conjunct;
        ci.depth = m.conjunction(parent.conjunction).depth + 1;
        ++m_childCounts[parent.conjunct.value()];
    }
    m_parentOf[j.value()] = ci.parentConjunct.value();
    if (c.valid() && !cursor(c).pendingFutures.empty()) {
        auto& pending = cursor(c).pendingFutures;
        for (FutureIndex f : pending)
            m.future(f).conjunction = j;
        m_futuresOfOpen[j.value()] = std::move(pending);
        pending.clear();
    }
    ci.conjuncts.push_back(k);
    ConjunctInstance& g1 = m.conjuncts.emplace_back();
    g1.conjunction = j;
    g1.position = 1;
    g1.started = true;
    g1.startNs = t;
    g1.startEngine = e.engine;
    if (c.valid())
        bindConjunct({ k, j }, c, t);
}

// END_PAR_CONJUNCT(dyn): ends the innermost open conjunct of that conjunction in the running
// context (the context's own stack says which, so no search of the conjunct array).
void ParModelBuilder::onEndParConjunct(const Event& e, Payload p)
{
    const uint64_t dyn = p.u64(0);
    const ConjunctionIndex j = openConjunction(e, dyn, "END_PAR_CONJUNCT");
    if (!j.valid())
        return;
    const ContextIndex c = runningOn(e);
    ConjunctIndex k;
    if (c.valid()) {
        auto& stack = cursor(c).stack;
        for (size_t i = stack.size(); i-- > 0;)
            if (stack[i].conjunction == j) {
                k = stack[i].conjunct;
                if (i + 1 != stack.size())
                    problem(e, "END_PAR_CONJUNCT ends a conjunct under a still open nested conjunct");
                stack.erase(stack.begin() + static_cast<std::ptrdiff_t>(i));
                break;
            }
    }
    if (!k.valid()) {
        problem(e, "END_PAR_CONJUNCT for dyn id " + hex(dyn) + " with no open conjunct in the running context");
        return;
    }
    endAt(m.conjunct(k), e);
    touch(c, e.timeNs);
}

// END_PAR_CONJ(dyn): closes the instance and retires its futures, so that the same addresses may
// name a later conjunction or future.
void ParModelBuilder::onEndParConj(const Event& e, Payload p)
{
    const uint64_t dyn = p.u64(0);
    const ConjunctionIndex j(m_openConj.take(dyn));
    if (!j.valid()) {
        problem(e, "END_PAR_CONJ for dyn id " + hex(dyn) + " without a START_PAR_CONJ");
        return;
    }
    ConjunctionInstance& ci = m.conjunction(j);
    endAt(ci, e);
    bool allEnded = true;
    for (ConjunctIndex k : ci.conjuncts)
        allEnded = allEnded && m.conjunct(k).ended;
    if (!allEnded)
        problem(e, "END_PAR_CONJ for dyn id " + hex(dyn) + " before all its conjuncts ended");
    ci.complete = allEnded;
    std::vector<FutureIndex> futures; // created for it (few conjunctions have any): no longer open
    if (const auto it = m_futuresOfOpen.find(j.value()); it != m_futuresOfOpen.end()) {
        futures = std::move(it->second);
        m_futuresOfOpen.erase(it);
    }
    if (allEnded)
        markComplete(ci, futures, e.timeNs);
    for (FutureIndex f : futures) {
        const uint64_t fid = m.future(f).futureId;
        if (FutureIndex(m_activeFuture.find(fid)) == f)
            m_activeFuture.erase(fid);
    }
}

// The open conjunction instance with this dyn id, or none and a problem for `what` (the event)
// when the id names none: the event's conjunction never started, or ended before it.
ConjunctionIndex ParModelBuilder::openConjunction(const Event& e, uint64_t dyn, const char* what)
{
    const ConjunctionIndex j(m_openConj.find(dyn));
    if (!j.valid())
        problem(e, std::string(what) + " for dyn id " + hex(dyn) + ", which names no open conjunction");
    return j;
}

// Completeness is final when a conjunction ends: later events cannot reach this instance, its
// conjuncts or its futures any more (their ids now name nothing, or a newer instance), so it is
// decided here rather than in a pass over every instance at the end.
void ParModelBuilder::markComplete(const ConjunctionInstance& ci, const std::vector<FutureIndex>& futures, uint64_t t)
{
    ++m_completeConjunctions;
    for (ConjunctIndex k : ci.conjuncts) {
        ConjunctInstance& g = m.conjunct(k);
        g.complete = g.started && g.endNs <= t; // every one ended (the caller checked)
        m_completeConjuncts += g.complete;
    }
    for (FutureIndex f : futures) {
        FutureInstance& fi = m.future(f);
        fi.complete = fi.signalled && fi.signalCount == 1;
        m_completeFutures += fi.complete;
    }
}

} // namespace sparkscope::core::detail
