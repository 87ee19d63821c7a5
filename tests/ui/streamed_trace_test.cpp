// A trace opened by streaming (streamTraceData) draws and describes exactly what the same trace read
// whole draws: the pyramid, the CPUs curve, the markers, and, at every zoom, the same event ticks
// and the same tooltips on them, although its events are decoded again from the file on demand.
#include "support/scoped_env.h"
#include "support/test_data.h"
#include "support/trace_builder.h"
#include "ui/compare/time_alignment.h"
#include "ui/loading/trace_data.h"
#include "ui/timeline/frame.h"

#include "sparkscope/core/complete_prefix.h"
#include "sparkscope/core/event_types.h"
#include "sparkscope/core/reader.h"
#include "sparkscope/core/writer.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

using namespace sparkscope;
using namespace sparkscope::ui;
namespace fs = std::filesystem;

namespace {

std::shared_ptr<const TraceData> streamed(const std::string& path)
{
    auto data = streamTraceData(path);
    REQUIRE(data);
    REQUIRE(data.value()->isStreamed());
    return data.value();
}

// Writes `bytes` as the file `path`.
void writeFileBytes(const fs::path& path, const std::vector<uint8_t>& bytes)
{
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    REQUIRE(out.good());
}

std::shared_ptr<const TraceData> whole(const std::string& path)
{
    auto trace = core::readTrace(path);
    REQUIRE(trace);
    return buildTraceData(std::move(trace).value());
}

// The ticks (and marker lines) of a frame, per ink.
size_t tickCount(const Frame& f)
{
    size_t n = 0;
    for (size_t ink = size_t(Ink::TickSparkCreate); ink < kInkCount; ++ink)
        n += f.lines[ink].size();
    return n;
}

void checkSameViews(const TraceData& a, const TraceData& b)
{
    REQUIRE(a.startNs == b.startNs);
    REQUIRE(a.endNs == b.endNs);
    REQUIRE(a.engineCount() == b.engineCount());
    REQUIRE(a.eventCount() == b.eventCount());
    REQUIRE(a.cpus.steps().size() == b.cpus.steps().size());
    REQUIRE(a.markers.size() == b.markers.size());
    for (size_t i = 0; i < a.markers.size(); ++i)
        CHECK((a.markers[i].timeNs == b.markers[i].timeNs && a.markers[i].label == b.markers[i].label));
    for (size_t e = 0; e < a.engineCount(); ++e)
        REQUIRE(a.lod.spans(e).size() == b.lod.spans(e).size());

    // Windows from the whole trace down to 1 µs, at positions spread over it.
    const int64_t span = a.endNs - a.startNs;
    size_t framesWithTicks = 0, tooltips = 0;
    for (int64_t width : { span, span / 100, span / 10000, int64_t(1000) }) {
        for (int k = 0; k < 7; ++k) {
            const int64_t start = a.startNs + (span - std::min(span, width)) * k / 6;
            const Viewport v { 1200, 600, 1.0, { start, start + std::max<int64_t>(width, 1) } };
            const Frame fa = frame(a, v), fb = frame(b, v);
            CAPTURE(width, start);
            REQUIRE(fa.ticksShown == fb.ticksShown);
            for (size_t ink = 0; ink < kInkCount; ++ink)
                REQUIRE(fa.lines[ink] == fb.lines[ink]);
            if (!fa.ticksShown)
                continue;
            framesWithTicks += tickCount(fa) > 0 ? 1 : 0;
            // The tooltip on each tick (the first 50 of each kind) says the same.
            for (size_t ink = size_t(Ink::TickSparkCreate); ink < kInkCount; ++ink)
                for (size_t i = 0; i < std::min<size_t>(50, fa.lines[ink].size()); ++i) {
                    const QPointF at = fa.lines[ink][i].center();
                    const QString ta = describeAt(a, fa, at), tb = describeAt(b, fb, at);
                    REQUIRE(ta == tb);
                    tooltips += ta.isEmpty() ? 0 : 1;
                }
        }
    }
    // The comparison must have compared something: ticks are drawn once zoomed in.
    CHECK(framesWithTicks > 0);
    CHECK(tooltips > 0);
}

} // namespace

TEST_CASE("a streamed GHC eventlog draws and describes what reading it whole does", "[ui][stream]")
{
    for (const char* name :
        { "ghc/parfib-12-30.eventlog", "ghc/sumfib-30-3000.eventlog", "ghc/parfib-8-32.eventlog" }) {
        const auto path = test::sharedTestData(name);
        if (!path)
            return;
        CAPTURE(name);
        checkSameViews(*whole(path->string()), *streamed(path->string()));
    }
}

TEST_CASE("a streamed runtime trace draws its ticks as read whole", "[ui][stream]")
{
    // Mercury events on two engines, in several blocks per engine.
    test::TraceBuilder b(2);
    for (uint64_t i = 0; i < 3000; ++i) {
        const uint64_t t = 1000 + i * 500;
        b.runThread(uint16_t(i % 2), t, uint32_t(i + 1)).sparkCreate(uint16_t(i % 2), t + 100, i, uint32_t(i));
        b.stopThread(uint16_t(i % 2), t + 400, uint32_t(i + 1), core::kStopFinished);
    }
    const fs::path file = test::scratchDir("streamed_trace_runtime") / "runtime.eventlog";
    writeFileBytes(file, core::writeTrace(b.roundTrip()));
    const auto a = whole(file.string());
    const auto s = streamed(file.string());
    checkSameViews(*a, *s);
}

TEST_CASE("a streamed trace gives a comparison the anchors reading it whole gives", "[ui][stream][compare]")
{
    // Conjunctions of static ids 1 and 2 started on both engines; id 1 is named "fib" at 5 and
    // renamed "fib/2" at 50 outside blocks and "fib/3" at 50 by engine 0 (the later definition wins
    // for all its starts: at one time, the global events come before the engines'), id 2 never named
    // ("static#2"). Engine 1 starts id 1 at 100 and 300, engine 0 at 100 and 200; id 2 at 250 on 0.
    test::TraceBuilder b(2);
    b.internString(5, 1, "fib").internString(50, 1, "fib/2");
    b.event(0, 50, core::ev::InternString, { 'f', 'i', 'b', '/', '3', 0, 0, 0, 1 });
    b.startParConj(0, 100, 0x10, 1).startParConj(1, 100, 0x11, 1).startParConj(0, 200, 0x12, 1);
    b.startParConj(0, 250, 0x13, 2).startParConj(1, 300, 0x14, 1).endAt(400);
    const fs::path file = test::scratchDir("streamed_trace_anchors") / "anchors.eventlog";
    writeFileBytes(file, core::writeTrace(b.roundTrip()));
    const RunAnchors a = anchorsOf(*whole(file.string())), s = anchorsOf(*streamed(file.string()));
    const std::map<std::string, std::vector<int64_t>> expected { { "fib/3", { 100, 100, 200, 300 } },
        { "static#2", { 250 } } };
    CHECK(a.conjunctions == expected);
    CHECK(s.conjunctions == expected);
    CHECK(s.startNs == a.startNs);
    CHECK(s.endNs == a.endNs);
}

TEST_CASE("loadTraceData streams files from the threshold up, compressed ones from a decompressed copy", "[ui][stream]")
{
    const auto zst = test::sharedTestData("ghc/parfib-5-34.eventlog.zst");
    const auto plain = test::sharedTestData("ghc/parfib-12-30.eventlog");
    if (!zst || !plain)
        return;
    // Set for the two loads below only, whatever happens (later tests must not stream).
    core::Result<std::shared_ptr<const TraceData>> big = core::Error {}, packed = core::Error {};
    {
        const test::ScopedEnv env("SPARKSCOPE_STREAM_BYTES", "1000");
        big = loadTraceData(plain->string());
        packed = loadTraceData(zst->string());
    }
    auto small = loadTraceData(plain->string());
    auto smallPacked = loadTraceData(zst->string()); // 3 MB: under a sixteenth of 1 GiB, read whole
    REQUIRE(big);
    REQUIRE(packed);
    REQUIRE(small);
    REQUIRE(smallPacked);
    CHECK(big.value()->isStreamed());
    // Compressed: streamed from a decompressed copy, and named after the compressed file.
    const auto whole = core::readTrace(zst->string());
    REQUIRE(whole);
    REQUIRE(packed.value()->isStreamed());
    REQUIRE(packed.value()->decompressed);
    CHECK(packed.value()->eventCount() == whole->eventCount());
    CHECK(packed.value()->trace->path == zst->string());
    CHECK(packed.value()->trace->fileSize == whole->fileSize);
    CHECK(packed.value()->trace->compression == core::Compression::Zstd);
    CHECK(packed.value()->streamed->path() == packed.value()->decompressed->path());
    CHECK(packed.value()->events(0, 0, INT64_MAX, SIZE_MAX)->events.size() == whole->engines[0].size());
    CHECK(fs::exists(packed.value()->decompressed->path()));
    CHECK_FALSE(smallPacked.value()->isStreamed());
    CHECK(smallPacked.value()->eventCount() == whole->eventCount());
    CHECK_FALSE(small.value()->isStreamed()); // the default threshold is 1 GiB
    CHECK(big.value()->eventCount() == small.value()->eventCount());
    CHECK(big.value()->trace->eventCount() == 0); // the streamed trace holds no events
}

namespace {

// Everything the views and the metrics read of a streamed TraceData, compared field by field.
void checkSameStreamedData(const TraceData& a, const TraceData& b)
{
    REQUIRE(a.isStreamed());
    REQUIRE(b.isStreamed());
    CHECK(a.startNs == b.startNs);
    CHECK(a.endNs == b.endNs);
    CHECK(a.eventCount() == b.eventCount());
    CHECK(a.streamed->markCount() == b.streamed->markCount());
    CHECK(a.streamed->endBytes() == b.streamed->endBytes());
    CHECK(a.trace->truncated == b.trace->truncated);
    CHECK(a.trace->lastTimeNs == b.trace->lastTimeNs);
    REQUIRE(a.trace->warnings.size() == b.trace->warnings.size());
    for (size_t i = 0; i < a.trace->warnings.size(); ++i)
        CHECK(a.trace->warnings[i].message == b.trace->warnings[i].message);
    CHECK(a.cpus.steps() == b.cpus.steps());
    REQUIRE(a.markers.size() == b.markers.size());
    for (size_t i = 0; i < a.markers.size(); ++i)
        CHECK((a.markers[i].timeNs == b.markers[i].timeNs && a.markers[i].label == b.markers[i].label));
    CHECK(a.streamedConjunctionStarts == b.streamedConjunctionStarts);
    REQUIRE(a.engineCount() == b.engineCount());
    for (size_t e = 0; e < a.engineCount(); ++e) {
        CAPTURE(e);
        const auto p = a.lod.spans(e), q = b.lod.spans(e);
        REQUIRE(p.size() == q.size());
        size_t differing = 0;
        for (size_t i = 0; i < p.size(); ++i)
            differing += p[i].startNs == q[i].startNs && p[i].endNs == q[i].endNs && p[i].label == q[i].label
                    && p[i].state == q[i].state
                ? 0
                : 1;
        CHECK(differing == 0);
        REQUIRE(a.lod.levelCount(e) == b.lod.levelCount(e));
        for (size_t l = 0; l < a.lod.levelCount(e); ++l) {
            REQUIRE(a.lod.bucketCount(e, l) == b.lod.bucketCount(e, l));
            for (size_t k = 0; k < a.lod.bucketCount(e, l); ++k) {
                const auto x = a.lod.bucket(e, l, k), y = b.lod.bucket(e, l, k);
                differing += std::equal(x.begin(), x.end(), y.begin(), y.end()) ? 0 : 1;
            }
        }
        CHECK(differing == 0);
    }
}

std::vector<uint8_t> fileBytes(const fs::path& path)
{
    std::ifstream in(path, std::ios::binary);
    return { std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>() };
}

// A followed file's updates: the pass kept from step to step (TraceDataStreamer) gives at each
// complete part the TraceData of streaming that part alone.
void checkFollowedSteps(const fs::path& path, int parts)
{
    CAPTURE(path.string());
    const auto bytes = fileBytes(path);
    std::vector<uint64_t> ends;
    for (int k = 1; k < parts; ++k) {
        const auto p
            = core::completePrefix(std::span<const uint8_t>(bytes).first(bytes.size() * size_t(k) / size_t(parts)));
        if (p.bytes > p.dataStart && (ends.empty() || p.bytes > ends.back()))
            ends.push_back(p.bytes);
    }
    REQUIRE(!ends.empty()); // at least one complete part before the whole file
    ends.push_back(bytes.size());
    TraceDataStreamer streamer(path.string());
    for (uint64_t end : ends) {
        CAPTURE(end);
        REQUIRE(!streamer.advance(end));
        auto once = streamTraceData(path.string(), {}, nullptr, end);
        REQUIRE(once);
        checkSameStreamedData(*streamer.snapshot(), *once.value());
    }
    auto whole = streamTraceData(path.string(), {}, nullptr, bytes.size());
    REQUIRE(whole);
    checkSameStreamedData(*std::move(streamer).finish(), *whole.value());
}

} // namespace

TEST_CASE("a followed trace's pass kept between updates gives what streaming each part gives", "[ui][stream][follow]")
{
    SECTION("GHC eventlogs")
    {
        for (const char* name : { "ghc/parfib-8-32.eventlog", "ghc-events/stop.hT.eventlog" })
            if (const auto path = test::sharedTestData(name))
                checkFollowedSteps(*path, 12);
    }
    SECTION("a runtime trace with conjunctions, markers and interned names")
    {
        if (const auto path
            = test::recordDemoTrace(test::scratchDir("streamed-follow-demo"), "parfib --n 30 --cutoff 8"))
            checkFollowedSteps(*path, 6);
    }
}

namespace {

core::PayloadBuilder threadPayload(uint32_t id)
{
    core::PayloadBuilder b;
    b.u32(id);
    return b;
}

// GHC at each flush (--eventlog-flush-interval) closes every capability's block, an idle one's
// empty: engine 0 runs thread 2 from 100 ns to 10 ms (one block, closed at 10 ms); engine 1 runs
// thread 3 from 100 ns to 1 ms, closes that block at 1 ms, then writes an empty block (just its
// marker, opened at 1 ms) closed at `flushedNs`, unless that is 0. Engine 0's block comes last.
std::vector<uint8_t> idleCapabilityTrace(uint64_t flushedNs)
{
    core::EventlogWriter w(core::mercuryHeader());
    w.beginBlock(1, 100);
    REQUIRE(w.event(core::ev::CreateThread, 100, threadPayload(3).data()));
    REQUIRE(w.event(core::ev::RunThread, 100, threadPayload(3).data()));
    REQUIRE(w.event(core::ev::StopThread, 1'000'000, threadPayload(3).u16(core::kStopFinished).u32(0).data()));
    w.endBlock(1'000'000);
    if (flushedNs) {
        w.beginBlock(1, 1'000'000);
        w.endBlock(flushedNs);
    }
    w.beginBlock(0, 100);
    REQUIRE(w.event(core::ev::CreateThread, 100, threadPayload(2).data()));
    REQUIRE(w.event(core::ev::RunThread, 100, threadPayload(2).data()));
    REQUIRE(w.event(core::ev::StopThread, 10'000'000, threadPayload(2).u16(core::kStopFinished).u32(0).data()));
    w.endBlock(10'000'000);
    return w.finish();
}

} // namespace

TEST_CASE("an idle engine whose empty blocks say it was flushed recently is not behind", "[ui][stream][follow]")
{
    // The trace spans 10 ms, so an engine is behind when what it has written ends over 1 ms before
    // the end (1 % of 10 ms is less). Read whole and streamed alike:
    // - flushed at 9.5 ms: engine 1 wrote everything up to 9.5 ms, 0.5 ms before the end: not behind;
    // - flushed at 4 ms: behind from 4 ms (not from its last event, at 1 ms);
    // - never flushed: behind from its last event, at 1 ms, as before.
    const fs::path dir = test::scratchDir("idle-capability");
    for (const auto& [flushedNs, expected] : { std::pair<uint64_t, int64_t>(9'500'000, INT64_MAX),
             std::pair<uint64_t, int64_t>(4'000'000, 4'000'000), std::pair<uint64_t, int64_t>(0, 1'000'000) }) {
        CAPTURE(flushedNs);
        const fs::path path = dir / ("flushed-" + std::to_string(flushedNs) + ".eventlog");
        const std::vector<uint8_t> bytes = idleCapabilityTrace(flushedNs);
        writeFileBytes(path, bytes);
        for (const auto& data : { whole(path.string()), streamed(path.string()) }) {
            CAPTURE(data->isStreamed());
            REQUIRE(data->endNs == 10'000'000);
            CHECK(lastEventTimes(*data) == std::vector<int64_t> { 10'000'000, 1'000'000 });
            CHECK(writtenUntil(*data)[1] == std::max<int64_t>(int64_t(flushedNs), 1'000'000));
            CHECK(unwrittenFrom(*data) == std::vector<int64_t> { INT64_MAX, expected });
        }
    }
    SECTION("a block cut short is not trusted")
    {
        // The file cut inside engine 0's last event: its block's marker says it was closed at 10 ms,
        // but what came after the cut is lost. Streamed, each block is checked: engine 0 is behind
        // from its last event left (100 ns) while engine 1's complete empty block still counts; read
        // whole, the reader does not say which block was cut, so no marker counts.
        std::vector<uint8_t> bytes = idleCapabilityTrace(9'500'000);
        bytes.resize(bytes.size() - 2 - 5); // DATA_END, and 5 bytes of the last event's 20
        const fs::path path = dir / "cut.eventlog";
        writeFileBytes(path, bytes);
        const auto read = whole(path.string());
        REQUIRE(read->trace->truncated);
        REQUIRE(read->endNs == 10'000'000); // the marker's end time
        CHECK(unwrittenFrom(*read) == std::vector<int64_t> { 100, 1'000'000 });
        const auto stream = streamed(path.string());
        REQUIRE(stream->endNs == 10'000'000);
        CHECK(unwrittenFrom(*stream) == std::vector<int64_t> { 100, INT64_MAX });
    }
}

TEST_CASE("a streamed trace finds its runtime's flush interval where reading it whole does", "[ui][stream][follow]")
{
    // Two RTS_IDENTIFIERs: both reads take the first that names a flush interval.
    const fs::path dir = test::scratchDir("flush-interval");
    int n = 0;
    for (const auto& [first, second] : { std::pair<std::string, std::string>("flush-ms=100", ""),
             std::pair<std::string, std::string>("flush-ms=100", "flush-ms=200"),
             std::pair<std::string, std::string>("", "flush-ms=100") }) {
        CAPTURE(first, second);
        core::EventlogWriter w(core::mercuryHeader());
        for (const std::string& setting : { first, second }) {
            const std::string ident = "sparkscope-0.1.0 cpus=2" + (setting.empty() ? "" : " " + setting);
            std::vector<uint8_t> payload = threadPayload(0).data(); // the capset, then the text
            payload.insert(payload.end(), ident.begin(), ident.end());
            REQUIRE(w.event(core::ev::RtsIdentifier, 0, payload));
        }
        w.beginBlock(0, 100);
        REQUIRE(w.event(core::ev::CreateThread, 100, threadPayload(1).data()));
        w.endBlock(100);
        const std::vector<uint8_t> bytes = w.finish();
        const fs::path path = dir / ("identifiers-" + std::to_string(n++) + ".eventlog");
        writeFileBytes(path, bytes);
        CHECK(whole(path.string())->flushMs == std::optional<uint64_t>(100));
        CHECK(streamed(path.string())->flushMs == std::optional<uint64_t>(100));
    }
}
