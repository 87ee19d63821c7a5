#pragma once
// Future<T>: a value produced by one conjunct and consumed by others (Mercury's futures).
// Create it before the conjunction that uses it (the trace posts FUT_CREATE with its name);
// the producer calls signal(value) exactly once; consumers call wait(), which returns at once if
// the value is there (FUT_WAIT_NOSUSPEND) and otherwise suspends the calling context
// (FUT_WAIT_SUSPENDED, STOP_THREAD blocked) until signal() makes it runnable again.
//
// Invariants: signalled at most once (a second signal() aborts with a message: it is a program
// bug). The value is immutable after signal(). Thread safety: signal and wait from any contexts
// (or plain threads, which block instead of suspending). Cost: wait on a signalled future is one
// atomic load; signal is one atomic exchange plus a wake-up per suspended waiter.
#include <atomic>
#include <cstdint>
#include <optional>
#include <source_location>
#include <string_view>
#include <utility>

namespace sparkscope::runtime {

namespace detail {
    // The type-independent part: signalled flag and the list of suspended waiters.
    class FutureCore {
    public:
        FutureCore(std::string_view name, const std::source_location& where) noexcept;
        FutureCore(const FutureCore&) = delete;
        FutureCore& operator=(const FutureCore&) = delete;
        ~FutureCore();

        void waitSignalled() noexcept;
        void markSignalled() noexcept;
        [[noreturn]] static void signalledTwice() noexcept;
        bool signalled() const noexcept { return m_state.load(std::memory_order_acquire) == kSignalled; }

    private:
        static constexpr uintptr_t kSignalled = 1;
        // 0 = not signalled, no waiters; 1 = signalled; otherwise the head of the intrusive list of
        // suspended waiting contexts.
        std::atomic<uintptr_t> m_state { 0 };
    };
} // namespace detail

template <class T> class Future {
public:
    explicit Future(
        std::string_view name = "future", const std::source_location& where = std::source_location::current())
        : m_core(name, where)
    {
    }

    void signal(T value)
    {
        if (m_core.signalled())
            detail::FutureCore::signalledTwice();
        m_value.emplace(std::move(value));
        m_core.markSignalled();
    }
    const T& wait()
    {
        m_core.waitSignalled();
        return *m_value;
    }
    bool ready() const noexcept { return m_core.signalled(); }

private:
    std::optional<T> m_value;
    detail::FutureCore m_core;
};

} // namespace sparkscope::runtime
