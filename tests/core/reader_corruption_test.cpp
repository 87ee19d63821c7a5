// Reader robustness: every truncation of small eventlogs, seeded random byte flips, and corrupted
// large input decoded in parallel and sequentially. These also run under ASan+UBSan (asan preset).
#include "reader_test_util.h"
#include "sparkscope/core/reader.h"
#include "support/test_data.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <random>

using namespace sparkscope;
using namespace sparkscope::core;

namespace {

std::vector<uint8_t> fileBytes(const std::filesystem::path& p)
{
    std::ifstream in(p, std::ios::binary);
    return { std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>() };
}

// A small log with engines 0-2, a global block, a variable-size event and an event outside blocks.
std::vector<uint8_t> handBuilt()
{
    test::LogBytes b;
    b.header({ { 1, 4 }, { 2, 10 }, { 17, 2 }, { 18, 14 }, { 19, 0xFFFF } });
    b.event(17, 0, { 0, 3 });
    for (uint16_t block = 0; block < 6; ++block) {
        const uint16_t engine = block == 4 ? 0xFFFF : uint16_t(block % 3);
        const size_t m = b.beginBlock(engine, block * 100u);
        b.event(1, block * 100u + 3, test::be32(block));
        b.variableEvent(19, block * 100u + 2, "message " + std::to_string(block));
        b.event(2, block * 100u + 5, { 0, 0, 0, 1, 0, 5, 0, 0, 0, 0 });
        b.endBlock(m, block * 100u + 50);
    }
    b.event(1, 999, test::be32(9));
    b.dataEnd();
    return b.bytes;
}

// Cuts `bytes` at every offset: a cut in the header is an error; any other cut opens with exactly
// the full trace's events that end before the cut, truncated, and one warning.
void checkEveryTruncation(const std::vector<uint8_t>& bytes)
{
    ReadOptions options;
    options.threads = 1;
    auto full = readTraceFromBytes(bytes, options);
    REQUIRE(full.ok());
    REQUIRE(full->warnings.empty());
    const auto all = test::eventsInFileOrder(full.value());
    const uint64_t dataStart = all.empty() ? bytes.size() : all.front().offset;
    size_t errors = 0, opened = 0;
    for (size_t cut = 0; cut < bytes.size(); ++cut) {
        INFO("cut at " << cut);
        auto r = readTraceFromBytes({ bytes.begin(), bytes.begin() + long(cut) }, options);
        if (!r.ok()) {
            ++errors;
            REQUIRE(cut < dataStart);
            REQUIRE(r.error().byteOffset);
            REQUIRE(*r.error().byteOffset <= cut);
            continue;
        }
        ++opened;
        REQUIRE(r->truncated);
        REQUIRE(r->warnings.size() == 1);
        // Sorting by (time, file order) is a total order, so the cut trace's sorted per-engine
        // vectors are the full trace's with the missing events filtered out.
        size_t expected = 0;
        while (expected < all.size() && all[expected].endOffset() <= cut)
            ++expected;
        REQUIRE(r->eventCount() == expected);
        auto prefix = [cut](const std::vector<Event>& v) {
            std::vector<Event> out;
            for (const auto& e : v)
                if (e.endOffset() <= cut)
                    out.push_back(e);
            return out;
        };
        REQUIRE(test::sameEvents(r->global, prefix(full->global)));
        for (size_t i = 0; i < full->engines.size(); ++i)
            REQUIRE(test::sameEvents(
                i < r->engines.size() ? r->engines[i] : std::vector<Event> {}, prefix(full->engines[i])));
    }
    CHECK(errors > 0);
    CHECK(opened > 0);
}

// Whatever the corruption: no crash, and either an error with a message or a consistent trace.
void checkSane(const Result<Trace>& r)
{
    if (!r.ok()) {
        REQUIRE_FALSE(r.error().message.empty());
        return;
    }
    const Trace& t = r.value();
    size_t bad = 0;
    for (size_t i = 0; i < t.engines.size(); ++i) {
        bad += !test::sortedStably(t.engines[i]);
        for (const auto& e : t.engines[i])
            bad += e.engine != i || e.endOffset() > t.bytes().size();
    }
    bad += !test::sortedStably(t.global);
    for (const auto& e : t.global)
        bad += e.engine != kNoEngine || e.endOffset() > t.bytes().size();
    REQUIRE(bad == 0);
    REQUIRE(t.warnings.size() <= 101);
}

void checkRandomFlips(const std::vector<uint8_t>& bytes, unsigned seed, int copies)
{
    std::mt19937 rng(seed);
    for (int copy = 0; copy < copies; ++copy) {
        std::vector<uint8_t> damaged = bytes;
        const int flips = 1 + int(rng() % 8);
        for (int i = 0; i < flips; ++i)
            damaged[rng() % damaged.size()] ^= uint8_t(1 + rng() % 255);
        INFO("seed " << seed << " copy " << copy);
        ReadOptions options;
        options.threads = 1;
        checkSane(readTraceFromBytes(std::move(damaged), options));
    }
}

} // namespace

TEST_CASE("reader opens every truncation of a hand-built log as a prefix with one warning", "[core][reader]")
{
    checkEveryTruncation(handBuilt());
}

TEST_CASE("reader opens every truncation of the GHC 6.12 testlog as a prefix with one warning", "[core][reader]")
{
    if (auto p = test::sharedTestData("ghc-events/testlog.eventlog"))
        checkEveryTruncation(fileBytes(*p));
}

TEST_CASE("reader opens every truncation of a GHC 9.0 log as a prefix with one warning", "[core][reader]")
{
    if (auto p = test::sharedTestData("ghc/sumfib-30-3000.eventlog"))
        checkEveryTruncation(fileBytes(*p));
}

TEST_CASE("reader survives hundreds of seeded random byte flips", "[core][reader]")
{
    checkRandomFlips(handBuilt(), 1, 300);
    if (auto p = test::sharedTestData("ghc-events/testlog.eventlog"))
        checkRandomFlips(fileBytes(*p), 2, 300);
    if (auto p = test::sharedTestData("ghc/sumfib-30-3000.eventlog"))
        checkRandomFlips(fileBytes(*p), 3, 300);
    if (auto p = test::sharedTestData("ghc-events/ticky-new.eventlog"))
        checkRandomFlips(fileBytes(*p), 4, 100);
}

TEST_CASE("reader decodes corrupted large input the same in parallel and sequentially", "[core][reader]")
{
    // A 6 MB synthetic log of 2 engines and a global block; flips hit block sizes, types and
    // times. The parallel decoder must accept a range only when it is exactly what the sequential
    // decoder would produce, so both give the same result, warnings and errors included.
    test::LogBytes b;
    b.header({ { 1, 4 }, { 18, 14 }, { 19, 0xFFFF } });
    std::mt19937 build(7);
    for (uint32_t block = 0; block < 6000; ++block) {
        const uint16_t engine = block % 7 == 6 ? 0xFFFF : uint16_t(block % 2);
        const size_t m = b.beginBlock(engine, block * 1000u);
        for (uint32_t i = 0; i < 60; ++i) {
            const uint64_t t = block * 1000u + i * 10u - (build() % 4 == 0 ? 15 : 0);
            if (i % 10 == 9)
                b.variableEvent(19, t, "m");
            else
                b.event(1, t, test::be32(i));
        }
        b.endBlock(m, block * 1000u + 999);
    }
    b.dataEnd();
    std::mt19937 rng(11);
    for (int copy = 0; copy < 24; ++copy) {
        std::vector<uint8_t> damaged = b.bytes;
        if (copy > 0)
            for (int i = 0; i < 1 + copy % 3; ++i) {
                const size_t at = 500 + rng() % (damaged.size() - 500);
                damaged[at] ^= uint8_t(1 + rng() % 255);
            }
        if (copy % 5 == 4)
            damaged.resize(damaged.size() - rng() % 100000);
        INFO("copy " << copy);
        ReadOptions one;
        one.threads = 1;
        ReadOptions many;
        many.threads = 4;
        auto a = readTraceFromBytes(damaged, one);
        auto c = readTraceFromBytes(damaged, many);
        checkSane(a);
        checkSane(c);
        REQUIRE(a.ok() == c.ok());
        if (!a.ok()) {
            CHECK(a.error().code == c.error().code);
            CHECK(a.error().byteOffset == c.error().byteOffset);
            continue;
        }
        REQUIRE(a->engines.size() == c->engines.size());
        for (size_t i = 0; i < a->engines.size(); ++i)
            REQUIRE(test::sameEvents(a->engines[i], c->engines[i]));
        REQUIRE(test::sameEvents(a->global, c->global));
        REQUIRE(a->warnings.size() == c->warnings.size());
        for (size_t i = 0; i < a->warnings.size(); ++i)
            CHECK(a->warnings[i].message == c->warnings[i].message);
        CHECK(a->truncated == c->truncated);
        CHECK(a->firstTimeNs == c->firstTimeNs);
        CHECK(a->lastTimeNs == c->lastTimeNs);
    }
}
