#pragma once
// Runtime: SparkScope's parallel runtime, after Mercury's parallel execution model.
//
// A Runtime owns `engines` OS threads. Runtime::run(main) runs `main` in a context (a stackful
// computation that can suspend and resume on another engine) and returns when it finishes. Inside
// it, parConj (par_conj.h) runs goals in parallel through per-engine work-stealing deques of
// sparks, and Future<T> (future.h) passes values between conjuncts.
//
// Tracing is off by default. It is on when RuntimeOptions::tracePath is set, or when
// `useEnvironment` is true and the environment variable SPARKSCOPE_TRACE names a file. The trace
// is a GHC-format eventlog with Mercury's events (docs/runtime.md lists them).
//
// Live contexts are bounded as in Mercury's runtime (its --max-contexts-per-thread): an engine with
// no context of its own steals a spark, which needs a new context, only while fewer than
// `maxContextsPerEngine` x engines contexts are live; beyond that the spark stays where it is and
// the engine that made it runs it on the context that made it. Each context costs a guard-paged
// stack (two kernel mappings), and a deep right-recursive conjunction whose sparks are stolen would
// otherwise keep one blocked context per level until vm.max_map_count runs out. engine.cpp explains
// the rules and why they cannot deadlock.
//
// Thread safety: create/destroy a Runtime from one thread; run() may be called from any non-engine
// thread, one call at a time per Runtime. Cost: creating a Runtime starts the engine threads (and,
// when tracing, calibrates the clock for ~10 ms); an idle Runtime sleeps (no busy waiting).
#include "sparkscope/core/result.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace sparkscope::runtime {

struct RuntimeOptions {
    unsigned engines = 0; // 0 = std::thread::hardware_concurrency()
    std::string tracePath; // non-empty: write a trace there
    bool useEnvironment = true; // SPARKSCOPE_TRACE=<file> turns tracing on when tracePath is empty
    size_t stackBytes = 256 * 1024; // per context; guard page below it
    // Mercury's "max contexts per thread": steals that need a new context stop while this many
    // contexts per engine are live (the total is capped at kMaxContextsTotal). 0 = the default, or
    // SPARKSCOPE_MAX_CONTEXTS_PER_ENGINE=<n> when `useEnvironment` is true.
    unsigned maxContextsPerEngine = 0;
    static constexpr unsigned kDefaultMaxContextsPerEngine = 64;
    static constexpr unsigned kMaxContextsTotal = 16384; // 32,768 mappings: half of Linux's default map limit
    size_t traceBufferBytes = 2 * 1024 * 1024; // per engine, as GHC and Mercury
    // As GHC's --eventlog-flush-interval: an engine writes its buffer when an event comes this many
    // milliseconds after its block opened, so that a program's trace can be followed while it runs
    // (sparkscope --follow); an engine running a context that posts nothing writes nothing until it
    // posts again. 0 = when full (and before an engine sleeps, and at the end), or
    // SPARKSCOPE_TRACE_FLUSH_MS=<ms> when `useEnvironment` is true.
    unsigned traceFlushMs = 0;
};

// Counters of one Runtime since it was created (read after run() for exact values).
struct RuntimeStats {
    uint64_t contextsCreated = 0; // contexts (stacks) ever allocated
    uint64_t contextsReused = 0; // contexts taken from the free pool
    uint64_t sparksCreated = 0;
    uint64_t sparksRunLocal = 0;
    uint64_t sparksStolen = 0;
    uint64_t suspensions = 0; // contexts that blocked (barrier or future)
    uint64_t contextLimit = 0; // live contexts beyond which steals needing a new context stop
    uint64_t peakLiveContexts = 0; // most contexts live (running, runnable or blocked) at once
    // Conjuncts a context left to a fresh context because its own stack was three quarters full
    // (each such hand-over may take the live contexts past the limit; see docs/runtime.md).
    uint64_t stackHandoffs = 0;
};

class Runtime {
public:
    // Starts the engines; fails if the trace file cannot be created.
    static core::Result<std::unique_ptr<Runtime>> create(RuntimeOptions options = {});
    // Stops the engines, posts SHUTDOWN per engine, flushes every buffer and ends the trace.
    ~Runtime();
    Runtime(const Runtime&) = delete;
    Runtime& operator=(const Runtime&) = delete;

    // Runs `main` in a new context on the engines and waits for it. An exception escaping `main`
    // becomes an Error (ErrorCode::Usage) carrying its what() text.
    core::Result<bool> run(std::function<void()> main);

    unsigned engineCount() const noexcept;
    bool tracing() const noexcept;
    std::string tracePath() const; // empty when not tracing
    bool traceFailed() const noexcept; // a write failed and events were dropped
    RuntimeStats stats() const noexcept;

    struct Impl;

private:
    explicit Runtime(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> m_impl;
};

// User annotations: USER_MARKER (58) and USER_MSG (19) on the calling engine (or the global buffer
// when called off the engines). No-ops when no traced Runtime is running. Never throw.
void mark(std::string_view text) noexcept;
void message(std::string_view text) noexcept;

// The engine number of the calling thread, or -1 when it is not an engine.
int currentEngine() noexcept;

} // namespace sparkscope::runtime
