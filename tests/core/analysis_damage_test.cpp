// The analysis of truncated and damaged traces: random programs (metrics_sim.h) cut short at a
// random instant, as a file that ends early, and others with events lost or posted twice. Nothing
// may crash or hang; the ledger still sums exactly and the work is still the ledger's running time;
// a truncated run's open instances are counted as incomplete and said in a note.
#include "analysis_test_util.h"
#include "metrics_sim.h"
#include "scenario_traces.h"
#include "sparkscope/core/analysis.h"

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
