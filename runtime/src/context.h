#pragma once
// A context and what it carries: the stackful computation (Boost.Context fiber) user code runs in,
// the spark record and sync term (barrier) of a parallel conjunction, and the job of run()'s main
// function. engine.cpp explains the algorithm; context.cpp holds a context's life (entry, tasks,
// pool, stacks).
//
// The inline switches below are on every suspension and resumption, so they stay in this header
// where the scheduler's files can inline them.
#include "fiber_switch.h"

#include "sparkscope/runtime/par_conj.h"
#include "sparkscope/runtime/runtime.h"

#include <boost/context/fiber.hpp>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>

namespace sparkscope::runtime::detail {

struct Context;
struct Engine;
struct SyncTerm;

// A spark: "run conjuncts index.. of term". Each sync term has at most one spark outstanding
// at a time (the next one is created by whoever took this one), so it lives in the term.
struct SparkRecord {
    SyncTerm* term = nullptr;
    uint32_t index = 0;
    uint32_t id = 0; // (engine << 24) | per-engine sequence
    uint64_t createdNs = 0; // its SPARK_CREATE's time when traced (a thief stamps its steal later)
};

// The barrier of one parallel conjunction; on the stack of the context that started it. Its
// address is the conjunction's dynamic id in the trace.
struct SyncTerm {
    ConjGoals goals;
    std::atomic<uint32_t> remaining;
    Context* parent;
    SparkRecord spark;
    std::atomic<bool> hasError { false };
    std::exception_ptr error;
};

struct MainJob {
    std::function<void()> fn;
    std::exception_ptr error;
    std::mutex mutex;
    std::condition_variable cv;
    bool done = false;
};

enum ParkState : int { kRunning = 0, kParked = 1, kWakeRequested = 2 };

// A stackful computation (Boost.Context fiber) with its trace id. Pooled and reused: each use
// gets a new id. While running it belongs to exactly one engine (`engine`).
struct Context {
    enum class Task { None, Spark, Main, Exit };
    enum class Request { None, Park, Release, MainDone };

    Runtime::Impl* rt = nullptr;
    uint32_t id = 0;
    bool hasFiber = false;
    bool inPool = false;
    bool pendingCreate = false; // main context: post its creation when an engine takes it
    bool everUsed = false;
    boost::context::fiber fiber; // the suspended context (valid while not running)
    boost::context::fiber sched; // the scheduler that resumed it (valid while running)
    Engine* engine = nullptr; // the engine running it
    NativeStack* origin = nullptr; // the thread stack that resumed it
    FiberStack stack;

    Task task = Task::None;
    SparkRecord* spark = nullptr;
    MainJob* main = nullptr;

    Request request = Request::None;
    Context* then = nullptr; // Release: the context this engine runs next
    bool searched = false; // Release: the idle search already failed once

    std::atomic<int> park { kRunning };
    Context* nextWaiter = nullptr; // future waiter list
};

// On a thread's own stack `from`: run context `c` until it hands control back (c->request says why).
inline void switchInto(NativeStack& from, Context* c)
{
    c->origin = &from;
    beforeEnterFiber(from, c->stack);
    c->fiber = std::move(c->fiber).resume();
    afterLeaveFiber(from);
}

// On context `c`: hand control back to the engine loop that resumed it. Returns when some engine
// resumes `c` again (c->engine is then that engine).
inline void yieldToEngine(Context* c)
{
    beforeLeaveFiber(c->stack, *c->origin, false);
    c->sched = std::move(c->sched).resume();
    afterEnterFiber(c->stack, *c->origin, false);
}

// True when the caller must make `c` runnable (it was parked); false when `c` has not parked
// yet, in which case its engine will see the request and run it again itself.
inline bool requestWake(Context* c) noexcept
{
    if (c->park.exchange(kWakeRequested, std::memory_order_acq_rel) == kParked) {
        c->park.store(kRunning, std::memory_order_relaxed);
        return true;
    }
    return false;
}

// On the current context: runs conjuncts k, k+1, ... of `st` for as long as it can take the
// conjunction's own next spark back. Returns true when it finished the last conjunct. (par_conj.cpp)
bool runConjuncts(SyncTerm& st, uint32_t k);

} // namespace sparkscope::runtime::detail
