// The two forms of the descendant pass (core/src/metrics/descendant/descendant_pass.h) against each
// other, on random traces from the simulator: the sweep over time, cut into any number of slices
// swept separately, gives exactly the segment-tree reference's figures for every instance. (Both are
// checked against a brute force over the definitions in metrics_desc_brute_test.cpp; this test
// covers the slicing and the rounds, which only big traces use by default, and the measured range.)
#include "metrics/descendant/descendant_pass.h"
#include "metrics_sim.h"
#include "sparkscope/core/engine_states.h"

#include <catch2/catch.hpp>

using namespace sparkscope::core;
using namespace sparkscope::core::detail;

namespace {

void requireSame(const DescValues& a, const DescValues& b)
{
    CHECK(a.done == b.done);
    CHECK(a.rdMax == b.rdMax);
    CHECK(a.rdAvg == b.rdAvg);
    CHECK(a.ndMax == b.ndMax);
    CHECK(a.ndAvg == b.ndAvg);
    CHECK(a.avMax == b.avMax);
    CHECK(a.avAvg == b.avAvg);
    CHECK(a.outOfOrder == b.outOfOrder);
    CHECK(a.eitherRunning == b.eitherRunning);
    CHECK(a.blocking == b.blocking);
    CHECK(a.blockingTc == b.blockingTc);
}

} // namespace

TEST_CASE("the descendant sweep cut into time slices gives the segment trees' figures exactly", "[core][metrics]")
{
    // (240 random programs: the sweep's streams split, absorb, rejoin and hand over their feeders in
    // many orders, and each must give the reference's figures. Seeds 161-200 have conjunctions up to 7
    // conjuncts wide, so both sides keep their wide conjunctions' counts in Fenwick trees; seeds
    // 201-240 nest 30-69 levels deep along spines, like right- and left-recursive loops.)
    size_t compared = 0, straddling = 0, wide = 0, deep = 0;
    for (uint64_t seed = 1; seed <= 240; ++seed) {
        const int maxDepth = seed > 200 ? 30 + int(seed % 40) : 4 + int(seed % 9);
        const Trace trace
            = sparkscope::test::simulateRandomProgram(seed, maxDepth, seed > 160 && seed <= 200 ? 7 : 3).build();
        const ParModel m = buildParModel(trace);
        const StepFunction cpus = cpusOverTime(computeEngineStates(trace));
        const size_t engines = trace.engineCount();
        // Everything, then a range that leaves out the instances starting in its first and last thirds.
        const uint64_t first = m.conjunctions.empty() ? 0 : m.conjunctions.front().startNs;
        const uint64_t span = m.endNs - first;
        for (const auto& [from, to] : { std::pair<uint64_t, uint64_t> { 0, UINT64_MAX },
                 std::pair<uint64_t, uint64_t> { first + span / 3, first + 2 * span / 3 } }) {
            const std::vector<DescValues> reference = referenceDescendantPass(m, cpus, engines, from, to);
            // (Slices all at once, then in rounds of 2 and 3, as a big trace is swept: each round holds
            // only the changes in its time range and finds the instances open at its start.)
            for (const auto& [slices, perRound] : { std::pair<size_t, size_t> { 1, 0 }, { 2, 0 }, { 3, 0 },
                     { 7, 0 }, { 50, 0 }, { 7, 2 }, { 50, 3 } }) {
                INFO("seed " << seed << ", " << slices << " slices, " << perRound << " per round, range [" << from
                             << ", " << to << ")");
                const std::vector<DescValues> sweep = descendantPassSweep(m, cpus, engines, from, to, slices, perRound);
                REQUIRE(sweep.size() == reference.size());
                for (size_t j = 0; j < reference.size(); ++j) {
                    INFO("instance " << j);
                    requireSame(sweep[j], reference[j]);
                    compared += reference[j].done;
                }
            }
        }
        // How many instances a 7-way cut splits (they are measured in parts and combined).
        for (const auto& ci : m.conjunctions) {
            straddling += ci.complete && ci.endNs - ci.startNs > span / 7;
            wide += ci.complete && ci.conjuncts.size() > 4;
            deep += ci.complete && ci.depth >= 25;
        }
    }
    CHECK(compared > 1000);
    CHECK(straddling > 20);
    CHECK(wide > 20);
    CHECK(deep > 100);
}
