// Metrics on damaged traces: random programs from the simulator with events dropped, duplicated,
// moved in time or to another engine — what a buggy runtime or a corrupted file produces. Nothing
// may crash or hang (this runs under ASan/UBSan in scripts/test), every figure must be finite, and
// the two forms of the descendant pass, which walk broken nesting differently (the sweep climbs
// through the ancestors each open instance recorded, checks every link, and falls back to the
// model's parent links where one is stale; the segment-tree reference merges subtrees), must still
// agree exactly.
#include "metrics/descendant/descendant_pass.h"
#include "metrics_sim.h"
#include "sparkscope/core/check_model.h"
#include "sparkscope/core/engine_states.h"
#include "sparkscope/core/metrics.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>

using namespace sparkscope::core;

namespace {

// Applies `count` random mutations to the trace's per-engine events, keeping each engine sorted.
void damage(Trace& t, std::mt19937_64& rng, int count)
{
    const size_t engines = t.engines.size();
    for (int i = 0; i < count; ++i) {
        auto& from = t.engines[rng() % engines];
        if (from.empty())
            continue;
        const size_t at = rng() % from.size();
        switch (rng() % 4) {
        case 0: // lost
            from.erase(from.begin() + long(at));
            break;
        case 1: // posted twice
            from.insert(from.begin() + long(at), from[at]);
            break;
        case 2: { // a wrong timestamp
            Event e = from[at];
            from.erase(from.begin() + long(at));
            const uint64_t shift = rng() % 2000;
            e.timeNs = rng() % 2 ? e.timeNs + shift : (e.timeNs > shift ? e.timeNs - shift : 0);
            from.insert(std::upper_bound(from.begin(), from.end(), e,
                            [](const Event& a, const Event& b) { return a.timeNs < b.timeNs; }),
                e);
            break;
        }
        default: { // on the wrong engine
            const uint16_t to = uint16_t(rng() % engines);
            Event e = from[at];
            from.erase(from.begin() + long(at));
            e.engine = to;
            auto& dest = t.engines[to];
            dest.insert(std::upper_bound(dest.begin(), dest.end(), e,
                            [](const Event& a, const Event& b) { return a.timeNs < b.timeNs; }),
                e);
        }
        }
    }
}

bool finite(const detail::DescValues& v)
{
    for (double x : { v.rdMax, v.rdAvg, v.ndMax, v.ndAvg, v.avMax, v.avAvg, v.outOfOrder, v.eitherRunning, v.blocking,
             v.blockingTc })
        if (!std::isfinite(x))
            return false;
    return true;
}

} // namespace

TEST_CASE("metrics of randomly damaged traces are finite and both descendant passes agree", "[core][metrics]")
{
    size_t problems = 0, incomplete = 0, measured = 0;
    for (uint64_t seed = 1; seed <= 150; ++seed) {
        Trace trace = sparkscope::test::simulateRandomProgram(seed, 4 + int(seed % 8)).build();
        std::mt19937_64 rng(seed * 7919);
        damage(trace, rng, 1 + int(seed * 37 % 100));
        INFO("seed " << seed);
        const Metrics m = computeMetrics(trace);
        problems += m.model.problems.size();
        incomplete += m.model.incompleteConjunctions;
        CHECK(checkModel(trace).size() == m.model.problems.size());
        const size_t engines = trace.engineCount();
        const std::vector<detail::DescValues> reference
            = detail::referenceDescendantPass(m.model, m.cpusOverTime, engines, 0, UINT64_MAX);
        for (const auto& [slices, perRound] : { std::pair<size_t, size_t> { 1, 0 }, { 3, 0 }, { 5, 2 } }) {
            const std::vector<detail::DescValues> sweep
                = detail::descendantPassSweep(m.model, m.cpusOverTime, engines, 0, UINT64_MAX, slices, perRound);
            REQUIRE(sweep.size() == reference.size());
            for (size_t j = 0; j < reference.size(); ++j) {
                INFO("instance " << j << ", " << slices << " slices, " << perRound << " per round");
                CHECK(finite(sweep[j]));
                CHECK(sweep[j].done == reference[j].done);
                CHECK(sweep[j].rdMax == reference[j].rdMax);
                CHECK(sweep[j].rdAvg == reference[j].rdAvg);
                CHECK(sweep[j].ndMax == reference[j].ndMax);
                CHECK(sweep[j].avMax == reference[j].avMax);
                CHECK(sweep[j].avAvg == reference[j].avAvg);
                CHECK(sweep[j].outOfOrder == reference[j].outOfOrder);
                CHECK(sweep[j].eitherRunning == reference[j].eitherRunning);
                CHECK(sweep[j].blocking == reference[j].blocking);
                CHECK(sweep[j].blockingTc == reference[j].blockingTc);
                measured += reference[j].done;
            }
        }
    }
    // The damage did break things (so the paths for broken traces ran), and much stayed measurable.
    CHECK(problems > 50);
    CHECK(incomplete > 20);
    CHECK(measured > 500);
}
