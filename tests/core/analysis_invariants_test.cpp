// Invariants of the analysis on random runtime-like traces (metrics_sim.h) and on every demo
// workload's trace:
//   the ledger sums exactly: to engines × range, each engine to the range, each static id to
//   engines × its covered time; work = the ledger's running time; span ≤ work, span ≤ the range;
//   the critical path is contiguous, length = running + waiting, running ≤ span;
//   per instance: span ≤ work and span ≤ the instance's duration;
//   the longest paths (a depth-first pass over strands, with the Fork shortcut for instances) equal a
//   brute-force computation over the same DAG: explicit successor lists in Kahn's order, and for each
//   instance the same over its sub-DAG alone;
//   the same sums on a random range of each trace.
#include "analysis/engine_activity.h"
#include "analysis/run_dag.h"
#include "analysis_test_util.h"
#include "metrics_sim.h"
#include "sparkscope/core/analysis.h"
#include "sparkscope/core/reader.h"
#include "support/test_data.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <deque>
#include <filesystem>
#include <random>

using namespace sparkscope::core;
using namespace sparkscope::core::detail;

namespace {

// Longest paths by Kahn's algorithm over the nodes of the strands `inside` admits.
template <class Inside>
std::vector<uint64_t> bruteForceDepths(const RunDag& dag, const std::vector<uint64_t>& weights, Inside inside)
{
    const size_t n = dag.cutCount();
    std::vector<std::vector<uint32_t>> successors(n);
    std::vector<uint32_t> pending(n, 0);
    std::vector<uint64_t> depth(n, 0);
    std::deque<uint32_t> ready;
    for (uint32_t s = 0; s < dag.strandCount(); ++s) {
        if (!inside(s) || dag.firstNode(s) == kNoIndex)
            continue;
        for (uint32_t g = dag.firstNode(s); g <= dag.lastNode(s); ++g) {
            dag.forEachPred(g, s, [&](uint32_t p, uint32_t ps, bool) {
                if (inside(ps)) {
                    successors[p].push_back(g);
                    ++pending[g];
                }
            });
            if (pending[g] == 0)
                ready.push_back(g);
        }
    }
    while (!ready.empty()) {
        const uint32_t g = ready.front();
        ready.pop_front();
        depth[g] += weights[g];
        for (uint32_t next : successors[g]) {
            depth[next] = std::max(depth[next], depth[g]);
            if (--pending[next] == 0)
                ready.push_back(next);
        }
    }
    return depth;
}

// The analysis's span and per-instance spans against the brute force over the same DAG.
void checkAgainstBruteForce(const Trace& trace, const Analysis& a)
{
    const ParModel model = buildParModel(trace);
    const EngineStates states = computeEngineStates(trace);
    const EngineActivity activity(trace, states, model);
    const RunDag dag(model);
    const std::vector<uint64_t> weights = dag.weights(activity, trace.firstTimeNs, trace.lastTimeNs);
    const auto depth = bruteForceDepths(dag, weights, [](uint32_t) { return true; });
    CHECK(*std::max_element(depth.begin(), depth.end()) == *a.workSpan.spanNs);
    for (const SiteWorkSpan& site : a.workSpan.perConjunction)
        for (const InstanceWorkSpan& i : site.instances) {
            std::vector<uint8_t> inside(dag.strandCount(), 0);
            std::vector<uint32_t> todo { i.instance };
            while (!todo.empty()) {
                const uint32_t j = todo.back();
                todo.pop_back();
                for (uint32_t k : model.conjunctions[j].conjuncts) {
                    inside[k] = 1;
                    for (uint32_t child : model.childConjunctions(k))
                        todo.push_back(child);
                }
            }
            const auto local = bruteForceDepths(dag, weights, [&](uint32_t s) { return inside[s] != 0; });
            uint64_t span = 0;
            for (uint32_t k : model.conjunctions[i.instance].conjuncts)
                span = std::max(span, local[dag.lastNode(k)]);
            INFO("instance " << i.instance);
            CHECK(i.spanNs == span);
        }
}

} // namespace

void sparkscope::test::checkAnalysisSums(const Analysis& a, const std::string& what, bool intact)
{
    INFO(what << " [" << a.fromNs << ", " << a.toNs << ")");
    const uint64_t range = a.toNs - a.fromNs;
    const LedgerReport& l = a.ledger;
    CHECK(l.total.totalNs() == l.engines * range);
    LossLedger sum;
    for (const LossLedger& e : l.perEngine) {
        CHECK(e.totalNs() == range);
        sum += e;
    }
    CHECK(sum.ns == l.total.ns);
    for (const SiteLedger& s : l.perConjunction) {
        CHECK(s.ledger.totalNs() == l.engines * s.coveredNs);
        CHECK(s.coveredNs <= range);
    }
    const WorkSpanReport& ws = a.workSpan;
    CHECK(ws.workNs == l.total.runningNs());
    if (!a.recordsJoins) { // a program that never started a conjunction, in a trace without a header
        CHECK(!ws.spanNs);
        return;
    }
    REQUIRE(ws.spanNs);
    CHECK(*ws.spanNs <= ws.workNs);
    CHECK(*ws.spanNs <= range);
    CHECK((*ws.spanNs > 0) == (ws.workNs > 0));
    if (intact)
        CHECK(ws.brokenDependencies == 0);
    for (const SiteWorkSpan& site : ws.perConjunction)
        for (const InstanceWorkSpan& i : site.instances) {
            CHECK(i.spanNs <= i.workNs);
            CHECK(i.spanNs <= i.endNs - i.startNs);
        }
    if (!a.criticalPath)
        return;
    const CriticalPathReport& p = *a.criticalPath;
    CHECK(p.lengthNs == p.runningNs + p.waitingNs);
    CHECK(p.lengthNs == p.toNs - p.fromNs);
    if (intact) // a cycle broken in a damaged trace can leave the path off the longest path's DAG
        CHECK(p.runningNs <= *ws.spanNs);
    CHECK(p.fromNs >= a.fromNs);
    CHECK(p.toNs <= a.toNs);
    for (size_t i = 0; i + 1 < p.segments.size(); ++i)
        CHECK(p.segments[i].toNs == p.segments[i + 1].fromNs);
}

namespace {

void checkTrace(const Trace& trace, const std::string& name, uint64_t seed)
{
    AnalysisOptions options;
    options.instances = true;
    const AnalysisSession session(trace);
    const Analysis whole = session.analyze(options);
    sparkscope::test::checkAnalysisSums(whole, name, true);
    if (!whole.recordsJoins)
        return;
    REQUIRE(whole.criticalPath);
    // The whole run's path starts where the first context first ran.
    CHECK(whole.criticalPath->segments.front().kind == PathKind::Running);
    checkAgainstBruteForce(trace, whole);
    // A random range.
    std::mt19937_64 rng(seed);
    const uint64_t length = trace.lastTimeNs - trace.firstTimeNs;
    options.fromNs = trace.firstTimeNs + rng() % (length / 2 + 1);
    options.toNs = options.fromNs + 1 + rng() % (trace.lastTimeNs - options.fromNs);
    sparkscope::test::checkAnalysisSums(session.analyze(options), name + " (range)", true);
}

} // namespace

TEST_CASE("analysis invariants hold on random runtime-like traces", "[core][analysis]")
{
    for (uint64_t seed = 1; seed <= 60; ++seed) {
        INFO("seed " << seed);
        // Deep, wide trees for some seeds: spines of nesting with futures between shuffled producers.
        const int maxDepth = seed > 40 ? 9 : 4;
        const Trace trace = sparkscope::test::simulateRandomProgram(seed, maxDepth, seed > 50 ? 5 : 3).build();
        checkTrace(trace, "seed " + std::to_string(seed), seed);
    }
}

bool sparkscope::test::forEachDemoTrace(
    const std::string& scratch, const std::function<void(const std::string&, const Trace&)>& f)
{
    const std::filesystem::path demo = std::filesystem::path(SPARKSCOPE_BINARY_DIR) / "app" / "sparkscope-demo";
    if (!std::filesystem::exists(demo)) {
        WARN("NOT RUN: " << demo.string() << " is not built");
        return false;
    }
    const auto dir = scratchDir(scratch);
    const std::vector<std::string> workloads { "parfib --n 24 --cutoff 12", "sumeuler --n 1000 --chunk 50",
        "quicksort --n 100000 --cutoff 5000", "pipeline --items 200 --work 2000",
        "imbalanced --conjuncts 8 --unit 2000" };
    for (const auto& w : workloads) {
        const std::string name = w.substr(0, w.find(' '));
        const auto file = dir / (name + ".eventlog");
        const std::string cmd = demo.string() + " " + w + " --engines 2 --trace " + file.string() + " > /dev/null";
        REQUIRE(std::system(cmd.c_str()) == 0);
        auto trace = readTrace(file.string());
        REQUIRE(trace);
        f(name, trace.value());
    }
    return true;
}

TEST_CASE("analysis invariants hold on every demo workload's trace", "[core][analysis]")
{
    uint64_t seed = 1;
    sparkscope::test::forEachDemoTrace(
        "analysis-demo", [&](const std::string& name, const Trace& trace) { checkTrace(trace, name, seed++); });
}
