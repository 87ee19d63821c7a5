// The tracer's timestamps, white-box (runtime/src/tracer.h): the time-stamp counters of two cores
// can disagree by tens of nanoseconds, and an engine's thread can move between cores, so an
// engine's events are stamped never earlier than its previous one, and a steal never earlier than
// the stolen spark's creation on the other engine. Checked here with a "creation" stamped a second
// ahead of this engine's clock, as a fast core's counter would make it, then read back from the file.
#include "tracer.h"

#include "sparkscope/core/reader.h"
#include "support/test_data.h"

#include <catch2/catch.hpp>

using namespace sparkscope;
using namespace sparkscope::runtime::detail;

TEST_CASE("an engine's events never go back in time and a steal is stamped after its spark's creation", "[runtime]")
{
    const auto path = (test::scratchDir("runtime-tracer-stamps") / "stamps.eventlog").string();
    const TraceClock clock;
    auto sink = TraceSink::open(path, 2, 128, clock);
    REQUIRE(sink);
    uint64_t created = 0, stolen = 0;
    {
        EngineTraceBuffer engine(*sink.value(), 0, 4096);
        engine.event0(core::ev::MerWorkStealing);
        created = engine.lastNs() + 1'000'000'000; // the victim's clock runs a second ahead
        engine.sparkSteal(1, (1u << 24) | 7, created);
        stolen = engine.lastNs();
        CHECK(stolen == created + 1);
        engine.event4(core::ev::MerSparkRun, 8); // posted after the steal: not before it
        CHECK(engine.lastNs() >= stolen);
        engine.flush();
    }
    sink.value()->finish();
    sink.value().reset();

    auto trace = core::readTrace(path);
    REQUIRE(trace);
    REQUIRE(trace->engines.size() >= 1);
    std::vector<uint16_t> types;
    for (const core::Event& e : trace->engines[0])
        if (e.type != core::ev::BlockMarker)
            types.push_back(e.type);
    CHECK(types == std::vector<uint16_t> { core::ev::MerWorkStealing, core::ev::MerSparkSteal, core::ev::MerSparkRun });
    for (const core::Event& e : trace->engines[0])
        if (e.type == core::ev::MerSparkSteal)
            CHECK(e.timeNs == stolen);
}
