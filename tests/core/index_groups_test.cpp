// IndexGroups (core/src/metrics/index_groups.h): the counting sort that groups conjunction instances per
// static id for the metrics' summaries.
#include "metrics/index_groups.h"

#include <catch2/catch.hpp>
#include <vector>

using sparkscope::core::detail::IndexGroups;

namespace {
std::vector<uint32_t> membersOf(const IndexGroups& groups, size_t g)
{
    const auto members = groups.members(g);
    return { members.begin(), members.end() };
}
} // namespace

TEST_CASE("IndexGroups lists each group's items in item order and leaves out items without a group", "[core]")
{
    // Items 0..6 with keys 2, 0, none, 2, 1, 0, 7 (7 is not a group of 3): by hand, group 0 holds
    // items 1 and 5, group 1 item 4, group 2 items 0 and 3; items 2 and 6 are in none.
    const std::vector<uint32_t> keys { 2, 0, IndexGroups::kNoGroup, 2, 1, 0, 7 };
    const IndexGroups groups(keys, 3);
    REQUIRE(groups.groupCount() == 3);
    CHECK(membersOf(groups, 0) == std::vector<uint32_t> { 1, 5 });
    CHECK(membersOf(groups, 1) == std::vector<uint32_t> { 4 });
    CHECK(membersOf(groups, 2) == std::vector<uint32_t> { 0, 3 });
}

TEST_CASE("IndexGroups keeps groups that no item has, empty", "[core]")
{
    const std::vector<uint32_t> keys { 1, 1 };
    const IndexGroups groups(keys, 3);
    REQUIRE(groups.groupCount() == 3);
    CHECK(groups.members(0).empty());
    CHECK(membersOf(groups, 1) == std::vector<uint32_t> { 0, 1 });
    CHECK(groups.members(2).empty());
}

TEST_CASE("IndexGroups over no items has empty groups, and a default one has none", "[core]")
{
    const IndexGroups groups(std::vector<uint32_t> {}, 2);
    REQUIRE(groups.groupCount() == 2);
    CHECK(groups.members(0).empty());
    CHECK(groups.members(1).empty());
    CHECK(IndexGroups().groupCount() == 0);
}
