#pragma once
// Sanitizer annotations for switching stacks with Boost.Context.
//
// Debian's Boost 1.74 fcontext fibers do not tell ASan or TSan about stack switches, and both get
// confused without it (TSan keeps one shadow stack per thread; ASan's fake stacks and its
// "stack-buffer-overflow" checks assume one stack per thread). So every switch goes through these
// helpers, which call the sanitizers' documented fiber APIs when the code is built with
// -fsanitize=thread or -fsanitize=address, and compile to nothing otherwise.
#include <cstddef>

#if defined(__SANITIZE_THREAD__)
#define SPARKSCOPE_TSAN 1
#include <sanitizer/tsan_interface.h>
#endif
#if defined(__SANITIZE_ADDRESS__)
#define SPARKSCOPE_ASAN 1
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

namespace sparkscope::runtime::detail {

// The switching state of one OS thread's own stack (an engine's scheduler loop, or the thread
// that tears contexts down).
struct NativeStack {
    void* tsanFiber = nullptr;
    void* asanFakeStack = nullptr;
    const void* bottom = nullptr;
    size_t size = 0;

    void init() noexcept
    {
#if SPARKSCOPE_TSAN
        tsanFiber = __tsan_get_current_fiber();
#endif
    }
};

// The switching state of one context's stack.
struct FiberStack {
    void* tsanFiber = nullptr;
    void* asanFakeStack = nullptr;
    const void* bottom = nullptr;
    size_t size = 0;

    void create() noexcept
    {
#if SPARKSCOPE_TSAN
        tsanFiber = __tsan_create_fiber(0);
#endif
    }
    void destroy() noexcept
    {
#if SPARKSCOPE_TSAN
        if (tsanFiber)
            __tsan_destroy_fiber(tsanFiber);
        tsanFiber = nullptr;
#endif
    }
};

// Around a switch from a thread's stack into a context.
inline void beforeEnterFiber(NativeStack& from, FiberStack& to) noexcept
{
#if SPARKSCOPE_TSAN
    __tsan_switch_to_fiber(to.tsanFiber, 0);
#endif
#if SPARKSCOPE_ASAN
    __sanitizer_start_switch_fiber(&from.asanFakeStack, to.bottom, to.size);
#endif
    (void)from;
    (void)to;
}
inline void afterLeaveFiber(NativeStack& back) noexcept
{
#if SPARKSCOPE_ASAN
    __sanitizer_finish_switch_fiber(back.asanFakeStack, nullptr, nullptr);
#endif
    (void)back;
}

// Around a switch from a context back to the thread's stack. `exiting` = the context's stack is
// about to be freed.
inline void beforeLeaveFiber(FiberStack& from, NativeStack& to, bool exiting) noexcept
{
#if SPARKSCOPE_TSAN
    __tsan_switch_to_fiber(to.tsanFiber, 0);
#endif
#if SPARKSCOPE_ASAN
    __sanitizer_start_switch_fiber(exiting ? nullptr : &from.asanFakeStack, to.bottom, to.size);
#endif
    (void)from;
    (void)to;
    (void)exiting;
}
// On a context, right after it was entered (first time: fakeStack = nullptr) or resumed: learns the
// bounds of the thread stack it came from.
inline void afterEnterFiber(FiberStack& self, NativeStack& from, bool first) noexcept
{
#if SPARKSCOPE_ASAN
    __sanitizer_finish_switch_fiber(first ? nullptr : self.asanFakeStack, &from.bottom, &from.size);
#endif
    (void)self;
    (void)from;
    (void)first;
}

} // namespace sparkscope::runtime::detail
