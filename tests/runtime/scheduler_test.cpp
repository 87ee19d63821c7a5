// Scheduler stress and semantics: results of parallel conjunctions, nesting, recursion, exceptions
// and futures under several engine counts. Results are checked against sequential computations.
#include "sparkscope/runtime/future.h"
#include "sparkscope/runtime/par_conj.h"
#include "sparkscope/runtime/runtime.h"

#include <catch2/catch.hpp>

#include <atomic>
#include <memory>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

using namespace sparkscope::runtime;

namespace {

std::unique_ptr<Runtime> makeRuntime(unsigned engines, size_t stackBytes = 256 * 1024)
{
    RuntimeOptions o;
    o.engines = engines;
    o.useEnvironment = false;
    o.stackBytes = stackBytes;
    auto rt = Runtime::create(o);
    REQUIRE(rt.ok());
    return std::move(rt.value());
}

uint64_t parfib(int n)
{
    if (n < 2)
        return uint64_t(n);
    uint64_t a = 0, b = 0;
    parConj([&] { a = parfib(n - 1); }, [&] { b = parfib(n - 2); });
    return a + b;
}

uint64_t seqfib(int n) { return n < 2 ? uint64_t(n) : seqfib(n - 1) + seqfib(n - 2); }

// Sum of [lo, hi) by a binary tree of conjunctions: hi - lo - 1 conjunctions.
uint64_t treeSum(uint64_t lo, uint64_t hi)
{
    if (hi - lo == 1)
        return lo;
    uint64_t mid = lo + (hi - lo) / 2, a = 0, b = 0;
    parConj([&] { a = treeSum(lo, mid); }, [&] { b = treeSum(mid, hi); });
    return a + b;
}

} // namespace

TEST_CASE("a parallel conjunction runs every goal once and continues after all finished", "[runtime]")
{
    for (unsigned engines : { 1u, 2u, 4u }) {
        auto rt = makeRuntime(engines);
        std::vector<int> hits(5, 0);
        bool after = false;
        REQUIRE(rt->run([&] {
                      parConj([&] { hits[0]++; }, [&] { hits[1]++; }, [&] { hits[2]++; }, [&] { hits[3]++; },
                          [&] { hits[4]++; });
                      after = true;
                  }).ok());
        CHECK(hits == std::vector<int>(5, 1));
        CHECK(after);
    }
}

TEST_CASE("parfib with nested conjunctions gives fib on 1, 2 and 4 engines", "[runtime]")
{
    for (unsigned engines : { 1u, 2u, 4u }) {
        auto rt = makeRuntime(engines);
        uint64_t r = 0;
        REQUIRE(rt->run([&] { r = parfib(22); }).ok());
        CHECK(r == seqfib(22)); // 17711
        auto st = rt->stats();
        CHECK(st.sparksCreated == 28656); // one spark per conjunction: fib(23) - 1 conjunctions
        CHECK(st.sparksRunLocal + st.sparksStolen == st.sparksCreated);
        if (engines == 1)
            CHECK(st.sparksStolen == 0);
    }
}

TEST_CASE("hundreds of thousands of conjunctions complete with the right sum", "[runtime]")
{
    auto rt = makeRuntime(2);
    const uint64_t n = 1u << 18; // 262,143 conjunctions
    uint64_t r = 0;
    REQUIRE(rt->run([&] { r = treeSum(0, n); }).ok());
    CHECK(r == n * (n - 1) / 2);
    const RuntimeStats st = rt->stats();
    CHECK(st.sparksCreated == n - 1);
    // Many steals find nothing: a context reserved for one and taken back is no live context, so the
    // peak never passes the contexts there are (it did, now and then, when reservations raised it).
    INFO("peak live " << st.peakLiveContexts << ", created " << st.contextsCreated);
    CHECK(st.peakLiveContexts >= 1);
    CHECK(st.peakLiveContexts <= st.contextsCreated);
}

TEST_CASE("parConjN runs a number of conjuncts chosen at run time", "[runtime]")
{
    auto rt = makeRuntime(3);
    for (size_t n : { size_t(0), size_t(1), size_t(2), size_t(7), size_t(100) }) {
        std::vector<std::atomic<int>> hits(n);
        REQUIRE(rt->run([&] { parConjN(n, [&](size_t i) { hits[i].fetch_add(int(i) + 1); }); }).ok());
        for (size_t i = 0; i < n; ++i)
            CHECK(hits[i].load() == int(i) + 1);
    }
}

TEST_CASE("deep recursion inside conjuncts and deeply nested conjunctions work", "[runtime]")
{
    auto rt = makeRuntime(2, 16 * 1024 * 1024); // room for unoptimised sanitizer builds too
    // A chain of 2,000 nested conjunctions: each level's first conjunct is the next level.
    struct Chain {
        static uint64_t run(int depth)
        {
            if (depth == 0)
                return 0;
            uint64_t a = 0, b = 0;
            parConj([&] { a = run(depth - 1); }, [&] { b = uint64_t(depth); });
            return a + b;
        }
        static uint64_t recurse(uint64_t n)
        {
            volatile uint64_t keep = n; // a real frame per level
            return keep == 0 ? 0 : 1 + recurse(keep - 1);
        }
    };
    uint64_t chain = 0, deep1 = 0, deep2 = 0;
    REQUIRE(rt->run([&] {
                  parConj([&] { chain = Chain::run(2000); }, [&] { deep1 = Chain::recurse(20000); },
                      [&] { deep2 = Chain::recurse(20000); });
              }).ok());
    CHECK(chain == 2000ull * 2001 / 2);
    CHECK(deep1 == 20000);
    CHECK(deep2 == 20000);
}

TEST_CASE("an exception from a conjunct is rethrown after the barrier in the original context", "[runtime]")
{
    auto rt = makeRuntime(2);
    std::atomic<int> ran { 0 };
    std::string caught;
    REQUIRE(rt->run([&] {
                  for (int round = 0; round < 200; ++round) {
                      try {
                          parConj([&] { ran++; },
                              [&] {
                                  ran++;
                                  throw std::runtime_error("conjunct 2 failed");
                              },
                              [&] { ran++; });
                      } catch (const std::runtime_error& ex) {
                          caught = ex.what();
                      }
                  }
              }).ok());
    CHECK(ran.load() == 600); // every conjunct ran despite the exception
    CHECK(caught == "conjunct 2 failed");

    auto r = rt->run([] { throw std::logic_error("main failed"); });
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message.find("main failed") != std::string::npos);
}

TEST_CASE("futures pass values between conjuncts and a waiting consumer suspends", "[runtime]")
{
    auto rt = makeRuntime(2);
    for (int round = 0; round < 50; ++round) {
        int got = 0, got2 = 0;
        REQUIRE(rt->run([&] {
                      Future<int> f("x");
                      parConj([&] { got = f.wait() + 1; },
                          [&] {
                              std::this_thread::sleep_for(std::chrono::microseconds(200));
                              f.signal(41);
                          },
                          [&] { got2 = f.wait() * 2; });
                  }).ok());
        CHECK(got == 42);
        CHECK(got2 == 82);
    }
    CHECK(rt->stats().suspensions > 0);
}

TEST_CASE("parConj and futures work off the engines, sequentially", "[runtime]")
{
    int a = 0, b = 0;
    parConj([&] { a = 1; }, [&] { b = 2; });
    CHECK(a + b == 3);
    Future<int> f("plain");
    std::thread t([&] { f.signal(7); });
    CHECK(f.wait() == 7);
    t.join();
}

namespace {

// A random tree of conjunctions with futures between siblings. Each node's value is the sum of its
// children's values; leaf i contributes a pseudo-random value; some children also consume a
// future produced by a sibling (before or after them) and add it.
struct RandomTree {
    struct Node {
        uint64_t leafValue = 0;
        std::vector<Node> children;
        std::vector<int> consumes; // per child: index of the sibling whose future it adds, or -1
    };
    static Node build(std::mt19937& rng, int depth)
    {
        Node n;
        n.leafValue = rng() % 1000;
        if (depth == 0 || rng() % 4 == 0)
            return n;
        size_t k = 2 + rng() % 4;
        for (size_t i = 0; i < k; ++i)
            n.children.push_back(build(rng, depth - 1));
        n.consumes.assign(k, -1);
        for (size_t i = 0; i < k; ++i)
            if (rng() % 3 == 0) {
                size_t j = rng() % k;
                if (j != i)
                    n.consumes[i] = int(j);
            }
        return n;
    }
    // Sequential meaning: value(child) + value(consumed sibling) for each child.
    static uint64_t expected(const Node& n)
    {
        if (n.children.empty())
            return n.leafValue;
        uint64_t sum = 0;
        for (size_t i = 0; i < n.children.size(); ++i) {
            sum += expected(n.children[i]);
            if (n.consumes[i] >= 0)
                sum += expected(n.children[size_t(n.consumes[i])]);
        }
        return sum;
    }
    static uint64_t parallel(const Node& n)
    {
        if (n.children.empty())
            return n.leafValue;
        const size_t k = n.children.size();
        std::vector<std::unique_ptr<Future<uint64_t>>> futures(k);
        for (size_t i = 0; i < k; ++i)
            futures[i] = std::make_unique<Future<uint64_t>>("child");
        std::vector<uint64_t> out(k);
        parConjN(k, [&](size_t i) {
            uint64_t v = parallel(n.children[i]);
            futures[i]->signal(v);
            out[i] = v + (n.consumes[i] >= 0 ? futures[size_t(n.consumes[i])]->wait() : 0);
        });
        uint64_t sum = 0;
        for (uint64_t v : out)
            sum += v;
        return sum;
    }
};

} // namespace

TEST_CASE("random conjunction trees with futures between siblings give the sequential result", "[runtime]")
{
    auto rt = makeRuntime(4);
    std::mt19937 rng(12345);
    for (int round = 0; round < 40; ++round) {
        auto tree = RandomTree::build(rng, 6);
        uint64_t want = RandomTree::expected(tree), got = 0;
        REQUIRE(rt->run([&] { got = RandomTree::parallel(tree); }).ok());
        REQUIRE(got == want);
    }
}
