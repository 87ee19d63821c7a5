// Index<T> (indices.h), the typed indexes of the parallel model: none by default, the value kept
// exactly, ordered and hashed as their values, and — the point of them — no conversion between
// two kinds of index nor to or from a plain integer. The conversion checks are static: a change
// that lets one kind pass for another stops this file compiling.
#include "sparkscope/core/indices.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <type_traits>
#include <unordered_set>
#include <vector>

using namespace sparkscope::core;

TEST_CASE("a default index is none and an index made from a value keeps it", "[core][model]")
{
    constexpr ContextIndex none;
    STATIC_REQUIRE(!none.valid());
    STATIC_REQUIRE(none.value() == kNoIndex);
    STATIC_REQUIRE(none == ContextIndex(kNoIndex));
    for (uint32_t v : { 0u, 1u, 41u, 0x7FFFFFFFu, kNoIndex - 1 }) {
        const ConjunctIndex k(v);
        CHECK(k.valid());
        CHECK(k.value() == v);
        CHECK(k == ConjunctIndex(v));
        CHECK(k != ConjunctIndex());
    }
}

TEST_CASE("indexes of one kind order and hash as their values", "[core][model]")
{
    STATIC_REQUIRE(FutureIndex(3) < FutureIndex(4));
    STATIC_REQUIRE(FutureIndex(4) > FutureIndex(3));
    STATIC_REQUIRE(FutureIndex(4) <= FutureIndex(4));
    STATIC_REQUIRE(FutureIndex(5) < FutureIndex()); // none sorts last, as kNoIndex did
    std::vector<ConjunctionIndex> v { ConjunctionIndex(9), ConjunctionIndex(), ConjunctionIndex(2),
        ConjunctionIndex(5) };
    std::sort(v.begin(), v.end());
    CHECK(v
        == std::vector<ConjunctionIndex> {
            ConjunctionIndex(2), ConjunctionIndex(5), ConjunctionIndex(9), ConjunctionIndex() });
    std::unordered_set<ConjunctIndex> set { ConjunctIndex(7), ConjunctIndex(7), ConjunctIndex(8) };
    CHECK(set.size() == 2);
    CHECK(set.count(ConjunctIndex(8)) == 1);
    CHECK(set.count(ConjunctIndex(9)) == 0);
}

TEST_CASE("an index converts to no other kind of index nor to or from an integer", "[core][model]")
{
    // Between kinds: neither implicitly nor explicitly.
    STATIC_REQUIRE(!std::is_convertible_v<ContextIndex, ConjunctIndex>);
    STATIC_REQUIRE(!std::is_constructible_v<ConjunctIndex, ContextIndex>);
    STATIC_REQUIRE(!std::is_convertible_v<ConjunctIndex, ConjunctionIndex>);
    STATIC_REQUIRE(!std::is_convertible_v<FutureIndex, ConjunctIndex>);
    STATIC_REQUIRE(!std::is_assignable_v<ConjunctIndex&, ContextIndex>);
    // To an integer: only through value().
    STATIC_REQUIRE(!std::is_convertible_v<ContextIndex, uint32_t>);
    STATIC_REQUIRE(!std::is_constructible_v<uint32_t, ContextIndex>);
    STATIC_REQUIRE(!std::is_convertible_v<ContextIndex, bool>);
    // From an integer: only explicitly.
    STATIC_REQUIRE(!std::is_convertible_v<uint32_t, ContextIndex>);
    STATIC_REQUIRE(std::is_constructible_v<ContextIndex, uint32_t>);
    STATIC_REQUIRE(!std::is_assignable_v<ContextIndex&, uint32_t>);
    // Different kinds do not compare.
    STATIC_REQUIRE(!std::equality_comparable_with<ContextIndex, ConjunctIndex>);
    STATIC_REQUIRE(!std::equality_comparable_with<ContextIndex, uint32_t>);
}

TEST_CASE("an index costs what a uint32_t costs", "[core][model]")
{
    STATIC_REQUIRE(sizeof(ContextIndex) == 4);
    STATIC_REQUIRE(alignof(ContextIndex) == alignof(uint32_t));
    STATIC_REQUIRE(std::is_trivially_copyable_v<ContextIndex>);
    STATIC_REQUIRE(std::is_trivially_destructible_v<ContextIndex>);
    STATIC_REQUIRE(std::is_nothrow_default_constructible_v<ContextIndex>);
}
