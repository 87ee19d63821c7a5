// checkStructure's problems with block markers: a block that ends before it begins, and one never
// closed (end time 0). GHC writes a block's size and end time when it closes it, so a block it never
// closed has size 0 too: the reader warns of that at the marker's byte, and check says it once.
#include "sparkscope/core/check.h"
#include "sparkscope/core/event_types.h"
#include "sparkscope/core/reader.h"
#include "sparkscope/core/writer.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

using namespace sparkscope::core;

namespace {

// Two blocks of engine 0 (RUN_THREAD at 10 and at 30); `second` is the byte of the second's marker.
std::vector<uint8_t> twoBlocks(size_t& second)
{
    EventlogWriter w(mercuryHeader());
    PayloadBuilder p;
    p.u32(1);
    w.beginBlock(0, 10);
    REQUIRE(w.event(ev::RunThread, 10, p.data()));
    w.endBlock(20);
    second = w.size();
    w.beginBlock(0, 30);
    REQUIRE(w.event(ev::RunThread, 30, p.data()));
    w.endBlock(40);
    return w.finish();
}

size_t count(const std::vector<Problem>& problems, const std::string& text)
{
    return size_t(std::count_if(problems.begin(), problems.end(),
        [&](const Problem& p) { return p.message.find(text) != std::string::npos; }));
}

// A marker: type (2), start time (8), block size (4), end time (8), engine (2).
void zero(std::vector<uint8_t>& bytes, size_t from, size_t n) { std::fill_n(bytes.begin() + long(from), n, 0); }

} // namespace

TEST_CASE("check names a block never closed once, whether the reader warned of its size or not", "[core][check]")
{
    size_t second = 0;
    const std::vector<uint8_t> good = twoBlocks(second);
    const std::string at = "at byte " + std::to_string(second);
    SECTION("as GHC leaves a block it never closed: size and end time 0")
    {
        auto bytes = good;
        zero(bytes, second + 10, 4 + 8);
        auto trace = readTraceFromBytes(bytes);
        REQUIRE(trace);
        REQUIRE(trace->warnings.size() == 1);
        const auto problems = checkStructure(trace.value());
        std::string all;
        for (const Problem& p : problems)
            all += p.message + "\n";
        INFO(all);
        CHECK(count(problems, "declares a block of 0 bytes") == 1); // the reader's warning
        CHECK(count(problems, "never closed") == 0);
        CHECK(count(problems, at) == 1);
        CHECK(count(checkFormat(trace.value()), at) == 0);
    }
    SECTION("end time 0 with its size written: only check can say it")
    {
        auto bytes = good;
        zero(bytes, second + 14, 8);
        auto trace = readTraceFromBytes(bytes);
        REQUIRE(trace);
        CHECK(trace->warnings.empty());
        const auto problems = checkFormat(trace.value());
        CHECK(count(problems, "the block of engine 0 " + at + " was never closed (end time 0)") == 1);
    }
    SECTION("a block that ends before it begins")
    {
        auto bytes = good;
        zero(bytes, second + 14, 8);
        bytes[second + 21] = 5; // end time 5 ns, before its start at 30
        auto trace = readTraceFromBytes(bytes);
        REQUIRE(trace);
        CHECK(count(checkFormat(trace.value()), "the block of engine 0 " + at + " ends at 5 ns, before it begins") == 1);
    }
}
