// Parallel conjunctions (par_conj.h): the context that starts one (runParConj) and whoever runs its
// conjuncts (runConjuncts, also called by a context that took one of its sparks). engine.cpp
// explains the algorithm: "Parallel conjunction (G1 & ... & Gn)" and "Parking without lost
// wake-ups".
//
// This is the hot path: a conjunction whose spark is not stolen starts, runs and ends here without a
// context switch. What it touches is on the caller's stack (the sync term and its spark) or owned by
// its engine (the deque, the trace buffer), so it takes no lock and allocates nothing in the common
// case: the deque grows only when full, and a full trace buffer is written under the file's mutex.
#include "runtime_impl.h"

#include <exception>

namespace sparkscope::runtime::detail {

namespace {

    // True when less than a quarter of context `c`'s stack is left below the caller's frame: then
    // the context does not take its conjunction's next conjunct back (engine.cpp, "Bounded
    // contexts"), so a deep right recursion goes on on a fresh stack instead of past the guard page.
    [[gnu::always_inline]] inline bool stackNearlyFull(const Context* c) noexcept
    {
        const auto* here = static_cast<const char*>(__builtin_frame_address(0));
        return size_t(here - static_cast<const char*>(c->stack.bottom)) < c->stack.size / 4;
    }

} // namespace

// Runs conjuncts k, k+1, ... of `st` on the current context for as long as it can take the
// conjunction's own next spark back. Returns true when it finished the last conjunct.
bool runConjuncts(SyncTerm& st, uint32_t k)
{
    Engine* e = thisEngine();
    const uint32_t n = static_cast<uint32_t>(st.goals.count);
    for (;;) {
        const bool sparked = k + 1 < n;
        if (sparked) {
            st.spark.index = k + 1;
            st.spark.id = e->nextSparkId();
            if (auto* t = e->trace.get()) {
                t->event12(core::ev::MerSparkCreate, reinterpret_cast<uintptr_t>(&st), st.spark.id);
                st.spark.createdNs = t->lastNs(); // published to thieves by the push below
            }
            e->stats.bump(e->stats.sparksCreated);
            e->deque.push(&st.spark);
            e->rt.wakeForSpark();
        }
        try {
            st.goals.call(st.goals.object, k);
        } catch (...) {
            if (!st.hasError.exchange(true, std::memory_order_relaxed))
                st.error = std::current_exception();
        }
        e = thisEngine(); // the goal may have suspended and resumed elsewhere
        if (auto* t = e->trace.get())
            t->event8(core::ev::MerEndParConjunct, reinterpret_cast<uintptr_t>(&st));
        const SparkRecord* own = sparked ? &st.spark : nullptr; // compared, never read, below
        if (st.remaining.fetch_sub(1, std::memory_order_acq_rel) == 1)
            return true;
        if (!own)
            return false;
        // Not last: try to run the conjunction's own remaining spark here. Only this engine
        // pushes onto its deque, and no other context has run on it since our decrement, so
        // the spark at the bottom is ours unless it was stolen.
        SparkRecord* s = e->deque.pop();
        if (s == own) {
            if (stackNearlyFull(e->current)) {
                // Leave it to a context with a fresh stack: the caller parks at the barrier and
                // this engine, now idle, runs the spark from its own deque.
                e->deque.push(s);
                e->stats.bump(e->stats.stackHandoffs);
                return false;
            }
            if (auto* t = e->trace.get())
                t->event4(core::ev::MerSparkRun, s->id);
            e->stats.bump(e->stats.sparksRunLocal);
            k = s->index;
            continue;
        }
        if (s)
            e->deque.push(s); // an older spark of an enclosing conjunction: leave it
        return false;
    }
}

void runParConj(const ConjGoals& goals, const std::source_location& where)
{
    Engine* e = thisEngine();
    Context* c = e ? e->current : nullptr;
    if (!c || goals.count < 2) {
        // Off the engines (or a trivial conjunction): run in order, then rethrow the first error.
        std::exception_ptr first;
        for (size_t i = 0; i < goals.count; ++i) {
            try {
                goals.call(goals.object, i);
            } catch (...) {
                if (!first)
                    first = std::current_exception();
            }
        }
        if (first)
            std::rethrow_exception(first);
        return;
    }
    if (goals.count > 0xFFFFFFFFull)
        fatal("parallel conjunction with more than 2^32 conjuncts");
    SyncTerm st { goals, { static_cast<uint32_t>(goals.count) }, c, {}, {}, {} };
    st.spark.term = &st;
    if (auto* t = e->trace.get())
        t->event12(core::ev::MerStartParConj, reinterpret_cast<uintptr_t>(&st), e->internCallSite(where));
    if (!runConjuncts(st, 0)) {
        // Others still run: wait at the barrier; the last conjunct wakes this context.
        e = thisEngine();
        if (auto* t = e->trace.get())
            t->stopThread(c->id, core::kStopBlocked);
        parkCurrent(c);
    }
    e = thisEngine();
    if (auto* t = e->trace.get())
        t->event8(core::ev::MerEndParConj, reinterpret_cast<uintptr_t>(&st));
    if (st.error)
        std::rethrow_exception(st.error);
}

} // namespace sparkscope::runtime::detail
