#include "support/test_data.h"
#include "support/trace_builder.h"

#include "sparkscope/core/context_lanes.h"
#include "sparkscope/core/engine_states.h"
#include "sparkscope/core/event_types.h"
#include "sparkscope/core/reader.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <array>

using namespace sparkscope;
using core::ContextLaneState;

namespace {

std::array<uint64_t, 3> busy(const core::LodIndex& lane, uint64_t a, uint64_t b)
{
    std::array<uint64_t, 3> out {};
    lane.busy(0, a, b, out);
    return out;
}

} // namespace

TEST_CASE("context lanes show each context's runnable, running and blocked time", "[core][lanes]")
{
    // Context 1: created at 0 (runnable), runs on engine 0 over [10, 40), blocks there (status 4),
    // is made runnable at 60, runs on engine 1 over [70, 90) and finishes; created again at 95
    // (reused id: same lane), runnable to the end (100).
    // Context 2: created at 5, runs on engine 1 over [20, 50), yields (runnable) to the end.
    // Lane 1: runnable [0,10) [60,70) [95,100) = 25, running [10,40) on 0 and [70,90) on 1 = 50,
    //         blocked [40,60) = 20; nothing over [90, 95).
    // Lane 2: runnable [5,20) [50,100) = 65, running 30 on engine 1, blocked 0.
    test::TraceBuilder b(2);
    b.createThread(0, 0, 1).createThread(1, 5, 2);
    b.runThread(0, 10, 1).stopThread(0, 40, 1, core::kStopBlocked).threadRunnable(1, 60, 1);
    b.runThread(1, 20, 2).stopThread(1, 50, 2, core::kStopYielding);
    b.runThread(1, 70, 1).stopThread(1, 90, 1, core::kStopFinished).createThread(0, 95, 1).endAt(100);
    // THREAD_LABEL names context 2 (GHC: thread id, then the text), before it is even created.
    const std::string label = "worker";
    std::vector<uint8_t> labelPayload { 0, 0, 0, 2 };
    labelPayload.insert(labelPayload.end(), label.begin(), label.end());
    b.event(core::kNoEngine, 0, core::ev::ThreadLabel, labelPayload);
    const core::ContextLanes lanes = core::computeContextLanes(b.build());
    REQUIRE(lanes.ids == std::vector<uint32_t> { 1, 2 });
    CHECK(lanes.labels == std::vector<std::string> { "", "worker" });
    REQUIRE(lanes.lanes.size() == 2);
    CHECK(busy(lanes.lanes[0], 0, 100) == std::array<uint64_t, 3> { 25, 50, 20 });
    CHECK(busy(lanes.lanes[1], 0, 100) == std::array<uint64_t, 3> { 65, 30, 0 });
    CHECK(busy(lanes.lanes[0], 90, 95) == std::array<uint64_t, 3> { 0, 0, 0 });

    const auto spans = lanes.lanes[0].spans(0);
    REQUIRE(spans.size() == 6);
    CHECK(spans[1].startNs == 10);
    CHECK(spans[1].endNs == 40);
    CHECK(spans[1].state == uint8_t(ContextLaneState::Running));
    CHECK(spans[1].label == 0); // the engine it ran on
    CHECK(spans[4].startNs == 70);
    CHECK(spans[4].label == 1);
    CHECK(spans[2].state == uint8_t(ContextLaneState::Blocked));
    CHECK(spans[2].label == core::kNoContext);
    CHECK(lanes.lanes[0].spanAt(0, 92) == nullptr);
}

TEST_CASE("context lanes of a GHC eventlog add up to the engines' running time", "[core][lanes][data]")
{
    // Every nanosecond an engine runs a thread is a nanosecond some thread's lane is running on that
    // engine (the same RUN_THREAD / STOP_THREAD pairs), so the totals must agree exactly.
    const auto path = test::sharedTestData("ghc/parfib-12-30.eventlog");
    if (!path)
        return;
    auto read = core::readTrace(path->string());
    REQUIRE(read.ok());
    const core::Trace& trace = read.value();
    const core::ContextLanes lanes = core::computeContextLanes(trace);
    REQUIRE(lanes.size() >= 5); // 8 threads: main, spark threads, the IO manager's
    const core::EngineStates states = core::computeEngineStates(trace);
    std::vector<uint64_t> laneRunning(trace.engineCount(), 0);
    for (const core::LodIndex& lane : lanes.lanes)
        for (const core::LodSpan& s : lane.spans(0))
            if (s.state == uint8_t(ContextLaneState::Running) && s.label < laneRunning.size())
                laneRunning[s.label] += s.endNs - s.startNs;
    for (size_t e = 0; e < trace.engineCount(); ++e) {
        INFO("engine " << e);
        CHECK(laneRunning[e] == states.timeInStates(e)[size_t(core::EngineState::Running)]);
    }
    // GHC names some of its threads (THREAD_LABEL): the IO manager's, for one.
    REQUIRE(lanes.labels.size() == lanes.size());
    CHECK(std::any_of(lanes.labels.begin(), lanes.labels.end(),
        [](const std::string& l) { return l.find("IOManager") != std::string::npos; }));
}

namespace {

// Both ways of building lanes must agree span for span.
void checkSameLanes(const core::ContextLanes& a, const core::ContextLanes& b)
{
    REQUIRE(a.ids == b.ids);
    CHECK(a.originNs == b.originNs);
    CHECK(a.endNs == b.endNs);
    for (size_t k = 0; k < a.size(); ++k) {
        INFO("context " << a.ids[k]);
        const auto x = a.lanes[k].spans(0), y = b.lanes[k].spans(0);
        REQUIRE(x.size() == y.size());
        for (size_t i = 0; i < x.size(); ++i) {
            CHECK(x[i].startNs == y[i].startNs);
            CHECK(x[i].endNs == y[i].endNs);
            CHECK(x[i].state == y[i].state);
            CHECK(x[i].label == y[i].label);
        }
    }
}

} // namespace

TEST_CASE("context lanes from the context events alone equal those from the parallel model", "[core][lanes]")
{
    // Every context rule once: creation, run, lost STOP_THREAD (a RUN_THREAD on a busy engine), a
    // context moving engines, blocking STOP_THREAD and wake-up, a suspended future wait (blocks the
    // running context), yielding while blocked (stays blocked), release and reuse of an id (after a
    // STOP_THREAD, as the runtime posts them), and events at equal times on different engines.
    test::TraceBuilder b(3);
    b.createThread(0, 0, 1).createThread(0, 0, 2).createThread(1, 5, 3);
    b.runThread(0, 10, 1).runThread(0, 30, 2); // lost STOP_THREAD of 1 on engine 0
    b.runThread(1, 30, 1).futureWaitSuspended(1, 40, 0x99).stopThread(1, 45, 1, core::kStopYielding);
    b.threadRunnable(2, 60, 1).runThread(2, 70, 1).stopThread(2, 80, 1, core::kStopFinished);
    b.stopThread(0, 50, 2, core::kStopBlocked).threadRunnable(1, 90, 2).runThread(0, 95, 2);
    b.stopThread(0, 100, 2, core::kStopYielding).releaseContext(0, 100, 2).reuseContext(0, 100, 2, 1);
    b.runThread(0, 110, 2).stopThread(0, 120, 2, core::kStopYielding);
    b.runThread(1, 20, 3).stopThread(1, 25, 3, core::kStopBlocked).endAt(200);
    const core::Trace trace = b.build();
    const core::ContextLanes lean = core::computeContextLanes(trace);
    const core::ContextLanes model
        = core::computeContextLanes(core::buildParModel(trace), trace.firstTimeNs, trace.lastTimeNs);
    checkSameLanes(lean, model);
    // Context 1 is blocked from its suspended wait at 40 to the wake-up at 60 (the yield at 45 does
    // not make it runnable) and runs on engine 2 over [70, 80).
    std::array<uint64_t, 3> busy {};
    lean.lanes[0].busy(0, 40, 60, busy);
    CHECK(busy == std::array<uint64_t, 3> { 0, 0, 20 });
    const core::LodSpan* run = lean.lanes[0].spanAt(0, 75);
    REQUIRE(run);
    CHECK(run->label == 2);
}

TEST_CASE("context lanes from the context events equal the model's on GHC eventlogs", "[core][lanes][data]")
{
    for (const char* name :
        { "ghc/parfib-12-30.eventlog", "ghc/parfib-8-32.eventlog", "ghc-events/stop.hT.eventlog" }) {
        const auto path = test::sharedTestData(name);
        if (!path)
            return;
        INFO(name);
        auto read = core::readTrace(path->string());
        REQUIRE(read.ok());
        const core::Trace& trace = read.value();
        checkSameLanes(core::computeContextLanes(trace),
            core::computeContextLanes(core::buildParModel(trace), trace.firstTimeNs, trace.lastTimeNs));
    }
}

TEST_CASE("context lanes: a collection interrupts the context running on its engine, as in the model", "[core][lanes]")
{
    // ctx 1 runs on engine 0 from 0; engine 0 collects [20,30) with no STOP_THREAD (runnable there),
    // and [50,60) after it stopped at 45 (it stays runnable); ctx 2 is run on engine 1 at 65 while that
    // engine collects [62,70), so it runs from 70. Lane 1: running [0,20), runnable [20,30), running
    // [30,45), runnable [45,80); lane 2: runnable [0,70), running [70,80).
    test::TraceBuilder b(2);
    b.runThread(0, 0, 1).gcStart(0, 20).gcEnd(0, 30).stopThread(0, 45, 1, core::kStopYielding);
    b.gcStart(0, 50).gcEnd(0, 60).createThread(1, 0, 2).gcStart(1, 62).runThread(1, 65, 2).gcEnd(1, 70);
    b.endAt(80);
    const core::Trace trace = b.roundTrip();
    const core::ContextLanes lanes = core::computeContextLanes(trace);
    checkSameLanes(lanes, core::computeContextLanes(core::buildParModel(trace), trace.firstTimeNs, trace.lastTimeNs));
    REQUIRE(lanes.lanes.size() == 2);
    CHECK(busy(lanes.lanes[0], 0, 80) == std::array<uint64_t, 3> { 45, 35, 0 }); // runnable, running, blocked
    CHECK(busy(lanes.lanes[1], 0, 80) == std::array<uint64_t, 3> { 70, 10, 0 });
}

TEST_CASE("context lanes: a collection resumes only the context it held back, as in the model", "[core][lanes]")
{
    // ctx 1 blocks on a future on engine 0 at 10 with no STOP_THREAD, so engine 0 still holds it.
    SECTION("woken and run on engine 1 before engine 0 collects: engine 0 no longer holds it")
    {
        // Lane: running [0,10), blocked [10,20), runnable [20,30), running [30,60) through engine 0's GC.
        test::TraceBuilder b(2);
        b.runThread(0, 0, 1).futureWaitSuspended(0, 10, 0xF).threadRunnable(1, 20, 1).runThread(1, 30, 1);
        b.gcStart(0, 40).gcEnd(0, 50).endAt(60);
        const core::Trace trace = b.roundTrip();
        const core::ContextLanes lanes = core::computeContextLanes(trace);
        checkSameLanes(
            lanes, core::computeContextLanes(core::buildParModel(trace), trace.firstTimeNs, trace.lastTimeNs));
        REQUIRE(lanes.lanes.size() == 1);
        CHECK(busy(lanes.lanes[0], 0, 60) == std::array<uint64_t, 3> { 10, 40, 10 });
    }
    SECTION("woken during engine 0's collection: the collection's end does not run it")
    {
        // Lane: running [0,10), blocked [10,30), runnable [30,60): nothing runs it again.
        test::TraceBuilder b(2);
        b.runThread(0, 0, 1).futureWaitSuspended(0, 10, 0xF).gcStart(0, 20).threadRunnable(1, 30, 1);
        b.gcEnd(0, 40).endAt(60);
        const core::Trace trace = b.roundTrip();
        const core::ContextLanes lanes = core::computeContextLanes(trace);
        checkSameLanes(
            lanes, core::computeContextLanes(core::buildParModel(trace), trace.firstTimeNs, trace.lastTimeNs));
        REQUIRE(lanes.lanes.size() == 1);
        CHECK(busy(lanes.lanes[0], 0, 60) == std::array<uint64_t, 3> { 30, 10, 20 });
    }
}

TEST_CASE("context lanes: a context blocked by a stop posted elsewhere stays blocked when its engine runs another, "
          "as in the model",
    "[core][lanes]")
{
    // Engine 0 runs ctx 1 from 10; its blocking STOP_THREAD comes from engine 1 at 20; engine 0 runs
    // ctx 2 at 30; ctx 1 is woken at 45 and runs on engine 1 [50,70). Lane 1 (from its first event,
    // 10): running [10,20) and [50,70), blocked [20,45), runnable [45,50) and [70,100): 35 runnable,
    // 30 running, 25 blocked (not runnable from 30, as a lost STOP_THREAD would read).
    test::TraceBuilder b(2);
    b.runThread(0, 10, 1).stopThread(1, 20, 1, core::kStopBlocked).runThread(0, 30, 2);
    b.threadRunnable(1, 45, 1).runThread(1, 50, 1).stopThread(1, 70, 1, core::kStopYielding).endAt(100);
    const core::Trace trace = b.roundTrip();
    const core::ContextLanes lanes = core::computeContextLanes(trace);
    checkSameLanes(lanes, core::computeContextLanes(core::buildParModel(trace), trace.firstTimeNs, trace.lastTimeNs));
    REQUIRE(lanes.lanes.size() == 2);
    CHECK(busy(lanes.lanes[0], 0, 100) == std::array<uint64_t, 3> { 35, 30, 25 });
}

TEST_CASE("a context released while running is not revived when its engine runs it again", "[core][lanes]")
{
    // Context 2 runs on engine 0 from 10, is released at 20 without a STOP_THREAD, created again
    // (same id) at 20 and runs on engine 0 over [30, 40). Lane: runnable [0,10), running [10,20),
    // runnable [20,30), running [30,40), runnable to 50. (The parallel model keeps the released
    // incarnation, finished, as a timeline of its own; this pass keeps one lane per id.)
    test::TraceBuilder b(1);
    b.createThread(0, 0, 2).runThread(0, 10, 2).releaseContext(0, 20, 2).reuseContext(0, 20, 2, 1);
    b.runThread(0, 30, 2).stopThread(0, 40, 2, core::kStopYielding).endAt(50);
    const core::ContextLanes lanes = core::computeContextLanes(b.build());
    REQUIRE(lanes.size() == 1);
    CHECK(busy(lanes.lanes[0], 0, 50) == std::array<uint64_t, 3> { 30, 20, 0 });
    const core::LodSpan* run = lanes.lanes[0].spanAt(0, 35);
    REQUIRE(run);
    CHECK(run->state == uint8_t(ContextLaneState::Running));
}
