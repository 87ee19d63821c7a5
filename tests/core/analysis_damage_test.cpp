// The analysis of truncated and damaged traces: random programs (metrics_sim.h) cut short at a
// random instant, as a file that ends early, and others with events lost or posted twice. Nothing
// may crash or hang; the ledger still sums exactly and the work is still the ledger's running time;
// a truncated run's open instances are counted as incomplete and said in a note.
#include "analysis_test_util.h"
#include "metrics_sim.h"
#include "sparkscope/core/analysis.h"

#include <catch2/catch.hpp>

#include <random>

using namespace sparkscope::core;

Trace sparkscope::test::truncatedRandomProgram(uint64_t seed)
{
    Trace trace = simulateRandomProgram(seed).build();
    std::mt19937_64 rng(seed);
    const uint64_t cut = trace.firstTimeNs + rng() % (trace.lastTimeNs - trace.firstTimeNs + 1);
    for (auto& events : trace.engines)
        std::erase_if(events, [&](const Event& e) { return e.timeNs > cut; });
    trace.lastTimeNs = cut;
    trace.truncated = true;
    return trace;
}

Trace sparkscope::test::damagedRandomProgram(uint64_t seed)
{
    Trace trace = simulateRandomProgram(seed).build();
    std::mt19937_64 rng(seed * 7919);
    for (int i = 0; i < 6; ++i) {
        auto& events = trace.engines[rng() % trace.engines.size()];
        if (events.empty())
            continue;
        const auto at = events.begin() + long(rng() % events.size());
        if (rng() % 2)
            events.erase(at); // lost
        else
            events.insert(at, *at); // posted twice
    }
    return trace;
}

TEST_CASE("analysis of truncated random programs counts what is incomplete", "[core][analysis]")
{
    size_t incomplete = 0;
    for (uint64_t seed = 1; seed <= 30; ++seed) {
        const Trace trace = sparkscope::test::truncatedRandomProgram(seed);
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
        INFO("seed " << seed);
        sparkscope::test::checkAnalysisSums(analyze(sparkscope::test::damagedRandomProgram(seed)), "damaged", false);
    }
}
