// Runtime: starting and stopping the engines, run(), the global queue of runnable contexts and the
// wake-ups of sleeping engines, and the annotations posted from user code. engine.cpp explains the
// algorithm (the sleep/wake handshake is "No lost wake-ups" there).
#include "runtime_impl.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <thread>

namespace sparkscope::runtime {

using namespace detail;

namespace {

    std::atomic<Runtime::Impl*> gTracedRuntime { nullptr };

    // The environment variable `name` as a number in 1..max (`unit` names it in the message): nullopt
    // when unset, an Error when it is something else.
    core::Result<std::optional<unsigned>> envNumber(const char* name, unsigned long max, const char* unit = "")
    {
        const char* env = std::getenv(name);
        if (!env)
            return std::optional<unsigned>();
        char* end = nullptr;
        const unsigned long v = std::strtoul(env, &end, 10);
        if (!*env || *end || v == 0 || v > max)
            return core::Error { core::ErrorCode::Usage,
                std::string("runtime: ") + name + " must be 1.." + std::to_string(max) + unit + ", not '" + env + "'",
                std::nullopt };
        return std::optional<unsigned>(unsigned(v));
    }

    // USER_MARKER or USER_MSG: into the calling engine's buffer, or, off the engines, into the global
    // buffer of the traced runtime if there is one.
    void postText(uint16_t type, std::string_view text) noexcept
    {
        if (Engine* e = thisEngine(); e && e->trace) {
            e->trace->text(type, text);
            return;
        }
        if (Runtime::Impl* rt = gTracedRuntime.load(std::memory_order_acquire))
            rt->sink->postGlobal(type, rt->clock->nowNs(), reinterpret_cast<const uint8_t*>(text.data()),
                std::min<size_t>(text.size(), 60000), true);
    }

} // namespace

void detail::fatal(const char* what)
{
    std::fprintf(stderr, "sparkscope runtime: %s\n", what);
    std::abort();
}

// ---------------------------------------------------------------------------------------------
// Runtime::Impl: the runnable queue and the wake-ups

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

// What engine `e`, about to sleep, could still take: a runnable context, a spark of its own, or
// another engine's spark while a new context may be made for it ("Bounded contexts", engine.cpp).
bool Runtime::Impl::workVisibleTo(const Engine& e) const noexcept
{
    if (runCount.load(std::memory_order_seq_cst) > 0 || e.deque.looksNonEmpty())
        return true;
    if (liveContexts.load(std::memory_order_seq_cst) >= contextLimit)
        return false;
    for (const auto& other : engines) {
        if (other->deque.looksNonEmpty())
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

// After a spark push (seq_cst): a sleeper could only steal it with a new context, so none is woken
// at the limit; the release that brings the live contexts below it wakes one (uncountContext).
void Runtime::Impl::wakeForSpark() noexcept
{
    if (sleepers.load(std::memory_order_seq_cst) == 0)
        return;
    if (liveContexts.load(std::memory_order_seq_cst) >= contextLimit)
        return;
    wakeOne();
}

// For a steal by an engine without a context: one more live context if below the limit.
bool Runtime::Impl::reserveContext() noexcept
{
    uint32_t live = liveContexts.load(std::memory_order_relaxed);
    do {
        if (live >= contextLimit)
            return false;
    } while (!liveContexts.compare_exchange_weak(live, live + 1, std::memory_order_seq_cst));
    return true;
}

void Runtime::Impl::contextInUse() noexcept
{
    const uint32_t live = contextsInUse.fetch_add(1, std::memory_order_relaxed) + 1;
    uint32_t peak = peakLiveContexts.load(std::memory_order_relaxed);
    while (live > peak && !peakLiveContexts.compare_exchange_weak(peak, live, std::memory_order_relaxed)) { }
}

// One more live context whatever the limit (run()'s main, a spark from the engine's own deque).
void Runtime::Impl::countContext() noexcept
{
    liveContexts.fetch_add(1, std::memory_order_seq_cst);
    contextInUse();
}

void Runtime::Impl::releaseContext() noexcept
{
    contextsInUse.fetch_sub(1, std::memory_order_relaxed);
    uncountContext();
}

// One live context fewer. The release that brings the count below the limit wakes a sleeper, which
// may now steal: it went to sleep seeing the count at the limit after announcing itself (seq_cst),
// so either it saw this decrement or this load of `sleepers` sees it.
void Runtime::Impl::uncountContext() noexcept
{
    if (liveContexts.fetch_sub(1, std::memory_order_seq_cst) == contextLimit)
        wakeOne();
}

void Runtime::Impl::wakeAll() noexcept
{
    for (auto& e : engines) {
        if (e->sleeping.exchange(0, std::memory_order_acq_rel) == 1)
            sleepers.fetch_sub(1, std::memory_order_seq_cst);
        e->sleeping.notify_one();
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
        unsigned perEngine = options.maxContextsPerEngine;
        if (perEngine == 0 && options.useEnvironment) {
            auto env = envNumber("SPARKSCOPE_MAX_CONTEXTS_PER_ENGINE", RuntimeOptions::kMaxContextsTotal);
            if (!env)
                return env.error();
            perEngine = env.value().value_or(0);
        }
        if (perEngine == 0)
            perEngine = RuntimeOptions::kDefaultMaxContextsPerEngine;
        impl->options.maxContextsPerEngine = perEngine;
        impl->contextLimit = uint32_t(std::min<uint64_t>(uint64_t(perEngine) * n, RuntimeOptions::kMaxContextsTotal));
        std::string path = options.tracePath;
        if (path.empty() && options.useEnvironment) {
            if (const char* env = std::getenv("SPARKSCOPE_TRACE"))
                path = env;
        }
        impl->options.tracePath = path;
        if (options.traceFlushMs == 0 && options.useEnvironment) {
            auto env = envNumber("SPARKSCOPE_TRACE_FLUSH_MS", 3'600'000, " (milliseconds)");
            if (!env)
                return env.error();
            impl->options.traceFlushMs = env.value().value_or(0);
        }
        if (!path.empty()) {
            impl->clock = std::make_unique<TraceClock>();
            auto sink = TraceSink::open(path, n, impl->contextLimit, *impl->clock, impl->options.traceFlushMs);
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
    m_impl->countContext();
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
    s.contextLimit = m_impl->contextLimit;
    s.peakLiveContexts = m_impl->peakLiveContexts.load(std::memory_order_relaxed);
    for (const auto& e : m_impl->engines) {
        s.sparksCreated += e->stats.sparksCreated.load(std::memory_order_relaxed);
        s.sparksRunLocal += e->stats.sparksRunLocal.load(std::memory_order_relaxed);
        s.sparksStolen += e->stats.sparksStolen.load(std::memory_order_relaxed);
        s.suspensions += e->stats.suspensions.load(std::memory_order_relaxed);
        s.stackHandoffs += e->stats.stackHandoffs.load(std::memory_order_relaxed);
    }
    return s;
}

void mark(std::string_view text) noexcept { postText(core::ev::UserMarker, text); }

void message(std::string_view text) noexcept { postText(core::ev::UserMsg, text); }

int currentEngine() noexcept
{
    Engine* e = thisEngine();
    return e ? e->index : -1;
}

} // namespace sparkscope::runtime
