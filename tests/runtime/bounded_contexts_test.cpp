// The bound on live contexts (RuntimeOptions::maxContextsPerEngine; engine.cpp, "Bounded contexts"):
// a right recursion a million levels deep completes with the live contexts within the bound (plus
// the fresh stacks the recursion needs), futures cannot deadlock under a bound of one context, and
// a traced deep recursion passes core's check with the conjunction and context counts it must have.
#include "trace_checks.h"

#include "sparkscope/core/check_model.h"
#include "sparkscope/core/metrics.h"
#include "sparkscope/core/par_model.h"
#include "sparkscope/core/reader.h"
#include "sparkscope/runtime/future.h"
#include "sparkscope/runtime/par_conj.h"
#include "sparkscope/runtime/runtime.h"
#include "support/test_data.h"

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <random>
#include <sched.h>
#include <set>
#include <thread>
#include <vector>

using namespace sparkscope;
using namespace sparkscope::runtime;

namespace {

// Levels of the deep recursion: a million in the release build; fewer under the sanitizers, whose
// unoptimised frames are several times larger (and TSan's switches slower), still far past the
// bound. kOneStackLevels: as many as a 64 MB stack holds with room to spare in every build.
#if defined(__SANITIZE_THREAD__)
constexpr uint64_t kDeepLevels = 60'000, kOneStackLevels = 3'000;
#elif defined(__SANITIZE_ADDRESS__)
constexpr uint64_t kDeepLevels = 250'000, kOneStackLevels = 5'000;
#else
constexpr uint64_t kDeepLevels = 1'000'000, kOneStackLevels = 50'000;
#endif

std::unique_ptr<Runtime> makeRuntime(unsigned engines, unsigned maxContextsPerEngine, std::string tracePath = {})
{
    RuntimeOptions o;
    o.engines = engines;
    o.useEnvironment = false;
    o.maxContextsPerEngine = maxContextsPerEngine;
    o.tracePath = std::move(tracePath);
    auto rt = Runtime::create(o);
    REQUIRE(rt.ok());
    return std::move(rt.value());
}

// A little work per level, so that the other engine steals now and then (a steal needs the spark
// to stay in the deque while this conjunct runs).
uint64_t cellValue(uint64_t i)
{
    uint64_t x = i + 1;
    for (int r = 0; r < 8; ++r)
        x = x * 6364136223846793005ull + 1442695040888963407ull;
    return x >> 40;
}

// Mercury's `sum([H | T]) = cell(H) + sum(T)` with the two sides in parallel: levels from `i` on,
// each one nested parallel conjunction whose second conjunct is the rest of the recursion.
uint64_t rightSum(uint64_t i, uint64_t levels)
{
    if (i + 1 == levels)
        return cellValue(i);
    uint64_t here = 0, rest = 0;
    parConj([&] { here = cellValue(i); }, [&] { rest = rightSum(i + 1, levels); });
    return here + rest;
}

uint64_t rightSumExpected(uint64_t levels)
{
    uint64_t s = 0;
    for (uint64_t i = 0; i < levels; ++i)
        s += cellValue(i);
    return s;
}

core::Trace readBack(const std::string& path)
{
    core::ReadOptions o;
    o.threads = 1; // TBB's prebuilt library is not instrumented for TSan
    auto t = core::readTrace(path, o);
    INFO(path << ": " << (t.ok() ? "" : t.error().toString()));
    REQUIRE(t.ok());
    return std::move(t.value());
}

} // namespace

TEST_CASE("the context bound defaults to 64 per engine and is capped in total", "[runtime]")
{
    CHECK(makeRuntime(2, 0)->stats().contextLimit == 128);
    CHECK(makeRuntime(3, 5)->stats().contextLimit == 15);
    CHECK(makeRuntime(2, RuntimeOptions::kMaxContextsTotal)->stats().contextLimit == RuntimeOptions::kMaxContextsTotal);
}

TEST_CASE("the context bound comes from SPARKSCOPE_MAX_CONTEXTS_PER_ENGINE, and a bad value is refused", "[runtime]")
{
    RuntimeOptions o;
    o.engines = 2;
    ::setenv("SPARKSCOPE_MAX_CONTEXTS_PER_ENGINE", "7", 1);
    auto rt = Runtime::create(o);
    REQUIRE(rt.ok());
    CHECK(rt.value()->stats().contextLimit == 14);
    rt.value().reset();
    o.maxContextsPerEngine = 3; // the option wins over the variable
    rt = Runtime::create(o);
    REQUIRE(rt.ok());
    CHECK(rt.value()->stats().contextLimit == 6);
    rt.value().reset();
    o.maxContextsPerEngine = 0;
    ::setenv("SPARKSCOPE_MAX_CONTEXTS_PER_ENGINE", "lots", 1);
    rt = Runtime::create(o);
    REQUIRE_FALSE(rt.ok());
    CHECK(rt.error().message.find("SPARKSCOPE_MAX_CONTEXTS_PER_ENGINE") != std::string::npos);
    ::unsetenv("SPARKSCOPE_MAX_CONTEXTS_PER_ENGINE");
}

TEST_CASE("a right recursion a million levels deep completes on 2 engines within the context bound", "[runtime]")
{
    // Without the bound each stolen level kept a blocked context, and ~32,000 of them exhausted the
    // kernel's map limit; with it, steals that need a new context stop at 2 x 2 live contexts. The
    // levels that pile up on one context then move to a fresh stack when three quarters of it are
    // used (stackHandoffs), so the live contexts are bounded by the limit plus those hand-overs.
    auto rt = makeRuntime(2, 2);
    uint64_t got = 0;
    REQUIRE(rt->run([&] { got = rightSum(0, kDeepLevels); }).ok());
    CHECK(got == rightSumExpected(kDeepLevels));
    const RuntimeStats st = rt->stats();
    INFO("peak live " << st.peakLiveContexts << ", limit " << st.contextLimit << ", stack hand-overs "
                      << st.stackHandoffs << ", stolen " << st.sparksStolen << ", created " << st.contextsCreated);
    CHECK(st.contextLimit == 4);
    CHECK(st.sparksCreated == kDeepLevels - 1); // one conjunction per level but the last
    CHECK(st.sparksRunLocal + st.sparksStolen == st.sparksCreated);
    // No context is released before the recursion unwinds, when no spark is left: every steal
    // reserved a context while fewer than the limit (main's among them) were live.
    CHECK(st.sparksStolen <= st.contextLimit - 1);
    CHECK(st.stackHandoffs > st.contextLimit); // far past the bound
    CHECK(st.peakLiveContexts <= st.contextLimit + st.stackHandoffs);
    CHECK(st.contextsCreated == st.peakLiveContexts); // a fresh runtime: nothing released to reuse
}

TEST_CASE("the same deep recursion with one context per engine and a stack that holds it all", "[runtime]")
{
    // With room for every level on one stack there is no hand-over, and the live contexts never
    // exceed the bound of 2 at all.
    RuntimeOptions o;
    o.engines = 2;
    o.useEnvironment = false;
    o.maxContextsPerEngine = 1;
    const uint64_t levels = kOneStackLevels;
    o.stackBytes = 64 * 1024 * 1024;
    auto rt = Runtime::create(o);
    REQUIRE(rt.ok());
    uint64_t got = 0;
    REQUIRE(rt.value()->run([&] { got = rightSum(0, levels); }).ok());
    CHECK(got == rightSumExpected(levels));
    const RuntimeStats st = rt.value()->stats();
    CHECK(st.stackHandoffs == 0);
    CHECK(st.peakLiveContexts <= 2);
    CHECK(st.sparksStolen <= 1);
}

TEST_CASE("steals stop at the bound in a right recursion whose conjuncts take a while", "[runtime]")
{
    // Each level's first conjunct sleeps, so the other engine has time to steal the rest while the
    // bound allows (how many it gets depends on timing; the bounds checked here do not). The stack
    // holds every level, so no hand-over adds contexts: the live contexts stay within the bound.
    RuntimeOptions o;
    o.engines = 2;
    o.useEnvironment = false;
    o.maxContextsPerEngine = 3;
    o.stackBytes = 16 * 1024 * 1024;
    auto rt = Runtime::create(o);
    REQUIRE(rt.ok());
    struct Slow {
        static uint64_t run(uint64_t i, uint64_t levels)
        {
            if (i == levels)
                return 0;
            uint64_t here = 0, rest = 0;
            parConj(
                [&] {
                    std::this_thread::sleep_for(std::chrono::microseconds(200));
                    here = i;
                },
                [&] { rest = run(i + 1, levels); });
            return here + rest;
        }
    };
    const uint64_t levels = 300;
    uint64_t got = 0;
    REQUIRE(rt.value()->run([&] { got = Slow::run(0, levels); }).ok());
    CHECK(got == levels * (levels - 1) / 2);
    const RuntimeStats st = rt.value()->stats();
    INFO("stolen " << st.sparksStolen << ", peak live " << st.peakLiveContexts);
    CHECK(st.contextLimit == 6);
    CHECK(st.stackHandoffs == 0);
    CHECK(st.sparksStolen <= st.contextLimit - 1);
    CHECK(st.peakLiveContexts <= st.contextLimit);
}

TEST_CASE("a conjunct waiting for its later sibling's future cannot deadlock under a bound of one context", "[runtime]")
{
    // One engine and a bound of one live context, which main holds: no steal is ever allowed. Each
    // level's first conjunct waits for a future its second conjunct signals, so the first always
    // suspends (one engine: the second has not started) and the second must run on a context of its
    // own, made past the bound from the engine's own deque. A runtime that refused that context, or
    // that ran the waiting level's spark on top of the suspended frame, would hang here.
    auto rt = makeRuntime(1, 1);
    struct Chain {
        static uint64_t run(uint64_t depth)
        {
            if (depth == 0)
                return 0;
            Future<uint64_t> started("started");
            uint64_t seen = 0, rest = 0;
            parConj([&] { seen = started.wait(); },
                [&] {
                    started.signal(depth);
                    rest = run(depth - 1);
                });
            return seen + rest;
        }
    };
    const uint64_t depth = 300;
    uint64_t got = 0;
    REQUIRE(rt->run([&] { got = Chain::run(depth); }).ok());
    CHECK(got == depth * (depth + 1) / 2);
    const RuntimeStats st = rt->stats();
    CHECK(st.contextLimit == 1);
    CHECK(st.sparksStolen == 0);
    // Every first conjunct waits (depth suspensions). The woken parent then finds its sibling still
    // running deeper levels and parks at the barrier too, except at the last level, whose sibling
    // has finished by then: 2 x depth - 1.
    CHECK(st.suspensions == 2 * depth - 1);
    CHECK(st.contextsCreated == depth + 1); // main, and one per level for the signalling sibling
    CHECK(st.peakLiveContexts == depth + 1);
}

namespace {

// Random conjunction trees whose conjuncts wait for futures of siblings before or after them (the
// consumer may come first): every wait needs its producer to run elsewhere.
struct FutureTree {
    struct Node {
        uint64_t leaf = 0;
        std::vector<Node> children;
        std::vector<int> waitsFor; // per child: the sibling whose value it adds, or -1
    };
    static Node build(std::mt19937& rng, int depth)
    {
        Node n;
        n.leaf = rng() % 1000;
        if (depth == 0 || rng() % 5 == 0)
            return n;
        const size_t k = 2 + rng() % 3;
        for (size_t i = 0; i < k; ++i)
            n.children.push_back(build(rng, depth - 1));
        n.waitsFor.assign(k, -1);
        for (size_t i = 0; i < k; ++i)
            if (size_t j = rng() % k; j != i && rng() % 2 == 0)
                n.waitsFor[i] = int(j);
        return n;
    }
    static uint64_t expected(const Node& n)
    {
        if (n.children.empty())
            return n.leaf;
        uint64_t s = 0;
        for (size_t i = 0; i < n.children.size(); ++i)
            s += expected(n.children[i]) + (n.waitsFor[i] >= 0 ? expected(n.children[size_t(n.waitsFor[i])]) : 0);
        return s;
    }
    static uint64_t parallel(const Node& n)
    {
        if (n.children.empty())
            return n.leaf;
        const size_t k = n.children.size();
        std::vector<std::unique_ptr<Future<uint64_t>>> f(k);
        for (auto& p : f)
            p = std::make_unique<Future<uint64_t>>("sibling");
        std::vector<uint64_t> out(k);
        parConjN(k, [&](size_t i) {
            const uint64_t v = parallel(n.children[i]);
            f[i]->signal(v);
            out[i] = v + (n.waitsFor[i] >= 0 ? f[size_t(n.waitsFor[i])]->wait() : 0);
        });
        uint64_t s = 0;
        for (uint64_t v : out)
            s += v;
        return s;
    }
};

} // namespace

TEST_CASE("futures between siblings give the sequential result under a bound of one context per engine", "[runtime]")
{
    std::mt19937 rng(20240611);
    for (unsigned engines : { 1u, 2u, 4u }) {
        auto rt = makeRuntime(engines, 1);
        for (int round = 0; round < 15; ++round) {
            const auto tree = FutureTree::build(rng, 6);
            uint64_t got = 0;
            REQUIRE(rt->run([&] { got = FutureTree::parallel(tree); }).ok());
            REQUIRE(got == FutureTree::expected(tree));
        }
    }
}

TEST_CASE("a traced deep recursion under the bound passes core's check with the counts it must have", "[runtime]")
{
    const auto path = (test::scratchDir("runtime-bounded") / "deep.eventlog").string();
    const uint64_t levels = 20'000;
    RuntimeStats st;
    {
        auto rt = makeRuntime(2, 2, path);
        uint64_t got = 0;
        REQUIRE(rt->run([&] { got = rightSum(0, levels); }).ok());
        CHECK(got == rightSumExpected(levels));
        st = rt->stats();
        CHECK_FALSE(rt->traceFailed());
    }
    const core::Trace t = readBack(path);
    auto s = test::checkRuntimeTrace(t);
    std::string runtimeProblems;
    for (const auto& p : s.problems)
        runtimeProblems += p + "\n";
    INFO(runtimeProblems);
    CHECK(s.problems.empty());
    std::string modelProblems;
    for (const auto& p : core::checkModel(t))
        if (!p.isNote)
            modelProblems += p.message + "\n";
    CHECK(modelProblems == "");

    // One conjunction per level but the last, each with one spark, run here or stolen.
    CHECK(s.conjunctions == levels - 1);
    CHECK(s.conjunctEnds == 2 * (levels - 1));
    CHECK(s.counts[core::ev::MerSparkCreate] == levels - 1);
    CHECK(s.counts[core::ev::MerSparkRun] == st.sparksRunLocal);
    CHECK(s.counts[core::ev::MerSparkSteal] == st.sparksStolen);
    // Contexts: main (CREATE_THREAD), and one CREATE_SPARK_THREAD per context made for a spark.
    CHECK(s.counts[core::ev::CreateThread] == 1);
    CHECK(s.counts[core::ev::CreateSparkThread] == st.contextsCreated - 1);
    CHECK(st.contextsCreated <= st.contextLimit + st.stackHandoffs);
    CHECK(s.counts[core::ev::MerReleaseContext] == st.contextsCreated); // all released by the end
    CHECK(st.peakLiveContexts <= st.contextsCreated);

    // The model sees the same: the conjunction instances, their nesting a chain, and the contexts.
    const core::ParModel m = core::buildParModel(t);
    CHECK(m.conjunctions.size() == levels - 1);
    size_t maxDepth = 0;
    for (const auto& c : m.conjunctions)
        maxDepth = std::max<size_t>(maxDepth, c.depth);
    CHECK(maxDepth + 1 == levels - 1); // each level nested in the one before
    std::set<uint32_t> contextIds;
    for (const auto& c : m.contexts)
        contextIds.insert(c.id);
    CHECK(contextIds.size() == st.contextsCreated);
    CHECK(m.contextCreations.size() == st.contextsCreated); // CREATE_THREAD and each CREATE_SPARK_THREAD
    CHECK(m.contextReleases.size() == st.contextsCreated);
    // The trace names the limit (its RTS_IDENTIFIER), which the analysis' findings read.
    CHECK(core::contextLimitOf(t) == std::optional<uint64_t>(st.contextLimit));
    CHECK(st.contextLimit == 4);
    // And the CPUs this process may run on (its affinity), which the findings set against the engines.
    cpu_set_t cpus;
    CPU_ZERO(&cpus);
    REQUIRE(sched_getaffinity(0, sizeof(cpus), &cpus) == 0);
    CHECK(core::cpusOf(t) == std::optional<uint64_t>(uint64_t(CPU_COUNT(&cpus))));
    CHECK_FALSE(core::flushMsOf(t)); // no flush interval asked for
}
