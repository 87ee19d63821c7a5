#pragma once
// Runtime::Impl: what the engines share -- the global runnable-context queue, the free-context pool
// that owns every context, the sleeping-engine count and the trace sink. engine.cpp explains the
// algorithm; runtime.cpp holds the queue, the wake-ups and the public Runtime; context.cpp the pool.
#include "engine.h"
#include "tracer.h"

#include "sparkscope/runtime/runtime.h"

#include <atomic>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

namespace sparkscope::runtime {

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

    // Live contexts (taken from the pool or made, not yet released) and their bound
    // (RuntimeOptions::maxContextsPerEngine x engines): engine.cpp, "Bounded contexts".
    std::atomic<uint32_t> liveContexts { 0 };
    // For RuntimeStats: the contexts live in fact, without the reservations of steals still under way
    // (one that fails is taken back, and must not raise the peak), and the most at once.
    std::atomic<uint32_t> contextsInUse { 0 };
    std::atomic<uint32_t> peakLiveContexts { 0 };
    uint32_t contextLimit = 1;

    std::atomic<uint32_t> nextContextId { 1 };
    std::atomic<uint32_t> sleepers { 0 };
    std::atomic<bool> stopping { false };
    std::mutex runCallMutex; // one run() at a time

    void pushRunnable(detail::Context* c);
    detail::Context* popRunnable();
    bool workVisibleTo(const detail::Engine& e) const noexcept;
    void wakeOne() noexcept;
    void wakeForSpark() noexcept;
    bool reserveContext() noexcept;
    void countContext() noexcept;
    void contextInUse() noexcept; // a reserved context taken into use (the steal found a spark)
    void uncountContext() noexcept; // a reservation taken back
    void releaseContext() noexcept; // a context in use released
    void wakeAll() noexcept;
    detail::Context* newContext();
    void createFiber(detail::Context* c);
    void exitContexts();
};

namespace detail {
    // A program bug inside the runtime (or a misuse it cannot report otherwise): print and abort.
    [[noreturn]] void fatal(const char* what);
} // namespace detail

} // namespace sparkscope::runtime
