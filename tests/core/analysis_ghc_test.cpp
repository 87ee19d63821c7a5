// The analysis of GHC eventlogs (../shared/testdata/ghc): they have no conjunctions, so every running
// nanosecond is outside a conjunct and nothing is blocked on a future or a barrier; the ledger still
// sums exactly; the work is the capabilities' running time as the engine states count it (less
// nothing: GHC posts no search events); and the span, the bounds and the critical path are absent
// with a note, never a number.
#include "scenario_traces.h"
#include "sparkscope/core/analysis.h"
#include "sparkscope/core/reader.h"

#include <catch2/catch.hpp>

using namespace sparkscope::core;

TEST_CASE("analysis of GHC eventlogs: the ledger sums, work is the running time, no span", "[core][analysis][data]")
{
    size_t analysed = 0;
    for (const auto& [name, trace] :
        sparkscope::test::sharedGhcTraces({ "sumfib-30-3000.eventlog", "parfib-12-30.eventlog" })) {
        INFO(name);
        const Analysis a = analyze(trace);
        ++analysed;
        const uint64_t range = trace.lastTimeNs - trace.firstTimeNs;
        CHECK(a.fromNs == trace.firstTimeNs);
        CHECK(a.toNs == trace.lastTimeNs);
        CHECK(a.ledger.total.totalNs() == trace.engineCount() * range);
        for (const LossLedger& e : a.ledger.perEngine)
            CHECK(e.totalNs() == range);
        CHECK(a.ledger.total[LossCategory::RunningInConjunct] == 0);
        CHECK(a.ledger.total[LossCategory::Searching] == 0);
        CHECK(a.ledger.total[LossCategory::IdleBlockedFuture] == 0);
        CHECK(a.ledger.total[LossCategory::IdleBlockedBarrier] == 0);
        CHECK(a.ledger.total[LossCategory::RunningOutsideConjunct] > 0);
        CHECK(a.ledger.total[LossCategory::IdleWorkAvailable] > 0); // spark pools and runnable threads
        CHECK(a.ledger.total[LossCategory::IdleBlockedOther] > 0); // GHC's blocking statuses
        CHECK(a.ledger.perConjunction.empty());
        // Work: the time the engine states have a thread running (RUN_THREAD to STOP_THREAD, with the
        // collections taken out), counted here independently of the analysis.
        const EngineStates states = computeEngineStates(trace);
        uint64_t running = 0;
        for (size_t e = 0; e < states.engineCount(); ++e)
            running += states.timeInStates(e)[size_t(EngineState::Running)];
        CHECK(a.workSpan.workNs == running);
        CHECK(a.workSpan.workNs == a.ledger.total.runningNs());
        CHECK_FALSE(a.recordsJoins);
        CHECK_FALSE(a.workSpan.spanNs);
        CHECK_FALSE(a.workSpan.parallelism);
        CHECK(a.workSpan.bounds.empty());
        CHECK(a.workSpan.note.find("no joins") != std::string::npos);
        CHECK_FALSE(a.criticalPath);
        // The JSON says so with nulls.
        const std::string json = analysisToJson(a);
        CHECK(json.find("\"span_ns\": null") != std::string::npos);
        CHECK(json.find("\"critical_path\": null") != std::string::npos);
    }
    if (analysed == 0)
        WARN("NOT RUN: no shared GHC eventlog");
}
