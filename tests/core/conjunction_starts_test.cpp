// conjunctionStartsBySite (core/conjunction_starts.h): one pass over the events gives the model's
// conjunction instances' starts by site, in the model's order; by hand on a built trace with ties and a
// renamed static id, and against the model on the scenario, demo, damaged and GHC traces.
#include "sparkscope/core/conjunction_starts.h"

#include "scenario_traces.h"
#include "sparkscope/core/par_model.h"
#include "support/trace_builder.h"

#include <catch2/catch.hpp>

using namespace sparkscope::core;
using sparkscope::test::TraceBuilder;

namespace {

// The model's instances' starts grouped by staticName, in ParModel::conjunctions' (start) order.
std::map<std::string, std::vector<uint64_t>> fromModel(const Trace& trace)
{
    const ParModel m = buildParModel(trace);
    std::map<std::string, std::vector<uint64_t>> out;
    for (const ConjunctionInstance& c : m.conjunctions)
        out[m.staticName(c.staticId)].push_back(c.startNs);
    return out;
}

} // namespace

TEST_CASE("conjunction starts by site, worked out by hand", "[model]")
{
    // Static id 1 named "a.cpp:1", then renamed "a.cpp:2" at 50 (the later name wins); id 2 never named.
    // At 100 both engines start an instance of id 1: engine 0's first; engine 1 then one of id 2 at 100
    // (file order after its other one), and engine 0 one of id 1 at 120.
    TraceBuilder b(2);
    b.internString(0, 1, "a.cpp:1").internString(50, 1, "a.cpp:2");
    b.runThread(0, 0, 1).runThread(1, 0, 2);
    b.startParConj(1, 100, 0xB1, 1).startParConj(1, 100, 0xB2, 2);
    b.startParConj(0, 100, 0xA1, 1).startParConj(0, 120, 0xA2, 1);
    const Trace trace = b.roundTrip();
    const auto starts = conjunctionStartsBySite(trace);
    CHECK(starts == std::map<std::string, std::vector<uint64_t>> { { "a.cpp:2", { 100, 100, 120 } },
        { "static#2", { 100 } } });
    CHECK(starts == fromModel(trace));
}

TEST_CASE("conjunction starts by site equal the model's on scenario, demo, damaged and GHC traces", "[model]")
{
    using namespace sparkscope::test;
    for (const Trace& t : { stealTrace(), futureTrace(), contentionTrace() })
        CHECK(conjunctionStartsBySite(t) == fromModel(t));
    for (uint64_t seed = 1; seed <= 5; ++seed) {
        const Trace damaged = damagedAtRandom(contentionTrace(), seed);
        CHECK(conjunctionStartsBySite(damaged) == fromModel(damaged));
    }
    for (const NamedTrace& d : demoTraces("conjunction-starts", { "parfib --n 20 --cutoff 8", "pipeline --items 50 --work 2000" })) {
        INFO(d.name);
        const auto starts = conjunctionStartsBySite(d.trace);
        CHECK(!starts.empty());
        CHECK(starts == fromModel(d.trace));
    }
    for (const NamedTrace& g : sharedGhcTraces({ "parfib-12-30.eventlog" })) {
        INFO(g.name);
        CHECK(conjunctionStartsBySite(g.trace).empty());
    }
}
