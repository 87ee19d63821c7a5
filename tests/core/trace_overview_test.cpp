// TraceOverview: the streamed overview of a file (what `sparkscope-cli info` prints, in bounded
// memory) equals the one of the same file read whole, on every shared eventlog (plain and
// compressed), demo traces of our runtime, a file cut short and a hand-built one worked out here.
#include "scenario_traces.h"
#include "support/test_data.h"
#include "support/trace_builder.h"

#include "sparkscope/core/event_types.h"
#include "sparkscope/core/reader.h"
#include "sparkscope/core/trace_overview.h"
#include "sparkscope/core/writer.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <optional>

using namespace sparkscope;
using namespace sparkscope::core;
namespace fs = std::filesystem;

namespace {

void checkSame(const TraceOverview& streamed, const TraceOverview& whole)
{
    CHECK(streamed.path == whole.path);
    CHECK(streamed.fileSize == whole.fileSize);
    CHECK(streamed.compression == whole.compression);
    CHECK(streamed.truncated == whole.truncated);
    CHECK(streamed.events == whole.events);
    CHECK(streamed.declaredTypes == whole.declaredTypes);
    CHECK(streamed.firstNs == whole.firstNs);
    CHECK(streamed.lastNs == whole.lastNs);
    CHECK(streamed.engines == whole.engines);
    CHECK(streamed.engineCount == whole.engineCount);
    CHECK(streamed.global == whole.global);
    CHECK(streamed.types == whole.types);
    REQUIRE(streamed.warnings.size() == whole.warnings.size());
    for (size_t i = 0; i < whole.warnings.size(); ++i) {
        CHECK(streamed.warnings[i].message == whole.warnings[i].message);
        CHECK(streamed.warnings[i].byteOffset == whole.warnings[i].byteOffset);
    }
}

// The overview of `path` streamed and read whole agree.
void checkFile(const fs::path& path)
{
    INFO(path.string());
    auto whole = readTrace(path.string());
    REQUIRE(whole);
    auto streamed = overviewOfFile(path.string());
    REQUIRE(streamed);
    checkSame(streamed.value(), overviewOf(whole.value()));
}

} // namespace

TEST_CASE("a trace's overview streamed equals the one read whole, on every shared eventlog", "[core][overview][data]")
{
    const auto files = test::sharedEventlogs();
    if (files.empty())
        return; // (not run: no shared data)
    for (const fs::path& path : files)
        checkFile(path);
    CHECK(files.size() > 20);
}

TEST_CASE(
    "a trace's overview streamed equals the one read whole: demo traces, and a file cut short", "[core][overview]")
{
    const fs::path dir = test::scratchDir("overview");
    for (const char* workload : { "parfib --n 22 --cutoff 10", "pipeline" }) {
        const auto file = test::recordDemoTrace(dir, workload, 3);
        if (!file)
            return;
        checkFile(*file);
        // Cut in the middle of an event: the reader's truncation warning, the same both ways.
        const auto bytes = fs::file_size(*file);
        const fs::path cut = dir / (file->stem().string() + "-cut.eventlog");
        fs::copy_file(*file, cut, fs::copy_options::overwrite_existing);
        fs::resize_file(cut, bytes * 2 / 3 + 1);
        checkFile(cut);
        auto streamed = overviewOfFile(cut.string());
        REQUIRE(streamed);
        CHECK(streamed->truncated);
        CHECK_FALSE(streamed->warnings.empty());
    }
}

TEST_CASE("a hand-built trace's overview, worked out by hand", "[core][overview]")
{
    // Engine 0: RUN_THREAD at 10, STOP_THREAD at 40; engine 2: RUN_THREAD at 5; a global INTERN_STRING
    // at 0. Engine 1 posts nothing of its own.
    test::TraceBuilder b(3);
    b.internString(0, 1, "x.m:1").runThread(0, 10, 1).stopThread(0, 40, 1, kStopFinished).runThread(2, 5, 2);
    const fs::path path = test::scratchDir("overview-hand") / "hand.eventlog";
    REQUIRE(writeFile(path.string(), writeTrace(b.roundTrip())));
    auto o = overviewOfFile(path.string());
    REQUIRE(o);
    // Each engine's events include its block's marker (written at the time of the block's first
    // event): engine 1's block holds that alone.
    REQUIRE(o->engines.size() == 3);
    CHECK(o->engines[0] == TraceOverview::Source { 0, 3, 10, 40 });
    CHECK(o->engines[1].engine == 1);
    CHECK(o->engines[1].events == 1);
    CHECK(o->engines[2] == TraceOverview::Source { 2, 2, 5, 5 });
    const auto count = [&](uint16_t type) {
        const auto it = std::find_if(o->types.begin(), o->types.end(), [&](const auto& t) { return t.first == type; });
        return it == o->types.end() ? uint64_t(0) : it->second;
    };
    CHECK(count(ev::RunThread) == 2);
    CHECK(count(ev::StopThread) == 1);
    CHECK(count(ev::InternString) == 1);
    CHECK(o->firstNs == 0);
    CHECK(o->lastNs == 40);
    CHECK_FALSE(o->truncated);
    uint64_t sum = 0;
    for (const auto& [type, n] : o->types)
        sum += n;
    CHECK(sum == o->events);
    CHECK(o->events == o->global.events + o->engines[0].events + o->engines[1].events + o->engines[2].events);
    CHECK_FALSE(overviewOfFile((path.string() + ".missing")));
}

TEST_CASE("an overview counts the engines of the run: a capability that posts nothing and STARTUP's", "[core][overview]")
{
    // Blocks of engines 0 and 2 only (a GHC log whose capability 1 never posted): 3 engines of the
    // run, 2 with events, as the metrics and the analysis count them (Trace::engineCount). With a
    // STARTUP declaring 4 outside the blocks: 4.
    for (const std::optional<uint16_t> declared : { std::optional<uint16_t>(), std::optional<uint16_t>(4) }) {
        EventlogWriter w(mercuryHeader());
        if (declared) {
            PayloadBuilder p;
            p.u16(*declared);
            REQUIRE(w.event(ev::Startup, 0, p.data()));
        }
        for (const uint16_t engine : { uint16_t(0), uint16_t(2) }) {
            PayloadBuilder p;
            p.u32(engine + 1);
            w.beginBlock(engine, 10);
            REQUIRE(w.event(ev::RunThread, 10, p.data()));
            w.endBlock(10);
        }
        const fs::path path = test::scratchDir("overview-engines") / "engines.eventlog";
        REQUIRE(writeFile(path.string(), w.finish()));
        INFO("STARTUP " << (declared ? int(*declared) : -1));
        auto o = overviewOfFile(path.string());
        REQUIRE(o);
        CHECK(o->engines.size() == 2);
        CHECK(o->engineCount == (declared ? 4u : 3u));
        auto whole = readTrace(path.string());
        REQUIRE(whole);
        CHECK(whole->engineCount() == o->engineCount);
        checkSame(o.value(), overviewOf(whole.value()));
    }
}
