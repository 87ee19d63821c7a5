// The Chrome Trace Event Format export (core/chrome_trace.h) on hand-built traces: every slice, flow,
// instant and counter sample of the document, against the figures worked out here from the events.
#include "chrome_trace_check.h"
#include "support/trace_builder.h"

#include "sparkscope/core/event_types.h"

#include <catch2/catch.hpp>

#include <sstream>

using namespace sparkscope;
using core::chromeContextTid;
using core::chromeEngineTid;
using nlohmann::json;
using test::ChromeFlow;
using test::ChromeSample;
using test::ChromeSlice;

namespace {

// A steal, a local spark run, a nested conjunction, a future whose wait suspends, a GC while a
// context runs, and a marker; 2 engines, [0, 260). Strings: 1 "outer.m:1", 3 "inner.m:2", 4 "X".
//   Engine 0, ctx 1: runs from 0; creates future X (0xF) at 90 for conjunction A (0xA), starts A at
//   100 (A/1 in ctx 1), sparks A/2 (spark 1) at 105; inside A/1 starts B (0xB) at 110 (B/1), sparks
//   B/2 (spark 2) at 115, signals X at 130, wakes ctx 2 at 132; B/1 ends at 150; ctx 1 runs spark 2
//   itself at 155 (B/2 to 175), B ends at 180, A/1 ends at 190, ctx 1 parks at A's barrier at 195.
//   Engine 0 searches from 196 and runs ctx 1 again at 210: A ends at 215; GC [220, 230) while ctx 1
//   runs; a marker at 240; ctx 1 finishes at 250.
//   Engine 1: searches from 106 (local deque, then a steal at 108), steals spark 1 at 112; ctx 2 is
//   created at 113 and runs A/2 from 114; it waits on X at 120 (before the signal: suspends) and
//   stops blocked at 122; engine 1 searches from 123 and runs ctx 2 again at 135; A/2 ends at 205,
//   ctx 2 wakes ctx 1 at 205 and finishes at 207; GC [220, 230).
core::Trace handTrace()
{
    test::TraceBuilder b(2);
    b.internString(0, 1, "outer.m:1").internString(0, 3, "inner.m:2").internString(0, 4, "X");
    b.runThread(0, 0, 1).futureCreate(0, 90, 0xF, 4).startParConj(0, 100, 0xA, 1).sparkCreate(0, 105, 0xA, 1);
    b.startParConj(0, 110, 0xB, 3).sparkCreate(0, 115, 0xB, 2).futureSignal(0, 130, 0xF).threadRunnable(0, 132, 2);
    b.endParConjunct(0, 150, 0xB).sparkRun(0, 155, 2).endParConjunct(0, 175, 0xB).endParConj(0, 180, 0xB);
    b.endParConjunct(0, 190, 0xA).stopThread(0, 195, 1, core::kStopBlocked).lookingForGlobal(0, 196);
    b.runThread(0, 210, 1).endParConj(0, 215, 0xA).gcStart(0, 220).gcEnd(0, 230);
    // A quote, a control character and a byte that is not UTF-8: escaped / replaced in the JSON.
    const std::string marker = "phase \"two\"\x01\xff";
    b.event(0, 240, core::ev::UserMarker, std::vector<uint8_t>(marker.begin(), marker.end()));
    b.stopThread(0, 250, 1, core::kStopFinished);
    b.lookingForLocal(1, 106).workStealing(1, 108).sparkSteal(1, 112, 0, 1).createThread(1, 113, 2);
    b.runThread(1, 114, 2).futureWaitSuspended(1, 120, 0xF).stopThread(1, 122, 2, core::kStopBlocked);
    b.lookingForGlobal(1, 123).runThread(1, 135, 2).endParConjunct(1, 205, 0xA).threadRunnable(1, 205, 1);
    b.stopThread(1, 207, 2, core::kStopFinished).gcStart(1, 220).gcEnd(1, 230);
    b.endAt(260);
    return b.roundTrip();
}

json args(std::initializer_list<std::pair<const char*, json>> members)
{
    json j = json::object();
    for (const auto& [k, v] : members)
        j[k] = v;
    return j;
}

} // namespace

TEST_CASE("chrome export: every slice, flow, marker and CPUs sample of a hand-built trace", "[core][chrome]")
{
    const auto out = test::exportChrome(handTrace());
    test::checkWellFormed(out.document, "hand trace");
    const uint32_t e0 = chromeEngineTid(0), e1 = chromeEngineTid(1);
    const uint32_t c1 = chromeContextTid(0), c2 = chromeContextTid(1); // lanes in id order
    const json none; // no args

    CHECK(test::chromeThreadNames(out.document)
        == std::vector<std::pair<std::string, std::string>> {
            { "1/1", "Engine 0" }, { "1/2", "Engine 1" }, { "2/65536", "Context 1" }, { "2/65537", "Context 2" } });

    // Engine 0: ctx 1 runs [0,195): cut where its innermost conjunct changes — none until A starts
    // at 100, A/1 [100,110), B/1 [110,150), A/1 again [150,155) (B/1 ended), B/2 [155,175) (spark
    // 2 run locally), A/1 [175,190), none [190,195) (A/1 ended). Idle [195,196) is no slice;
    // searching [196,210) until RUN_THREAD; ctx 1 runs outside every conjunct [210,220), GC
    // [220,230) overrides it, running again [230,250).
    // Engine 1: searching [106,112) ends at the steal; idle [112,114); A/2 [114,122) in ctx 2 (its
    // wait at 120 blocks the context but the engine runs it until STOP_THREAD); idle [122,123);
    // searching [123,135); A/2 [135,205); none [205,207) after END_PAR_CONJUNCT; GC [220,230).
    // Conjunction instances by start: A = 0, B = 1.
    // Context 1 (lane 0): its segments, as on engine 0 but with the engine as argument, blocked
    // [195,205) at A's barrier (no conjunct open), runnable [205,210) (woken by ctx 2 at 205), and
    // running [210,250) but for the GC, which interrupts it (runnable [220,230): no engine runs it
    // while engine 0 collects, though no STOP_THREAD says so). Context 2 (lane 1): runnable
    // [113,114) from creation, A/2 [114,120), blocked from the suspended wait [120,132) and
    // runnable [132,135) (woken by ctx 1) inside A/2, A/2 [135,205), none [205,207).
    const std::vector<ChromeSlice> expected {
        { e0, 0, 100, "running", args({ { "context", 1 } }) },
        { e0, 100, 110, "outer.m:1/1", args({ { "context", 1 }, { "instance", 0 } }) },
        { e0, 110, 150, "inner.m:2/1", args({ { "context", 1 }, { "instance", 1 } }) },
        { e0, 150, 155, "outer.m:1/1", args({ { "context", 1 }, { "instance", 0 } }) },
        { e0, 155, 175, "inner.m:2/2", args({ { "context", 1 }, { "instance", 1 } }) },
        { e0, 175, 190, "outer.m:1/1", args({ { "context", 1 }, { "instance", 0 } }) },
        { e0, 190, 195, "running", args({ { "context", 1 } }) },
        { e0, 196, 210, "searching", none },
        { e0, 210, 220, "running", args({ { "context", 1 } }) },
        { e0, 220, 230, "GC", none },
        { e0, 230, 250, "running", args({ { "context", 1 } }) },
        { e1, 106, 112, "searching", none },
        { e1, 114, 122, "outer.m:1/2", args({ { "context", 2 }, { "instance", 0 } }) },
        { e1, 123, 135, "searching", none },
        { e1, 135, 205, "outer.m:1/2", args({ { "context", 2 }, { "instance", 0 } }) },
        { e1, 205, 207, "running", args({ { "context", 2 } }) },
        { e1, 220, 230, "GC", none },
        { c1, 0, 100, "running", args({ { "engine", 0 } }) },
        { c1, 100, 110, "outer.m:1/1", args({ { "engine", 0 }, { "instance", 0 } }) },
        { c1, 110, 150, "inner.m:2/1", args({ { "engine", 0 }, { "instance", 1 } }) },
        { c1, 150, 155, "outer.m:1/1", args({ { "engine", 0 }, { "instance", 0 } }) },
        { c1, 155, 175, "inner.m:2/2", args({ { "engine", 0 }, { "instance", 1 } }) },
        { c1, 175, 190, "outer.m:1/1", args({ { "engine", 0 }, { "instance", 0 } }) },
        { c1, 190, 195, "running", args({ { "engine", 0 } }) },
        { c1, 195, 205, "blocked", none },
        { c1, 205, 210, "runnable", none },
        { c1, 210, 220, "running", args({ { "engine", 0 } }) },
        { c1, 220, 230, "runnable", none },
        { c1, 230, 250, "running", args({ { "engine", 0 } }) },
        { c2, 113, 114, "runnable", none },
        { c2, 114, 120, "outer.m:1/2", args({ { "engine", 1 }, { "instance", 0 } }) },
        { c2, 120, 132, "blocked", args({ { "conjunct", "outer.m:1/2" } }) },
        { c2, 132, 135, "runnable", args({ { "conjunct", "outer.m:1/2" } }) },
        { c2, 135, 205, "outer.m:1/2", args({ { "engine", 1 }, { "instance", 0 } }) },
        { c2, 205, 207, "running", args({ { "engine", 1 } }) },
    };
    const auto slices = test::chromeSlices(out.document);
    CHECK(slices == expected);
    CHECK(out.summary.slices == expected.size());

    // Flows, on engine threads. A/2: created at 105 on engine 0 (inside A/1's piece), stolen at 112;
    // its context first runs at 114 on engine 1, where the arrow ends (at the start of A/2's piece).
    // B/2: created at 115 (inside B/1's piece), run locally at 155, where its piece starts. X: the
    // signal at 130 on engine 0 (inside B/1's piece) ends ctx 2's suspended wait; ctx 2 next runs at
    // 135 on engine 1.
    CHECK(test::chromeFlows(out.document)
        == std::vector<ChromeFlow> { { "spark", "spark stolen", e0, 105, e1, 114 },
            { "spark", "spark run", e0, 115, e0, 155 }, { "future", "future X", e0, 130, e1, 135 } });
    CHECK(out.summary.flows == 3);
    CHECK(out.summary.flowsSkipped == 0);

    // The marker: one global instant at 240, its text escaped (the invalid byte replaced by U+FFFD).
    size_t instants = 0;
    for (const auto& e : out.document["traceEvents"])
        if (e["ph"] == "i") {
            ++instants;
            CHECK(test::chromeNs(e["ts"]) == 240);
            CHECK(e["name"] == "phase \"two\"\x01\xef\xbf\xbd");
        }
    CHECK(instants == 1);
    CHECK(out.summary.instants == 1);

    // CPUs: engines running (GC and searching do not count): engine 0 [0,195) [210,220) [230,250),
    // engine 1 [114,122) [135,207).
    const std::vector<ChromeSample> cpus { { "CPUs", "running", 0, 1 }, { "CPUs", "running", 114, 2 },
        { "CPUs", "running", 122, 1 }, { "CPUs", "running", 135, 2 }, { "CPUs", "running", 195, 1 },
        { "CPUs", "running", 207, 0 }, { "CPUs", "running", 210, 1 }, { "CPUs", "running", 220, 0 },
        { "CPUs", "running", 230, 1 }, { "CPUs", "running", 250, 0 } };
    CHECK(test::chromeSamples(out.document) == cpus);
    CHECK(out.summary.counterSamples == cpus.size());
}

TEST_CASE("chrome export: times are exact microseconds, and options drop or add tracks", "[core][chrome]")
{
    // One context on engine 0 over [1001, 2500) and [1000000001, 1000002000) ns (GHC-like: no
    // conjunctions), a THREAD_LABEL naming it, and spark events on engine 1 for the deque counter:
    // two created at 1500 and 1600, one stolen from engine 1 by engine 0 at 1700.
    test::TraceBuilder b(2);
    const std::string label = "worker \"a\"";
    std::vector<uint8_t> labelPayload { 0, 0, 0, 7 };
    labelPayload.insert(labelPayload.end(), label.begin(), label.end());
    b.event(core::kNoEngine, 0, core::ev::ThreadLabel, labelPayload);
    b.runThread(0, 1001, 7).stopThread(0, 2500, 7, 1).runThread(0, 1000000001, 7).stopThread(0, 1000002000, 7, 1);
    b.event(1, 1500, core::ev::SparkCreate).event(1, 1600, core::ev::SparkCreate);
    b.event(0, 1700, core::ev::SparkSteal, { 0, 1 });
    const core::Trace trace = b.build();

    const auto plain = test::exportChrome(trace);
    test::checkWellFormed(plain.document, "plain");
    // The text itself: microseconds with the nanoseconds as decimals, trailing zeros dropped.
    CHECK(plain.text.find("\"ts\":1.001,\"dur\":1.499,\"name\":\"running\"") != std::string::npos);
    CHECK(plain.text.find("\"ts\":1000000.001,\"dur\":1.999,\"name\":\"running\"") != std::string::npos);
    CHECK(test::chromeThreadNames(plain.document)
        == std::vector<std::pair<std::string, std::string>> {
            { "1/1", "Engine 0" }, { "1/2", "Engine 1" }, { "2/65536", "Context 7: worker \"a\"" } });
    // Two on engine 0; on the context's track the same two and, between them, runnable [2500,
    // 1000000001) (STOP_THREAD status 1, heap overflow, does not block); it ends runnable at the end.
    CHECK(plain.summary.slices == 5);

    core::ChromeTraceOptions options;
    options.contextTracks = false;
    options.sparkDeques = true;
    const auto other = test::exportChrome(trace, options);
    test::checkWellFormed(other.document, "no contexts, deques");
    CHECK(other.summary.slices == 2);
    for (const auto& s : test::chromeSlices(other.document))
        CHECK(s.tid == chromeEngineTid(0));
    std::vector<ChromeSample> deques;
    for (const auto& s : test::chromeSamples(other.document))
        if (s.name != "CPUs")
            deques.push_back(s);
    // Engine 1's deque: +1 at 1500, +1 at 1600, -1 at 1700 (stolen); engine 0 never holds one.
    CHECK(deques
        == std::vector<ChromeSample> { { "Spark deque (Engine 1)", "sparks", 1500, 1 },
            { "Spark deque (Engine 1)", "sparks", 1600, 2 }, { "Spark deque (Engine 1)", "sparks", 1700, 1 } });
}

TEST_CASE("chrome export reports a stream that cannot be written", "[core][chrome]")
{
    std::ostringstream out;
    out.setstate(std::ios::badbit);
    auto written = core::writeChromeTrace(handTrace(), out);
    REQUIRE_FALSE(written);
    CHECK(written.error().code == core::ErrorCode::Io);
    auto file = core::writeChromeTraceFile(handTrace(), "/nonexistent-dir/x.json");
    REQUIRE_FALSE(file);
    CHECK(file.error().message.find("/nonexistent-dir/x.json") != std::string::npos);
}
