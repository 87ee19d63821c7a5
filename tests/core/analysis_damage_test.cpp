// The analysis of truncated and damaged traces: random programs (metrics_sim.h) cut short at a
// random instant, as a file that ends early, and others with events lost or posted twice. Nothing
// may crash or hang; the ledger still sums exactly and the work is still the ledger's running time;
// a truncated run's open instances are counted as incomplete and said in a note.
#include "analysis_test_util.h"
#include "metrics_sim.h"
#include "scenario_traces.h"
#include "sparkscope/core/analysis.h"
#include "support/trace_builder.h"

#include <catch2/catch.hpp>

using namespace sparkscope::core;

TEST_CASE("analysis of truncated random programs counts what is incomplete", "[core][analysis]")
{
    size_t incomplete = 0;
    for (uint64_t seed = 1; seed <= 30; ++seed) {
        const Trace trace
            = sparkscope::test::truncatedAtRandom(sparkscope::test::simulateRandomProgram(seed).build(), seed);
        INFO("seed " << seed << " cut at " << trace.lastTimeNs);
        const Analysis a = analyze(trace);
        sparkscope::test::checkAnalysisSums(a, "truncated", false);
        incomplete += a.incompleteConjunctions;
        if (a.incompleteConjunctions) {
            CHECK(std::any_of(a.notes.begin(), a.notes.end(),
                [](const std::string& n) { return n.find("incomplete") != std::string::npos; }));
            for (const SiteWorkSpan& s : a.workSpan.perConjunction)
                CHECK(s.work.count == s.complete); // incomplete instances are not summarised
        }
    }
    CHECK(incomplete > 0); // the cuts do land inside conjunctions
}

TEST_CASE("analysis of damaged random programs does not crash and still sums", "[core][analysis]")
{
    for (uint64_t seed = 1; seed <= 30; ++seed) {
        const Trace trace
            = sparkscope::test::damagedAtRandom(sparkscope::test::simulateRandomProgram(seed).build(), seed * 7919);
        INFO("seed " << seed);
        sparkscope::test::checkAnalysisSums(analyze(trace), "damaged", false);
    }
}

TEST_CASE("a damaged trace's totals near 2^64 ns saturate rather than wrap", "[core][analysis]")
{
    // Two engines each run one context from 0 to T = 2^64 - 16 ns: each engine's running time is T,
    // the whole run's is 2T, past 2^64; each context's strands are one chain of length T. Worked by
    // hand: every whole-run total is UINT64_MAX (the ledger's running and total, the work), each
    // engine's is exact (T), and the span is one context's T. Wrapped, the work read
    // 2T - 2^64 = 2^64 - 32 beside a span of T, and the analysis fuzzer found a trace whose work read
    // 600 ns.
    constexpr uint64_t kT = UINT64_MAX - 15;
    sparkscope::test::TraceBuilder b(2);
    b.internString(0, 1, "a.m:1");
    b.createThread(0, 0, 1).runThread(0, 0, 1).stopThread(0, kT, 1, kStopFinished);
    // A conjunction of one conjunct in context 1 (so that the trace records joins and has a span).
    b.startParConj(0, 10, 0xA, 1).endParConjunct(0, 20, 0xA).endParConj(0, 30, 0xA);
    b.createThread(1, 0, 2).runThread(1, 0, 2).stopThread(1, kT, 2, kStopFinished);
    b.endAt(kT);
    const Analysis a = analyze(b.build());
    REQUIRE(a.ledger.engines == 2);
    CHECK(a.ledger.perEngine[0].runningNs() == kT);
    CHECK(a.ledger.perEngine[1].runningNs() == kT);
    CHECK(a.ledger.total.runningNs() == UINT64_MAX);
    CHECK(a.ledger.total.totalNs() == UINT64_MAX);
    CHECK(a.workSpan.workNs == UINT64_MAX);
    REQUIRE(a.workSpan.spanNs);
    CHECK(*a.workSpan.spanNs == kT);
}

TEST_CASE("a conjunction that ends before one of its conjuncts: the barrier does not wait for it", "[core][analysis]")
{
    // 2 engines, run [0,1000). ctx 1 on engine 0 starts 0xA at 10 and sparks G2 at 11; engine 1
    // steals it at 20 and ctx 2 runs it until 950, but 0xA ends at 100 (damaged: END_PAR_CONJ before
    // G2's end, whose END_PAR_CONJUNCT at 900 then names no open conjunction), and ctx 1 runs on to
    // 1000. The Join at 100 cannot have waited for G2: that dependency would run back in time, and
    // the path through it (G2's ~930 ns, then ctx 1's 900 after the Join) be longer than the run.
    sparkscope::test::TraceBuilder b(2);
    b.runThread(0, 0, 1).startParConj(0, 10, 0xA, 1).sparkCreate(0, 11, 0xA, 1);
    b.sparkSteal(1, 20, 0, 1).runThread(1, 20, 2).endParConjunct(1, 900, 0xA).stopThread(1, 950, 2, kStopFinished);
    b.endParConjunct(0, 100, 0xA).endParConj(0, 100, 0xA).stopThread(0, 1000, 1, kStopFinished);
    AnalysisOptions options;
    options.whatIf = WhatIfOptions {};
    options.whatIf->engines = { 1, 2 };
    const Analysis a = analyze(b.roundTrip(), options);
    REQUIRE(a.workSpan.spanNs);
    // Work: ctx 1's 1000 and ctx 2's 930. Span: ctx 1's whole run, 1000 (G2's path: 1 ns of G1, then
    // its 930).
    CHECK(a.workSpan.workNs == 1930);
    CHECK(*a.workSpan.spanNs == 1000);
    CHECK(a.workSpan.brokenDependencies == 1);
    REQUIRE(a.criticalPath);
    CHECK(a.criticalPath->lengthNs <= 1000);
    // The what-if runs both conjuncts without waiting for the dropped dependency: on 2 engines as
    // recorded, on 1 all the work.
    REQUIRE(a.whatIf);
    REQUIRE(a.whatIf->predictions.size() == 2);
    for (const Prediction& p : a.whatIf->predictions)
        CHECK(p.ledger.totalNs() == p.engines * p.wallNs);
}
