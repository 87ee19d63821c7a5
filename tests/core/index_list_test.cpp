// IndexList<I> (par_model.h), the 16-byte list behind a conjunction's conjuncts and futures: the
// move from its two inline slots to a heap block, copies and moves of both forms, and long random
// sequences of operations checked against std::vector. Lists of conjunct indexes, compared by value.
#include "sparkscope/core/par_model.h"

#include <catch2/catch.hpp>

#include <random>
#include <utility>
#include <vector>

using namespace sparkscope::core;

namespace {

using List = IndexList<ConjunctIndex>;

ConjunctIndex k(uint32_t v) { return ConjunctIndex(v); }

std::vector<uint32_t> items(const List& l)
{
    std::vector<uint32_t> out;
    for (ConjunctIndex i : l)
        out.push_back(i.value());
    return out;
}

} // namespace

TEST_CASE("an IndexList keeps two items inline and moves to a heap block at the third", "[core][model]")
{
    List l;
    CHECK(l.empty());
    l.push_back(k(7));
    l.push_back(k(9));
    const ConjunctIndex* inlineData = l.data();
    // Inline items live inside the object itself.
    CHECK(reinterpret_cast<const char*>(inlineData) >= reinterpret_cast<const char*>(&l));
    CHECK(reinterpret_cast<const char*>(inlineData) < reinterpret_cast<const char*>(&l) + sizeof l);
    l.push_back(k(11));
    CHECK(items(l) == std::vector<uint32_t> { 7, 9, 11 });
    CHECK((reinterpret_cast<const char*>(l.data()) < reinterpret_cast<const char*>(&l)
        || reinterpret_cast<const char*>(l.data()) >= reinterpret_cast<const char*>(&l + 1)));
    CHECK(l.front() == k(7));
    CHECK(l.back() == k(11));
    CHECK(l[1] == k(9));
    CHECK(l.size() == 3);
}

TEST_CASE("IndexList copies and moves keep the items and leave a moved-from list empty", "[core][model]")
{
    for (size_t n : { 0, 1, 2, 3, 10 }) {
        List a;
        for (uint32_t i = 0; i < n; ++i)
            a.push_back(k(100 + i));
        List copy(a);
        CHECK(copy == a);
        List assigned { k(1), k(2), k(3), k(4), k(5) };
        assigned = a;
        CHECK(assigned == a);
        List moved(std::move(copy));
        CHECK(moved == a);
        CHECK(copy.empty());
        List moveAssigned { k(42) };
        moveAssigned = std::move(assigned);
        CHECK(moveAssigned == a);
        CHECK(assigned.empty());
        // A moved-from list is usable again.
        assigned.push_back(k(5));
        CHECK(items(assigned) == std::vector<uint32_t> { 5 });
    }
}

TEST_CASE("random IndexList operations agree with std::vector", "[core][model]")
{
    std::mt19937 rng(4);
    std::vector<List> lists(8);
    std::vector<std::vector<uint32_t>> expected(8);
    for (int step = 0; step < 20000; ++step) {
        const size_t i = rng() % lists.size(), j = rng() % lists.size();
        switch (rng() % 6) {
        case 0:
        case 1:
        case 2: {
            const uint32_t v = rng();
            lists[i].push_back(k(v));
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
            std::vector<ConjunctIndex> typed;
            for (auto& x : v) {
                x = rng();
                typed.push_back(k(x));
            }
            lists[i].assign(typed.begin(), typed.end());
            expected[i] = v;
            break;
        }
        }
        REQUIRE(items(lists[i]) == expected[i]);
        REQUIRE(items(lists[j]) == expected[j]);
    }
}
