// completePrefix (complete_prefix.h): how much of a trace being written is complete. A file cut at
// any byte is never damaged, its complete part ends on a block boundary, and decoding that part
// gives exactly the events of the whole blocks before the cut; damage is told apart from a write
// in progress and located.
#include "sparkscope/core/complete_prefix.h"
#include "sparkscope/core/reader.h"
#include "sparkscope/core/writer.h"
#include "support/test_data.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>

using namespace sparkscope;
using namespace sparkscope::core;

namespace {

// Three blocks (engines 0, 1, 0) of two events each, then DATA_END; `ends` = the file size after
// the header and after each block.
std::vector<uint8_t> threeBlocks(std::vector<size_t>& ends)
{
    EventlogWriter w(mercuryHeader());
    ends.push_back(w.size());
    for (uint16_t k = 0; k < 3; ++k) {
        PayloadBuilder ctx;
        ctx.u32(k + 1);
        w.beginBlock(k % 2, 100 * k);
        REQUIRE(w.event(ev::CreateThread, 100 * k + 1, ctx.span()));
        REQUIRE(w.event(ev::RunThread, 100 * k + 2, ctx.span()));
        w.endBlock(100 * k + 3);
        ends.push_back(w.size());
    }
    return w.finish();
}

std::span<const uint8_t> first(const std::vector<uint8_t>& bytes, size_t n) { return { bytes.data(), n }; }

} // namespace

TEST_CASE("complete prefix of a file cut at every byte ends on the last whole block", "[core][follow]")
{
    std::vector<size_t> ends;
    const auto bytes = threeBlocks(ends);
    for (size_t n = 0; n <= bytes.size(); ++n) {
        INFO("cut at " << n);
        const CompletePrefix p = completePrefix(first(bytes, n));
        REQUIRE_FALSE(p.damage);
        if (n < ends[0]) {
            CHECK(p.bytes == 0); // the header is not all there yet
            continue;
        }
        // The largest block end at or before n.
        size_t expected = ends[0];
        for (size_t e : ends)
            if (e <= n)
                expected = e;
        if (n == bytes.size()) {
            CHECK(p.ended);
            CHECK(p.bytes == bytes.size());
        } else {
            CHECK_FALSE(p.ended);
            CHECK(p.bytes == expected);
        }
        // Resuming from an earlier result gives the same answer.
        const CompletePrefix earlier = completePrefix(first(bytes, std::min(n, ends[1])));
        const CompletePrefix resumed = completePrefix(first(bytes, n), earlier);
        CHECK(resumed.bytes == p.bytes);
        CHECK(resumed.ended == p.ended);
    }
}

TEST_CASE("complete prefix decoded as a finished stream holds the whole blocks' events", "[core][follow]")
{
    std::vector<size_t> ends;
    const auto bytes = threeBlocks(ends);
    const CompletePrefix p = completePrefix(first(bytes, ends[2] + 5)); // two blocks and a bit
    REQUIRE(p.bytes == ends[2]);
    std::vector<uint8_t> part(bytes.begin(), bytes.begin() + long(p.bytes));
    part.push_back(0xFF);
    part.push_back(0xFF);
    auto trace = readTraceFromBytes(std::move(part));
    REQUIRE(trace);
    CHECK(trace->warnings.empty());
    CHECK_FALSE(trace->truncated);
    CHECK(trace->eventCount() == 6); // two blocks: marker + 2 events each
}

TEST_CASE("complete prefix tells damage from a write in progress and says where", "[core][follow]")
{
    std::vector<size_t> ends;
    const auto good = threeBlocks(ends);
    SECTION("an undeclared event inside a whole block")
    {
        auto bytes = good;
        bytes[ends[1] + 24] = 0x77; // block 1's first event: type 0x77xx
        const CompletePrefix p = completePrefix(bytes);
        REQUIRE(p.damage);
        CHECK(p.bytes == ends[1]);
        CHECK(p.damage->byteOffset == ends[1] + 24);
        CHECK(p.damage->message.find("not declared") != std::string::npos);
    }
    SECTION("a block smaller than its marker")
    {
        auto bytes = good;
        storeBE32(&bytes[ends[1] + 10], 10);
        const CompletePrefix p = completePrefix(bytes);
        REQUIRE(p.damage);
        CHECK(p.bytes == ends[1]);
        CHECK(p.damage->byteOffset == ends[1]);
    }
    SECTION("a block whose events overrun its end")
    {
        auto bytes = good;
        storeBE32(&bytes[ends[1] + 10], uint32_t(ends[2] - ends[1] - 3));
        const CompletePrefix p = completePrefix(bytes);
        REQUIRE(p.damage);
        CHECK(p.bytes == ends[1]);
    }
    SECTION("a block not closed yet (GHC's zero size) is waited for, until the file is complete")
    {
        auto bytes = good;
        storeBE32(&bytes[ends[1] + 10], 0);
        // Still being written (no DATA_END yet, whether the bytes stop after that block or after the
        // next): the block may still get its size.
        for (size_t n : { ends[2], ends[3] }) {
            const CompletePrefix p = completePrefix(first(bytes, n));
            CHECK_FALSE(p.damage);
            CHECK_FALSE(p.ended);
            CHECK(p.bytes == ends[1]);
        }
        // Complete (DATA_END is the last thing in it): the size was never written, and the whole
        // file is what there is (the reader takes that block's events up to the next marker).
        const CompletePrefix p = completePrefix(bytes);
        CHECK_FALSE(p.damage);
        CHECK(p.ended);
        CHECK(p.bytes == bytes.size());
        const auto read = readTraceFromBytes(bytes), whole = readTraceFromBytes(good);
        REQUIRE(read);
        REQUIRE(whole);
        CHECK(read.value().eventCount() == whole.value().eventCount());
    }
    SECTION("not an eventlog")
    {
        const std::vector<uint8_t> text = { 'h', 'e', 'l', 'l', 'o', ' ', 'w', 'o', 'r', 'l', 'd' };
        CHECK(completePrefix(text).damage);
    }
}

TEST_CASE("complete prefix of a real GHC eventlog cut at every byte is never damage", "[core][follow][ghc]")
{
    auto path = test::sharedTestData("ghc/sumfib-30-3000.eventlog");
    if (!path)
        return;
    std::ifstream in(*path, std::ios::binary);
    const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    uint64_t last = 0;
    for (size_t n = 0; n <= bytes.size(); ++n) {
        INFO("cut at " << n);
        const CompletePrefix p = completePrefix(first(bytes, n));
        REQUIRE_FALSE(p.damage);
        REQUIRE(p.bytes <= n);
        REQUIRE(p.bytes >= last); // grows with the file
        last = p.bytes;
    }
    const CompletePrefix whole = completePrefix(bytes);
    CHECK(whole.ended);
    auto trace = readTrace(path->string());
    REQUIRE(trace);
    // The complete part of the whole file decodes to the whole trace.
    auto again = readTraceFromBytes(std::vector<uint8_t>(bytes.begin(), bytes.begin() + long(whole.bytes)));
    REQUIRE(again);
    CHECK(again->eventCount() == trace->eventCount());
}
