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
//
// Bounded contexts (Mercury's --max-contexts-per-thread): a context costs a guard-paged stack, two
// kernel mappings, and a right-recursive conjunction (chunk & rest) whose sparks are stolen leaves
// one context blocked at each level's barrier; unbounded, some 32,000 of them exhaust
// vm.max_map_count. So the runtime counts live contexts (taken, not yet released) and follows
// Mercury's rules (mercury_context.c):
//  - an engine with no context steals a spark, which needs a new context, only while the count is
//    below the limit (reserved before the steal, so racing engines cannot pass it together). At the
//    limit it still posts WORK_STEALING, as Mercury does, takes nothing and sleeps; a spark push does
//    not wake it, the release that brings the count below the limit does. The spark stays in its
//    deque, and the context that made it, reaching its barrier, finds it there and runs it itself
//    (the conjunction's own spark, above);
//  - a context that has one (a free context, see runSparkTask) steals whatever the count;
//  - an engine always runs sparks from its own deque, even on a new context past the limit.
// No deadlock, futures included: the bound only ever stops a steal. A context never runs a spark on
// top of a suspended frame other than its own conjunction's next conjunct at the barrier, and what
// is below that on its stack is only the code after the barrier, which waits for the conjunct in
// any schedule. Any other spark runs on a context of its own, as without the bound: a conjunct that
// waits for a future its later sibling signals parks, and the sibling's spark, in the deque of the
// waiter's engine, is run there on a new context. Since an engine can always run its own sparks,
// every spark is run even when no steal is allowed; only parallelism is lost (a right recursion
// past the limit runs on one engine, as in Mercury, whose loop control was made for this).
// Stack depth: with steals stopped, the levels of such a recursion pile up on one context's stack.
// A context takes its conjunction's own spark back only while a quarter of its stack is left
// (stackNearlyFull, par_conj.cpp); otherwise it parks at the barrier and its engine runs the spark
// from its deque on a fresh context. That context is needed (the levels must live on some stack)
// and may take the count past the limit, like any spark from an engine's own deque.
//
// Where the parts live: this file holds an engine's loop (run a context, find work, steal, sleep);
// context.cpp a context's life (its entry, its main or spark task, the pool, the guard-paged
// stacks); par_conj.cpp a parallel conjunction (start, conjuncts, barrier); future.cpp futures;
// runtime.cpp the runnable queue, the wake-ups and the public Runtime.
#include "runtime_impl.h"

#include <algorithm>
#include <cstdio>
#include <string_view>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace sparkscope::runtime::detail {

namespace {

    thread_local Engine* tlsEngine = nullptr;

    inline void cpuRelax() noexcept
    {
#if defined(__x86_64__)
        _mm_pause();
#endif
    }

    constexpr int kSpinRounds = 64;

} // namespace

Engine* thisEngine() noexcept { return tlsEngine; }

Engine::Engine(Runtime::Impl& runtime, uint16_t i)
    : rt(runtime)
    , index(i)
    , rng(0x9E3779B97F4A7C15ull * (i + 1))
{
    if (rt.sink)
        trace = std::make_unique<EngineTraceBuffer>(
            *rt.sink, i, rt.options.traceBufferBytes, uint64_t(rt.options.traceFlushMs) * 1'000'000);
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
    bool woke = false;
    int spins = 0;
    for (;;) {
        if (!posted && trace) {
            trace->event0(core::ev::MerLookingForGlobalContext);
            // A trace meant to be followed gets the wake-up at once, not a flush interval later: a
            // follower then reads an engine whose last written event is ENGINE_SLEEPING as asleep
            // still, not as behind (one write per wake, only with SPARKSCOPE_TRACE_FLUSH_MS).
            if (woke && trace->flushesAtInterval())
                trace->flush();
        }
        woke = false;
        if (Context* c = rt.popRunnable())
            return c;
        if (!posted && trace)
            trace->event0(core::ev::MerLookingForLocalSpark);
        if (SparkRecord* s = deque.pop()) {
            if (trace)
                trace->event4(core::ev::MerSparkRun, s->id);
            stats.bump(stats.sparksRunLocal);
            return contextForSpark(s, false);
        }
        if (!posted && trace)
            trace->event0(core::ev::MerWorkStealing);
        uint16_t victim = 0;
        if (SparkRecord* s = stealForNewContext(victim)) {
            if (trace)
                trace->sparkSteal(victim, s->id, s->createdNs);
            stats.bump(stats.sparksStolen);
            return contextForSpark(s, true);
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
        woke = true;
    }
}

void Engine::sleepUntilWoken()
{
    sleeping.store(1, std::memory_order_seq_cst);
    rt.sleepers.fetch_add(1, std::memory_order_seq_cst);
    if (trace)
        trace->event0(core::ev::MerEngineSleeping);
    if (rt.workVisibleTo(*this) || rt.stopping.load(std::memory_order_seq_cst)) {
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

// A steal by an engine without a context, which needs a new one: only while the live contexts are
// below the limit, reserved before the steal so that racing engines cannot pass it together.
SparkRecord* Engine::stealForNewContext(uint16_t& victim)
{
    bool anyVisible = false;
    for (const auto& e : rt.engines)
        anyVisible = anyVisible || (e.get() != this && e->deque.looksNonEmpty());
    if (!anyVisible || !rt.reserveContext())
        return nullptr;
    SparkRecord* s = stealAny(victim);
    if (s)
        rt.contextInUse();
    else
        rt.uncountContext();
    return s;
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

} // namespace sparkscope::runtime::detail
