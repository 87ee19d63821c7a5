#pragma once
// Index<T>: the position of one element in an array of T, kept apart from every other kind of
// index by its type. The parallel model (par_model.h) is four arrays that point into each other —
// a conjunct names its conjunction and its context, a conjunction its parent conjunct, a future its
// conjunction and the conjuncts that waited on it — and as plain uint32_t a context index passed
// where a conjunct index belongs compiled and read the wrong instance. As ContextIndex and
// ConjunctIndex it does not compile. (The same idea as heaptrack's util/indices.h.)
//
// Invariants: holds one uint32_t; the default is "none" (kNoIndex, which no array reaches), tested
// by valid(). It is made from a uint32_t only explicitly and read only through value(): no implicit
// conversion to or from an integer, nor between two kinds of index. Indexes of one kind compare
// and order as their values, and hash as them (std::hash), so they key sorted and hashed sets.
//
// Cost: none. It is 4 bytes, trivially copyable, every member constexpr and inline: arrays of it
// have the layout of arrays of uint32_t and the generated code is the same (the hot passes that
// work on packed raw integers anyway convert at their boundary).
#include <compare>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <type_traits>

namespace sparkscope::core {

inline constexpr uint32_t kNoIndex = 0xFFFFFFFF;

template <class T> class Index { // T: the element type of the array it indexes (a tag only)
public:
    constexpr Index() noexcept = default;
    constexpr explicit Index(uint32_t value) noexcept
        : m_value(value)
    {
    }

    constexpr uint32_t value() const noexcept { return m_value; }
    constexpr bool valid() const noexcept { return m_value != kNoIndex; }

    friend constexpr auto operator<=>(const Index&, const Index&) noexcept = default;

private:
    uint32_t m_value = kNoIndex;
};

// The model's arrays (par_model.h) by what they hold.
struct ContextTimeline;
struct ConjunctionInstance;
struct ConjunctInstance;
struct FutureInstance;

using ContextIndex = Index<ContextTimeline>; // into ParModel::contexts
using ConjunctionIndex = Index<ConjunctionInstance>; // into ParModel::conjunctions
using ConjunctIndex = Index<ConjunctInstance>; // into ParModel::conjuncts
using FutureIndex = Index<FutureInstance>; // into ParModel::futures

static_assert(sizeof(ConjunctIndex) == sizeof(uint32_t) && alignof(ConjunctIndex) == alignof(uint32_t));
static_assert(std::is_trivially_copyable_v<ConjunctIndex> && std::is_standard_layout_v<ConjunctIndex>);

} // namespace sparkscope::core

template <class T> struct std::hash<sparkscope::core::Index<T>> {
    size_t operator()(sparkscope::core::Index<T> i) const noexcept { return std::hash<uint32_t> {}(i.value()); }
};
