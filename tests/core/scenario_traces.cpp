#include "scenario_traces.h"

#include "sparkscope/core/reader.h"
#include "support/test_data.h"
#include "support/trace_builder.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <random>

namespace sparkscope::test {

core::Trace contentionTrace()
{
    TraceBuilder b(2);
    b.internString(0, 1, "sort.cpp:10");
    b.runThread(0, 0, 1).startParConj(0, 100, 0xA, 1).sparkCreate(0, 110, 0xA, 5);
    b.sparkSteal(1, 120, 0, 5).createThread(1, 125, 2).runThread(1, 130, 2);
    b.endParConjunct(1, 50120, 0xA).stopThread(1, 50120, 2, core::kStopFinished);
    b.endParConjunct(0, 50130, 0xA).endParConj(0, 50130, 0xA);
    uint64_t t = 60000;
    for (uint64_t dyn : { 0xBu, 0xCu }) {
        const uint32_t spark = uint32_t(dyn);
        b.startParConj(0, t, dyn, 1).sparkCreate(0, t, dyn, spark);
        b.endParConjunct(0, t + 40000, dyn).sparkRun(0, t + 40000, spark);
        b.endParConjunct(0, t + 80000, dyn).endParConj(0, t + 80000, dyn);
        t += 100000;
    }
    b.stopThread(0, t, 1, core::kStopFinished);
    return b.roundTrip();
}

core::Trace stealTrace()
{
    TraceBuilder b(2);
    b.internString(0, 1, "fib.m:10");
    b.runThread(0, 0, 1).startParConj(0, 100, 0xA, 1).sparkCreate(0, 110, 0xA, 5);
    b.lookingForLocal(1, 105)
        .workStealing(1, 115)
        .sparkSteal(1, 120, 0, 5)
        .createThread(1, 125, 2)
        .runThread(1, 130, 2);
    b.endParConjunct(0, 200, 0xA).stopThread(0, 210, 1, core::kStopBlocked);
    b.endParConjunct(1, 300, 0xA).threadRunnable(1, 305, 1).stopThread(1, 310, 2, core::kStopFinished);
    b.runThread(0, 330, 1).endParConj(0, 340, 0xA).stopThread(0, 400, 1, core::kStopFinished);
    b.endAt(400);
    return b.roundTrip();
}

core::Trace nestedTrace()
{
    TraceBuilder b(2);
    b.internString(0, 1, "outer").internString(0, 3, "inner");
    b.runThread(0, 0, 1).startParConj(0, 100, 0xA, 1).sparkCreate(0, 105, 0xA, 1);
    b.startParConj(0, 110, 0xB, 3).sparkCreate(0, 115, 0xB, 2).endParConjunct(0, 150, 0xB);
    b.sparkRun(0, 155, 2).endParConjunct(0, 175, 0xB).endParConj(0, 180, 0xB);
    b.endParConjunct(0, 190, 0xA).stopThread(0, 195, 1, core::kStopBlocked).lookingForGlobal(0, 196).sleeping(0, 198);
    b.lookingForLocal(1, 112)
        .workStealing(1, 116)
        .sparkSteal(1, 120, 0, 1)
        .createThread(1, 122, 2)
        .runThread(1, 125, 2);
    b.endParConjunct(1, 200, 0xA).threadRunnable(1, 200, 1).stopThread(1, 205, 2, core::kStopFinished);
    b.lookingForGlobal(1, 210).runThread(1, 215, 1).endParConj(1, 220, 0xA).stopThread(1, 240, 1, core::kStopFinished);
    b.endAt(250);
    return b.roundTrip();
}

core::Trace futureTrace()
{
    TraceBuilder b(2);
    b.internString(0, 1, "fib.m:10").internString(0, 2, "X");
    b.runThread(0, 0, 1).futureCreate(0, 90, 0xF, 2).startParConj(0, 100, 0xB, 1).sparkCreate(0, 105, 0xB, 7);
    b.sparkSteal(1, 110, 0, 7)
        .runThread(1, 112, 2)
        .futureWaitSuspended(1, 120, 0xF)
        .stopThread(1, 125, 2, core::kStopBlocked);
    b.futureSignal(0, 150, 0xF).threadRunnable(0, 152, 2);
    b.runThread(1, 160, 2)
        .futureWaitNoSuspend(1, 170, 0xF)
        .endParConjunct(1, 200, 0xB)
        .stopThread(1, 205, 2, core::kStopFinished);
    b.endParConjunct(0, 180, 0xB).stopThread(0, 185, 1, core::kStopBlocked).threadRunnable(1, 202, 1);
    b.runThread(0, 210, 1).endParConj(0, 220, 0xB).stopThread(0, 230, 1, core::kStopFinished);
    return b.roundTrip();
}

core::Trace truncatedAtRandom(core::Trace trace, uint64_t seed)
{
    std::mt19937_64 rng(seed);
    const uint64_t cut = trace.firstTimeNs + rng() % (trace.lastTimeNs - trace.firstTimeNs + 1);
    for (auto& events : trace.engines)
        std::erase_if(events, [&](const core::Event& e) { return e.timeNs > cut; });
    trace.lastTimeNs = cut;
    trace.truncated = true;
    return trace;
}

core::Trace damagedAtRandom(core::Trace trace, uint64_t seed, int count)
{
    std::mt19937_64 rng(seed);
    for (int i = 0; i < count; ++i) {
        auto& events = trace.engines[rng() % trace.engines.size()];
        if (events.empty())
            continue;
        const auto at = events.begin() + long(rng() % events.size());
        if (rng() % 2)
            events.erase(at); // lost
        else
            events.insert(at, *at); // posted twice
    }
    return trace;
}

std::vector<NamedTrace> demoTraces(const std::string& scratch, const std::vector<std::string>& workloads, unsigned engines)
{
    std::vector<NamedTrace> out;
    const auto dir = scratchDir(scratch);
    for (const auto& w : workloads) {
        const auto file = recordDemoTrace(dir, w, engines);
        if (!file)
            return out;
        auto trace = core::readTrace(file->string());
        REQUIRE(trace);
        out.push_back({ w.substr(0, w.find(' ')), std::move(trace).value() });
    }
    return out;
}

std::vector<NamedTrace> sharedGhcTraces(std::initializer_list<const char*> names)
{
    std::vector<NamedTrace> out;
    for (const char* name : names) {
        auto path = sharedTestData(std::string("ghc/") + name);
        if (!path)
            continue; // (reported as not run)
        auto trace = core::readTrace(path->string());
        INFO(name);
        REQUIRE(trace);
        out.push_back({ name, std::move(trace).value() });
    }
    return out;
}

} // namespace sparkscope::test
