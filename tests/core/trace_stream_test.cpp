// streamTrace and decodeBlocks (trace_stream.h) against readTrace: on every shared eventlog, the
// events handed out per engine, the summary, the engine states and the level-of-detail pyramid built
// from the stream equal those of the trace read whole; hand-built traces check the hold-back, late
// events, truncation and refusals.
#include "scenario_traces.h"
#include "shared_plain.h"
#include "sparkscope/core/engine_states.h"
#include "sparkscope/core/lod_index.h"
#include "sparkscope/core/reader.h"
#include "sparkscope/core/trace_stream.h"
#include "sparkscope/core/writer.h"
#include "support/test_data.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

using namespace sparkscope;
using namespace sparkscope::core;
namespace fs = std::filesystem;

namespace {

bool sameEvent(const Event& a, const Event& b)
{
    return a.timeNs == b.timeNs && a.offset == b.offset && a.type == b.type && a.engine == b.engine
        && a.payloadSize == b.payloadSize && a.headerSize == b.headerSize;
}

// The index of the first element where a and b differ by `same`, or the common size if none (one
// assertion per list rather than per element: the shared traces hold millions of events).
template <class T, class Same> size_t firstDifference(std::span<const T> a, std::span<const T> b, Same same)
{
    const size_t n = std::min(a.size(), b.size());
    for (size_t i = 0; i < n; ++i)
        if (!same(a[i], b[i]))
            return i;
    return n;
}

// What a stream hands out, gathered per engine, with the engine states scanned as it goes.
struct Gathered {
    std::vector<std::vector<Event>> engines;
    std::vector<Event> global;
    std::vector<EngineStateScanner> scanners;
    size_t batches = 0;

    void operator()(const StreamBatch& b)
    {
        ++batches;
        if (b.engine == kNoEngine) {
            global.insert(global.end(), b.events.begin(), b.events.end());
            return;
        }
        if (b.engine >= engines.size()) {
            engines.resize(size_t(b.engine) + 1);
            scanners.resize(size_t(b.engine) + 1);
        }
        engines[b.engine].insert(engines[b.engine].end(), b.events.begin(), b.events.end());
        for (const Event& e : b.events)
            scanners[b.engine].add(e, b.stream);
    }
};

void writeFile(const fs::path& path, std::span<const uint8_t> bytes)
{
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

std::vector<LodSpan> lodSpans(const std::vector<StateInterval>& in)
{
    std::vector<LodSpan> out;
    for (const StateInterval& s : in)
        out.push_back({ s.startNs, s.endNs, s.context, uint8_t(s.state) });
    return out;
}

LodIndex lodOf(const std::vector<std::vector<StateInterval>>& states, uint64_t from, uint64_t to)
{
    std::vector<std::vector<LodSpan>> spans;
    for (const auto& s : states)
        spans.push_back(lodSpans(s));
    return LodIndex::build(std::move(spans), kEngineStateCount, from, std::max(to, from + 1));
}

void checkSameLod(const LodIndex& a, const LodIndex& b)
{
    REQUIRE(a.engineCount() == b.engineCount());
    for (size_t e = 0; e < a.engineCount(); ++e) {
        REQUIRE(a.spans(e).size() == b.spans(e).size());
        auto sameSpan = [](const LodSpan& x, const LodSpan& y) {
            return x.startNs == y.startNs && x.endNs == y.endNs && x.label == y.label && x.state == y.state;
        };
        CHECK(firstDifference<LodSpan>(a.spans(e), b.spans(e), sameSpan) == a.spans(e).size());
        REQUIRE(a.levelCount(e) == b.levelCount(e));
        for (size_t l = 0; l < a.levelCount(e); ++l) {
            REQUIRE(a.bucketCount(e, l) == b.bucketCount(e, l));
            size_t differing = 0;
            for (size_t k = 0; k < a.bucketCount(e, l); ++k) {
                const auto p = a.bucket(e, l, k), q = b.bucket(e, l, k);
                differing += std::equal(p.begin(), p.end(), q.begin()) ? 0 : 1;
            }
            CHECK(differing == 0);
        }
    }
}

// Streams `path` with a window of `windowBytes` and checks everything against readTrace.
void checkAgainstWholeRead(const fs::path& path, uint64_t windowBytes)
{
    CAPTURE(path.string(), windowBytes);
    auto whole = readTrace(path.string());
    Gathered got;
    StreamOptions options;
    options.windowBytes = windowBytes;
    auto streamed = streamTrace(path.string(), std::ref(got), options);
    REQUIRE(bool(whole) == bool(streamed));
    if (!whole) {
        CHECK(whole.error().code == streamed.error().code);
        CHECK(whole.error().message == streamed.error().message);
        return;
    }
    const Trace& t = whole.value();
    const StreamedTrace& s = streamed.value();
    REQUIRE(s.lateEvents == 0);
    REQUIRE(s.events == t.eventCount());
    REQUIRE(s.summary.engineCount() == t.engineCount());
    CHECK(s.summary.firstTimeNs == t.firstTimeNs);
    CHECK(s.summary.lastTimeNs == t.lastTimeNs);
    CHECK(s.summary.truncated == t.truncated);
    REQUIRE(s.summary.warnings.size() == t.warnings.size());
    for (size_t i = 0; i < t.warnings.size(); ++i)
        CHECK(s.summary.warnings[i].message == t.warnings[i].message);
    CHECK(s.summary.header.types.size() == t.header.types.size());

    got.engines.resize(t.engineCount());
    got.scanners.resize(t.engineCount());
    REQUIRE(got.global.size() == t.global.size());
    CHECK(firstDifference<Event>(got.global, t.global, sameEvent) == t.global.size());
    for (size_t e = 0; e < t.engineCount(); ++e) {
        CAPTURE(e);
        REQUIRE(got.engines[e].size() == t.engines[e].size());
        CHECK(firstDifference<Event>(got.engines[e], t.engines[e], sameEvent) == t.engines[e].size());
    }

    // The state runs and the pyramid built from the stream are the in-memory ones.
    const EngineStates inMemory = computeEngineStates(t);
    EngineStates fromStream;
    fromStream.firstNs = s.summary.firstTimeNs;
    fromStream.lastNs = std::max(s.summary.lastTimeNs, s.summary.firstTimeNs);
    for (auto& scanner : got.scanners)
        fromStream.engines.push_back(scanner.finish(fromStream.firstNs, fromStream.lastNs));
    REQUIRE(fromStream.engines == inMemory.engines);
    checkSameLod(lodOf(fromStream.engines, fromStream.firstNs, fromStream.lastNs),
        lodOf(inMemory.engines, inMemory.firstNs, inMemory.lastNs));

    // Every engine's blocks, decoded again from the file, give back its events.
    for (size_t e = 0; e < t.engineCount(); ++e) {
        CAPTURE(e);
        auto again = decodeBlocks(path.string(), s.summary.header, uint16_t(e), s.blocks[e]);
        REQUIRE(again);
        const auto& events = again->engines[e];
        REQUIRE(events.size() == t.engines[e].size());
        const Trace& decoded = again.value();
        auto samePayload = [&](const Event& a, const Event& b) {
            const auto p = decoded.payload(a).bytes(), q = t.payload(b).bytes();
            return a.timeNs == b.timeNs && a.type == b.type && std::equal(p.begin(), p.end(), q.begin(), q.end());
        };
        CHECK(firstDifference<Event>(events, t.engines[e], samePayload) == events.size());
        uint64_t blockEvents = 0;
        for (const BlockExtent& b : s.blocks[e]) {
            REQUIRE(b.firstNs <= b.lastNs);
            REQUIRE(b.events <= BlockExtent::kExtentEvents);
            blockEvents += b.events;
        }
        CHECK(blockEvents == t.engines[e].size());
        // An extent alone, most of them starting inside a block, decodes to its own events: its
        // count, and times inside its span. (Every extent of small traces, 200 spread over big ones.)
        const auto& extents = s.blocks[e];
        const size_t step = std::max<size_t>(1, extents.size() / 200);
        size_t wrong = 0;
        for (size_t i = 0; i < extents.size(); i += step) {
            auto one = decodeBlocks(path.string(), s.summary.header, uint16_t(e), std::span(&extents[i], 1));
            REQUIRE(one);
            const auto& ev = one->engines[e];
            wrong += ev.size() == extents[i].events && (ev.empty() || (ev.front().timeNs == extents[i].firstNs
                                                                    && ev.back().timeNs == extents[i].lastNs))
                ? 0
                : 1;
        }
        CHECK(wrong == 0);
    }
}

} // namespace

TEST_CASE("streaming a shared eventlog hands out the events, states and pyramid of reading it whole", "[stream]")
{
    size_t checked = 0;
    for (const fs::path& path : test::plainSharedEventlogs("trace_stream_shared")) {
        checkAgainstWholeRead(path, 64 << 10);
        ++checked;
    }
    if (checked > 0)
        CHECK(checked >= 20);
}

TEST_CASE("streaming demo traces recorded by the runtime gives the whole read", "[stream][demo]")
{
    for (const auto& [name, trace] :
        test::demoTraces("trace-stream-demo", { "parfib --n 24 --cutoff 12", "pipeline --items 200", "quicksort --n 100000 --cutoff 5000" })) {
        INFO(name);
        checkAgainstWholeRead(trace.path, 64 << 10);
    }
}

TEST_CASE("streaming runtime and writer traces in windows of any size gives the whole read", "[stream]")
{
    const fs::path dir = test::scratchDir("trace_stream_windows");
    const fs::path path = dir / "nested.eventlog";
    const std::vector<uint8_t> bytes = writeTrace(test::nestedTrace());
    writeFile(path, bytes);
    for (uint64_t window : { uint64_t(1), uint64_t(100), uint64_t(4096), uint64_t(32) << 20 })
        checkAgainstWholeRead(path, window);

    SECTION("a file cut anywhere streams what reading it whole keeps")
    {
        for (size_t cut : { bytes.size() - 1, bytes.size() * 2 / 3, bytes.size() / 2, size_t(40) }) {
            const fs::path cutPath = dir / ("cut-" + std::to_string(cut) + ".eventlog");
            writeFile(cutPath, std::span<const uint8_t>(bytes.data(), cut));
            checkAgainstWholeRead(cutPath, 256);
        }
    }
}

TEST_CASE("a block whose size lies streams as reading it whole does, in windows of any size", "[stream]")
{
    // Three blocks of engine 0, 10 events each; the first block's size is then made 5 bytes too
    // big, or 0 (the decoder gives such a block's events to its engine up to the next marker, and
    // warns). The walk that plans the ranges steps over blocks by their declared size, so its range
    // ends fall inside events: streaming must go on from where decoding stopped, not stop there.
    EventlogWriter w(mercuryHeader());
    const std::vector<uint8_t> spark = PayloadBuilder().u64(1).u32(1).data();
    for (uint64_t block = 0; block < 3; ++block) {
        w.beginBlock(0, 100 * block);
        for (uint64_t i = 0; i < 10; ++i)
            REQUIRE(w.event(ev::MerSparkCreate, 100 * block + i, spark));
    }
    const std::vector<uint8_t> good = w.finish();
    // The first block marker: after the header, the first BLOCK_MARKER event; its size is the u32
    // at 10 bytes into it.
    auto whole = readTraceFromBytes(good);
    REQUIRE(whole);
    const uint64_t marker = whole->engines.at(0).front().offset;
    REQUIRE(whole->engines[0].front().type == ev::BlockMarker);
    const fs::path dir = test::scratchDir("trace_stream_lying_block");
    for (uint32_t declared : { uint32_t(24 + 10 * 22 + 5), uint32_t(0) }) {
        std::vector<uint8_t> bytes = good;
        bytes[marker + 10] = uint8_t(declared >> 24);
        bytes[marker + 11] = uint8_t(declared >> 16);
        bytes[marker + 12] = uint8_t(declared >> 8);
        bytes[marker + 13] = uint8_t(declared);
        const fs::path path = dir / ("declares-" + std::to_string(declared) + ".eventlog");
        writeFile(path, bytes);
        auto damaged = readTrace(path.string());
        REQUIRE(damaged);
        CHECK_FALSE(damaged->warnings.empty());
        for (uint64_t window : { uint64_t(1), uint64_t(100), uint64_t(4096) })
            checkAgainstWholeRead(path, window);
    }
}

TEST_CASE("an event later than the hold-back is handed out and counted", "[stream]")
{
    // Engine 0: a block of 20 events at 100, 110, ..., 290, then a block starting with an event at
    // time 5, earlier than all of them. With a hold-back of 4 events, the first block's marker and
    // its first 16 events are out before the second block arrives: its marker (at 5) and its first
    // event are late; with a hold-back of 64 nothing is.
    EventlogWriter w(mercuryHeader());
    const std::vector<uint8_t> spark = PayloadBuilder().u64(1).u32(1).data(); // dynamic id, spark id
    w.beginBlock(0, 100);
    for (int i = 0; i < 20; ++i)
        REQUIRE(w.event(ev::MerSparkCreate, 100 + uint64_t(i) * 10, spark));
    w.beginBlock(0, 5);
    REQUIRE(w.event(ev::MerSparkCreate, 5, spark));
    REQUIRE(w.event(ev::MerSparkCreate, 400, spark));
    const fs::path path = test::scratchDir("trace_stream_late") / "late.eventlog";
    writeFile(path, w.finish());
    REQUIRE(readTrace(path.string()));

    auto count = [&](size_t holdBack) {
        StreamOptions options;
        options.windowBytes = 1;
        options.holdBack = holdBack;
        std::vector<uint64_t> times;
        auto s = streamTrace(
            path.string(),
            [&](const StreamBatch& batch) {
                for (const Event& e : batch.events)
                    if (e.type == ev::MerSparkCreate)
                        times.push_back(e.timeNs);
            },
            options);
        REQUIRE(s);
        REQUIRE(times.size() == 22);
        return std::pair(s->lateEvents, times.front());
    };
    CHECK(count(4) == std::pair<uint64_t, uint64_t>(2, 100));
    CHECK(count(64) == std::pair<uint64_t, uint64_t>(0, 5));
}

TEST_CASE("decoding extents again from a file that shrank is an error, not a crash", "[stream]")
{
    const fs::path path = test::scratchDir("trace_stream_shrunk") / "shrinks.eventlog";
    const std::vector<uint8_t> bytes = writeTrace(test::nestedTrace());
    writeFile(path, bytes);
    auto s = streamTrace(path.string(), [](const StreamBatch&) {});
    REQUIRE(s);
    REQUIRE_FALSE(s->blocks.at(0).empty());
    writeFile(path, std::span<const uint8_t>(bytes.data(), s->blocks[0].front().offset + 1));
    auto again = decodeBlocks(path.string(), s->summary.header, 0, s->blocks[0]);
    REQUIRE_FALSE(again);
    CHECK(again.error().message.find("shorter than when it was read") != std::string::npos);
}

TEST_CASE("streaming refuses what it cannot read, saying what", "[stream]")
{
    const fs::path dir = test::scratchDir("trace_stream_refuse");
    auto none = streamTrace((dir / "missing.eventlog").string(), [](const StreamBatch&) {});
    REQUIRE_FALSE(none);
    CHECK(none.error().code == ErrorCode::Io);
    CHECK(none.error().message.find("missing.eventlog") != std::string::npos);

    const fs::path gz = dir / "packed.eventlog.gz";
    writeFile(gz, std::vector<uint8_t> { 0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3 });
    auto packed = streamTrace(gz.string(), [](const StreamBatch&) {});
    REQUIRE_FALSE(packed);
    CHECK(packed.error().code == ErrorCode::Unsupported);
    CHECK(packed.error().message.find("compressed") != std::string::npos);

    const fs::path empty = dir / "empty.eventlog";
    writeFile(empty, std::vector<uint8_t> {});
    auto nothing = streamTrace(empty.string(), [](const StreamBatch&) {});
    REQUIRE_FALSE(nothing);
    CHECK(nothing.error().message == readTrace(empty.string()).error().message);

    const fs::path text = dir / "notes.txt";
    writeFile(text, std::vector<uint8_t>(100, 'x'));
    auto notATrace = streamTrace(text.string(), [](const StreamBatch&) {});
    auto whole = readTrace(text.string());
    REQUIRE_FALSE(notATrace);
    REQUIRE_FALSE(whole);
    CHECK(notATrace.error().message == whole.error().message);
}
