#pragma once
// Parallel conjunctions: parConj(g1, g2, ..., gn) runs the goals, possibly in parallel, and returns
// when all have finished (a barrier). It is Mercury's (G1 & G2 & ... & Gn):
//  - the calling context pushes one spark standing for (g2 & ... & gn) and runs g1 itself;
//    whoever runs that spark pushes one for (g3 & ... & gn) and runs g2, and so on;
//  - a conjunct that finishes while others still run first tries to run the conjunction's own
//    remaining spark; the caller suspends at the barrier only if it must, and the last conjunct to
//    finish makes it runnable again;
//  - the code after parConj continues in the calling context; if conjuncts threw, the first
//    exception is rethrown there after the barrier.
// The call site (std::source_location) is the conjunction's static id in the trace.
//
// parConj is a class template used like a function: its deduction guide lets the source location
// be a defaulted argument after the goal pack. Write `parConj(g1, g2);`, never `parConj(g);`
// (one goal would declare a variable) -- a one-goal conjunction is pointless anyway.
// parConjN(n, body) is the form for a number of conjuncts chosen at run time: body(0) & ... &
// body(n-1).
//
// Called outside a Runtime's engines, both run the goals sequentially (in order) on the caller.
// Thread safety: callable from any context concurrently. Cost: when no spark is stolen, a few
// function calls' worth per conjunction (no lock, no allocation, no context switch; figures in
// docs/performance.md, "Runtime"), plus a context switch or two when the caller must wait.
#include <cstddef>
#include <memory>
#include <source_location>
#include <type_traits>
#include <utility>

namespace sparkscope::runtime {

namespace detail {
    // n goals behind one call: call(object, i) runs goal i.
    struct ConjGoals {
        void* object;
        void (*call)(void* object, size_t index);
        size_t count;
    };
    void runParConj(const ConjGoals& goals, const std::source_location& where);

    template <class G> void invokeGoal(void* p) { (*static_cast<std::remove_reference_t<G>*>(p))(); }
    struct GoalPack {
        void* const* objects;
        void (*const* calls)(void*);
    };
    inline void callPacked(void* p, size_t i)
    {
        auto* pack = static_cast<GoalPack*>(p);
        pack->calls[i](pack->objects[i]);
    }
} // namespace detail

template <class... Goals> struct parConj {
    static_assert(sizeof...(Goals) >= 2, "a parallel conjunction needs at least two goals");

    explicit parConj(Goals&&... goals, const std::source_location& where = std::source_location::current())
    {
        void* const objects[] = { const_cast<void*>(static_cast<const void*>(std::addressof(goals)))... };
        static constexpr void (*calls[])(void*) = { &detail::invokeGoal<Goals>... };
        detail::GoalPack pack { objects, calls };
        detail::runParConj({ &pack, &detail::callPacked, sizeof...(Goals) }, where);
    }
};
template <class... Goals> parConj(Goals&&...) -> parConj<Goals...>;

// body(0) & body(1) & ... & body(n-1); n = 0 does nothing, n = 1 just calls body(0).
template <class Body>
void parConjN(size_t n, Body&& body, const std::source_location& where = std::source_location::current())
{
    using B = std::remove_reference_t<Body>;
    detail::runParConj({ const_cast<void*>(static_cast<const void*>(std::addressof(body))),
                           [](void* p, size_t i) { (*static_cast<B*>(p))(i); }, n },
        where);
}

} // namespace sparkscope::runtime
