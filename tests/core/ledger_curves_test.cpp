// The ledger over time as step functions (ledger_curves.h): on the steal trace worked out by hand
// (analysis_hand_test.cpp), the engines in each category at chosen instants and the whole ledger;
// on random programs (metrics_sim.h) and every demo workload, the curves' integral over random
// ranges equals the ledger AnalysisSession::analyze computes for that range, category by category.
#include "analysis_test_util.h"
#include "metrics_sim.h"
#include "scenario_traces.h"
#include "sparkscope/core/ledger_curves.h"

#include <catch2/catch.hpp>

#include <random>

using namespace sparkscope::core;
using sparkscope::test::checkLedger;
using sparkscope::test::ledgerOf;

namespace {

// The curves' ledger of random ranges (and the whole trace) against the session's.
void checkRandomRanges(const Trace& trace, uint64_t seed)
{
    const AnalysisSession session(trace);
    const LedgerCurves curves = computeLedgerCurves(session);
    const Analysis whole = session.analyze();
    CHECK(curves.beginNs == int64_t(whole.fromNs));
    CHECK(curves.endNs == int64_t(whole.toNs));
    checkLedger(curves.ledger(curves.beginNs, curves.endNs), whole.ledger.total);
    std::mt19937_64 rng(seed);
    const uint64_t span = whole.toNs - whole.fromNs;
    for (int i = 0; i < 8 && span > 1; ++i) {
        uint64_t a = whole.fromNs + rng() % span, b = whole.fromNs + rng() % span;
        if (a > b)
            std::swap(a, b);
        INFO("range " << a << ".." << b);
        AnalysisOptions range;
        range.fromNs = a;
        range.toNs = b;
        checkLedger(curves.ledger(int64_t(a), int64_t(b)), session.analyze(range).ledger.total);
    }
}

} // namespace

TEST_CASE("ledger curves count the engines in each category over time", "[core][analysis][ledger-curves]")
{
    const Trace trace = sparkscope::test::stealTrace();
    const AnalysisSession session(trace);
    const LedgerCurves curves = computeLedgerCurves(session);
    REQUIRE(curves.engines == 2);
    auto at = [&](LossCategory c, int64_t t) { return curves.curves[size_t(c)].valueAt(t); };
    // t = 50: engine 0 runs ctx 1 outside every conjunct, engine 1 has nothing to do.
    CHECK(at(LossCategory::RunningOutsideConjunct, 50) == 1);
    CHECK(at(LossCategory::IdleNoWork, 50) == 1);
    // t = 115: engine 0 in G1, engine 1 searching (from 105 until its RUN_THREAD at 130).
    CHECK(at(LossCategory::RunningInConjunct, 115) == 1);
    CHECK(at(LossCategory::Searching, 115) == 1);
    // t = 150: G1 on engine 0, G2 on engine 1.
    CHECK(at(LossCategory::RunningInConjunct, 150) == 2);
    // t = 250: engine 0 parked at the barrier (from 210), engine 1 in G2.
    CHECK(at(LossCategory::IdleBlockedBarrier, 250) == 1);
    CHECK(at(LossCategory::RunningInConjunct, 250) == 1);
    // t = 320: ctx 1 runnable, both engines idle with work available.
    CHECK(at(LossCategory::IdleWorkAvailable, 320) == 2);
    // The whole range is the hand-worked ledger; a sub-range too: [100, 130) is engine 0 in G1 (30)
    // and engine 1 idle [100, 105) (5) then searching (25).
    checkLedger(curves.ledger(0, 400), ledgerOf({ 270, 190, 0, 25, 45, 0, 95, 0, 175 }));
    checkLedger(curves.ledger(100, 130), ledgerOf({ 30, 0, 0, 25, 0, 0, 0, 0, 5 }));
    checkLedger(curves.ledger(-50, 10'000), curves.ledger(0, 400)); // clipped to the trace
    CHECK(curves.ledger(300, 300).totalNs() == 0);
    CHECK(curves.memoryBytes() > 0);
}

TEST_CASE("ledger curves integrate to the session's ledger of any range", "[core][analysis][ledger-curves]")
{
    for (uint64_t seed = 1; seed <= 30; ++seed) {
        INFO("random program " << seed);
        checkRandomRanges(sparkscope::test::simulateRandomProgram(seed).build(), seed);
    }
    const auto traces = sparkscope::test::demoTraces("ledger-curves",
        { "parfib --n 24 --cutoff 12", "pipeline --items 200 --work 2000", "imbalanced --conjuncts 8 --unit 2000" });
    for (const auto& [name, trace] : traces) {
        INFO("demo " << name);
        checkRandomRanges(trace, 7);
    }
    for (const auto& [name, trace] : sparkscope::test::sharedGhcTraces({ "parfib-12-30.eventlog" })) {
        INFO(name);
        checkRandomRanges(trace, 11);
    }
}
