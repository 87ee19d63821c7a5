// checkStructure's engine count: an engine at or past STARTUP's declared count that posts events is a
// problem (a damaged block marker); declared engines that post nothing are a note.
#include "support/trace_builder.h"

#include "sparkscope/core/check.h"
#include "sparkscope/core/event_types.h"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace sparkscope::core;
using sparkscope::test::TraceBuilder;

namespace {

// STARTUP (17): u16 engine count, big-endian.
std::vector<uint8_t> engines(uint16_t n) { return { uint8_t(n >> 8), uint8_t(n & 0xFF) }; }

size_t count(const std::vector<Problem>& problems, const std::string& text, bool note)
{
    return size_t(std::count_if(problems.begin(), problems.end(),
        [&](const Problem& p) { return p.isNote == note && p.message.find(text) != std::string::npos; }));
}

} // namespace

TEST_CASE("check: an engine past STARTUP's count is a problem, a silent declared one a note", "[core][check]")
{
    SECTION("events from engine 2 of 2")
    {
        TraceBuilder b(3);
        b.event(kNoEngine, 0, ev::Startup, engines(2)).runThread(0, 10, 1).runThread(2, 20, 2);
        const auto problems = checkStructure(b.roundTrip());
        CHECK(count(problems, "engine 2 posts events, but STARTUP declared 2 engine(s)", false) == 1);
    }
    SECTION("5 declared, 2 post")
    {
        TraceBuilder b(2);
        b.event(kNoEngine, 0, ev::Startup, engines(5)).runThread(0, 10, 1).runThread(1, 20, 2);
        const auto problems = checkStructure(b.roundTrip());
        CHECK(count(problems, "STARTUP declared 5 engine(s), and 2 post events", true) == 1);
        CHECK(count(problems, "posts events, but", false) == 0);
    }
    SECTION("as declared")
    {
        TraceBuilder b(2);
        b.event(kNoEngine, 0, ev::Startup, engines(2)).runThread(0, 10, 1).runThread(1, 20, 2);
        const auto problems = checkStructure(b.roundTrip());
        CHECK(count(problems, "STARTUP declared", true) + count(problems, "STARTUP declared", false) == 0);
    }
}
