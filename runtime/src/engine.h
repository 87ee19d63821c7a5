#pragma once
// An engine: one OS thread running the scheduler loop, with its spark deque, trace buffer and
// cache of free contexts. engine.cpp explains the algorithm and holds the loop; context.cpp holds
// the engine's side of the context pool (takeContext, releaseContext, contextForSpark).
#include "context.h"
#include "spark_deque.h"
#include "tracer.h"

#include "sparkscope/runtime/runtime.h"

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <source_location>
#include <string_view>
#include <thread>
#include <vector>

namespace sparkscope::runtime::detail {

struct EngineStats {
    std::atomic<uint64_t> sparksCreated { 0 }, sparksRunLocal { 0 }, sparksStolen { 0 }, suspensions { 0 },
        stackHandoffs { 0 };
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
    SparkRecord* stealForNewContext(uint16_t& victim);
    // `counted`: the live-context count already includes it (a steal's reservation).
    Context* contextForSpark(SparkRecord* s, bool counted);
    Context* takeContext(bool forSpark, bool counted);
    void releaseContext(Context* c);
    void sleepUntilWoken();
    uint32_t nextSparkId() noexcept { return (uint32_t(index) << 24) | (sparkSeq++ & 0xFFFFFF); }
    uint32_t internCallSite(const std::source_location& where) noexcept;
    uint32_t internName(std::string_view name) noexcept;
};

// The engine of the calling thread, or nullptr off the engines. Defined out of line and opaque to
// the optimiser: a context can resume on another thread, so the thread-local must be read afresh
// after every possible switch, never cached.
[[gnu::noinline, gnu::noipa]] Engine* thisEngine() noexcept;

// On context `c` (running on engine c->engine): block until woken. STOP_THREAD was already posted.
inline void parkCurrent(Context* c)
{
    c->engine->stats.bump(c->engine->stats.suspensions);
    c->request = Context::Request::Park;
    yieldToEngine(c);
}

} // namespace sparkscope::runtime::detail
