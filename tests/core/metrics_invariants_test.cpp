// Invariants of the metrics on real traces: every sparkscope-demo workload's trace (run here, when
// the demo is built) and random runtime-like traces from a small simulator (metrics_sim.h):
//   TIME_BLOCKED + TIME_RUNNABLE + TIME_RUNNING = TIME_AS_CONTEXT (no part exceeds the whole);
//   RUNNING_SELF <= RUNNABLE_SELF and RUNNING_SELF_AND_DESC <= RUNNABLE_SELF_AND_DESC at every step;
//   RUNNING_SELF, RUNNING_SELF_AND_DESC and CPUS_OVER_TIME <= engines; 0 <= AVAIL_CPUS <= engines;
//   integral of CPUS_OVER_TIME = running time summed over engines.
#include "metrics_sim.h"
#include "scenario_traces.h"
#include "sparkscope/core/check_model.h"
#include "sparkscope/core/metrics.h"
#include "sparkscope/core/metrics_export.h"
#include "sparkscope/core/metrics_query.h"
#include "sparkscope/core/reader.h"
#include "support/test_data.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <set>

using namespace sparkscope::core;

namespace {

// f(t) <= g(t) at every breakpoint of either (both are step functions, so that is everywhere).
bool pointwiseAtMost(const StepFunction& f, const StepFunction& g)
{
    for (const auto* h : { &f, &g })
        for (const auto& s : h->steps())
            if (f.valueAt(s.timeNs) > g.valueAt(s.timeNs))
                return false;
    return true;
}

void checkInvariants(const Trace& trace, const std::string& name)
{
    INFO(name);
    MetricsOptions withInstances;
    withInstances.instances = true;
    const Metrics m = computeMetrics(trace, withInstances);
    const ParModel& pm = m.model;
    const int64_t engines = int64_t(trace.engineCount());
    // Conjunct time split.
    for (uint32_t k = 0; k < pm.conjuncts.size(); ++k) {
        const ConjunctInstance& g = pm.conjuncts[k];
        if (!g.complete)
            continue;
        const auto split = conjunctTimeSplit(pm, ConjunctIndex(k));
        const uint64_t asContext = g.endNs - g.startNs;
        INFO("conjunct " << k);
        REQUIRE(split[0] + split[2] <= asContext);
        REQUIRE(split[0] + split[1] + split[2] == asContext);
    }
    // Conjunction curves.
    for (uint32_t j = 0; j < pm.conjunctions.size(); ++j) {
        if (!pm.conjunctions[j].complete)
            continue;
        INFO("conjunction " << j);
        const auto c = conjunctionCurves(pm, m.cpusOverTime, size_t(engines), ConjunctionIndex(j));
        REQUIRE(pointwiseAtMost(c.runningSelf, c.runnableSelf));
        REQUIRE(pointwiseAtMost(c.runningSelfAndDesc, c.runnableSelfAndDesc));
        const int64_t a = c.runningSelf.beginNs(), b = c.runningSelf.endNs();
        REQUIRE(c.runningSelf.max(a, b) <= engines);
        REQUIRE(c.runningSelfAndDesc.max(a, b) <= engines);
        for (const auto& s : c.availCpus.steps()) {
            REQUIRE(s.value >= 0);
            REQUIRE(s.value <= engines);
        }
        // The file's per-instance figures (bottom-up descendant pass) agree with the curves built
        // directly for this one instance (subtree walk).
        auto field = [&](const char* key, const char* name) {
            const MetricValue* v = m.find("conjunctions", "instance:" + std::to_string(j), key);
            REQUIRE(v);
            for (const auto& [k, x] : v->fields)
                if (k == name)
                    return std::get<double>(x);
            FAIL("missing " << key << "." << name);
            return 0.0;
        };
        CHECK(field("PARCONJ_RUNNABLE_SELF_AND_DESC", "max") == double(c.runnableSelfAndDesc.max(a, b)));
        CHECK(field("PARCONJ_RUNNABLE_SELF_AND_DESC", "average") == Approx(c.runnableSelfAndDesc.average(a, b)));
        CHECK(field("PARCONJ_RUNNING_SELF_AND_DESC", "average") == Approx(c.runningSelfAndDesc.average(a, b)));
        CHECK(field("PARCONJ_AVAIL_CPUS", "max") == double(c.availCpus.max(a, b)));
        CHECK(field("PARCONJ_AVAIL_CPUS", "average") == Approx(c.availCpus.average(a, b)));
        CHECK(field("PARCONJ_RUNNABLE_SELF", "average") == Approx(c.runnableSelf.average(a, b)));
        // Every figure the hover menu gives this instance is in its record, with the same value.
        const std::vector<InstanceFigure> shown = instanceMetrics(m, EventOwner(ConjunctionIndex(j)));
        REQUIRE(!shown.empty());
        for (const InstanceFigure& f : shown) {
            INFO(f.key << "." << f.statistic);
            CHECK(field(f.key.c_str(), f.statistic.c_str()) == Approx(f.value));
        }
    }
    // CPUS_OVER_TIME.
    uint64_t running = 0;
    for (size_t e = 0; e < m.engineStates.engineCount(); ++e)
        running += m.engineStates.timeInStates(e)[size_t(EngineState::Running)];
    CHECK(m.cpusOverTime.integral(int64_t(m.engineStates.firstNs), int64_t(m.engineStates.lastNs)) == int64_t(running));
    CHECK(m.cpusOverTime.max(int64_t(m.engineStates.firstNs), int64_t(m.engineStates.lastNs)) <= engines);
    // The file is deterministic.
    CHECK(metricsToJson(m) == metricsToJson(computeMetrics(trace, withInstances)));
}

} // namespace

TEST_CASE("metric invariants hold on every demo workload's trace", "[core][metrics]")
{
    const auto traces = sparkscope::test::demoTraces("metrics-demo",
        { "parfib --n 27 --cutoff 12", "sumeuler --n 2000 --chunk 50", "quicksort --n 200000 --cutoff 5000",
            "pipeline --items 300 --work 2000", "imbalanced --conjuncts 8 --unit 2000" });
    for (const auto& [name, trace] : traces) {
        CHECK(checkModel(trace).empty());
        checkInvariants(trace, name);
    }
}

TEST_CASE("metric invariants hold on random runtime-like traces", "[core][metrics]")
{
    size_t conjunctions = 0, nested = 0, suspendedWaits = 0, steals = 0, reusedDyn = 0;
    for (uint64_t seed = 1; seed <= 40; ++seed) {
        const auto builder = sparkscope::test::simulateRandomProgram(seed);
        const Trace trace = builder.build();
        {
            const ParModel pm = buildParModel(trace);
            conjunctions += pm.conjunctions.size();
            std::set<uint64_t> dyn;
            for (const auto& c : pm.conjunctions) {
                nested += c.depth > 0;
                reusedDyn += !dyn.insert(c.dynId).second;
            }
            for (const auto& f : pm.futures)
                for (const auto& w : f.waits)
                    suspendedWaits += w.suspended;
            for (const auto& g : pm.conjuncts)
                steals += g.stolen;
        }
        INFO("seed " << seed);
        const auto problems = checkModel(trace);
        for (const auto& p : problems)
            UNSCOPED_INFO(p.timeNs << " " << p.engine << " " << p.message);
        CHECK(problems.empty());
        checkInvariants(trace, "seed " + std::to_string(seed));
    }
    // The simulator exercises what the invariants are about.
    CHECK(conjunctions > 100);
    CHECK(nested > 0);
    CHECK(suspendedWaits > 0);
    CHECK(steals > 0);
    CHECK(reusedDyn > 0);
}
