// The what-if's shortcut (core/src/analysis/simulate.h, "Shortcut"; sim_graph.h, "Closed sub-trees"):
// a closed sub-tree run as one step at P > 1, replayed node by node when a thief comes for the last
// older spark, must give the very predictions of the node-by-node simulation. Both are run here on
// random runtime-like programs (bushy and deep, 2 or 3 conjuncts, futures), damaged ones, and the
// demo workloads' traces, at several engine counts and costs, with curves and scaled sites; every
// figure must be equal. The counts of steps and replays taken must be positive, or the comparison
// would not have tested the shortcut at all. Which sub-trees are closed is worked out by hand on a
// nested conjunction.
#include "analysis/engine_activity.h"
#include "analysis/run_dag.h"
#include "analysis/sim_graph.h"
#include "analysis/simulate.h"
#include "metrics_sim.h"
#include "scenario_traces.h"
#include "sparkscope/core/analysis.h"
#include "sparkscope/core/engine_states.h"
#include "support/trace_builder.h"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace sparkscope::core;

namespace {

// A trace's model, engine activity, DAG and what-if graph, built as the analysis session builds them.
struct Graphed {
    explicit Graphed(const Trace& trace)
        : model(buildParModel(trace))
        , states(computeEngineStates(trace))
        , activity(trace, states, model)
        , dag(model)
        , graph(dag, activity, trace.firstTimeNs, trace.lastTimeNs)
    {
    }
    const ParModel model;
    const EngineStates states;
    const detail::EngineActivity activity;
    const detail::RunDag dag;
    const detail::SimGraph graph;
};

CostModel costs(uint64_t spark, uint64_t steal, uint64_t context, uint64_t switchNs, uint64_t wake, uint64_t spin)
{
    CostModel c;
    c.ns = { spark, steal, context, switchNs, wake, spin };
    return c;
}

void checkSame(const Prediction& fast, const Prediction& full)
{
    INFO("P = " << full.engines);
    CHECK(fast.engines == full.engines);
    CHECK(fast.wallNs == full.wallNs);
    CHECK(fast.ledger.ns == full.ledger.ns);
    CHECK(fast.steals == full.steals);
    CHECK(fast.contexts == full.contexts);
    CHECK(fast.switches == full.switches);
    CHECK(fast.wakeups == full.wakeups);
    CHECK(fast.brokenDependencies == full.brokenDependencies);
    CHECK(fast.speedup == full.speedup);
    CHECK(fast.bound.lower == full.bound.lower);
    CHECK(fast.bound.upper == full.bound.upper);
    REQUIRE(fast.cpus.has_value() == full.cpus.has_value());
    if (full.cpus) {
        CHECK(fast.cpus->steps() == full.cpus->steps());
        CHECK(fast.cpus->endNs() == full.cpus->endNs());
    }
}

// The simulation itself, with and without the shortcut, at several P and costs; the steps and
// replays it took added to `stats`.
void compareSimulations(const Trace& trace, const std::string& what, detail::ShortcutStats& stats)
{
    INFO(what);
    const Graphed g(trace);
    const ParModel& model = g.model;
    const detail::SimGraph& graph = g.graph;
    // The recorded weights, and every conjunct's divided by 500: a few ns each, many 0, so that events
    // of different engines fall on the same instant (the replay's order at one instant).
    const detail::SimNodes tiny = graph.scaled(std::vector<double>(model.conjuncts.size(), 500.0));
    for (const detail::SimNodes* nodes : { &graph.nodes(), &tiny })
        for (const CostModel& c : { costs(0, 0, 0, 0, 0, 0), costs(150, 700, 1200, 400, 2500, 6000),
                 costs(30, 80, 0, 0, 0, 0), costs(0, 0, 0, 0, 900, 0), costs(1, 2, 0, 1, 0, 0) }) {
            INFO((nodes == &tiny ? "tiny weights, " : "") << "costs " << c.ns[0] << "," << c.ns[1] << "," << c.ns[2]
                                                          << "," << c.ns[3] << "," << c.ns[4] << "," << c.ns[5]);
            detail::SoloRuns solo;
            const Prediction learning = detail::simulate(graph, *nodes, 1, c, true, 1.0, &solo);
            checkSame(learning, detail::simulate(graph, *nodes, 1, c, true));
            for (uint32_t p : { 2u, 3u, 4u, 8u, 64u })
                checkSame(detail::simulate(graph, *nodes, p, c, true, 1.0, nullptr, &solo, &stats),
                    detail::simulate(graph, *nodes, p, c, true));
        }
}

// What predict() gives with WhatIfOptions::shortcut on and off: measured and zero costs, curves, a
// site scaled (each sub-tree's weight is learnt on the scaled nodes).
void comparePredictions(const Trace& trace, const std::string& what)
{
    INFO(what);
    const AnalysisSession session(trace);
    const Analysis a = session.analyze();
    if (!a.recordsJoins)
        return;
    std::vector<std::vector<SiteScale>> scales { {} };
    if (!a.workSpan.perConjunction.empty())
        for (const double factor : { 2.0, 0.25 }) {
            const std::vector<uint32_t> ids = session.matchSite(a.workSpan.perConjunction.front().site);
            if (!ids.empty())
                scales.push_back({ SiteScale { ids.front(), factor, {} } });
        }
    for (const auto& scale : scales)
        for (const std::optional<CostModel>& c :
            { std::optional<CostModel>(), std::optional<CostModel>(CostModel {}) }) {
            WhatIfOptions options;
            options.engines = { 1, 2, 3, 4, 16, 64 };
            options.costs = c;
            options.scales = scale;
            options.curves = true;
            const std::vector<Prediction> fast = session.predict(options);
            options.shortcut = false;
            const std::vector<Prediction> full = session.predict(options);
            REQUIRE(fast.size() == full.size());
            for (size_t i = 0; i < full.size(); ++i)
                checkSame(fast[i], full[i]);
        }
}

} // namespace

TEST_CASE("what-if shortcut: the closed sub-trees of a nested conjunction, by hand", "[analysis][whatif]")
{
    // nestedTrace() (scenario_traces.h), as "analysis of a nested conjunction with a context that
    // waits runnable" (analysis_hand_test.cpp) reads it: outer A (static id 1) from ctx 1's root,
    // G1 in ctx 1, G2's spark stolen and run by ctx 2 (a carrier: its Return cut is there); inside
    // G1, inner B (static id 3): H1 in ctx 1, H2's spark taken back by ctx 1 at 155 (its Return cut
    // is in G1).
    const Trace trace = sparkscope::test::nestedTrace();
    const Graphed g(trace);
    const ParModel& model = g.model;
    const detail::RunDag& dag = g.dag;
    const detail::SimGraph& graph = g.graph;
    // Closed: G2 (started by G1's spark; its end releases A's join in ctx 1's root and its Return in
    // ctx 2's) and H2 (started by H1's spark; ends into B's join and its Return, both in G1). Not
    // closed: G1 and H1 (each pushes the next conjunct's spark, a release out of its sub-tree that is
    // not its end's) and the roots (not conjuncts).
    std::vector<std::string> closed;
    REQUIRE(model.conjuncts.size() == 4);
    for (uint32_t k = 0; k < model.conjuncts.size(); ++k) {
        const ConjunctInstance& c = model.conjuncts[k];
        const uint32_t site = model.conjunctions[c.conjunction.value()].staticId;
        if (!graph.closed(graph.graphStrand(k)))
            continue;
        // Appended rather than joined with `+`, on which GCC 12 warns -Wrestrict (a false positive).
        std::string name(1, site == 1 ? 'G' : 'H');
        name += std::to_string(c.position);
        closed.push_back(name);
    }
    std::sort(closed.begin(), closed.end());
    CHECK(closed == std::vector<std::string> { "G2", "H2" });
    for (uint32_t s = dag.rootStrand(0); s < dag.strandCount(); ++s)
        CHECK_FALSE(graph.closed(graph.graphStrand(s)));
    CHECK(graph.closedCount() == 2);
    // G2 and H2 hold one node each (nothing in them is cut).
    for (uint32_t k = 0; k < model.conjuncts.size(); ++k)
        if (graph.closed(graph.graphStrand(k)))
            CHECK(graph.subtreeNodes(graph.graphStrand(k)) == 1);
}

// Every figure the simulation reads of two graphs of the same DAG.
static void checkSameGraph(const detail::SimGraph& a, const detail::SimGraph& b, size_t futures)
{
    REQUIRE(a.strandCount() == b.strandCount());
    REQUIRE(a.cutCount() == b.cutCount());
    CHECK(a.nodeCount() == b.nodeCount());
    CHECK(a.firstRoot() == b.firstRoot());
    CHECK(a.closedCount() == b.closedCount());
    for (size_t g = 0; g < a.cutCount(); ++g) {
        const detail::SimNode &x = a.nodes().nodes[g], &y = b.nodes().nodes[g];
        if (x.weight != y.weight || x.ref != y.ref || x.release != y.release || x.flags != y.flags) {
            FAIL_CHECK("node " << g << " differs");
            break;
        }
    }
    CHECK(a.nodes().big == b.nodes().big);
    CHECK(a.crossPreds() == b.crossPreds());
    CHECK(a.bigPreds() == b.bigPreds());
    CHECK(a.doneAtStart() == b.doneAtStart());
    for (uint32_t s = 0; s < a.strandCount(); ++s) {
        const detail::SimConjunct &x = a.conjunct(s), &y = b.conjunct(s);
        const bool same = a.role(s) == b.role(s) && a.firstCut(s) == b.firstCut(s) && a.subtreeEnd(s) == b.subtreeEnd(s)
            && a.subtreeNodes(s) == b.subtreeNodes(s) && a.closed(s) == b.closed(s) && x.first == y.first
            && x.next == y.next && x.parent == y.parent && x.ret.node == y.ret.node && x.ret.strand == y.ret.strand
            && x.join.node == y.join.node && x.join.strand == y.join.strand && a.graphStrand(s) == b.graphStrand(s);
        if (!same) {
            FAIL_CHECK("strand " << s << " differs");
            break;
        }
    }
    for (uint32_t f = 0; f < futures; ++f) {
        const auto x = a.waits(f), y = b.waits(f);
        const bool same = x.size() == y.size()
            && std::equal(x.begin(), x.end(), y.begin(), [](const detail::NodeRef& p, const detail::NodeRef& q) {
                   return p.node == q.node && p.strand == q.strand;
               });
        CHECK(same);
    }
}

TEST_CASE("the what-if graph's node weights are the DAG's, those of 2^32 ns and more included", "[analysis][whatif]")
{
    // The graph adds the DAG's weight pieces up in its nodes' 4 bytes; read back by the DAG's node ids
    // they must be RunDag::weights exactly. The same graph built from what SimInputs took out of the
    // model, the model gone (AnalysisSession::releaseModelForWhatIf; a read of it would be a read of
    // freed memory, which the ASan build reports), must be the same in every figure, the big weights
    // re-keyed to the graph's ids included.
    auto check = [](const Trace& trace, const std::string& what) {
        INFO(what);
        const Graphed g(trace);
        CHECK(g.graph.dagWeights(g.graph.nodes()) == g.dag.weights(g.activity, trace.firstTimeNs, trace.lastTimeNs));
        ParModel model = buildParModel(trace);
        const EngineStates states = computeEngineStates(trace);
        const detail::EngineActivity activity(trace, states, model);
        const detail::RunDag dag(model);
        detail::SimInputs inputs = detail::SimInputs::extract(dag, activity, trace.firstTimeNs, trace.lastTimeNs);
        CHECK(inputs.conjunctionOf.size() == model.conjuncts.size());
        const size_t futures = model.futures.size();
        model = ParModel {};
        checkSameGraph(g.graph, detail::SimGraph(dag, std::move(inputs)), futures);
        return g.graph.nodes().big;
    };
    for (uint64_t seed = 1; seed <= 20; ++seed)
        check(sparkscope::test::simulateRandomProgram(seed, seed > 10 ? 9 : 5).build(), "seed " + std::to_string(seed));
    for (uint64_t seed = 1; seed <= 5; ++seed)
        check(sparkscope::test::damagedAtRandom(sparkscope::test::simulateRandomProgram(seed, 9).build(), seed),
            "damaged " + std::to_string(seed));
    // By hand, one engine, context 1: its root runs from 0 to 5 s (one piece of 5e9 ns), then starts A;
    // A's first conjunct runs [5 s, 8 s), waits runnable until 9 s and runs [9 s, 12 s) in the same node
    // (nothing cuts it): two pieces of 3e9 ns, each below 2^32 (4.29e9) and 6e9 together.
    const uint64_t s = 1'000'000'000;
    sparkscope::test::TraceBuilder b(1);
    b.createThread(0, 0, 1)
        .runThread(0, 0, 1)
        .startParConj(0, 5 * s, 0xA0, 1)
        .stopThread(0, 8 * s, 1, 3)
        .runThread(0, 9 * s, 1)
        .endParConjunct(0, 12 * s, 0xA0)
        .endParConj(0, 12 * s + 10, 0xA0)
        .endAt(13 * s);
    std::vector<uint64_t> big;
    for (const auto& [node, ns] : check(b.build(), "by hand"))
        big.push_back(ns);
    std::sort(big.begin(), big.end());
    CHECK(big == std::vector<uint64_t> { 5 * s, 6 * s });
}

TEST_CASE("what-if shortcut: the same predictions as every node simulated, on random programs", "[analysis][whatif]")
{
    detail::ShortcutStats stats;
    for (uint64_t seed = 1; seed <= 40; ++seed) {
        const int maxDepth = seed > 20 ? 9 : 5;
        const Trace t = sparkscope::test::simulateRandomProgram(seed, maxDepth, seed % 4 == 0 ? 2 : 3).build();
        compareSimulations(t, "seed " + std::to_string(seed), stats);
        if (seed % 8 == 0)
            comparePredictions(t, "seed " + std::to_string(seed));
    }
    for (uint64_t seed = 1; seed <= 10; ++seed)
        compareSimulations(
            sparkscope::test::damagedAtRandom(sparkscope::test::simulateRandomProgram(seed, 9).build(), seed),
            "damaged " + std::to_string(seed), stats);
    INFO("steps " << stats.steps << ", replays " << stats.replays);
    CHECK(stats.steps > 100);
    CHECK(stats.replays > 10);
}

TEST_CASE("what-if shortcut: the same predictions as every node simulated, on the demo workloads", "[analysis][whatif]")
{
    detail::ShortcutStats stats;
    for (unsigned engines : { 1u, 2u }) {
        const auto traces = sparkscope::test::demoTraces("whatif-shortcut-" + std::to_string(engines),
            { "parfib --n 24 --cutoff 8", "sumeuler --n 1000 --chunk 20", "quicksort --n 100000 --cutoff 2000",
                "pipeline --items 200 --work 2000", "imbalanced --conjuncts 8 --unit 2000",
                "listsum --n 3000 --chunk 2" },
            engines);
        if (traces.empty())
            return; // the demo is not built (demoTraces WARNs)
        for (const auto& [name, trace] : traces) {
            compareSimulations(trace, name + " on " + std::to_string(engines), stats);
            comparePredictions(trace, name + " on " + std::to_string(engines));
        }
    }
    INFO("steps " << stats.steps << ", replays " << stats.replays);
    CHECK(stats.steps > 1000);
    CHECK(stats.replays > 10);
}
