// forEachEventInTimeOrder: a file's events merged in time order from its re-decoded extents come out
// exactly as Trace::forEachInTimeOrder gives them from the file read whole — on every shared
// eventlog (plain and compressed), demo traces of our runtime, a file cut short, and a hand-built
// file whose blocks overlap in time, worked out here. Ranges and one engine take their part of it.
#include "support/test_data.h"

#include "sparkscope/core/event_types.h"
#include "sparkscope/core/reader.h"
#include "sparkscope/core/time_ordered_events.h"
#include "sparkscope/core/writer.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <tuple>

using namespace sparkscope;
using namespace sparkscope::core;
namespace fs = std::filesystem;

namespace {

bool sameEvent(const Event& a, const Payload& pa, const Event& b, const Payload& pb)
{
    return a.timeNs == b.timeNs && a.engine == b.engine && a.type == b.type && a.payloadSize == b.payloadSize
        && std::ranges::equal(pa.bytes(), pb.bytes());
}

// The events of `whole` in time order that `options` selects.
std::vector<const Event*> expected(const Trace& whole, const TimeOrderOptions& options)
{
    std::vector<const Event*> out;
    whole.forEachInTimeOrder([&](const Event& e) {
        if ((!options.engine || *options.engine == e.engine) && e.timeNs >= options.fromNs && e.timeNs <= options.toNs)
            out.push_back(&e);
    });
    return out;
}

// Streamed and read whole, `path` gives the same events in the same order, and the same summary.
void checkFile(const fs::path& path, const TimeOrderOptions& options = {})
{
    INFO(path.string());
    auto whole = readTrace(path.string());
    REQUIRE(whole);
    const std::vector<const Event*> want = expected(whole.value(), options);
    size_t i = 0, mismatches = 0;
    auto summary = forEachEventInTimeOrder(
        path.string(),
        [&](const Event& e, const Payload& p) {
            if (i >= want.size() || !sameEvent(e, p, *want[i], whole->payload(*want[i])))
                ++mismatches;
            ++i;
            return true;
        },
        options);
    REQUIRE(summary);
    CHECK(i == want.size());
    CHECK(mismatches == 0);
    CHECK(summary->path == whole->path);
    CHECK(summary->truncated == whole->truncated);
    CHECK(summary->firstTimeNs == whole->firstTimeNs);
    CHECK(summary->lastTimeNs == whole->lastTimeNs);
    CHECK(summary->warnings.size() == whole->warnings.size());
}

} // namespace

TEST_CASE("events merged from re-decoded extents come in the order of the trace read whole, on every shared "
          "eventlog",
    "[core][timeorder][data]")
{
    const auto files = test::sharedEventlogs();
    if (files.empty())
        return; // (not run: no shared data)
    for (const fs::path& path : files)
        checkFile(path);
    CHECK(files.size() > 20);
}

TEST_CASE("events merged in time order: demo traces, a file cut short, one engine and a range", "[core][timeorder]")
{
    const fs::path dir = test::scratchDir("timeorder");
    for (const char* workload : { "parfib --n 22 --cutoff 10", "pipeline" }) {
        const auto file = test::recordDemoTrace(dir, workload, 3);
        if (!file)
            return;
        checkFile(*file);
        auto whole = readTrace(file->string());
        REQUIRE(whole);
        const uint64_t a = whole->firstTimeNs, b = whole->lastTimeNs;
        TimeOrderOptions middle;
        middle.fromNs = a + (b - a) / 3;
        middle.toNs = a + (b - a) / 2;
        checkFile(*file, middle);
        for (uint16_t engine : { uint16_t(1), kNoEngine }) {
            TimeOrderOptions one;
            one.engine = engine;
            checkFile(*file, one);
        }
        // Cut in the middle of an event: what was read, with the reader's warning.
        const fs::path cut = dir / (file->stem().string() + "-cut.eventlog");
        fs::copy_file(*file, cut, fs::copy_options::overwrite_existing);
        fs::resize_file(cut, fs::file_size(*file) * 2 / 3 + 1);
        checkFile(cut);
    }
}

TEST_CASE("events merged in time order from blocks that overlap in time, worked out by hand", "[core][timeorder]")
{
    // RUN_THREAD events whose thread id says which they are; block markers carry the block's start.
    //   outside any block: 0 at 100
    //   engine 0, block at 100: 1 at 100, 2 at 300, 3 at 200 (out of order in its block), 4 at 500
    //   engine 1, block at 50:  5 at 100, 6 at 400
    //   engine 0, block at 150: 7 at 150, 8 at 300 (overlaps engine 0's first block)
    //   engine 1, block at 1000: 5,000 events 10.. at 1000.., then 9 at 300 (its second extent's
    //   first time is 300: it must be decoded long before its file place is reached)
    EventlogWriter w(mercuryHeader());
    auto run = [&](uint64_t t, uint32_t id) {
        const uint8_t p[4] = { uint8_t(id >> 24), uint8_t(id >> 16), uint8_t(id >> 8), uint8_t(id) };
        REQUIRE(w.event(ev::RunThread, t, p));
    };
    run(100, 0);
    w.beginBlock(0, 100);
    run(100, 1), run(300, 2), run(200, 3), run(500, 4);
    w.beginBlock(1, 50);
    run(100, 5), run(400, 6);
    w.beginBlock(0, 150);
    run(150, 7), run(300, 8);
    w.beginBlock(1, 1000);
    for (uint32_t i = 0; i < 5000; ++i)
        run(1000 + i, 10 + i);
    run(300, 9);
    const fs::path path = test::scratchDir("timeorder-hand") / "overlap.eventlog";
    REQUIRE(writeFile(path.string(), w.finish()));

    // (time, engine, thread id; -1 for a block marker), in the order worked out: by time, then the
    // events outside blocks, engine 0, engine 1, then file order.
    using Seen = std::tuple<uint64_t, int, int64_t>;
    const std::vector<Seen> want = { { 50, 1, -1 }, { 100, -1, 0 }, { 100, 0, -1 }, { 100, 0, 1 }, { 100, 1, 5 },
        { 150, 0, -1 }, { 150, 0, 7 }, { 200, 0, 3 }, { 300, 0, 2 }, { 300, 0, 8 }, { 300, 1, 9 }, { 400, 1, 6 },
        { 500, 0, 4 }, { 1000, 1, -1 }, { 1000, 1, 10 }, { 1001, 1, 11 } };
    std::vector<Seen> seen;
    auto summary = forEachEventInTimeOrder(path.string(), [&](const Event& e, const Payload& p) {
        const int engine = e.hasEngine() ? int(e.engine) : -1;
        seen.emplace_back(e.timeNs, engine, e.type == ev::BlockMarker ? -1 : int64_t(p.u32(0)));
        return seen.size() < want.size(); // stops where f says so
    });
    REQUIRE(summary);
    CHECK(seen == want);
    checkFile(path);

    // One engine, a range: engine 1's events from 300 to 1000, its marker at 1000 included.
    TimeOrderOptions range;
    range.engine = 1;
    range.fromNs = 300;
    range.toNs = 1000;
    seen.clear();
    REQUIRE(forEachEventInTimeOrder(
        path.string(),
        [&](const Event& e, const Payload& p) {
            seen.emplace_back(e.timeNs, int(e.engine), e.type == ev::BlockMarker ? -1 : int64_t(p.u32(0)));
            return true;
        },
        range));
    CHECK(seen == std::vector<Seen> { { 300, 1, 9 }, { 400, 1, 6 }, { 1000, 1, -1 }, { 1000, 1, 10 } });
    checkFile(path, range);
    CHECK_FALSE(forEachEventInTimeOrder(path.string() + ".missing", [](const Event&, const Payload&) { return true; }));
}
