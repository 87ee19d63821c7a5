// computeMetrics with lent inputs (MetricsInputs: the engine states, CPUs curve and model of an
// earlier whole-trace result) must give exactly the report it gives on its own, for any options, and
// must not keep a copy of what it borrowed. The app computes every selection's metrics this way.
#include "metrics_sim.h"
#include "sparkscope/core/metrics.h"
#include "sparkscope/core/metrics_export.h"
#include "sparkscope/core/reader.h"
#include "support/test_data.h"

#include <catch2/catch.hpp>

using namespace sparkscope::core;

namespace {

void checkLentInputsGiveTheSameReport(const Trace& trace)
{
    const Metrics whole = computeMetrics(trace);
    const MetricsInputs inputs { &whole.engineStates, &whole.cpusOverTime, &whole.model, {} };
    const uint64_t first = trace.firstTimeNs, span = trace.lastTimeNs - trace.firstTimeNs;
    std::vector<MetricsOptions> all(4);
    all[1].instances = true;
    all[2].fromNs = first + span / 4; // a selection
    all[2].toNs = first + span / 2;
    all[3].callCount = 1000; // a call count typed into the summary panel, with a selection
    all[3].fromNs = first + span / 3;
    for (const MetricsOptions& options : all) {
        INFO("range [" << options.fromNs << ", " << options.toNs << ") instances " << options.instances);
        const Metrics lent = computeMetrics(trace, options, inputs);
        CHECK(metricsToJson(lent) == metricsToJson(computeMetrics(trace, options)));
        // Nothing borrowed is copied into the result.
        CHECK(lent.model.conjunctions.empty());
        CHECK(lent.model.contexts.empty());
        CHECK(lent.engineStates.engines.empty());
        CHECK(lent.cpusOverTime.empty());
    }
}

} // namespace

TEST_CASE("metrics computed with lent states and model equal those computed from scratch", "[core][metrics]")
{
    size_t conjunctions = 0;
    for (uint64_t seed = 1; seed <= 12; ++seed) {
        INFO("seed " << seed);
        const Trace trace = sparkscope::test::simulateRandomProgram(seed).build();
        conjunctions += buildParModel(trace).conjunctions.size();
        checkLentInputsGiveTheSameReport(trace);
    }
    CHECK(conjunctions > 0); // the simulated programs do run parallel conjunctions
    if (auto path = sparkscope::test::sharedTestData("ghc/parfib-12-30.eventlog")) {
        auto trace = readTrace(path->string());
        REQUIRE(trace);
        checkLentInputsGiveTheSameReport(trace.value());
    }
}
