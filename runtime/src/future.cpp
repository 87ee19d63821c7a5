// Futures (future.h): the type-independent part. The state word is 0 (not signalled), 1
// (signalled) or the head of an intrusive list of suspended waiting contexts (Context::nextWaiter),
// so signalling swaps the whole list out in one exchange and wakes each waiter the way the last
// conjunct of a barrier wakes its parent (engine.cpp, "Parking without lost wake-ups"); woken
// waiters go to the global runnable queue.
#include "runtime_impl.h"

#include "sparkscope/runtime/future.h"

namespace sparkscope::runtime::detail {

FutureCore::FutureCore(std::string_view name, const std::source_location& where) noexcept
{
    (void)where;
    if (Engine* e = thisEngine(); e && e->trace)
        e->trace->event12(core::ev::MerFutCreate, reinterpret_cast<uintptr_t>(this), e->internName(name));
}

FutureCore::~FutureCore()
{
    const uintptr_t s = m_state.load(std::memory_order_acquire);
    if (s != 0 && s != kSignalled)
        fatal("a future was destroyed while contexts still wait for it");
}

void FutureCore::waitSignalled() noexcept
{
    if (m_state.load(std::memory_order_acquire) == kSignalled) {
        if (Engine* e = thisEngine(); e && e->trace)
            e->trace->event8(core::ev::MerFutWaitNoSuspend, reinterpret_cast<uintptr_t>(this));
        return;
    }
    Engine* e = thisEngine();
    Context* c = e ? e->current : nullptr;
    if (!c) {
        // A plain thread: block on the state word.
        for (uintptr_t s = m_state.load(std::memory_order_acquire); s != kSignalled;
             s = m_state.load(std::memory_order_acquire))
            m_state.wait(s, std::memory_order_acquire);
        return;
    }
    auto* t = e->trace.get();
    if (t) {
        t->event8(core::ev::MerFutWaitSuspended, reinterpret_cast<uintptr_t>(this));
        t->stopThread(c->id, core::kStopBlocked);
    }
    uintptr_t head = m_state.load(std::memory_order_acquire);
    do {
        if (head == kSignalled) {
            // Signalled between the check and the registration: runnable again at once.
            if (t) {
                t->event4(core::ev::ThreadRunnable, c->id);
                t->event4(core::ev::RunThread, c->id);
            }
            return;
        }
        c->nextWaiter = reinterpret_cast<Context*>(head);
    } while (!m_state.compare_exchange_weak(
        head, reinterpret_cast<uintptr_t>(c), std::memory_order_acq_rel, std::memory_order_acquire));
    parkCurrent(c);
}

void FutureCore::signalledTwice() noexcept { fatal("a future was signalled twice"); }

void FutureCore::markSignalled() noexcept
{
    const uintptr_t prev = m_state.exchange(kSignalled, std::memory_order_acq_rel);
    if (prev == kSignalled)
        fatal("a future was signalled twice");
    Engine* e = thisEngine();
    auto* t = e ? e->trace.get() : nullptr;
    if (t)
        t->event8(core::ev::MerFutSignal, reinterpret_cast<uintptr_t>(this));
    m_state.notify_all(); // plain-thread waiters
    for (Context* w = reinterpret_cast<Context*>(prev); w;) {
        Context* next = w->nextWaiter; // read before the wake: w may run and reuse the field
        if (requestWake(w)) {
            if (t)
                t->event4(core::ev::ThreadRunnable, w->id);
            w->rt->pushRunnable(w);
        }
        w = next;
    }
}

} // namespace sparkscope::runtime::detail
