#pragma once
// The scheduler's private types: contexts, sync terms (barriers), sparks, engines and the runtime.
// scheduler.cpp explains the algorithm.
#include "fiber_switch.h"
#include "spark_deque.h"
#include "tracer.h"

#include "sparkscope/runtime/par_conj.h"
#include "sparkscope/runtime/runtime.h"

#include <boost/context/fiber.hpp>

#include <array>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace sparkscope::runtime {

namespace detail {

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

    struct EngineStats {
        std::atomic<uint64_t> sparksCreated { 0 }, sparksRunLocal { 0 }, sparksStolen { 0 }, suspensions { 0 };
        void bump(std::atomic<uint64_t>& c) noexcept
        {
            c.store(c.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
        }
    };

    // Per-engine cache of interned string ids keyed by pointer identity (call sites, names).
    struct InternCache {
        struct Slot {
            const void* p = nullptr;
            uint64_t key = 0;
            uint32_t id = 0;
        };
        std::array<Slot, 512> slots {};
    };

    struct Engine {
        Runtime::Impl& rt;
        uint16_t index;
        std::thread thread;
        SparkDeque<SparkRecord> deque;
        std::unique_ptr<EngineTraceBuffer> trace; // null when not tracing
        Context* current = nullptr;
        uint32_t sparkSeq = 0;
        std::vector<Context*> freeContexts; // owner-only cache in front of the global pool
        uint64_t rng;
        NativeStack native;
        InternCache interned;
        EngineStats stats;
        alignas(64) std::atomic<uint32_t> sleeping { 0 };

        Engine(Runtime::Impl& runtime, uint16_t i);
        void threadMain();
        Context* findWork(bool alreadySearched);
        Context* runContext(Context* c, bool& searched);
        SparkRecord* stealAny(uint16_t& victim);
        Context* contextForSpark(SparkRecord* s);
        Context* takeContext(bool forSpark);
        void releaseContext(Context* c);
        void sleepUntilWoken();
        uint32_t nextSparkId() noexcept { return (uint32_t(index) << 24) | (sparkSeq++ & 0xFFFFFF); }
        uint32_t internCallSite(const std::source_location& where) noexcept;
        uint32_t internName(std::string_view name) noexcept;
    };

} // namespace detail

struct Runtime::Impl {
    RuntimeOptions options;
    unsigned engineCount = 1;
    std::unique_ptr<detail::TraceClock> clock;
    std::unique_ptr<detail::TraceSink> sink;
    std::vector<std::unique_ptr<detail::Engine>> engines;

    std::mutex runMutex; // global runnable-context queue
    std::deque<detail::Context*> runQueue;
    std::atomic<size_t> runCount { 0 };

    std::mutex poolMutex; // the global free-context pool and ownership of every context
    std::vector<detail::Context*> pool;
    std::vector<std::unique_ptr<detail::Context>> allContexts;
    std::atomic<uint64_t> contextsCreated { 0 }, contextsReused { 0 };

    std::atomic<uint32_t> nextContextId { 1 };
    std::atomic<uint32_t> sleepers { 0 };
    std::atomic<bool> stopping { false };
    std::mutex runCallMutex; // one run() at a time

    void pushRunnable(detail::Context* c);
    detail::Context* popRunnable();
    bool workVisible() const noexcept;
    void wakeOne() noexcept;
    void wakeAll() noexcept;
    detail::Context* newContext();
    void createFiber(detail::Context* c);
    void exitContexts();
};

} // namespace sparkscope::runtime
