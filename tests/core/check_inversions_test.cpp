// checkStructure's note on timestamps that run backwards within an engine's events in the file: it
// counts the events written after an event with a later time, and names the earliest of them.
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

// One block of engine 0 whose RUN_THREAD events are written with these times, in this order.
Trace writtenInOrder(const std::vector<uint64_t>& times)
{
    EventlogWriter w(mercuryHeader());
    w.beginBlock(0, times.front());
    for (uint64_t t : times) {
        PayloadBuilder p;
        p.u32(1);
        REQUIRE(w.event(ev::RunThread, t, p.data()));
    }
    w.endBlock(*std::max_element(times.begin(), times.end()));
    auto trace = readTraceFromBytes(w.finish());
    REQUIRE(trace);
    return std::move(trace).value();
}

std::string inversionNote(const Trace& trace)
{
    for (const Problem& p : checkStructure(trace))
        if (p.message.find("written after events with a later time") != std::string::npos) {
            CHECK(p.isNote);
            return p.message;
        }
    return {};
}

} // namespace

TEST_CASE("check: the events written after a later one are counted, and the earliest is named", "[core][check]")
{
    // Written 100, 300, 200, 150: 200 comes after 300, and 150 after 300 and 200. Two events, the
    // earliest at 150 (not 100 or 300, which no later time precedes in the file).
    CHECK(inversionNote(writtenInOrder({ 100, 300, 200, 150 })).starts_with("2 event(s) of this engine"));
    CHECK(inversionNote(writtenInOrder({ 100, 300, 200, 150 })).find("the first at 150 ns") != std::string::npos);
    // GHC's GC_GLOBAL_SYNC and GC_STATS_GHC written before the GC_END they follow in time: only GC_END
    // (619) is written after a later event.
    CHECK(inversionNote(writtenInOrder({ 722, 949, 619 })).starts_with("1 event(s) of this engine"));
    CHECK(inversionNote(writtenInOrder({ 722, 949, 619 })).find("the first at 619 ns") != std::string::npos);
    // In order, ties included: no note.
    CHECK(inversionNote(writtenInOrder({ 100, 200, 200, 300 })).empty());
}
