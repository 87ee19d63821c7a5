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
