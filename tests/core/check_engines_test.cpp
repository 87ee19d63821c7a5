// STARTUP's engine count. checkStructure: an engine at or past it that posts events is a problem (a
// damaged block marker); declared engines that post nothing are a note. Every reader takes such
// engines as engines of the run, idle throughout, and the metrics and the analysis count them.
#include "support/trace_builder.h"

#include "support/test_data.h"

#include "sparkscope/core/analysis.h"
#include "sparkscope/core/check.h"
#include "sparkscope/core/compact_trace.h"
#include "sparkscope/core/engine_states.h"
#include "sparkscope/core/event_types.h"
#include "sparkscope/core/metrics.h"
#include "sparkscope/core/reader.h"
#include "sparkscope/core/trace_stream.h"
#include "sparkscope/core/writer.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

using namespace sparkscope::core;
using sparkscope::test::TraceBuilder;
namespace fs = std::filesystem;

namespace {

// STARTUP (17): u16 engine count, big-endian.
std::vector<uint8_t> engines(uint16_t n) { return { uint8_t(n >> 8), uint8_t(n & 0xFF) }; }

size_t count(const std::vector<Problem>& problems, const std::string& text, bool note)
{
    return size_t(std::count_if(problems.begin(), problems.end(),
        [&](const Problem& p) { return p.isNote == note && p.message.find(text) != std::string::npos; }));
}

} // namespace

TEST_CASE("check: an engine past STARTUP's count is a problem, a silent declared one a note", "[core][check]")
{
    SECTION("events from engine 2 of 2")
    {
        TraceBuilder b(3);
        b.event(kNoEngine, 0, ev::Startup, engines(2)).runThread(0, 10, 1).runThread(2, 20, 2);
        const auto problems = checkStructure(b.roundTrip());
        CHECK(count(problems, "engine 2 posts events, but STARTUP declared 2 engine(s)", false) == 1);
    }
    SECTION("5 declared, 2 post")
    {
        TraceBuilder b(2);
        b.event(kNoEngine, 0, ev::Startup, engines(5)).runThread(0, 10, 1).runThread(1, 20, 2);
        const auto problems = checkStructure(b.roundTrip());
        CHECK(count(problems, "STARTUP declared 5 engine(s), and 2 post events", true) == 1);
        CHECK(count(problems, "posts events, but", false) == 0);
    }
    SECTION("as declared")
    {
        TraceBuilder b(2);
        b.event(kNoEngine, 0, ev::Startup, engines(2)).runThread(0, 10, 1).runThread(1, 20, 2);
        const auto problems = checkStructure(b.roundTrip());
        CHECK(count(problems, "STARTUP declared", true) + count(problems, "STARTUP declared", false) == 0);
    }
}

TEST_CASE("engines STARTUP declares that post nothing are engines of the run, idle throughout", "[core][check]")
{
    // STARTUP declares 3 engines at 0. Engine 0 runs ctx 1 over [10,110); engine 1 runs ctx 2 over
    // [20,60); engine 2 posts nothing. The run spans [0,110], so 3 engines give a ledger of 330 ns,
    // 140 of them running and engine 2's 110 idle.
    TraceBuilder b(2);
    b.event(kNoEngine, 0, ev::Startup, engines(3));
    b.runThread(0, 10, 1).stopThread(0, 110, 1, kStopFinished);
    b.runThread(1, 20, 2).stopThread(1, 60, 2, kStopFinished);
    const fs::path path = sparkscope::test::scratchDir("declared-engines") / "three.eventlog";
    REQUIRE(writeFile(path.string(), writeTrace(b.roundTrip())));

    auto whole = readTrace(path.string());
    REQUIRE(whole);
    CHECK(whole->engineCount() == 3);
    auto streamed = streamTrace(path.string(), [](const StreamBatch&) {});
    REQUIRE(streamed);
    CHECK(streamed->summary.engines.size() == 3);
    auto compact = readTraceCompact(path.string());
    REQUIRE(compact);
    CHECK(compact->engineCount() == 3);

    const EngineStates states = computeEngineStates(whole.value());
    REQUIRE(states.engineCount() == 3);
    CHECK(states.timeInStates(2)[size_t(EngineState::Idle)] == 110);
    const Metrics m = computeMetrics(whole.value());
    const MetricValue* idle = m.find("engines", "2", "ENGINE_STATE_TIME");
    REQUIRE(idle);
    const auto field
        = std::find_if(idle->fields.begin(), idle->fields.end(), [](const auto& f) { return f.first == "idle_ns"; });
    REQUIRE(field != idle->fields.end());
    CHECK(std::get<int64_t>(field->second) == 110);

    const Analysis a = analyze(whole.value());
    CHECK(a.ledger.perEngine.size() == 3);
    CHECK(a.ledger.total.totalNs() == 3 * 110);
    CHECK(a.ledger.total.runningNs() == 100 + 40);
    CHECK(a.ledger.perEngine[2].runningNs() == 0);
    CHECK(a.ledger.perEngine[2].totalNs() == 110);

    // A damaged count is not taken: only the engines that post events, and check says why.
    TraceBuilder d(2);
    d.event(kNoEngine, 0, ev::Startup, engines(65535)).runThread(0, 10, 1).runThread(1, 20, 2);
    const Trace damaged = d.roundTrip();
    CHECK(damaged.engineCount() == 2);
    CHECK(count(checkStructure(damaged), "STARTUP declares 65535 engines, more than the 4096", true) == 1);
}

TEST_CASE("check: an engine no CAP_CREATE or CAPSET_ASSIGN_CAP names is a problem when the trace names any",
    "[core][check]")
{
    // GHC ≥ 7 posts no STARTUP but CAP_CREATE (u16 cap) per capability; our runtime assigns each
    // engine to its capset (CAPSET_ASSIGN_CAP: u32 capset, u16 cap). A block marker whose engine
    // number was damaged names an engine neither made.
    auto assign = [](uint16_t c) { return std::vector<uint8_t> { 0, 0, 0, 0, uint8_t(c >> 8), uint8_t(c & 0xFF) }; };
    SECTION("engine 2 posts, caps 0 and 1 assigned")
    {
        TraceBuilder b(3);
        b.event(kNoEngine, 0, ev::CapsetAssignCap, assign(0)).event(kNoEngine, 0, ev::CapsetAssignCap, assign(1));
        b.runThread(0, 10, 1).runThread(1, 20, 2).runThread(2, 30, 3);
        const auto problems = checkStructure(b.roundTrip());
        CHECK(count(problems, "engine 2 posts events, but no CAP_CREATE or CAPSET_ASSIGN_CAP names it", false) == 1);
        CHECK(count(problems, "engine 1 posts events, but", false) == 0);
    }
    SECTION("every posting engine assigned")
    {
        TraceBuilder b(2);
        b.event(kNoEngine, 0, ev::CapsetAssignCap, assign(0)).event(kNoEngine, 0, ev::CapsetAssignCap, assign(1));
        b.runThread(0, 10, 1).runThread(1, 20, 2);
        CHECK(count(checkStructure(b.roundTrip()), "no CAP_CREATE", false) == 0);
    }
    SECTION("neither posted: nothing said")
    {
        TraceBuilder b(3);
        b.runThread(0, 10, 1).runThread(2, 30, 3);
        CHECK(count(checkStructure(b.roundTrip()), "no CAP_CREATE", false) == 0);
    }
}
