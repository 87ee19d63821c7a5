// cutTrace (cut.h): the cut read back holds exactly the original's events of the range, per engine
// and in order, after the state events re-timed to the range's start; and the model built from a
// cut of a hand-built trace has the contexts and conjunctions worked out by hand.
#include "metric_field.h"
#include "scenario_traces.h"
#include "sparkscope/core/context_lanes.h"
#include "sparkscope/core/cut.h"
#include "sparkscope/core/engine_states.h"
#include "sparkscope/core/event_types.h"
#include "sparkscope/core/metrics.h"
#include "sparkscope/core/par_model.h"
#include "sparkscope/core/reader.h"
#include "sparkscope/core/writer.h"
#include "support/test_data.h"
#include "support/trace_builder.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <set>

using namespace sparkscope;
using namespace sparkscope::core;
using test::TraceBuilder;

namespace {

Trace readBack(const CutOutput& cut)
{
    auto trace = readTraceFromBytes(cut.bytes);
    REQUIRE(trace);
    REQUIRE(trace->warnings.empty());
    REQUIRE_FALSE(trace->truncated);
    return std::move(trace).value();
}

std::vector<Event> withoutMarkers(const std::vector<Event>& events)
{
    std::vector<Event> out;
    std::copy_if(events.begin(), events.end(), std::back_inserter(out),
        [](const Event& e) { return e.type != ev::BlockMarker; });
    return out;
}

// The times of the events of one type in a list.
std::vector<uint64_t> timesOf(const std::vector<Event>& events, uint16_t type)
{
    std::vector<uint64_t> out;
    for (const Event& e : events)
        if (e.type == type)
            out.push_back(e.timeNs);
    return out;
}

// Checks one list of the cut (an engine's, or the global one) against the original's: the
// original's events in [from, to] are the cut's last events, equal in type, time and payload; the
// ones before them are state events at `from`. Returns how many state events there were.
size_t checkList(const Trace& original, const std::vector<Event>& originalEvents, const Trace& cut,
    const std::vector<Event>& cutEvents, uint64_t from, uint64_t to)
{
    std::vector<Event> range;
    for (const Event& e : originalEvents)
        if (e.type != ev::BlockMarker && e.timeNs >= from && e.timeNs <= to)
            range.push_back(e);
    const std::vector<Event> got = withoutMarkers(cutEvents);
    REQUIRE(got.size() >= range.size());
    const size_t state = got.size() - range.size();
    for (size_t i = 0; i < state; ++i)
        REQUIRE(got[i].timeNs == from);
    for (size_t i = 0; i < range.size(); ++i) {
        const Event& a = range[i];
        const Event& b = got[state + i];
        INFO("event " << i << " of the range, type " << a.type << " at " << a.timeNs);
        REQUIRE(a.type == b.type);
        REQUIRE(a.timeNs == b.timeNs);
        const auto pa = original.payload(a).bytes();
        const auto pb = cut.payload(b).bytes();
        REQUIRE(std::equal(pa.begin(), pa.end(), pb.begin(), pb.end()));
    }
    return state;
}

void checkCut(const Trace& original, uint64_t from, uint64_t to)
{
    INFO("cut [" << from << ", " << to << "]");
    auto cut = cutTrace(original, from, to);
    REQUIRE(cut);
    const Trace back = readBack(cut.value());
    REQUIRE(back.engines.size() == original.engines.size());
    REQUIRE(back.header.types.size() == original.header.types.size());
    size_t state = checkList(original, original.global, back, back.global, from, to);
    size_t range = 0;
    for (size_t engine = 0; engine < original.engines.size(); ++engine) {
        INFO("engine " << engine);
        state += checkList(original, original.engines[engine], back, back.engines[engine], from, to);
    }
    for (const auto& list : back.engines)
        range += withoutMarkers(list).size();
    range += withoutMarkers(back.global).size();
    REQUIRE(state == cut->stats.stateEvents);
    REQUIRE(range - state == cut->stats.rangeEvents);
}

// Checks cuts of a real trace: the middle third of its span and of engine 0's events (never empty,
// whatever the timing), its last tenth, and the whole trace.
void checkCuts(const Trace& trace)
{
    REQUIRE(trace.engines.size() > 0);
    const auto& e0 = trace.engines[0];
    REQUIRE(e0.size() > 3);
    checkCut(trace, e0[e0.size() / 3].timeNs, e0[2 * e0.size() / 3].timeNs);
    const uint64_t span = trace.lastTimeNs - trace.firstTimeNs;
    checkCut(trace, trace.firstTimeNs + span / 3, trace.firstTimeNs + 2 * span / 3);
    checkCut(trace, trace.lastTimeNs - span / 10, trace.lastTimeNs);
    checkCut(trace, 0, UINT64_MAX);
}

// The context state at time t: the last change at or before t.
ContextState stateAt(const ContextTimeline& c, uint64_t t)
{
    ContextState s = ContextState::Runnable;
    for (const auto& change : c.states)
        if (change.startNs <= t)
            s = change.state;
    return s;
}

const ContextTimeline* findContext(const ParModel& model, uint32_t id)
{
    for (const auto& c : model.contexts)
        if (c.id == id)
            return &c;
    return nullptr;
}

// Two engines. Static ids 1 = "fib.m:10", 2 = "main.m:3" (interned at 0).
// ctx 1 is created and runs on engine 0 at 10; it starts conjunction A (0xA, static 1) at 100 and
// sparks G2 (spark 5) at 110. ctx 2 is created on engine 1 at 120, runs at 125 and steals spark 5 at
// 130. G1 ends at 200 and ctx 1 blocks at 210; G2 ends at 300, ctx 1 is made runnable at 305 and
// ctx 2 finishes at 310. ctx 1 runs again at 330 and ends A at 340, while engine 1 collects garbage
// from 340 to 360. ctx 1 starts B (0xB, static 2) at 400, sparks G2 (spark 6) at 410, ends G1 at
// 450, runs spark 6 itself at 460, ends G2 at 480 and B at 490, and finishes at 500.
TraceBuilder handTrace()
{
    TraceBuilder b(2);
    b.internString(0, 1, "fib.m:10").internString(0, 2, "main.m:3");
    b.createThread(0, 10, 1).runThread(0, 10, 1);
    b.startParConj(0, 100, 0xA, 1).sparkCreate(0, 110, 0xA, 5);
    b.createThread(1, 120, 2).runThread(1, 125, 2).sparkSteal(1, 130, 0, 5);
    b.endParConjunct(0, 200, 0xA).stopThread(0, 210, 1, kStopBlocked);
    b.endParConjunct(1, 300, 0xA).threadRunnable(1, 305, 1).stopThread(1, 310, 2, kStopFinished);
    b.runThread(0, 330, 1).endParConj(0, 340, 0xA).gcStart(1, 340).gcEnd(1, 360);
    b.startParConj(0, 400, 0xB, 2).sparkCreate(0, 410, 0xB, 6).endParConjunct(0, 450, 0xB);
    b.sparkRun(0, 460, 6).endParConjunct(0, 480, 0xB).endParConj(0, 490, 0xB);
    b.stopThread(0, 500, 1, kStopFinished);
    return b;
}

} // namespace

TEST_CASE("cut after a conjunction began keeps the contexts alive then and the conjunctions begun in the range",
    "[core][cut]")
{
    const Trace original = handTrace().roundTrip();
    // [320, 520]: ctx 2 finished at 310, so only ctx 1 is alive (runnable, not running) at 320. The
    // state: the two interned strings, its CREATE_THREAD, and — as it was woken at 305 from the block
    // at 210 and has not run since — its last run, that block and the wake-up, so that its run at
    // 330 is a resume, as in the original.
    auto cut = cutTrace(original, 320, 520);
    REQUIRE(cut);
    CHECK(cut->stats.stateEvents == 6);
    CHECK(cut->stats.rangeEvents == 11); // 330 run, 340 end A, GC 340/360, B's 6 events, 500 finish
    const Trace back = readBack(cut.value());
    CHECK(back.firstTimeNs == 320);
    const ParModel model = buildParModel(back);

    REQUIRE(model.contexts.size() == 1);
    const ContextTimeline& c1 = model.contexts[0];
    CHECK(c1.id == 1);
    CHECK(stateAt(c1, 320) == ContextState::Runnable);
    CHECK(stateAt(c1, 330) == ContextState::Running);
    CHECK(stateAt(c1, 500) == ContextState::Finished);
    REQUIRE(model.resumes.size() == 1);
    CHECK((model.resumes[0].timeNs == 330 && model.resumes[0].fromEngine == 0 && model.resumes[0].toEngine == 0));

    // A began before the range: its END_PAR_CONJ names no instance (one problem); B is whole.
    REQUIRE(model.conjunctions.size() == 1);
    const ConjunctionInstance& b = model.conjunctions[0];
    CHECK(b.dynId == 0xB);
    CHECK(b.staticId == 2);
    CHECK(b.startNs == 400);
    CHECK(b.endNs == 490);
    CHECK(b.complete);
    REQUIRE(b.conjuncts.size() == 2);
    const ConjunctInstance& g1 = model.conjunct(b.conjuncts[0]);
    const ConjunctInstance& g2 = model.conjunct(b.conjuncts[1]);
    CHECK(g1.startNs == 400);
    CHECK(g1.endNs == 450);
    CHECK(g2.startNs == 460);
    CHECK(g2.endNs == 480);
    CHECK(model.context(g2.context).id == 1);
    REQUIRE(model.problems.size() == 1);
    CHECK(model.problems[0].timeNs == 340);

    // The interned strings are there, re-timed to the cut's start.
    CHECK(timesOf(back.global, ev::InternString) == std::vector<uint64_t> { 320, 320 });
}

TEST_CASE("cut inside a run starts the running context running and the collecting engine in GC", "[core][cut]")
{
    const Trace original = handTrace().roundTrip();
    // [350, 470]: ctx 1 runs on engine 0 since 330 (RUN_THREAD re-timed to 350), engine 1 is in
    // GC since 340 (GC_START re-timed to 350); state = 2 strings + CREATE_THREAD + RUN_THREAD + GC_START.
    auto cut = cutTrace(original, 350, 470);
    REQUIRE(cut);
    CHECK(cut->stats.stateEvents == 5);
    CHECK(cut->stats.rangeEvents == 5); // GC end 360, start B 400, spark 410, end G1 450, run 460
    const Trace back = readBack(cut.value());
    const ParModel model = buildParModel(back);
    const ContextTimeline* c1 = findContext(model, 1);
    REQUIRE(c1);
    CHECK(stateAt(*c1, 350) == ContextState::Running);
    REQUIRE(c1->segments.front().engine == 0);
    REQUIRE(model.conjunctions.size() == 1);
    CHECK(model.conjunctions[0].dynId == 0xB);
    CHECK_FALSE(model.conjunctions[0].ended); // B ends at 490, after the range
    CHECK(model.conjunctions[0].conjuncts.size() == 2);
    CHECK(timesOf(back.engines[1], ev::GcStart) == std::vector<uint64_t> { 350 });
}

TEST_CASE("cut keeps every engine, even one idle in the range", "[core][cut]")
{
    const Trace original = handTrace().roundTrip();
    // Engine 1 has no event in [400, 500] and no state: it still gets a block.
    auto cut = cutTrace(original, 400, 500);
    REQUIRE(cut);
    const Trace back = readBack(cut.value());
    REQUIRE(back.engines.size() == 2);
    CHECK(withoutMarkers(back.engines[1]).empty());
}

TEST_CASE("cut of a range after the trace's end has no range events and says where the events lie", "[core][cut]")
{
    const Trace original = handTrace().roundTrip();
    // The hand trace's events run from its interned strings at 0 to ctx 1 finishing at 500.
    auto cut = cutTrace(original, 600, 700);
    REQUIRE(cut);
    CHECK(cut->stats.rangeEvents == 0);
    CHECK(cut->stats.traceFirstNs == 0);
    CHECK(cut->stats.traceLastNs == 500);
    const Trace back = readBack(cut.value());
    CHECK(back.engines.size() == 2); // still a valid eventlog: the state at 600 and a block per engine
    auto inside = cutTrace(original, 100, 200);
    REQUIRE(inside);
    CHECK(inside->stats.traceFirstNs == 0); // the whole trace's span, whatever the range
    CHECK(inside->stats.traceLastNs == 500);
}

TEST_CASE("cut refuses a range that ends before it starts", "[core][cut]")
{
    const Trace original = handTrace().roundTrip();
    auto cut = cutTrace(original, 300, 200);
    REQUIRE_FALSE(cut);
    CHECK(cut.error().code == ErrorCode::Usage);
}

TEST_CASE("cut read back equals the range of the hand-built trace at every boundary", "[core][cut]")
{
    const Trace original = handTrace().roundTrip();
    for (uint64_t from : { 0, 10, 120, 305, 340, 490 })
        for (uint64_t to : { 340, 400, 500, 1000 })
            if (from <= to)
                checkCut(original, from, to);
}

TEST_CASE("cut read back equals the range of the original on the shared GHC eventlogs", "[core][cut][ghc]")
{
    for (const auto& [name, trace] :
        test::sharedGhcTraces({ "sumfib-30-3000.eventlog", "parfib-12-30.eventlog", "parfib-8-32.eventlog" })) {
        INFO(name);
        checkCuts(trace);
    }
}

TEST_CASE("cut read back equals the range of the original on a demo trace", "[core][cut][demo]")
{
    for (const auto& [name, trace] :
        test::demoTraces("cut-demo", { "parfib --n 24 --cutoff 12", "pipeline --items 200" })) {
        INFO(name);
        checkCuts(trace);
        // Cut of the middle: the model still finds the conjunctions that lie wholly inside it.
        const uint64_t span = trace.lastTimeNs - trace.firstTimeNs;
        const uint64_t from = trace.firstTimeNs + span / 3, to = trace.firstTimeNs + 2 * span / 3;
        auto cut = cutTrace(trace, from, to);
        REQUIRE(cut);
        const ParModel whole = buildParModel(trace);
        const ParModel part = buildParModel(readBack(cut.value()));
        size_t inside = 0, found = 0;
        for (const auto& c : whole.conjunctions)
            if (c.complete && c.startNs >= from && c.endNs <= to)
                ++inside;
        for (const auto& c : part.conjunctions)
            if (c.complete)
                ++found;
        CHECK(found == inside);
    }
}

namespace {

// cutFile streams the file and keeps only what the cut needs: its output must be cutTrace's, byte
// for byte, for ranges at the start, in the middle, at the end, empty, and the whole trace.
void checkCutFileMatches(const Trace& trace)
{
    const uint64_t first = trace.firstTimeNs, span = trace.lastTimeNs - trace.firstTimeNs;
    const std::pair<uint64_t, uint64_t> ranges[] = { { 0, first + span / 4 }, { first + span / 3, first + span / 2 },
        { first + 3 * span / 4, UINT64_MAX }, { first + span / 2, first + span / 2 }, { 0, UINT64_MAX } };
    for (const auto& [from, to] : ranges) {
        CAPTURE(trace.path, from, to);
        auto whole = cutTrace(trace, from, to);
        auto streamed = cutFile(trace.path, from, to);
        REQUIRE(whole);
        REQUIRE(streamed);
        CHECK(streamed->stats.rangeEvents == whole->stats.rangeEvents);
        CHECK(streamed->stats.stateEvents == whole->stats.stateEvents);
        CHECK(streamed->stats.traceFirstNs == whole->stats.traceFirstNs); // the file's, not the kept events'
        CHECK(streamed->stats.traceLastNs == whole->stats.traceLastNs);
        CHECK(streamed->bytes == whole->bytes);
    }
}

} // namespace

TEST_CASE("cutFile writes what cutTrace writes, streaming the file", "[core][cut][stream]")
{
    for (const auto& [name, trace] :
        test::sharedGhcTraces({ "sumfib-30-3000.eventlog", "parfib-12-30.eventlog", "parfib-8-32.eventlog" })) {
        INFO(name);
        checkCutFileMatches(trace);
    }
    for (const auto& [name, trace] :
        test::demoTraces("cut-file-demo", { "parfib --n 24 --cutoff 12", "pipeline --items 200" })) {
        INFO(name);
        checkCutFileMatches(trace);
    }
    // A compressed file: its decompressed copy is streamed and cut.
    for (const auto& [name, trace] : test::sharedGhcTraces({ "parfib-5-34.eventlog.zst" })) {
        INFO(name);
        checkCutFileMatches(trace);
    }
    auto usage = cutFile("any.eventlog", 10, 5);
    REQUIRE_FALSE(usage);
    CHECK(usage.error().code == ErrorCode::Usage);
    auto missing = cutFile("no-such-file.eventlog", 0, 5);
    REQUIRE_FALSE(missing);
    CHECK(missing.error().code == ErrorCode::Io);
}

TEST_CASE("cut keeps a context blocked at its start blocked, and lasts to the range's end", "[core][cut]")
{
    const Trace original = handTrace().roundTrip();
    // [250, 320]: ctx 1 blocked at 210 (made runnable at 305), ctx 2 running on engine 1 since 125.
    // State: 2 strings, 2 CREATE_THREADs, ctx 1's last run and its blocking stop (so that it reads
    // blocked, not runnable), ctx 2's run. Range: G2's end 300, ctx 1 runnable 305, ctx 2 done 310.
    auto cut = cutTrace(original, 250, 320);
    REQUIRE(cut);
    CHECK(cut->stats.stateEvents == 7);
    CHECK(cut->stats.rangeEvents == 3);
    const Trace back = readBack(cut.value());
    CHECK(back.firstTimeNs == 250);
    CHECK(back.lastTimeNs == 320); // the range's end, not its last event's 310
    const ParModel model = buildParModel(back);
    const ContextTimeline* c1 = findContext(model, 1);
    const ContextTimeline* c2 = findContext(model, 2);
    REQUIRE(c1);
    REQUIRE(c2);
    CHECK(stateAt(*c1, 250) == ContextState::Blocked);
    CHECK(stateAt(*c1, 304) == ContextState::Blocked);
    CHECK(stateAt(*c1, 305) == ContextState::Runnable);
    CHECK(stateAt(*c2, 250) == ContextState::Running);
    checkCut(original, 250, 320);
}

TEST_CASE(
    "cut re-creates a spark's context and carries the spark counters, so its figures are the range's", "[core][cut]")
{
    // One engine. ctx 3 is made for a spark (CREATE_SPARK_THREAD) at 120 and runs from 130 to 320.
    // GHC's SPARK_COUNTERS count from the program's start: created = 10 at 100, 25 at 200, 40 at 300.
    // Over [150, 350] 30 sparks were created: the growth from the last sample before the range.
    auto counters = [](uint64_t created) {
        std::vector<uint8_t> p(56, 0); // created, dud, overflowed, converted, gcd, fizzled, remaining
        for (int i = 0; i < 8; ++i)
            p[size_t(7 - i)] = uint8_t(created >> (8 * i));
        return p;
    };
    TraceBuilder b(1);
    b.event(0, 0, ev::Startup, { 0, 1 }); // the program starts before its first collection's counters
    b.event(0, 100, ev::SparkCounters, counters(10)).createSparkThread(0, 120, 3).runThread(0, 130, 3);
    b.event(0, 200, ev::SparkCounters, counters(25)).event(0, 300, ev::SparkCounters, counters(40));
    b.stopThread(0, 320, 3, kStopFinished);
    // Written and read back with every type declared (the Mercury header the builder writes has no
    // SPARK_COUNTERS).
    Trace built = b.build();
    std::set<uint16_t> types;
    for (const Event& e : built.engines[0])
        types.insert(e.type);
    for (uint16_t n : types)
        built.header.types.push_back({ n, knownEventType(n)->size, std::string(knownEventType(n)->description), {} });
    auto read = readTraceFromBytes(writeTrace(built));
    REQUIRE(read);
    const Trace original = std::move(read).value();

    auto cut = cutTrace(original, 150, 350);
    REQUIRE(cut);
    CHECK(cut->stats.stateEvents == 4); // STARTUP, CREATE_SPARK_THREAD, RUN_THREAD, the counters of 100
    const Trace back = readBack(cut.value());
    CHECK(back.lastTimeNs == 320); // the original ends at 320, before the range does
    const ParModel model = buildParModel(back);
    const ContextTimeline* c3 = findContext(model, 3);
    REQUIRE(c3);
    CHECK(stateAt(*c3, 150) == ContextState::Running);
    CHECK(model.problems.empty());

    auto created = [](const Metrics& m) {
        const MetricValue* v = m.find("engines", "0", "SPARK_COUNTS");
        REQUIRE(v);
        for (const auto& [name, x] : v->fields)
            if (name == "created")
                return std::get<int64_t>(x);
        FAIL("no SPARK_COUNTS.created");
        return int64_t(-1);
    };
    MetricsOptions range;
    range.fromNs = 150;
    range.toNs = 350;
    CHECK(created(computeMetrics(original, range)) == 30);
    CHECK(created(computeMetrics(back)) == 30);
    CHECK(created(computeMetrics(original)) == 40); // the whole trace: from the program's start
    checkCut(original, 150, 350);
}

TEST_CASE("cut starts an engine asleep or searching at the range's start so again", "[core][cut]")
{
    // Engine 0 runs ctx 1 [0,40), searches from 50 (LOOKING_FOR_GLOBAL_CONTEXT) until it runs ctx 1
    // again at 150. Engine 1 sleeps from 20 (ENGINE_SLEEPING) until it searches at 130. Cut [100, 200]:
    // engine 0 searching [100,150), engine 1 asleep [100,130) then searching [130, ...): as the
    // original's states over the range. Without the state events, both read idle until their next event.
    TraceBuilder b(2);
    b.runThread(0, 0, 1).stopThread(0, 40, 1, kStopYielding).lookingForGlobal(0, 50).runThread(0, 150, 1);
    b.stopThread(0, 190, 1, kStopFinished);
    b.event(1, 20, ev::MerEngineSleeping).lookingForGlobal(1, 130).event(1, 180, ev::Shutdown);
    b.endAt(200);
    const Trace original = b.roundTrip();
    auto cut = cutTrace(original, 100, 200);
    REQUIRE(cut);
    const Trace back = readBack(cut.value());
    const EngineStates states = computeEngineStates(back);
    auto stateAtNs = [&](size_t engine, uint64_t t) {
        const StateInterval* r = states.at(engine, t);
        return r ? r->state : EngineState::Idle;
    };
    CHECK(stateAtNs(0, 100) == EngineState::Searching);
    CHECK(stateAtNs(0, 149) == EngineState::Searching);
    CHECK(stateAtNs(0, 150) == EngineState::Running);
    CHECK(stateAtNs(1, 100) == EngineState::Sleeping);
    CHECK(stateAtNs(1, 129) == EngineState::Sleeping);
    CHECK(stateAtNs(1, 130) == EngineState::Searching);
    CHECK(timesOf(back.engines[1], ev::MerEngineSleeping) == std::vector<uint64_t> { 100 });
}

TEST_CASE("cut starts each engine in the state the engine states' rules give at the range's start", "[core][cut]")
{
    // The cut replays the engine states' own rules (EngineStateScanner), so these read as in the original:
    // - engine 0 searches from 50, and a collection begun by GC_WORK (no GC_START) at 80 lasts to 150:
    //   in the cut, collecting [100, 150), then searching again;
    // - engine 1 sleeps from 20, and a SPARK_CREATE at 60 wakes it (any event does): idle at 100, not
    //   asleep;
    // - engine 2 searches from 30, and runs ctx 7 from 70 during a collection [40, 120): collecting
    //   [100, 120), then running ctx 7.
    TraceBuilder b(3);
    b.declare(ev::GcWork).lookingForGlobal(0, 50).event(0, 80, ev::GcWork).gcEnd(0, 150).runThread(0, 170, 1);
    b.stopThread(0, 190, 1, kStopFinished);
    b.event(1, 20, ev::MerEngineSleeping).sparkCreate(1, 60, 0xA, 1).event(1, 180, ev::Shutdown);
    b.lookingForGlobal(2, 30).gcStart(2, 40).runThread(2, 70, 7).gcEnd(2, 120).stopThread(2, 160, 7, kStopFinished);
    b.endAt(200);
    const std::string path = (test::scratchDir("cut-states") / "states.eventlog").string();
    {
        const std::vector<uint8_t> bytes = b.eventlogBytes();
        std::ofstream(path, std::ios::binary)
            .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    }
    auto original = readTrace(path);
    REQUIRE(original);
    auto cut = cutTrace(original.value(), 100, 200);
    REQUIRE(cut);
    auto streamed = cutFile(path, 100, 200); // streaming keeps what the replay needs, the waking event too
    REQUIRE(streamed);
    CHECK(streamed->bytes == cut->bytes);
    const Trace back = readBack(cut.value());
    const EngineStates states = computeEngineStates(back);
    const EngineStates before = computeEngineStates(original.value());
    auto stateAtNs = [](const EngineStates& s, size_t engine, uint64_t t) {
        const StateInterval* r = s.at(engine, t);
        return r ? r->state : EngineState::Idle;
    };
    CHECK(stateAtNs(states, 0, 100) == EngineState::Gc);
    CHECK(stateAtNs(states, 0, 149) == EngineState::Gc);
    CHECK(stateAtNs(states, 0, 150) == EngineState::Searching);
    CHECK(stateAtNs(states, 1, 100) == EngineState::Idle);
    CHECK(stateAtNs(states, 2, 100) == EngineState::Gc);
    CHECK(stateAtNs(states, 2, 120) == EngineState::Running);
    CHECK(states.at(2, 120)->context == 7);
    for (size_t e = 0; e < 3; ++e)
        for (uint64_t t = 100; t < 200; t += 10) {
            INFO("engine " << e << " at " << t);
            CHECK(stateAtNs(states, e, t) == stateAtNs(before, e, t));
        }
}

TEST_CASE("cut creates each context on the engine that runs it at the range's start", "[core][cut]")
{
    // Engine 1 creates ctx 5 at 10 (as a GHC capability creates a thread another one runs); engine 0
    // runs it from 20 through the range [100, 200]. In the cut, the creation and the run are both at
    // 100: the creation must be on engine 0, before the run in that engine's own order, or the reader
    // (which takes engines at one instant in engine order) sees the run first and the creation names a
    // context already there — the cut's CONTEXT_COUNTS would say none was created.
    TraceBuilder b(2);
    b.createThread(1, 10, 5).runThread(0, 20, 5).stopThread(0, 190, 5, kStopFinished);
    b.event(1, 150, ev::Shutdown).endAt(200);
    const Trace original = b.roundTrip();
    auto cut = cutTrace(original, 100, 200);
    REQUIRE(cut);
    const Trace back = readBack(cut.value());
    CHECK(timesOf(back.engines[0], ev::CreateThread) == std::vector<uint64_t> { 100 });
    CHECK(timesOf(back.engines[1], ev::CreateThread).empty());
    CHECK(sparkscope::test::field(computeMetrics(back), "program", "all", "CONTEXT_COUNTS", "created") == 1);
}

TEST_CASE("cut keeps the first creation and the label of a context created twice, as GHC creates a spark thread",
    "[core][cut]")
{
    // GHC creates spark thread 3 with CREATE_THREAD at 10, labels it at 11, and posts
    // CREATE_SPARK_THREAD for it at 12; engine 0 runs it [50, 150). Cut at [30, 200]: the state
    // at 30 is its first creation and its label (then the range's run), and the model of the cut
    // names it "spark evaluator" and counts one creation.
    TraceBuilder b(1);
    b.createThread(0, 10, 3).threadLabel(0, 11, 3, "spark evaluator").createSparkThread(0, 12, 3);
    b.runThread(0, 50, 3).stopThread(0, 150, 3, kStopFinished).endAt(200);
    const Trace original = b.roundTrip();
    const auto cut = cutTrace(original, 30, 200);
    REQUIRE(cut);
    const Trace back = readBack(cut.value());
    CHECK(timesOf(back.engines[0], ev::CreateThread) == std::vector<uint64_t> { 30 });
    CHECK(timesOf(back.engines[0], ev::ThreadLabel) == std::vector<uint64_t> { 30 });
    CHECK(timesOf(back.engines[0], ev::CreateSparkThread).empty());
    CHECK(sparkscope::test::field(computeMetrics(back), "program", "all", "CONTEXT_COUNTS", "created") == 1);
    const ContextLanes lanes = computeContextLanes(back);
    CHECK(lanes.ids == std::vector<uint32_t> { 3 });
    CHECK(lanes.labels == std::vector<std::string> { "spark evaluator" });
    checkCut(original, 30, 200);
}

namespace {

// ctx 1 is created on engine `blockedOn` at 0, runs there [10, 20) and blocks; engine `runOn` wakes
// it at 30 and runs it [60, 80); the trace ends at 100.
Trace wokenTrace(uint16_t blockedOn, uint16_t runOn)
{
    TraceBuilder b(2);
    b.createThread(blockedOn, 0, 1).runThread(blockedOn, 10, 1).stopThread(blockedOn, 20, 1, kStopBlocked);
    b.threadRunnable(runOn, 30, 1).runThread(runOn, 60, 1).stopThread(runOn, 80, 1, kStopFinished).endAt(100);
    return b.roundTrip();
}

} // namespace

TEST_CASE("cut keeps the wake-up of a context woken before its start, so that its next run is a resume", "[core][cut]")
{
    // ctx 1 is created on engine 0 at 0, runs there [10, 20) and blocks; engine 1 wakes it at 30 and
    // runs it from 60 to 80. Cut [40, 100]: at 40 it is runnable, as in the original, and its run at
    // 60 is a resume from engine 0 (where it blocked) to engine 1: one in the cut's model as in the
    // original's, and in its metrics' CONTEXT_RESUME_LOCALITY.
    const Trace original = wokenTrace(0, 1);
    const ParModel whole = buildParModel(original);
    REQUIRE(whole.resumes.size() == 1);
    const auto cut = cutTrace(original, 40, 100);
    REQUIRE(cut);
    const Trace back = readBack(cut.value());
    const ParModel model = buildParModel(back);
    REQUIRE(model.resumes.size() == 1);
    CHECK((model.resumes[0].timeNs == 60 && model.resumes[0].fromEngine == 0 && model.resumes[0].toEngine == 1));
    const ContextTimeline* c1 = findContext(model, 1);
    REQUIRE(c1);
    CHECK(stateAt(*c1, 40) == ContextState::Runnable);
    CHECK(stateAt(*c1, 59) == ContextState::Runnable);
    CHECK(stateAt(*c1, 60) == ContextState::Running);
    MetricsOptions range;
    range.fromNs = 40;
    range.toNs = 100;
    const Metrics ofOriginal = computeMetrics(original, range), ofCut = computeMetrics(back);
    for (const char* key : { "resumes", "same_engine" })
        CHECK(sparkscope::test::field(ofCut, "engines", "all", "CONTEXT_RESUME_LOCALITY", key)
            == sparkscope::test::field(ofOriginal, "engines", "all", "CONTEXT_RESUME_LOCALITY", key));
    CHECK(sparkscope::test::field(ofCut, "engines", "all", "CONTEXT_RESUME_LOCALITY", "resumes") == 1);
    checkCut(original, 40, 100);
}

TEST_CASE("cut at the instant a woken context runs on a lower engine starts it running there", "[core][cut]")
{
    // The trace above with the engines swapped: ctx 1 runs on engine 1 [10, 20) and blocks; engine 0
    // wakes it at 30 and runs it [60, 80). Cut at exactly 60: the reader takes engine 0's run at 60
    // before anything re-emitted on engine 1, so the cut must not write the block and the wake-up
    // there (they would move the running context to engine 1 and stop it). It starts runnable and
    // runs on engine 0 [60, 80), with no problem; the resume is the one thing the cut cannot keep.
    const Trace original = wokenTrace(1, 0);
    const auto cut = cutTrace(original, 60, 100);
    REQUIRE(cut);
    const Trace back = readBack(cut.value());
    const ParModel model = buildParModel(back);
    CHECK(model.problems.empty());
    const ContextTimeline* c1 = findContext(model, 1);
    REQUIRE(c1);
    CHECK(stateAt(*c1, 60) == ContextState::Running);
    CHECK(stateAt(*c1, 79) == ContextState::Running);
    CHECK(stateAt(*c1, 80) == ContextState::Finished);
    CHECK(timesOf(back.engines[1], ev::RunThread).empty());
    checkCut(original, 60, 100);
    // One nanosecond earlier the block and the wake-up are written, and the run is a resume.
    REQUIRE(buildParModel(readBack(cutTrace(original, 59, 100).value())).resumes.size() == 1);
}

TEST_CASE("cut keeps a context known only from its runs blocked, so that its next run is a resume", "[core][cut]")
{
    // No creation: ctx 1 was made before the trace began. It runs on engine 0 [10, 20) and blocks;
    // engine 1 wakes it at 50 and runs it [60, 80). Cut [30, 100]: at 30 it is blocked, as in the
    // original (not unknown until its wake-up), and its run at 60 is a resume from engine 0.
    TraceBuilder b(2);
    b.runThread(0, 10, 1).stopThread(0, 20, 1, kStopBlocked).threadRunnable(1, 50, 1);
    b.runThread(1, 60, 1).stopThread(1, 80, 1, kStopFinished).endAt(100);
    const Trace original = b.roundTrip();
    REQUIRE(buildParModel(original).resumes.size() == 1);
    const Trace back = readBack(cutTrace(original, 30, 100).value());
    const ParModel model = buildParModel(back);
    const ContextTimeline* c1 = findContext(model, 1);
    REQUIRE(c1);
    CHECK(stateAt(*c1, 30) == ContextState::Blocked);
    CHECK(stateAt(*c1, 50) == ContextState::Runnable);
    REQUIRE(model.resumes.size() == 1);
    CHECK((model.resumes[0].fromEngine == 0 && model.resumes[0].toEngine == 1));
    checkCut(original, 30, 100);
}
