// Round trips through the writer and the reader: hand-built Mercury-style traces, and every shared
// real eventlog re-encoded by writeTrace.
#include "sparkscope/core/event_fields.h"
#include "sparkscope/core/reader.h"
#include "sparkscope/core/writer.h"
#include "support/test_data.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <iterator>

using namespace sparkscope::core;

namespace {

struct Flat {
    uint64_t timeNs;
    uint16_t engine;
    uint16_t type;
    std::vector<uint8_t> payload;
    bool operator==(const Flat&) const = default;
};

std::vector<Flat> flatten(const Trace& t, const std::vector<Event>& events)
{
    std::vector<Flat> out;
    for (const auto& e : events) {
        auto p = t.payload(e).bytes();
        out.push_back({ e.timeNs, e.engine, e.type, { p.begin(), p.end() } });
    }
    return out;
}

// Same events per engine and global, block markers aside when `withMarkers` is false.
void requireSameEvents(const Trace& a, const Trace& b)
{
    REQUIRE(a.engines.size() == b.engines.size());
    CHECK(a.eventCount() == b.eventCount());
    CHECK(flatten(a, a.global) == flatten(b, b.global));
    for (size_t i = 0; i < a.engines.size(); ++i) {
        INFO("engine " << i);
        CHECK(flatten(a, a.engines[i]) == flatten(b, b.engines[i]));
    }
}

std::vector<uint8_t> fileBytes(const std::filesystem::path& p)
{
    std::ifstream in(p, std::ios::binary);
    return { std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>() };
}

} // namespace

TEST_CASE("events written with EventlogWriter read back with the same engines, times and fields", "[core][writer]")
{
    EventlogWriter w(mercuryHeader());
    // Outside any block, like Mercury's startup events.
    REQUIRE(w.event(ev::Startup, 0, PayloadBuilder().u16(2).span()));
    REQUIRE(w.event(ev::InternString, 0, PayloadBuilder().text("fib.m:12").u32(1).span()));
    w.beginBlock(0, 100);
    REQUIRE(w.event(ev::RunThread, 100, PayloadBuilder().u32(1).span()));
    REQUIRE(w.event(ev::MerStartParConj, 110, PayloadBuilder().u64(0xdead0).u32(1).span()));
    REQUIRE(w.event(ev::MerSparkCreate, 120, PayloadBuilder().u64(0xdead0).u32(0x00000001).span()));
    REQUIRE(w.event(ev::StopThread, 130, PayloadBuilder().u32(1).u16(kStopBlocked).u32(0).span()));
    w.endBlock(140);
    w.beginBlock(1, 105);
    REQUIRE(w.event(ev::MerSparkSteal, 115, PayloadBuilder().u16(0).u32(0x00000001).span()));
    REQUIRE(w.event(ev::UserMsg, 116, PayloadBuilder().text("hi\tthere").span()));
    w.beginBlock(kNoEngine, 150); // closes engine 1's block at its last event time, 116
    REQUIRE(w.event(ev::Shutdown, 150, {}));
    auto result = readTraceFromBytes(w.finish());
    REQUIRE(result.ok());
    const Trace& t = result.value();
    CHECK(t.warnings.empty());
    CHECK_FALSE(t.truncated);
    REQUIRE(t.engines.size() == 2);
    // Engine 0: its marker + 4 events; engine 1: marker + 2; global: 2 outside blocks + marker + SHUTDOWN.
    REQUIRE(t.engines[0].size() == 5);
    REQUIRE(t.engines[1].size() == 3);
    REQUIRE(t.global.size() == 4);
    CHECK(formatFields(t, t.engines[0][0]) == "size=102 end_time=140 cap=0"); // 24 + 14 + 22 + 22 + 20
    CHECK(formatFields(t, t.engines[0][2]) == "dyn_id=0xdead0 static_id=1");
    CHECK(formatFields(t, t.engines[0][4]) == "thread=1 status=4 reason=ThreadBlocked info=0");
    CHECK(t.engines[1][0].timeNs == 105);
    CHECK(formatFields(t, t.engines[1][0]) == "size=60 end_time=116 cap=1"); // 24 + 16 + (12 + 8)
    CHECK(formatFields(t, t.engines[1][1]) == "victim_engine=0 spark=0x1");
    CHECK(formatFields(t, t.engines[1][2]) == "message=hi\\tthere");
    CHECK(formatFields(t, t.global[0]) == "n_caps=2");
    CHECK(formatFields(t, t.global[1]) == "text=fib.m:12 id=1");
    CHECK(t.global[3].type == ev::Shutdown);
    CHECK(t.header.extends(ev::MerSparkRun) == 38);
}

TEST_CASE("writeTrace of a written trace reproduces its bytes", "[core][writer]")
{
    EventlogWriter w(mercuryHeader());
    REQUIRE(w.event(ev::Startup, 0, PayloadBuilder().u16(1).span()));
    w.beginBlock(0, 10);
    REQUIRE(w.event(ev::RunThread, 12, PayloadBuilder().u32(3).span()));
    REQUIRE(w.event(ev::RunThread, 11, PayloadBuilder().u32(4).span())); // out of order inside the block
    w.endBlock(20);
    REQUIRE(w.event(ev::LogMsg, 30, PayloadBuilder().text("after").span())); // outside blocks again
    const auto bytes = w.finish();
    auto t = readTraceFromBytes(bytes);
    REQUIRE(t.ok());
    CHECK(writeTrace(t.value()) == bytes);
}

TEST_CASE("writeTrace re-encodes every shared eventlog to the same events per engine", "[core][writer][data]")
{
    const char* files[] = { "ghc-events/testlog.eventlog", "ghc-events/testlog-part.eventlog",
        "ghc-events/stop.hT.eventlog", "ghc-events/hello-ghc-8.2.2.eventlog", "ghc-events/hello-ghc-8.6.5.eventlog",
        "ghc-events/biographical-samples.eventlog", "ghc-events/nonmoving-gc.eventlog",
        "ghc-events/nonmoving-gc-census.eventlog", "ghc-events/nonmoving-gc-pruned-segments.eventlog",
        "ghc-events/sleep.h.eventlog", "ghc-events/sleep.hC.eventlog", "ghc-events/sleep.hm.eventlog",
        "ghc-events/sleep.hy.eventlog", "ghc-events/ticky-begin-sample.eventlog", "ghc-events/ticky-json.eventlog",
        "ghc-events/ticky-new.eventlog", "ghc-events/ticky-ticky.eventlog", "ghc-events/trace-binary-event.eventlog",
        "ghc/sumfib-30-3000.eventlog", "ghc/parfib-12-30.eventlog", "ghc/parfib-8-32.eventlog",
        "ghc/parfib-5-34.eventlog.zst" };
    for (const char* name : files) {
        auto path = sparkscope::test::sharedTestData(name);
        if (!path)
            continue;
        INFO(name);
        auto original = readTrace(path->string());
        REQUIRE(original.ok());
        const auto written = writeTrace(original.value());
        auto again = readTraceFromBytes(written);
        REQUIRE(again.ok());
        CHECK(again.value().warnings.empty()); // the writer fixes what it can: cut files end with DATA_END
        requireSameEvents(original.value(), again.value());
        // A complete plain file comes back byte for byte (header verbatim, blocks as they were).
        if (!original.value().truncated && original.value().warnings.empty()
            && original.value().compression == Compression::None) {
            const auto bytes = fileBytes(*path);
            const auto diff = std::mismatch(written.begin(), written.end(), bytes.begin(), bytes.end());
            INFO("sizes " << written.size() << " and " << bytes.size() << ", first difference at byte "
                          << (diff.first - written.begin()));
            CHECK((written == bytes));
        }
    }
}

TEST_CASE("writeFile writes the bytes and reports an unwritable path", "[core][writer]")
{
    const auto dir = sparkscope::test::scratchDir("writer_write_file");
    const std::vector<uint8_t> bytes = { 1, 2, 3 };
    auto ok = writeFile((dir / "x.eventlog").string(), bytes);
    REQUIRE(ok.ok());
    CHECK(fileBytes(dir / "x.eventlog") == bytes);
    auto bad = writeFile((dir / "missing" / "x.eventlog").string(), bytes);
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().code == ErrorCode::Io);
    CHECK(bad.error().message.find("missing") != std::string::npos);
}
