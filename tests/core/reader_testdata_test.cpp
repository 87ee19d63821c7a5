// Reader tests against the real eventlogs in ../shared/testdata: every file opens, and the events
// agree with what the ghc-events library printed for the same files (.counts.txt: count per kind;
// .evdump.txt and .reference: every event's time and capability).
#include "reader_test_util.h"
#include "sparkscope/core/reader.h"
#include "support/test_data.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

using namespace sparkscope;
using namespace sparkscope::core;
namespace fs = std::filesystem;

namespace {

// ghc-events' constructor names (as `evdump count` prints them) -> event numbers.
const std::map<std::string, uint16_t>& ghcEventsNames()
{
    static const std::map<std::string, uint16_t> names = {
        { "CreateThread", 0 },
        { "RunThread", 1 },
        { "StopThread", 2 },
        { "ThreadRunnable", 3 },
        { "MigrateThread", 4 },
        { "WakeupThread", 8 },
        { "StartGC", 9 },
        { "EndGC", 10 },
        { "RequestSeqGC", 11 },
        { "RequestParGC", 12 },
        { "CreateSparkThread", 15 },
        { "Message", 16 },
        { "UserMessage", 19 },
        { "GCIdle", 20 },
        { "GCWork", 21 },
        { "GCDone", 22 },
        { "CapsetCreate", 25 },
        { "CapsetDelete", 26 },
        { "CapsetAssignCap", 27 },
        { "CapsetRemoveCap", 28 },
        { "RtsIdentifier", 29 },
        { "ProgramArgs", 30 },
        { "ProgramEnv", 31 },
        { "OsProcessPid", 32 },
        { "OsProcessParentPid", 33 },
        { "SparkCounters", 34 },
        { "SparkCreate", 35 },
        { "SparkDud", 36 },
        { "SparkOverflow", 37 },
        { "SparkRun", 38 },
        { "SparkSteal", 39 },
        { "SparkFizzle", 40 },
        { "SparkGC", 41 },
        { "WallClockTime", 43 },
        { "ThreadLabel", 44 },
        { "CapCreate", 45 },
        { "CapDelete", 46 },
        { "CapDisable", 47 },
        { "CapEnable", 48 },
        { "HeapAllocated", 49 },
        { "HeapSize", 50 },
        { "HeapLive", 51 },
        { "HeapInfoGHC", 52 },
        { "GCStatsGHC", 53 },
        { "GlobalSyncGC", 54 },
        { "TaskCreate", 55 },
        { "TaskMigrate", 56 },
        { "TaskDelete", 57 },
        { "UserMarker", 58 },
    };
    return names;
}

std::string slurp(const fs::path& p)
{
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// Every (time, engine) of the trace, sorted; engine kNoEngine for none. Block markers optional.
std::vector<std::pair<uint64_t, int>> timeEnginePairs(const Trace& t, bool withMarkers)
{
    std::vector<std::pair<uint64_t, int>> out;
    for (const auto& e : test::eventsInFileOrder(t))
        if (withMarkers || e.type != ev::BlockMarker)
            out.emplace_back(e.timeNs, e.engine == kNoEngine ? -1 : int(e.engine));
    std::sort(out.begin(), out.end());
    return out;
}

// Sorted per engine, each event in the vector of its engine, inside the buffer.
void checkInvariants(const Trace& t)
{
    size_t misplaced = 0;
    for (size_t i = 0; i < t.engines.size(); ++i) {
        CHECK(test::sortedStably(t.engines[i]));
        for (const auto& e : t.engines[i])
            misplaced += e.engine != i || e.endOffset() > t.bytes().size();
    }
    CHECK(test::sortedStably(t.global));
    for (const auto& e : t.global)
        misplaced += e.engine != kNoEngine || e.endOffset() > t.bytes().size();
    CHECK(misplaced == 0);
}

} // namespace

TEST_CASE("reader opens every shared eventlog", "[core][reader][testdata]")
{
    const auto files = test::sharedEventlogs();
    for (const auto& path : files) {
        INFO(path.string());
        auto trace = readTrace(path.string());
        REQUIRE(trace.ok());
        CHECK(trace->eventCount() > 0);
        checkInvariants(trace.value());
        const bool partial = path.filename() == "testlog-part.eventlog";
        CHECK(trace->truncated == partial);
        CHECK(trace->warnings.size() == (partial ? 1u : 0u));
        CHECK(trace->firstTimeNs <= trace->lastTimeNs);
        CHECK(trace->compression == (path.extension() == ".zst" ? Compression::Zstd : Compression::None));
        CHECK(trace->fileSize == fs::file_size(path));
    }
}

TEST_CASE("reader counts agree with ghc-events' counts per kind", "[core][reader][testdata]")
{
    auto dir = test::sharedTestData("ghc");
    if (!dir)
        return;
    int files = 0;
    for (const auto& entry : fs::directory_iterator(*dir)) {
        const std::string name = entry.path().filename().string();
        if (!name.ends_with(".counts.txt"))
            continue;
        fs::path log = entry.path().parent_path() / name.substr(0, name.size() - std::string(".counts.txt").size());
        if (!fs::exists(log))
            log += ".zst";
        INFO(log.string());
        REQUIRE(fs::exists(log));
        auto trace = readTrace(log.string());
        REQUIRE(trace.ok());
        ++files;

        // Our counts per event number; ghc-events does not list block markers.
        std::vector<size_t> perType(65536);
        auto count = [&](const std::vector<Event>& v) {
            for (const auto& e : v)
                ++perType[e.type];
        };
        count(trace->global);
        for (const auto& v : trace->engines)
            count(v);
        const size_t markers = perType[ev::BlockMarker];
        std::map<uint16_t, size_t> ours;
        for (size_t type = 0; type < perType.size(); ++type)
            if (perType[type] && type != ev::BlockMarker)
                ours[uint16_t(type)] = perType[type];
        CHECK(markers > 0);
        std::istringstream in(slurp(entry.path()));
        std::string kind;
        size_t n = 0;
        std::map<uint16_t, size_t> theirs;
        while (in >> kind >> n) {
            if (kind == "events") {
                CHECK(trace->eventCount() - markers == n);
                continue;
            }
            INFO(kind);
            auto it = ghcEventsNames().find(kind);
            REQUIRE(it != ghcEventsNames().end());
            theirs[it->second] = n;
        }
        CHECK(ours == theirs);
    }
    if (fs::exists(*dir / "parfib-4-37.eventlog.counts.txt"))
        CHECK(files == 5);
}

TEST_CASE("reader events agree with ghc-events' dumps event by event", "[core][reader][testdata]")
{
    // .evdump.txt (ghc/): "<time> <cap or -> <event>" per event, no block markers.
    // .reference (ghc-events/): after "Events:", "<time>: [cap <n>: ]<event>" per event, block markers
    // included ("event block: cap 65535" has no "cap" prefix, like every event outside a block).
    const std::regex dumpLine(R"(^(\d+) (-|\d+) )");
    const std::regex referenceLine(R"(^(\d+): (cap (\d+): )?)");
    int files = 0;
    for (const char* dirName : { "ghc", "ghc-events" }) {
        auto dir = test::sharedTestData(dirName);
        if (!dir)
            return;
        for (const auto& entry : fs::directory_iterator(*dir)) {
            const std::string name = entry.path().filename().string();
            const bool dump = name.ends_with(".evdump.txt");
            if (!dump && !name.ends_with(".reference"))
                continue;
            const fs::path log
                = entry.path().parent_path() / name.substr(0, name.rfind(dump ? ".evdump.txt" : ".reference"));
            INFO(log.string());
            auto trace = readTrace(log.string());
            REQUIRE(trace.ok());
            ++files;
            std::vector<std::pair<uint64_t, int>> theirs;
            std::istringstream in(slurp(entry.path()));
            std::string line;
            bool inEvents = dump;
            while (std::getline(in, line)) {
                if (!inEvents) {
                    inEvents = line == "Events:";
                    continue;
                }
                std::smatch m;
                if (dump && std::regex_search(line, m, dumpLine))
                    theirs.emplace_back(std::stoull(m[1]), m[2] == "-" ? -1 : std::stoi(m[2]));
                else if (!dump && std::regex_search(line, m, referenceLine))
                    theirs.emplace_back(std::stoull(m[1]), m[3].matched ? std::stoi(m[3]) : -1);
            }
            std::sort(theirs.begin(), theirs.end());
            const auto ours = timeEnginePairs(trace.value(), !dump);
            CHECK(ours.size() == theirs.size());
            CHECK(ours == theirs);
        }
    }
    CHECK(files >= 10);
}

TEST_CASE("reader attributes engines in the GHC 6.12 testlog like its block markers say", "[core][reader][testdata]")
{
    auto path = test::sharedTestData("ghc-events/testlog.eventlog");
    if (!path)
        return;
    auto trace = readTrace(path->string());
    REQUIRE(trace.ok());
    const Trace& t = trace.value();
    CHECK(t.engines.size() == 4);
    CHECK(t.header.find(ev::StopThread)->size == 6);
    // Independent attribution: each event's engine is that of the block marker whose byte range
    // [offset, offset + size) contains it; outside every block: none.
    std::vector<Event> markers;
    for (const auto& e : test::eventsInFileOrder(t))
        if (e.type == ev::BlockMarker)
            markers.push_back(e);
    REQUIRE(markers.size() > 4);
    CHECK(markers[0].offset == 703);
    CHECK(t.payload(markers[0]).u32(0) == 3036);
    size_t startups = 0;
    for (const auto& e : test::eventsInFileOrder(t)) {
        uint16_t expected = kNoEngine;
        for (const auto& m : markers)
            if (e.offset >= m.offset && e.offset < m.offset + t.payload(m).u32(0))
                expected = t.payload(m).u16(12);
        INFO("event at byte " << e.offset);
        CHECK(e.engine == expected);
        if (e.type == ev::Startup) {
            ++startups;
            CHECK(e.offset < 703);
            CHECK_FALSE(e.hasEngine());
        }
        if (e.type == ev::StopThread)
            CHECK(e.payloadSize == 6);
    }
    CHECK(startups == 1);
}

TEST_CASE("reader opens the truncated testlog with the complete events before the cut and one warning",
    "[core][reader][testdata]")
{
    auto part = test::sharedTestData("ghc-events/testlog-part.eventlog");
    auto full = test::sharedTestData("ghc-events/testlog.eventlog");
    if (!part || !full)
        return;
    auto p = readTrace(part->string());
    auto f = readTrace(full->string());
    REQUIRE(p.ok());
    REQUIRE(f.ok());
    CHECK(p->truncated);
    REQUIRE(p->warnings.size() == 1);
    CHECK(p->warnings[0].message.find("10240") != std::string::npos);
    const auto partEvents = test::eventsInFileOrder(p.value());
    auto fullEvents = test::eventsInFileOrder(f.value());
    std::erase_if(fullEvents, [](const Event& e) { return e.endOffset() > 10240; });
    CHECK(partEvents.size() == fullEvents.size());
    CHECK(test::sameEvents(partEvents, fullEvents));
}

TEST_CASE("reader sorts stop.hT's in-block time inversions stably per engine", "[core][reader][testdata]")
{
    auto path = test::sharedTestData("ghc-events/stop.hT.eventlog");
    if (!path)
        return;
    auto trace = readTrace(path->string());
    REQUIRE(trace.ok());
    size_t inversions = 0, markers = 0;
    std::map<uint16_t, uint64_t> lastTime;
    for (const auto& e : test::eventsInFileOrder(trace.value())) {
        markers += e.type == ev::BlockMarker;
        auto [it, fresh] = lastTime.emplace(e.engine, e.timeNs);
        if (!fresh && e.timeNs < it->second)
            ++inversions;
        it->second = e.timeNs;
    }
    CHECK(trace->eventCount() - markers == 122152); // the count the test data's README gives
    CHECK(inversions > 1000); // the file really is out of order within engines
    checkInvariants(trace.value());
}

TEST_CASE("reader decodes the same trace with one thread and with many", "[core][reader][testdata]")
{
    auto path = test::sharedTestData("ghc/parfib-5-34.eventlog.zst");
    if (!path)
        return;
    ReadOptions one;
    one.threads = 1;
    ReadOptions many;
    many.threads = 4;
    auto a = readTrace(path->string(), one);
    auto b = readTrace(path->string(), many);
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    CHECK(a->eventCount() == b->eventCount());
    REQUIRE(a->engines.size() == b->engines.size());
    for (size_t i = 0; i < a->engines.size(); ++i)
        CHECK(test::sameEvents(a->engines[i], b->engines[i]));
    CHECK(test::sameEvents(a->global, b->global));
    CHECK(a->firstTimeNs == b->firstTimeNs);
    CHECK(a->lastTimeNs == b->lastTimeNs);
    CHECK(b->warnings.empty());
}
