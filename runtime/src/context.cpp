// A context's life: created on demand with a guard-paged stack, entered once, then given one task
// after another (run()'s main function, or a spark and whatever further sparks it finds while
// free) until the runtime ends it; between tasks it waits in its engine's cache of free contexts or
// in the global pool. engine.cpp explains the algorithm.
//
// Why pooled: a context is a fiber on a guard-paged stack (two kernel mappings, see createFiber),
// too dear to make for every spark an idle engine takes, so a finished context is kept and reused,
// with a new id each time. Each engine keeps a small cache of its own in front of the global pool,
// so releasing and taking a context usually takes no lock.
#include "runtime_impl.h"

#include <boost/context/protected_fixedsize_stack.hpp>

#include <cstdio>
#include <cstdlib>
#include <new>

namespace sparkscope::runtime::detail {

namespace ctx = boost::context;

namespace {

    constexpr size_t kEngineContextCache = 16;

    // A protected_fixedsize_stack that records the stack bounds for the sanitizers.
    struct RecordingStack {
        Context* c;
        size_t size;
        ctx::stack_context allocate()
        {
            ctx::protected_fixedsize_stack inner(size);
            ctx::stack_context s = inner.allocate();
            c->stack.bottom = static_cast<char*>(s.sp) - s.size;
            c->stack.size = s.size;
            return s;
        }
        void deallocate(ctx::stack_context& s) noexcept
        {
#if SPARKSCOPE_ASAN
            // ASan leaves the redzones of the frames that ran here poisoned; clear them so memory that
            // later reuses these pages (any mmap) does not report false stack-buffer errors.
            ASAN_UNPOISON_MEMORY_REGION(static_cast<char*>(s.sp) - s.size, s.size);
#endif
            ctx::protected_fixedsize_stack inner(size);
            inner.deallocate(s);
        }
    };

    // On context `c`: finish with it (STOP_THREAD finished) and return it to the pool; the engine
    // then runs `then` (if any) or looks for work.
    void releaseCurrent(Context* c, Context* then, bool searched)
    {
        if (auto* t = c->engine->trace.get())
            t->stopThread(c->id, core::kStopFinished);
        c->request = Context::Request::Release;
        c->then = then;
        c->searched = searched;
        yieldToEngine(c);
    }

    // On context `c`, which has just been given spark `s` (already posted as run or stolen): runs
    // it, then, while free, more sparks; releases itself when it finds none or must hand over.
    void runSparkTask(Context* c)
    {
        SparkRecord* s = c->spark;
        for (;;) {
            SyncTerm* st = s->term;
            Context* parent = st->parent; // read before the decrement that may free the term
            if (runConjuncts(*st, s->index) && requestWake(parent)) {
                if (auto* t = c->engine->trace.get())
                    t->event4(core::ev::ThreadRunnable, parent->id);
                releaseCurrent(c, parent, false);
                return;
            }
            // Free: look for work without giving up the context (Mercury's order, no sleeping).
            Engine* e = c->engine;
            auto* t = e->trace.get();
            if (t)
                t->event0(core::ev::MerLookingForGlobalContext);
            if (Context* r = e->rt.popRunnable()) {
                releaseCurrent(c, r, false);
                return;
            }
            if (t)
                t->event0(core::ev::MerLookingForLocalSpark);
            if ((s = e->deque.pop())) {
                if (t)
                    t->event4(core::ev::MerSparkRun, s->id);
                e->stats.bump(e->stats.sparksRunLocal);
                continue;
            }
            uint16_t victim = 0;
            if (t)
                t->event0(core::ev::MerWorkStealing);
            if ((s = e->stealAny(victim))) {
                if (t)
                    t->sparkSteal(victim, s->id, s->createdNs);
                e->stats.bump(e->stats.sparksStolen);
                continue;
            }
            releaseCurrent(c, nullptr, true);
            return;
        }
    }

    void runMainTask(Context* c)
    {
        try {
            c->main->fn();
        } catch (...) {
            c->main->error = std::current_exception();
        }
        if (auto* t = c->engine->trace.get())
            t->stopThread(c->id, core::kStopFinished);
        c->request = Context::Request::MainDone;
        yieldToEngine(c);
    }

    ctx::fiber contextEntry(Context* c, ctx::fiber&& sched)
    {
        c->sched = std::move(sched);
        afterEnterFiber(c->stack, *c->origin, true);
        for (;;) {
            switch (c->task) {
            case Context::Task::Spark:
                runSparkTask(c);
                break;
            case Context::Task::Main:
                runMainTask(c);
                break;
            case Context::Task::Exit:
                beforeLeaveFiber(c->stack, *c->origin, true);
                return std::move(c->sched);
            case Context::Task::None:
                fatal("context resumed without a task");
            }
        }
    }

} // namespace

Context* Engine::contextForSpark(SparkRecord* s, bool counted)
{
    Context* c = takeContext(true, counted);
    c->task = Context::Task::Spark;
    c->spark = s;
    return c;
}

Context* Engine::takeContext(bool forSpark, bool counted)
{
    if (!counted)
        rt.countContext();
    Context* c = nullptr;
    if (!freeContexts.empty()) {
        c = freeContexts.back();
        freeContexts.pop_back();
    } else {
        std::lock_guard lock(rt.poolMutex);
        if (!rt.pool.empty()) {
            c = rt.pool.back();
            rt.pool.pop_back();
        }
    }
    const uint32_t id = rt.nextContextId.fetch_add(1, std::memory_order_relaxed);
    if (c) {
        c->inPool = false;
        rt.contextsReused.fetch_add(1, std::memory_order_relaxed);
        if (trace)
            trace->event4x2(core::ev::MerReuseContext, id, c->id);
    } else {
        c = rt.newContext();
        rt.contextsCreated.fetch_add(1, std::memory_order_relaxed);
        if (trace)
            trace->event4(forSpark ? core::ev::CreateSparkThread : core::ev::CreateThread, id);
    }
    c->id = id;
    c->everUsed = true;
    return c;
}

void Engine::releaseContext(Context* c)
{
    if (trace)
        trace->event4(core::ev::MerReleaseContext, c->id);
    c->task = Context::Task::None;
    c->spark = nullptr;
    c->main = nullptr;
    c->then = nullptr;
    c->inPool = true;
    if (freeContexts.size() < kEngineContextCache)
        freeContexts.push_back(c);
    else {
        std::lock_guard lock(rt.poolMutex);
        rt.pool.push_back(c);
    }
    rt.releaseContext();
}

} // namespace sparkscope::runtime::detail

// ---------------------------------------------------------------------------------------------
// Runtime::Impl: the pool and the stacks

namespace sparkscope::runtime {

using namespace detail;

Context* Runtime::Impl::newContext()
{
    auto owned = std::make_unique<Context>();
    Context* c = owned.get();
    c->rt = this;
    std::lock_guard lock(poolMutex);
    allContexts.push_back(std::move(owned));
    return c;
}

void Runtime::Impl::createFiber(Context* c)
{
    c->stack.create();
    try {
        c->fiber = ctx::fiber(std::allocator_arg, RecordingStack { c, options.stackBytes },
            [c](ctx::fiber&& sched) { return contextEntry(c, std::move(sched)); });
    } catch (const std::bad_alloc&) {
        // Each guard-paged stack is two kernel mappings, so tens of thousands of live contexts run
        // into vm.max_map_count long before memory runs out. The usual cause is a deep right-recursive
        // conjunction whose sparks are stolen: each level leaves a context blocked at its barrier.
        std::fprintf(stderr,
            "sparkscope runtime: cannot allocate a %zu-byte stack for context %u (%zu contexts created). "
            "Deep right-recursive parallel conjunctions keep one blocked context per level; make the "
            "recursion left-recursive or coarser, lower RuntimeOptions::stackBytes, or raise vm.max_map_count.\n",
            size_t(options.stackBytes), c->id, size_t(contextsCreated.load()));
        std::abort();
    }
    c->hasFiber = true;
}

void Runtime::Impl::exitContexts()
{
#if SPARKSCOPE_TSAN
    // Under TSan a context cannot return: Boost's instrumented fiber_entry would run its function-exit
    // hooks after the final switch, on the thread's shadow stack, and corrupt it. Leak the pooled
    // fibers instead (TSan does not check leaks); the process is about to tear the runtime down.
    std::lock_guard tsanLock(poolMutex);
    for (auto& c : allContexts) {
        if (c->hasFiber)
            new ctx::fiber(std::move(c->fiber));
    }
    return;
#endif
    NativeStack native;
    native.init();
    std::lock_guard lock(poolMutex);
    for (auto& c : allContexts) {
        if (!c->hasFiber || !c->inPool)
            continue; // never started, or blocked forever by a program bug: leaked
        c->task = Context::Task::Exit;
        switchInto(native, c.get());
        c->hasFiber = false;
        c->stack.destroy();
    }
}

} // namespace sparkscope::runtime
