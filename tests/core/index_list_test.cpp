// IndexList (par_model.h), the 16-byte list behind a conjunction's conjuncts and futures: the move
// from its two inline slots to a heap block, copies and moves of both forms, and long random
// sequences of operations checked against std::vector.
#include "sparkscope/core/par_model.h"

#include <catch2/catch.hpp>

#include <random>
#include <utility>
#include <vector>

using namespace sparkscope::core;

namespace {

std::vector<uint32_t> items(const IndexList& l) { return { l.begin(), l.end() }; }

} // namespace

TEST_CASE("an IndexList keeps two items inline and moves to a heap block at the third", "[core][model]")
{
    IndexList l;
    CHECK(l.empty());
    l.push_back(7);
    l.push_back(9);
    const uint32_t* inlineData = l.data();
    // Inline items live inside the object itself.
    CHECK(reinterpret_cast<const char*>(inlineData) >= reinterpret_cast<const char*>(&l));
    CHECK(reinterpret_cast<const char*>(inlineData) < reinterpret_cast<const char*>(&l) + sizeof l);
    l.push_back(11);
    CHECK(items(l) == std::vector<uint32_t> { 7, 9, 11 });
    CHECK((l.data() < reinterpret_cast<const uint32_t*>(&l) || l.data() >= reinterpret_cast<const uint32_t*>(&l + 1)));
    CHECK(l.front() == 7);
    CHECK(l.back() == 11);
    CHECK(l[1] == 9);
    CHECK(l.size() == 3);
}

TEST_CASE("IndexList copies and moves keep the items and leave a moved-from list empty", "[core][model]")
{
    for (size_t n : { 0, 1, 2, 3, 10 }) {
        IndexList a;
        for (uint32_t i = 0; i < n; ++i)
            a.push_back(100 + i);
        IndexList copy(a);
        CHECK(copy == a);
        IndexList assigned { 1, 2, 3, 4, 5 };
        assigned = a;
        CHECK(assigned == a);
        IndexList moved(std::move(copy));
        CHECK(moved == a);
        CHECK(copy.empty());
        IndexList moveAssigned { 42 };
        moveAssigned = std::move(assigned);
        CHECK(moveAssigned == a);
        CHECK(assigned.empty());
        // A moved-from list is usable again.
        assigned.push_back(5);
        CHECK(items(assigned) == std::vector<uint32_t> { 5 });
    }
}

TEST_CASE("random IndexList operations agree with std::vector", "[core][model]")
{
    std::mt19937 rng(4);
    std::vector<IndexList> lists(8);
    std::vector<std::vector<uint32_t>> expected(8);
    for (int step = 0; step < 20000; ++step) {
        const size_t i = rng() % lists.size(), j = rng() % lists.size();
        switch (rng() % 6) {
        case 0:
        case 1:
        case 2: {
            const uint32_t v = rng();
            lists[i].push_back(v);
            expected[i].push_back(v);
            break;
        }
        case 3:
            lists[i] = lists[j];
            expected[i] = expected[j];
            break;
        case 4:
            if (i != j) {
                lists[i] = std::move(lists[j]);
                expected[i] = std::move(expected[j]);
                expected[j].clear();
            }
            break;
        default: {
            const size_t n = rng() % 5;
            std::vector<uint32_t> v(n);
            for (auto& x : v)
                x = rng();
            lists[i].assign(v.begin(), v.end());
            expected[i] = v;
            break;
        }
        }
        REQUIRE(items(lists[i]) == expected[i]);
        REQUIRE(items(lists[j]) == expected[j]);
    }
}
