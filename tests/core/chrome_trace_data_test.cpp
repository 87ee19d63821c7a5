// The Chrome Trace Event Format export (core/chrome_trace.h) of real traces: the shared GHC eventlogs
// and the demo workloads' traces parse, keep every rule of checkWellFormed, and agree in their totals
// with the engine states and the model they were made from.
#include "chrome_trace_check.h"
#include "scenario_traces.h"

#include "sparkscope/core/engine_states.h"
#include "sparkscope/core/par_model.h"

#include <catch2/catch.hpp>

#include <set>

using namespace sparkscope;

namespace {

// Totals that hold for any trace: the engine threads' slices cover exactly the engines' Running, GC
// and Searching time; the CPUs samples are the curve's steps; the context threads are the model's
// context ids; there is at most one flow per conjunct started from a spark and per suspended wait.
void checkAgainstModel(const core::Trace& trace, const test::ChromeExport& out, const std::string& name)
{
    INFO(name);
    const core::EngineStates states = core::computeEngineStates(trace);
    const core::ParModel model = core::buildParModel(trace);
    std::vector<uint64_t> shown(states.engineCount(), 0), expected(states.engineCount(), 0);
    for (const auto& s : test::chromeSlices(out.document))
        if (s.tid >= core::chromeEngineTid(0) && s.tid < core::chromeEngineTid(states.engineCount()))
            shown[s.tid - core::chromeEngineTid(0)] += s.endNs - s.startNs;
    for (size_t e = 0; e < states.engineCount(); ++e) {
        const auto t = states.timeInStates(e);
        expected[e] = t[size_t(core::EngineState::Running)] + t[size_t(core::EngineState::Gc)]
            + t[size_t(core::EngineState::Searching)];
    }
    CHECK(shown == expected);

    const core::StepFunction cpus = core::cpusOverTime(states);
    std::vector<test::ChromeSample> samples;
    for (const auto& s : test::chromeSamples(out.document))
        if (s.name == "CPUs")
            samples.push_back(s);
    REQUIRE(samples.size() == cpus.steps().size());
    for (size_t i = 0; i < samples.size(); ++i) {
        CHECK(samples[i].timeNs == uint64_t(cpus.steps()[i].timeNs));
        CHECK(samples[i].value == cpus.steps()[i].value);
    }

    std::set<uint32_t> ids;
    for (const auto& c : model.contexts)
        ids.insert(c.id);
    size_t contextThreads = 0;
    for (const auto& [key, threadName] : test::chromeThreadNames(out.document))
        contextThreads += threadName.rfind("Context ", 0) == 0;
    CHECK(contextThreads == ids.size());

    size_t sparkConjuncts = 0, suspendedWaits = 0;
    for (const auto& c : model.conjuncts)
        sparkConjuncts += c.fromSpark && c.started;
    for (const auto& f : model.futures)
        for (const auto& w : f.waits)
            suspendedWaits += f.signalled && w.suspended;
    CHECK(out.summary.flows + out.summary.flowsSkipped == sparkConjuncts + suspendedWaits);
}

} // namespace

TEST_CASE("chrome export of the shared GHC eventlogs is well-formed", "[core][chrome]")
{
    for (const auto& [name, trace] : test::sharedGhcTraces(
             { "sumfib-30-3000.eventlog", "parfib-12-30.eventlog", "parfib-8-32.eventlog" })) {
        core::ChromeTraceOptions options;
        options.sparkDeques = true; // GHC's spark pools: the spark information these logs have
        const auto out = test::exportChrome(trace, options);
        test::checkWellFormed(out.document, name);
        checkAgainstModel(trace, out, name);
        CHECK(out.summary.flows == 0); // GHC's spark events do not say which spark: nothing to pair
        CHECK(out.summary.slices > 0);
    }
}

TEST_CASE("chrome export of every demo workload's trace is well-formed", "[core][chrome]")
{
    const auto traces = test::demoTraces("chrome-demo",
        { "parfib --n 22 --cutoff 12", "sumeuler --n 2000 --chunk 50", "quicksort --n 100000 --cutoff 5000",
            "pipeline --items 200 --work 2000", "imbalanced --conjuncts 8 --unit 2000" });
    for (const auto& [name, trace] : traces) {
        const auto out = test::exportChrome(trace);
        test::checkWellFormed(out.document, name);
        checkAgainstModel(trace, out, name);
        CHECK(out.summary.flows > 0);
        // A clean runtime trace: every spark and every suspended wait gets its arrow.
        CHECK(out.summary.flowsSkipped == 0);
    }
}
