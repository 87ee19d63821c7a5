// readTraceCompact and foldMarks (compact_trace.h): the compact trace holds GHC's payload-free spark
// events as marks, hands every engine's events out in the whole read's order (forEachEngineEvent),
// and gives the same metrics file, analysis included, as the trace read whole: on every shared
// eventlog, on demo traces, and on hand-built traces whose order at one time matters.
#include "scenario_traces.h"
#include "shared_plain.h"
#include "sparkscope/core/compact_trace.h"
#include "sparkscope/core/deque_sizes.h"
#include "sparkscope/core/engine_states.h"
#include "sparkscope/core/metrics_export.h"
#include "sparkscope/core/reader.h"
#include "sparkscope/core/writer.h"
#include "support/test_data.h"
#include "support/trace_builder.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <set>

using namespace sparkscope;
using namespace sparkscope::core;
namespace fs = std::filesystem;

namespace {

// An event as a pass sees it: its time, type, engine and payload bytes (not its place in a stream).
struct Seen {
    uint64_t timeNs;
    uint16_t type, engine;
    std::vector<uint8_t> payload;
    bool operator==(const Seen&) const = default;
};

std::vector<Seen> engineEvents(const Trace& t, size_t engine)
{
    std::vector<Seen> out;
    forEachEngineEvent(t, engine, [&](const Event& e) {
        const auto p = t.payload(e).bytes();
        out.push_back({ e.timeNs, e.type, e.engine, { p.begin(), p.end() } });
    });
    return out;
}

size_t markCount(const Trace& t)
{
    size_t n = 0;
    for (const EngineMarks& m : t.marks)
        n += m.marks.size();
    return n;
}

// The first engine whose events differ, or the engine count.
size_t firstDifferingEngine(const Trace& a, const Trace& b)
{
    for (size_t e = 0; e < a.engineCount(); ++e)
        if (engineEvents(a, e) != engineEvents(b, e))
            return e;
    return a.engineCount();
}

std::string metricsJson(const Trace& t)
{
    return formatMetricsFile(computeMetricsFile(t), MetricsFormat::Json);
}

// readTraceCompact(path) against readTrace(path): the same trace as the passes see it, and the same
// metrics file. Returns how many marks it held.
size_t checkCompactAgainstWholeRead(const fs::path& path)
{
    CAPTURE(path.string());
    auto whole = readTrace(path.string());
    auto compact = readTraceCompact(path.string());
    REQUIRE(bool(whole) == bool(compact));
    if (!whole) {
        CHECK(whole.error().message == compact.error().message);
        return 0;
    }
    const Trace& w = whole.value();
    const Trace& c = compact.value();
    REQUIRE(c.engineCount() == w.engineCount());
    CHECK(c.eventCount() == w.eventCount());
    CHECK(c.firstTimeNs == w.firstTimeNs);
    CHECK(c.lastTimeNs == w.lastTimeNs);
    CHECK(c.truncated == w.truncated);
    CHECK(c.warnings.size() == w.warnings.size());
    CHECK(c.path == w.path);
    CHECK(firstDifferingEngine(c, w) == w.engineCount());
    REQUIRE(c.global.size() == w.global.size());
    for (size_t i = 0; i < w.global.size(); ++i) {
        const auto p = c.payload(c.global[i]).bytes(), q = w.payload(w.global[i]).bytes();
        REQUIRE(std::equal(p.begin(), p.end(), q.begin(), q.end()));
    }
    CHECK(metricsJson(c) == metricsJson(w));
    return markCount(c);
}

// `t` with a header declaring every type its events have, as the table sizes them (the builder's
// traces declare none, and a written event must be declared).
Trace withDeclarations(Trace t)
{
    std::set<uint16_t> types;
    for (const auto& engine : t.engines)
        for (const Event& e : engine)
            types.insert(e.type);
    for (uint16_t n : types) {
        const EventTypeInfo* info = knownEventType(n);
        REQUIRE(info);
        t.header.types.push_back({ n, info->size, std::string(info->description), {} });
    }
    return t;
}

void writeFile(const fs::path& path, std::span<const uint8_t> bytes)
{
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

} // namespace

TEST_CASE("a compact read of a shared eventlog gives the whole read's events and metrics file", "[compact]")
{
    size_t checked = 0, marks = 0;
    for (const fs::path& path : test::plainSharedEventlogs("compact_trace_shared")) {
        marks += checkCompactAgainstWholeRead(path);
        ++checked;
    }
    if (checked == 0)
        return;
    CHECK(checked >= 20);
    CHECK(marks > 10'000'000); // parfib-4-37 alone holds 10.8 M spark events
}

TEST_CASE("a compact read of a compressed eventlog streams a decompressed copy and leaves nothing behind", "[compact]")
{
    const auto path = test::sharedTestData("ghc/parfib-5-34.eventlog.zst");
    if (!path)
        return;
    // The copy goes to TMPDIR: a directory of this test's, empty again after each read.
    const fs::path tmp = test::scratchDir("compact_trace_tmpdir");
    struct TmpDir {
        std::string old;
        bool had = false;
        explicit TmpDir(const fs::path& dir)
        {
            if (const char* v = std::getenv("TMPDIR")) {
                old = v;
                had = true;
            }
            ::setenv("TMPDIR", dir.c_str(), 1);
        }
        ~TmpDir() { had ? (void)::setenv("TMPDIR", old.c_str(), 1) : (void)::unsetenv("TMPDIR"); }
    } env(tmp);
    CHECK(checkCompactAgainstWholeRead(*path) > 0); // the same events, marks and metrics file
    CHECK(fs::is_empty(tmp));
    auto compact = readTraceCompact(path->string());
    REQUIRE(compact);
    CHECK(compact->compression == Compression::Zstd);
    CHECK(compact->fileSize == fs::file_size(*path));
    CHECK(compact->hasMarks());
    CHECK(fs::is_empty(tmp));

    SECTION("a compressed stream that breaks off gives what reading it whole gives")
    {
        const fs::path cut = test::scratchDir("compact_trace_zst_cut") / "cut.eventlog.zst";
        std::ifstream in(*path, std::ios::binary);
        std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        std::ofstream(cut, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size() / 2));
        checkCompactAgainstWholeRead(cut); // the same warnings, events and metrics file
        auto broken = readTraceCompact(cut.string());
        REQUIRE(broken);
        CHECK(broken->truncated); // (zstd's decompressor just ends: the stream is cut inside an event)
        REQUIRE(!broken->warnings.empty());
        CHECK(broken->warnings.back().message.find("reading stopped at byte") != std::string::npos);
        CHECK(fs::is_empty(tmp));
    }
    SECTION("where no copy can be written, it is read whole")
    {
        // Streamed, the trace holds only the kept events' records; read whole, the whole stream.
        auto streamedCopy = readTraceCompact(path->string());
        TmpDir nowhere(tmp / "missing");
        auto whole = readTraceCompact(path->string());
        REQUIRE(streamedCopy);
        REQUIRE(whole);
        const uint64_t decompressed = readTrace(path->string())->bytes().size();
        CHECK(streamedCopy->bytes().size() < decompressed / 10);
        CHECK(whole->bytes().size() == decompressed);
        CHECK(checkCompactAgainstWholeRead(*path) > 0);
    }
}

TEST_CASE("compact reads of demo traces recorded by the runtime give the whole read's metrics file", "[compact][demo]")
{
    const fs::path dir = test::scratchDir("compact_trace_demo");
    for (const auto& [name, trace] : test::demoTraces("compact-demo", { "parfib --n 20 --cutoff 10", "pipeline --items 100" })) {
        INFO(name);
        // Mercury's spark events carry payloads: no marks, and nothing else changes.
        CHECK(checkCompactAgainstWholeRead(trace.path) == 0);
    }
}

TEST_CASE("marks keep their place among events at the same time, and what cannot be a mark stays an event", "[compact]")
{
    // Engine 0, in file order: at 10 SPARK_CREATE, RUN_THREAD, SPARK_CREATE; at 20 SPARK_COUNTERS
    // (it has a payload: an event), SPARK_RUN; at 30 STOP_THREAD, SPARK_FIZZLE; and a SPARK_GC at
    // 2^62 ns, past the 61 bits a mark's time has: an event. Engine 1: SPARK_STEAL from 0 at 20 (a
    // payload: an event), SPARK_OVERFLOW and SPARK_DUD at 25.
    // Each engine's block begins with its BLOCK_MARKER, an event (at the block's first time, before
    // what the block holds). So engine 0 holds 4 marks (the two creates, the run, the fizzle) and 5
    // events, with 0, 1, 2, 3 and 4 marks before its marker, RUN_THREAD, SPARK_COUNTERS, STOP_THREAD
    // and far SPARK_GC; engine 1 holds 2 marks after its 2 events. 11 events and 2 markers in all.
    const uint64_t far = uint64_t(1) << 62;
    test::TraceBuilder b(2);
    b.event(0, 10, ev::SparkCreate).runThread(0, 10, 1).event(0, 10, ev::SparkCreate);
    b.event(0, 20, ev::SparkCounters, std::vector<uint8_t>(56, 0)).event(0, 20, ev::SparkRun);
    b.stopThread(0, 30, 1, 1).event(0, 30, ev::SparkFizzle).event(0, far, ev::SparkGc);
    b.event(1, 20, ev::SparkSteal, { 0, 0 }).event(1, 25, ev::SparkOverflow).event(1, 25, ev::SparkDud);
    const fs::path path = test::scratchDir("compact_trace_hand") / "ties.eventlog";
    writeFile(path, writeTrace(withDeclarations(b.build())));

    auto whole = readTrace(path.string());
    REQUIRE(whole);
    Trace folded = whole.value();
    foldMarks(folded);
    auto compact = readTraceCompact(path.string());
    REQUIRE(compact);
    for (const Trace* t : { &folded, &compact.value() }) {
        REQUIRE(t->marks.size() == 2);
        CHECK(t->marks[0].marks.size() == 4);
        CHECK(t->marks[0].before == std::vector<uint64_t> { 0, 1, 2, 3, 4 });
        CHECK(t->engines[0].size() == 5);
        CHECK(t->engines[0].back().type == ev::SparkGc);
        CHECK(t->marks[1].marks.size() == 2);
        CHECK(t->marks[1].before == std::vector<uint64_t> { 0, 0 });
        CHECK(t->eventCount() == whole->eventCount());
        CHECK(t->eventCount() == 13);
        CHECK(firstDifferingEngine(*t, whole.value()) == 2);
        CHECK(metricsJson(*t) == metricsJson(whole.value()));
        // The deque sizes read the marks: the same curves as from the events.
        const auto a = computeSparkDequeSizes(*t), w = computeSparkDequeSizes(whole.value());
        REQUIRE(a.size() == w.size());
        for (size_t e = 0; e < a.size(); ++e)
            CHECK(a[e].steps() == w[e].steps());
    }
    // A mark stands for a payload-free event at its time and engine.
    const Event m = compact->marks[1].marks[0].event(1);
    CHECK(m.timeNs == 25);
    CHECK(m.type == ev::SparkOverflow);
    CHECK(m.engine == 1);
    CHECK(compact->payload(m).size() == 0);
}

TEST_CASE("a compact read refuses what the whole read refuses", "[compact]")
{
    const fs::path dir = test::scratchDir("compact_trace_bad");
    const fs::path notLog = dir / "not.eventlog";
    writeFile(notLog, std::vector<uint8_t> { 'h', 'e', 'l', 'l', 'o', ' ', 'w', 'o', 'r', 'l', 'd' });
    auto a = readTraceCompact(notLog.string());
    auto w = readTrace(notLog.string());
    REQUIRE_FALSE(a);
    REQUIRE_FALSE(w);
    CHECK(a.error().message == w.error().message);
    CHECK_FALSE(readTraceCompact((dir / "missing.eventlog").string()));
}

TEST_CASE("passes that any event moves on read the marks too: engine states and measured costs", "[compact]")
{
    // The nested scenario (scenario_traces.h), a SparkScope trace whose analysis measures its costs,
    // with payload-free GHC spark events added where any event changes what a pass sees: on engine 0
    // at 198, just after it goes to sleep (any event ends a sleep: EngineStateScanner), and at 199;
    // between ctx 1's wake and its run on engine 1 (a run decision is reset by any event but a few:
    // the cost model); and at 156 inside H2. Each goes after the events at its time, as a file would
    // have it. Folded into marks, the metrics file (analysis and predictions included) is the same.
    Trace whole = test::nestedTrace();
    auto add = [&](uint16_t engine, uint64_t t, uint16_t type) {
        Event e;
        e.timeNs = t;
        e.type = type;
        e.engine = engine;
        auto& v = whole.engines[engine];
        v.insert(std::upper_bound(v.begin(), v.end(), t, [](uint64_t x, const Event& y) { return x < y.timeNs; }), e);
        whole.header.types.push_back({ type, 0, std::string(knownEventType(type)->description), {} });
    };
    add(0, 198, ev::SparkCreate);
    add(0, 199, ev::SparkFizzle);
    add(0, 156, ev::SparkRun);
    add(1, 205, ev::SparkCreate);
    add(1, 212, ev::SparkGc);
    Trace folded = whole;
    foldMarks(folded);
    REQUIRE(markCount(folded) == 5);
    CHECK(firstDifferingEngine(folded, whole) == 2);
    const EngineStates a = computeEngineStates(folded), w = computeEngineStates(whole);
    CHECK(a.engines == w.engines);
    CHECK(metricsJson(folded) == metricsJson(whole));
    // Engine 0 sleeps at 198 for the rest of the scenario; the spark event at 198 wakes it there.
    bool sleptPast198 = false;
    for (const StateInterval& s : a.engines[0])
        sleptPast198 = sleptPast198 || (s.state == EngineState::Sleeping && s.endNs > 199);
    CHECK_FALSE(sleptPast198);
}

TEST_CASE("a compact read stops when cancelled, and reads whole a trace whose events come late", "[compact]")
{
    const fs::path dir = test::scratchDir("compact_trace_cancel");
    const Header sparks = withDeclarations(test::TraceBuilder(1).event(0, 1, ev::SparkCreate).build()).header;
    // 200,000 spark events, 2 MB: the decoder looks at the flag every megabyte.
    EventlogWriter big(sparks);
    for (uint64_t block = 0; block < 20; ++block) {
        big.beginBlock(0, block * 10'000);
        for (uint64_t i = 0; i < 10'000; ++i)
            REQUIRE(big.event(ev::SparkCreate, block * 10'000 + i, {}));
    }
    const fs::path path = dir / "sparks.eventlog";
    writeFile(path, big.finish());
    REQUIRE(readTraceCompact(path.string()));
    std::atomic<bool> cancel { true };
    StreamOptions options;
    options.cancel = &cancel;
    auto cancelled = readTraceCompact(path.string(), options);
    REQUIRE_FALSE(cancelled);
    CHECK(cancelled.error().code == ErrorCode::Cancelled);

    // Engine 0: SPARK_CREATE at 100, 110, ..., 290 in one block, then a block starting at 5: with a
    // hold-back of 4 events its events come late, so the read is whole, then folded: the same trace.
    test::TraceBuilder b(1);
    for (int i = 0; i < 20; ++i)
        b.event(0, 100 + uint64_t(i) * 10, ev::SparkCreate);
    Trace late = withDeclarations(b.build());
    EventlogWriter w(late.header);
    w.beginBlock(0, 100);
    for (const Event& e : late.engines[0])
        REQUIRE(w.event(e.type, e.timeNs, {}));
    w.beginBlock(0, 5);
    REQUIRE(w.event(ev::SparkCreate, 5, {}));
    REQUIRE(w.event(ev::SparkCreate, 400, {}));
    const fs::path latePath = dir / "late.eventlog";
    writeFile(latePath, w.finish());
    StreamOptions small;
    small.windowBytes = 1;
    small.holdBack = 4;
    auto compact = readTraceCompact(latePath.string(), small);
    REQUIRE(compact);
    auto whole = readTrace(latePath.string());
    REQUIRE(whole);
    CHECK(markCount(compact.value()) == 22);
    CHECK(compact->eventCount() == whole->eventCount());
    CHECK(firstDifferingEngine(compact.value(), whole.value()) == 1);
}
