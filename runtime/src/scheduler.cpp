// The work-stealing scheduler, after Mercury's runtime (mercury_context.c, mercury_par_builtin.h).
//
// Engines are OS threads. Each runs a scheduler loop on its own thread stack; user code runs in
// contexts, Boost.Context fibers with pooled guard-paged stacks, that the loop resumes. A context
// gives control back to its engine's loop only to block (park) or when it has nothing left to do
// (release); everything else -- running conjuncts, popping the conjunction's own spark, even
// running further sparks when it becomes free -- happens on the context without a switch, which is
// why a conjunction whose spark is not stolen costs about as much as a few function calls.
//
// Parallel conjunction (G1 & ... & Gn), started by context P (runParConj):
//   P posts START_PAR_CONJ, pushes spark 2 (standing for G2 & ... & Gn) on its engine's deque and
//   runs G1. Whoever takes spark k (locally: SPARK_RUN, by theft: SPARK_STEAL) pushes spark k+1 and
//   runs Gk. After a conjunct, END_PAR_CONJUNCT and an atomic decrement of `remaining`; the
//   conjunct whose decrement reaches zero is the last. A conjunct that is not last pops its engine's
//   deque: if it gets the conjunction's own next spark it runs it right there, as Mercury does.
//   Otherwise P (if it is P) parks, or the context is free and looks for other work.
//   The last conjunct wakes P unless it is P; P then posts END_PAR_CONJ and rethrows the first
//   exception any conjunct threw.
//
// Parking without lost wake-ups: a context that must block posts STOP_THREAD (blocked) and asks its
// engine to park it. Only after the switch, when the context's stack is saved, does the engine
// exchange park = Parked; the waker exchanges park = WakeRequested. Whoever comes second sees the
// other's value and makes the context runnable (THREAD_RUNNABLE): the waker if the context was
// already parked, the parking engine itself otherwise. Either way the trace reads STOP_THREAD,
// THREAD_RUNNABLE, RUN_THREAD in time order. The last conjunct of a barrier runs the woken parent
// on its own engine at once (its own context being finished); a future's waiters go to the global
// runnable queue.
//
// Idle engines search in Mercury's order: the global runnable queue (LOOKING_FOR_GLOBAL_CONTEXT),
// their own deque (LOOKING_FOR_LOCAL_SPARK), the other engines' deques from a random start
// (WORK_STEALING), spinning a little, then sleep (ENGINE_SLEEPING) on a per-engine futex word.
// No lost wake-ups: a sleeper sets its word and increments `sleepers` (seq_cst) and then looks for
// work once more; a producer publishes work (seq_cst) and then reads `sleepers` (seq_cst). In the
// single total order either the sleeper sees the work or the producer sees the sleeper and clears
// its word (exchange) before notifying.
#include "scheduler.h"

#include "sparkscope/runtime/future.h"
#include "sparkscope/runtime/version.h"

#include <boost/context/protected_fixedsize_stack.hpp>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace sparkscope::runtime {

namespace ctx = boost::context;
using namespace detail;

namespace {

    thread_local Engine* tlsEngine = nullptr;
    std::atomic<Runtime::Impl*> gTracedRuntime { nullptr };

    // Opaque to the optimiser: a context can resume on another thread, so the thread-local must be
    // read afresh after every possible switch, never cached.
    [[gnu::noinline, gnu::noipa]] Engine* thisEngine() noexcept { return tlsEngine; }

    [[noreturn]] void fatal(const char* what)
    {
        std::fprintf(stderr, "sparkscope runtime: %s\n", what);
        std::abort();
    }

    inline void cpuRelax() noexcept
    {
#if defined(__x86_64__)
        _mm_pause();
#endif
    }

    constexpr int kSpinRounds = 64;
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

    // On context `c`: hand control back to the engine loop that resumed it. Returns when some engine
    // resumes `c` again (c->engine is then that engine).
    void yieldToEngine(Context* c)
    {
        beforeLeaveFiber(c->stack, *c->origin, false);
        c->sched = std::move(c->sched).resume();
        afterEnterFiber(c->stack, *c->origin, false);
    }

    // True when the caller must make `c` runnable (it was parked); false when `c` has not parked
    // yet, in which case its engine will see the request and run it again itself.
    bool requestWake(Context* c) noexcept
    {
        if (c->park.exchange(kWakeRequested, std::memory_order_acq_rel) == kParked) {
            c->park.store(kRunning, std::memory_order_relaxed);
            return true;
        }
        return false;
    }

    // On context `c` (running on engine e): block until woken. STOP_THREAD was already posted.
    void parkCurrent(Context* c)
    {
        c->engine->stats.bump(c->engine->stats.suspensions);
        c->request = Context::Request::Park;
        yieldToEngine(c);
    }

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
                e->rt.wakeOne();
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

    void switchInto(NativeStack& from, Context* c)
    {
        c->origin = &from;
        beforeEnterFiber(from, c->stack);
        c->fiber = std::move(c->fiber).resume();
        afterLeaveFiber(from);
    }

} // namespace

// ---------------------------------------------------------------------------------------------
// Engine

Engine::Engine(Runtime::Impl& runtime, uint16_t i)
    : rt(runtime)
    , index(i)
    , rng(0x9E3779B97F4A7C15ull * (i + 1))
{
    if (rt.sink)
        trace = std::make_unique<EngineTraceBuffer>(*rt.sink, i, rt.options.traceBufferBytes);
}

void Engine::threadMain()
{
    tlsEngine = this;
    native.init();
    Context* next = nullptr;
    bool searched = false;
    for (;;) {
        if (!next) {
            next = findWork(searched);
            searched = false;
            if (!next)
                break;
        }
        next = runContext(next, searched);
    }
    if (trace) {
        trace->event0(core::ev::Shutdown);
        trace->flush();
    }
    tlsEngine = nullptr;
}

Context* Engine::runContext(Context* c, bool& searched)
{
    if (c->pendingCreate) {
        // The main context: its id and creation are posted by the engine that first runs it.
        c->pendingCreate = false;
        const uint32_t old = c->id;
        c->id = rt.nextContextId.fetch_add(1, std::memory_order_relaxed);
        if (trace) {
            if (c->everUsed)
                trace->event4x2(core::ev::MerReuseContext, c->id, old);
            else
                trace->event4(core::ev::CreateThread, c->id);
            trace->event0(core::ev::MerCallingMain);
        }
        c->everUsed = true;
    }
    if (!c->hasFiber)
        rt.createFiber(c);
    c->engine = this;
    current = c;
    if (trace)
        trace->event4(core::ev::RunThread, c->id);
    switchInto(native, c);
    current = nullptr;

    switch (c->request) {
    case Context::Request::Park:
        c->request = Context::Request::None;
        if (c->park.exchange(kParked, std::memory_order_acq_rel) == kWakeRequested) {
            c->park.store(kRunning, std::memory_order_relaxed);
            if (trace)
                trace->event4(core::ev::ThreadRunnable, c->id);
            return c;
        }
        return nullptr;
    case Context::Request::Release: {
        c->request = Context::Request::None;
        Context* then = c->then;
        searched = c->searched;
        releaseContext(c);
        return then;
    }
    case Context::Request::MainDone: {
        c->request = Context::Request::None;
        MainJob* job = c->main;
        releaseContext(c);
        // Notify under the lock: the job lives on run()'s stack and may go as soon as it is unlocked.
        std::lock_guard lock(job->mutex);
        job->done = true;
        job->cv.notify_all();
        return nullptr;
    }
    case Context::Request::None:
        break;
    }
    fatal("context switched back without a request");
}

Context* Engine::findWork(bool alreadySearched)
{
    bool posted = alreadySearched;
    int spins = 0;
    for (;;) {
        if (!posted && trace)
            trace->event0(core::ev::MerLookingForGlobalContext);
        if (Context* c = rt.popRunnable())
            return c;
        if (!posted && trace)
            trace->event0(core::ev::MerLookingForLocalSpark);
        if (SparkRecord* s = deque.pop()) {
            if (trace)
                trace->event4(core::ev::MerSparkRun, s->id);
            stats.bump(stats.sparksRunLocal);
            return contextForSpark(s);
        }
        if (!posted && trace)
            trace->event0(core::ev::MerWorkStealing);
        uint16_t victim = 0;
        if (SparkRecord* s = stealAny(victim)) {
            if (trace)
                trace->sparkSteal(victim, s->id, s->createdNs);
            stats.bump(stats.sparksStolen);
            return contextForSpark(s);
        }
        posted = true;
        if (rt.stopping.load(std::memory_order_acquire))
            return nullptr;
        if (++spins < kSpinRounds) {
            for (int i = 0; i < 16; ++i)
                cpuRelax();
            continue;
        }
        sleepUntilWoken();
        spins = 0;
        posted = false;
    }
}

void Engine::sleepUntilWoken()
{
    sleeping.store(1, std::memory_order_seq_cst);
    rt.sleepers.fetch_add(1, std::memory_order_seq_cst);
    if (trace)
        trace->event0(core::ev::MerEngineSleeping);
    if (rt.workVisible() || rt.stopping.load(std::memory_order_seq_cst)) {
        if (sleeping.exchange(0, std::memory_order_acq_rel) == 1)
            rt.sleepers.fetch_sub(1, std::memory_order_seq_cst);
        return;
    }
    // Flush before a potentially long sleep so a killed program still shows what happened.
    if (trace)
        trace->flush();
    while (sleeping.load(std::memory_order_acquire) == 1)
        sleeping.wait(1, std::memory_order_acquire);
}

SparkRecord* Engine::stealAny(uint16_t& victim)
{
    const size_t n = rt.engines.size();
    if (n < 2)
        return nullptr;
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    const size_t start = rng % n;
    for (size_t i = 0; i < n; ++i) {
        const size_t v = (start + i) % n;
        if (v == index)
            continue;
        if (SparkRecord* s = rt.engines[v]->deque.steal()) {
            victim = static_cast<uint16_t>(v);
            return s;
        }
    }
    return nullptr;
}

Context* Engine::contextForSpark(SparkRecord* s)
{
    Context* c = takeContext(true);
    c->task = Context::Task::Spark;
    c->spark = s;
    return c;
}

Context* Engine::takeContext(bool forSpark)
{
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
    if (freeContexts.size() < kEngineContextCache) {
        freeContexts.push_back(c);
        return;
    }
    std::lock_guard lock(rt.poolMutex);
    rt.pool.push_back(c);
}

uint32_t Engine::internCallSite(const std::source_location& where) noexcept
{
    const void* p = where.file_name();
    const uint64_t key = (uint64_t(where.line()) << 32) | where.column();
    auto& slot
        = interned.slots[(reinterpret_cast<uintptr_t>(p) ^ (key * 0x9E3779B97F4A7C15ull)) % interned.slots.size()];
    if (slot.p == p && slot.key == key && slot.id)
        return slot.id;
    std::string_view file = where.file_name();
    if (auto cut = file.find_last_of('/'); cut != std::string_view::npos)
        file.remove_prefix(cut + 1);
    char text[512];
    int len = std::snprintf(text, sizeof text, "%.*s:%u:%u", int(file.size()), file.data(), unsigned(where.line()),
        unsigned(where.column()));
    const uint32_t id
        = rt.sink->intern(std::string_view(text, len > 0 ? std::min<size_t>(size_t(len), sizeof text - 1) : 0));
    slot = { p, key, id };
    return id;
}

uint32_t Engine::internName(std::string_view name) noexcept
{
    const void* p = name.data();
    const uint64_t key = name.size() | (1ull << 63);
    auto& slot
        = interned.slots[(reinterpret_cast<uintptr_t>(p) ^ (key * 0x9E3779B97F4A7C15ull)) % interned.slots.size()];
    if (slot.p == p && slot.key == key && slot.id)
        return slot.id;
    const uint32_t id = rt.sink->intern(name);
    slot = { p, key, id };
    return id;
}

// ---------------------------------------------------------------------------------------------
// Runtime::Impl

void Runtime::Impl::pushRunnable(Context* c)
{
    {
        std::lock_guard lock(runMutex);
        runQueue.push_back(c);
        runCount.store(runQueue.size(), std::memory_order_seq_cst);
    }
    wakeOne();
}

Context* Runtime::Impl::popRunnable()
{
    if (runCount.load(std::memory_order_acquire) == 0)
        return nullptr;
    std::lock_guard lock(runMutex);
    if (runQueue.empty())
        return nullptr;
    Context* c = runQueue.front();
    runQueue.pop_front();
    runCount.store(runQueue.size(), std::memory_order_relaxed);
    return c;
}

bool Runtime::Impl::workVisible() const noexcept
{
    if (runCount.load(std::memory_order_seq_cst) > 0)
        return true;
    for (const auto& e : engines) {
        if (e->deque.looksNonEmpty())
            return true;
    }
    return false;
}

void Runtime::Impl::wakeOne() noexcept
{
    if (sleepers.load(std::memory_order_seq_cst) == 0)
        return;
    for (auto& e : engines) {
        if (e->sleeping.load(std::memory_order_relaxed) == 1
            && e->sleeping.exchange(0, std::memory_order_acq_rel) == 1) {
            sleepers.fetch_sub(1, std::memory_order_seq_cst);
            e->sleeping.notify_one();
            return;
        }
    }
}

void Runtime::Impl::wakeAll() noexcept
{
    for (auto& e : engines) {
        if (e->sleeping.exchange(0, std::memory_order_acq_rel) == 1)
            sleepers.fetch_sub(1, std::memory_order_seq_cst);
        e->sleeping.notify_one();
    }
}

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

// ---------------------------------------------------------------------------------------------
// Runtime

Runtime::Runtime(std::unique_ptr<Impl> impl)
    : m_impl(std::move(impl))
{
}

core::Result<std::unique_ptr<Runtime>> Runtime::create(RuntimeOptions options)
{
    try {
        auto impl = std::make_unique<Impl>();
        impl->options = options;
        unsigned n = options.engines ? options.engines : std::thread::hardware_concurrency();
        if (n == 0)
            n = 1;
        if (n > 4096)
            return core::Error { core::ErrorCode::Usage,
                "runtime: at most 4096 engines, asked for " + std::to_string(n), std::nullopt };
        impl->engineCount = n;
        std::string path = options.tracePath;
        if (path.empty() && options.useEnvironment) {
            if (const char* env = std::getenv("SPARKSCOPE_TRACE"))
                path = env;
        }
        impl->options.tracePath = path;
        if (!path.empty()) {
            impl->clock = std::make_unique<TraceClock>();
            auto sink = TraceSink::open(path, n, *impl->clock);
            if (!sink)
                return sink.error();
            impl->sink = std::move(sink.value());
        }
        for (unsigned i = 0; i < n; ++i)
            impl->engines.push_back(std::make_unique<Engine>(*impl, static_cast<uint16_t>(i)));
        for (auto& e : impl->engines)
            e->thread = std::thread([eng = e.get()] { eng->threadMain(); });
        if (impl->sink)
            gTracedRuntime.store(impl.get(), std::memory_order_release);
        return std::unique_ptr<Runtime>(new Runtime(std::move(impl)));
    } catch (const std::exception& ex) {
        return core::Error { core::ErrorCode::Io, std::string("runtime: cannot start: ") + ex.what(), std::nullopt };
    }
}

Runtime::~Runtime()
{
    Impl& rt = *m_impl;
    rt.stopping.store(true, std::memory_order_seq_cst);
    rt.wakeAll();
    for (auto& e : rt.engines) {
        if (e->thread.joinable())
            e->thread.join();
    }
    Impl* self = &rt;
    gTracedRuntime.compare_exchange_strong(self, nullptr);
    rt.exitContexts();
    if (rt.sink)
        rt.sink->finish();
}

core::Result<bool> Runtime::run(std::function<void()> main)
{
    if (thisEngine())
        return core::Error { core::ErrorCode::Usage, "Runtime::run called from an engine (nest with parConj instead)",
            std::nullopt };
    std::lock_guard runLock(m_impl->runCallMutex);
    MainJob job;
    job.fn = std::move(main);
    Context* c = nullptr;
    {
        std::lock_guard lock(m_impl->poolMutex);
        if (!m_impl->pool.empty()) {
            c = m_impl->pool.back();
            m_impl->pool.pop_back();
            c->inPool = false;
        }
    }
    if (c)
        m_impl->contextsReused.fetch_add(1, std::memory_order_relaxed);
    else {
        c = m_impl->newContext();
        m_impl->contextsCreated.fetch_add(1, std::memory_order_relaxed);
    }
    c->task = Context::Task::Main;
    c->main = &job;
    c->pendingCreate = true;
    m_impl->pushRunnable(c);
    {
        std::unique_lock lock(job.mutex);
        job.cv.wait(lock, [&] { return job.done; });
    }
    if (job.error) {
        try {
            std::rethrow_exception(job.error);
        } catch (const std::exception& ex) {
            return core::Error { core::ErrorCode::Usage, std::string("the main function threw: ") + ex.what(),
                std::nullopt };
        } catch (...) {
            return core::Error { core::ErrorCode::Usage, "the main function threw a non-standard exception",
                std::nullopt };
        }
    }
    return true;
}

unsigned Runtime::engineCount() const noexcept { return m_impl->engineCount; }
bool Runtime::tracing() const noexcept { return m_impl->sink != nullptr; }
std::string Runtime::tracePath() const { return m_impl->sink ? m_impl->sink->path() : std::string(); }
bool Runtime::traceFailed() const noexcept { return m_impl->sink && m_impl->sink->failed(); }

RuntimeStats Runtime::stats() const noexcept
{
    RuntimeStats s;
    s.contextsCreated = m_impl->contextsCreated.load(std::memory_order_relaxed);
    s.contextsReused = m_impl->contextsReused.load(std::memory_order_relaxed);
    for (const auto& e : m_impl->engines) {
        s.sparksCreated += e->stats.sparksCreated.load(std::memory_order_relaxed);
        s.sparksRunLocal += e->stats.sparksRunLocal.load(std::memory_order_relaxed);
        s.sparksStolen += e->stats.sparksStolen.load(std::memory_order_relaxed);
        s.suspensions += e->stats.suspensions.load(std::memory_order_relaxed);
    }
    return s;
}

void mark(std::string_view text) noexcept
{
    if (Engine* e = thisEngine(); e && e->trace) {
        e->trace->text(core::ev::UserMarker, text);
        return;
    }
    if (Runtime::Impl* rt = gTracedRuntime.load(std::memory_order_acquire))
        rt->sink->postGlobal(core::ev::UserMarker, rt->clock->nowNs(), reinterpret_cast<const uint8_t*>(text.data()),
            std::min<size_t>(text.size(), 60000), true);
}

void message(std::string_view text) noexcept
{
    if (Engine* e = thisEngine(); e && e->trace) {
        e->trace->text(core::ev::UserMsg, text);
        return;
    }
    if (Runtime::Impl* rt = gTracedRuntime.load(std::memory_order_acquire))
        rt->sink->postGlobal(core::ev::UserMsg, rt->clock->nowNs(), reinterpret_cast<const uint8_t*>(text.data()),
            std::min<size_t>(text.size(), 60000), true);
}

int currentEngine() noexcept
{
    Engine* e = thisEngine();
    return e ? e->index : -1;
}

// ---------------------------------------------------------------------------------------------
// Parallel conjunctions

void detail::runParConj(const ConjGoals& goals, const std::source_location& where)
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

// ---------------------------------------------------------------------------------------------
// Futures

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

} // namespace sparkscope::runtime
