#include "sparkscope/core/engine_states.h"
#include "sparkscope/core/writer.h"
#include "support/trace_builder.h"

#include <catch2/catch.hpp>

using namespace sparkscope::core;
using sparkscope::test::TraceBuilder;

namespace Catch {
template <> struct StringMaker<StateInterval> {
    static std::string convert(const StateInterval& s)
    {
        return "{" + std::to_string(s.startNs) + "," + std::to_string(s.endNs) + ","
            + std::string(engineStateName(s.state)) + "," + std::to_string(s.context) + "}";
    }
};
}

TEST_CASE("engine states follow run, GC, search and sleep events", "[core][metrics]")
{
    TraceBuilder b(2);
    // The trace starts at 5 (engine 1's first event), so every engine's first interval starts there.
    // engine 0: idle [5,10), running ctx 7 [10,30), GC [30,40), running ctx 7 again [40,50) (GC
    //           interrupted the run; it resumes after GC_END), idle [50,60), searching [60,70),
    //           sleeping [70,90), idle [90,100) (woken by the next event), running ctx 8 [100,120)
    b.runThread(0, 10, 7).gcStart(0, 30).gcEnd(0, 40).stopThread(0, 50, 7, kStopYielding);
    b.lookingForGlobal(0, 60).workStealing(0, 65).sleeping(0, 70).lookingForGlobal(0, 90);
    b.runThread(0, 100, 8).stopThread(0, 120, 8, kStopFinished);
    // engine 1: searching [5,20), spark run at 20 (success) -> idle, running ctx 9 [25, 130]
    b.lookingForLocal(1, 5).sparkRun(1, 20, 1).runThread(1, 25, 9);
    b.endAt(130);
    const Trace trace = b.build();
    const EngineStates s = computeEngineStates(trace);
    REQUIRE(s.engineCount() == 2);
    const std::vector<StateInterval> e0 {
        { 5, 10, kNoContext, EngineState::Idle },
        { 10, 30, 7, EngineState::Running },
        { 30, 40, kNoContext, EngineState::Gc },
        { 40, 50, 7, EngineState::Running },
        { 50, 60, kNoContext, EngineState::Idle },
        { 60, 70, kNoContext, EngineState::Searching },
        { 70, 90, kNoContext, EngineState::Sleeping },
        // the wake-up event at 90 is a search event: searching [90,100)
        { 90, 100, kNoContext, EngineState::Searching },
        { 100, 120, 8, EngineState::Running },
        { 120, 130, kNoContext, EngineState::Idle },
    };
    CHECK(s.engines[0] == e0);
    const std::vector<StateInterval> e1 {
        { 5, 20, kNoContext, EngineState::Searching },
        { 20, 25, kNoContext, EngineState::Idle },
        { 25, 130, 9, EngineState::Running },
    };
    CHECK(s.engines[1] == e1);
    const auto t0 = s.timeInStates(0);
    CHECK(t0[size_t(EngineState::Running)] == 20 + 10 + 20);
    CHECK(t0[size_t(EngineState::Gc)] == 10);
    CHECK(s.timeInStates(0, 15, 45)[size_t(EngineState::Running)] == 15 + 5);
    REQUIRE(s.at(0, 35));
    CHECK(s.at(0, 35)->state == EngineState::Gc);

    // CPUS_OVER_TIME: engine 0 runs 50 ns, engine 1 runs 105 ns; at t=27 both run.
    const StepFunction cpus = cpusOverTime(s);
    CHECK(cpus.integral(0, 130) == 50 + 105);
    CHECK(cpus.beginNs() == 5);
    CHECK(cpus.valueAt(27) == 2);
    CHECK(cpus.valueAt(35) == 1);
    CHECK(cpus.max(0, 130) == 2);
}

TEST_CASE("an engine that shuts down while searching is idle from then on", "[core][metrics]")
{
    // Our runtime's engines search once more at shutdown (108, 112, 109) and stop without 111.
    // engine 0: running ctx 1 [10,20), searching [20,30), idle from SHUTDOWN at 30 to the end at 100
    //           (engine 1's last event); it was searching for 10 ns, not 80.
    // engine 1: searching [40,50), sleeping [50,60), then SHUTDOWN wakes nothing: idle [60,100).
    TraceBuilder b(2);
    b.runThread(0, 10, 1).stopThread(0, 20, 1, kStopFinished);
    b.lookingForGlobal(0, 20).lookingForLocal(0, 25).workStealing(0, 28).event(0, 30, ev::Shutdown);
    b.lookingForGlobal(1, 40).sleeping(1, 50).event(1, 60, ev::Shutdown).event(1, 100, ev::Shutdown);
    const EngineStates s = computeEngineStates(b.build());
    REQUIRE(s.engineCount() == 2);
    const std::vector<StateInterval> e0 {
        { 10, 20, 1, EngineState::Running },
        { 20, 30, kNoContext, EngineState::Searching },
        { 30, 100, kNoContext, EngineState::Idle },
    };
    CHECK(s.engines[0] == e0);
    CHECK(s.timeInStates(0)[size_t(EngineState::Searching)] == 10);
    const std::vector<StateInterval> e1 {
        { 10, 40, kNoContext, EngineState::Idle },
        { 40, 50, kNoContext, EngineState::Searching },
        { 50, 60, kNoContext, EngineState::Sleeping },
        { 60, 100, kNoContext, EngineState::Idle },
    };
    CHECK(s.engines[1] == e1);
}

TEST_CASE("a block marker does not wake a sleeping engine", "[core][metrics]")
{
    // The runtime flushes an engine's buffer as it goes to sleep, so a BLOCK_MARKER follows 111.
    // engine 0: running ctx 1 [10,20), idle [20,30), sleeping [30,90) across the marker at 31,
    //           searching from the wake-up at 90 to the end at 100.
    TraceBuilder b(1);
    b.runThread(0, 10, 1).stopThread(0, 20, 1, kStopFinished).sleeping(0, 30);
    PayloadBuilder marker;
    marker.u32(24).u64(95).u16(0);
    b.event(0, 31, ev::BlockMarker, marker.data());
    b.lookingForGlobal(0, 90).endAt(100);
    const EngineStates s = computeEngineStates(b.build());
    const std::vector<StateInterval> e0 {
        { 10, 20, 1, EngineState::Running },
        { 20, 30, kNoContext, EngineState::Idle },
        { 30, 90, kNoContext, EngineState::Sleeping },
        { 90, 100, kNoContext, EngineState::Searching },
    };
    CHECK(s.engines[0] == e0);
}

TEST_CASE("engine states cover the trace and never overlap", "[core][metrics]")
{
    TraceBuilder b(3);
    b.runThread(0, 100, 1).runThread(0, 200, 2); // lost STOP_THREAD: the second run closes the first
    b.stopThread(1, 50, 3, kStopBlocked); // STOP without RUN: ignored
    b.endAt(1000);
    const EngineStates s = computeEngineStates(b.build());
    for (const auto& engine : s.engines) {
        REQUIRE_FALSE(engine.empty());
        CHECK(engine.front().startNs == 50); // the trace's first event is at 50
        CHECK(engine.back().endNs == 1000);
        for (size_t i = 1; i < engine.size(); ++i) {
            CHECK(engine[i].startNs == engine[i - 1].endNs);
            CHECK_FALSE((engine[i].state == engine[i - 1].state && engine[i].context == engine[i - 1].context));
        }
    }
    CHECK(s.engines[0][1] == StateInterval { 100, 200, 1, EngineState::Running });
    CHECK(s.engines[0][2] == StateInterval { 200, 1000, 2, EngineState::Running });
    CHECK(s.engines[2].size() == 1);
}
