// The writer's byte layout, checked against hand-worked bytes: the 122-byte example of
// eventlog-format.md 1.11, Mercury's extension records (1.9), block marker back-patching (1.5).
#include "sparkscope/core/byte_order.h"
#include "sparkscope/core/event_types.h"
#include "sparkscope/core/reader.h"
#include "sparkscope/core/writer.h"

#include <catch2/catch.hpp>

#include <set>

using namespace sparkscope::core;

namespace {

std::vector<uint8_t> hexBytes(std::string_view hex)
{
    std::vector<uint8_t> out;
    int nibble = -1;
    for (char c : hex) {
        int v = -1;
        if (c >= '0' && c <= '9')
            v = c - '0';
        else if (c >= 'a' && c <= 'f')
            v = c - 'a' + 10;
        if (v < 0)
            continue;
        if (nibble < 0) {
            nibble = v;
        } else {
            out.push_back(static_cast<uint8_t>(nibble * 16 + v));
            nibble = -1;
        }
    }
    return out;
}

Header twoTypeHeader()
{
    Header h;
    h.types.push_back({ 1, 4, "Run thread", "" });
    h.types.push_back({ 18, 14, "Block marker", "" });
    return h;
}

} // namespace

TEST_CASE("the writer reproduces the format notes' 122-byte worked example byte for byte", "[core][writer]")
{
    // eventlog-format.md 1.11: header declaring RUN_THREAD (1, size 4) and BLOCK_MARKER (18, size 14);
    // one cap-0 block opened at 1000 ns and closed at 2000 ns holding RUN_THREAD of thread 7 at 1000 ns.
    // Block size = 24 (marker) + 14 (RUN_THREAD: 10-byte header + 4) = 38 = 0x26.
    const auto expected = hexBytes("68 64 72 62 68 65 74 62 65 74 62 00 00 01 00 04"
                                   "00 00 00 0a 52 75 6e 20 74 68 72 65 61 64 00 00"
                                   "00 00 65 74 65 00 65 74 62 00 00 12 00 0e 00 00"
                                   "00 0c 42 6c 6f 63 6b 20 6d 61 72 6b 65 72 00 00"
                                   "00 00 65 74 65 00 68 65 74 65 68 64 72 65 64 61"
                                   "74 62 00 12 00 00 00 00 00 00 03 e8 00 00 00 26"
                                   "00 00 00 00 00 00 07 d0 00 00 00 01 00 00 00 00"
                                   "00 00 03 e8 00 00 00 07 ff ff");
    REQUIRE(expected.size() == 122);

    EventlogWriter w(twoTypeHeader());
    w.beginBlock(0, 1000);
    REQUIRE(w.openBlockEngine() == std::optional<uint16_t>(0));
    REQUIRE(w.event(ev::RunThread, 1000, PayloadBuilder().u32(7).span()));
    w.endBlock(2000);
    REQUIRE_FALSE(w.openBlockEngine());
    CHECK(w.finish() == expected);
}

TEST_CASE("encodeHeader ends with datb and keeps descriptions and extra bytes verbatim", "[core][writer]")
{
    Header h;
    h.types.push_back({ 114, 4, "x", std::string("\x00\x01\x00\x02\x00\x26", 6) });
    const auto bytes = encodeHeader(h);
    // hdrb hetb | etb\0 u16 u16 u32 "x" u32 6 bytes ete\0 | hete hdre datb = 8 + (4+2+2+4+1+4+6+4) + 12 = 47
    REQUIRE(bytes.size() == 47);
    CHECK(loadBE16(&bytes[12]) == 114);
    CHECK(loadBE16(&bytes[14]) == 4);
    CHECK(loadBE32(&bytes[16]) == 1);
    CHECK(bytes[20] == 'x');
    CHECK(loadBE32(&bytes[21]) == 6);
    CHECK(std::vector<uint8_t>(bytes.begin() + 25, bytes.begin() + 31) == hexBytes("00 01 00 02 00 26"));
    CHECK(loadBE32(&bytes[31]) == 0x65746500);
    CHECK(loadBE32(&bytes[bytes.size() - 4]) == 0x64617462);
}

TEST_CASE(
    "mercuryHeader declares Mercury's events with its extension records and a 10-byte STOP_THREAD", "[core][writer]")
{
    const Header h = mercuryHeader();
    std::set<uint16_t> numbers;
    for (const auto& t : h.types)
        numbers.insert(t.number);
    // eventlog-format.md 2.4's GHC-numbered list, plus 19 and 58 (user messages and markers) and 100-116.
    std::set<uint16_t> expected = { 0, 1, 2, 3, 7, 9, 10, 15, 16, 17, 18, 19, 25, 26, 27, 28, 29, 42, 54, 58 };
    for (uint16_t n = 100; n <= 116; ++n)
        expected.insert(n);
    CHECK(numbers == expected);
    CHECK(numbers.size() == h.types.size()); // no duplicates

    REQUIRE(h.find(ev::StopThread));
    CHECK(h.find(ev::StopThread)->size == 10);
    CHECK(h.find(ev::StopThread)->description == "Context stopped");
    CHECK(h.find(ev::BlockMarker)->size == 14);
    CHECK(h.find(ev::LogMsg)->isVariable());
    CHECK(h.find(ev::InternString)->isVariable());
    CHECK(h.find(ev::MerStartParConj)->description == "Start a parallel conjunction (dyn id, static id)");
    CHECK(h.find(ev::MerReuseContext)->description == "Reusing a previously allocated thread");
    CHECK(h.find(ev::CapsetDelete)->description == "Detete an engine set"); // Mercury's typo, kept

    CHECK(h.extends(ev::MerSparkCreate) == 35);
    CHECK(h.extends(ev::MerSparkRun) == 38);
    CHECK(h.extends(ev::MerSparkSteal) == 39);
    CHECK(h.extends(ev::MerReuseContext) == 0);
    CHECK(h.find(ev::MerReuseContext)->extra == std::string("\x00\x01\x00\x02\x00\x00", 6));
    CHECK(h.extends(ev::MerStartParConj) == -1);
    CHECK(h.find(ev::MerStartParConj)->extra.empty());

    // Sizes are Mercury's payloads (2.4 table).
    const std::pair<uint16_t, uint16_t> sizes[] = { { 100, 12 }, { 101, 8 }, { 102, 8 }, { 103, 12 }, { 104, 12 },
        { 105, 8 }, { 106, 8 }, { 107, 8 }, { 108, 0 }, { 109, 0 }, { 110, 4 }, { 111, 0 }, { 112, 0 }, { 113, 0 },
        { 114, 4 }, { 115, 6 }, { 116, 8 }, { 17, 2 }, { 25, 6 }, { 27, 6 } };
    for (auto [n, size] : sizes) {
        INFO("event " << n);
        CHECK(h.find(n)->size == size);
    }
}

TEST_CASE("the event table names every event of the format notes and sizes them canonically", "[core][writer]")
{
    CHECK(eventTypeName(ev::RunThread) == "RUN_THREAD");
    CHECK(eventTypeName(ev::MerStartParConj) == "MER_START_PAR_CONJ");
    CHECK(eventTypeName(ev::TickyBeginSample) == "TICKY_BEGIN_SAMPLE");
    CHECK(eventTypeName(209) == "UNKNOWN");
    CHECK(eventTypeName(0xFFFF) == "UNKNOWN");
    CHECK(knownEventType(ev::GcStatsGhc)->size == 58);
    CHECK(knownEventType(ev::NonmovingHeapCensus)->size == 14);
    CHECK(knownEventType(ev::StopThread)->size == 10);
    CHECK(knownEventType(ev::BlockMarker)->size == 14);
    CHECK(knownEventType(ev::UserMsg)->size == kVariableSize);
    // 0-69 (13/14 deprecated but named), 90-91, 100-116, 140-142, 160-169, 181, 200-208, 210-212.
    size_t count = 0;
    for (const auto& t : knownEventTypes()) {
        CHECK(knownEventType(t.number) == &t);
        CHECK_FALSE(t.name.empty());
        CHECK_FALSE(t.description.empty());
        ++count;
    }
    CHECK(count == 70 + 2 + 17 + 3 + 10 + 1 + 9 + 3);
}

TEST_CASE("EventlogWriter refuses undeclared types and payloads that contradict the declared size", "[core][writer]")
{
    EventlogWriter w(twoTypeHeader());
    const size_t before = w.size();
    CHECK_FALSE(w.event(ev::StopThread, 5, PayloadBuilder().u32(1).u16(5).u32(0).span())); // undeclared
    CHECK_FALSE(w.event(ev::RunThread, 5, PayloadBuilder().u16(1).span())); // 2 bytes, declared 4
    CHECK_FALSE(w.event(ev::BlockMarker, 5, PayloadBuilder().u32(24).u64(0).u16(0).span())); // use beginBlock
    CHECK(w.size() == before);
}

TEST_CASE("EventlogWriter back-patches block sizes including the 24-byte marker", "[core][writer]")
{
    Header h = twoTypeHeader();
    h.types.push_back({ ev::UserMsg, kVariableSize, "User message", "" });
    EventlogWriter w(h);
    const size_t headerEnd = w.size();
    w.beginBlock(3, 100);
    REQUIRE(w.event(ev::UserMsg, 150, PayloadBuilder().text("hello").span())); // 12 + 5 = 17 bytes
    w.beginBlock(kNoEngine, 200); // closes the first block with its latest event time, 150
    w.endBlock(300); // an empty global block: size 24
    const auto out = w.finish();
    REQUIRE(out.size() == headerEnd + 24 + 17 + 24 + 2);
    const uint8_t* first = &out[headerEnd];
    CHECK(loadBE16(first) == 18);
    CHECK(loadBE64(first + 2) == 100);
    CHECK(loadBE32(first + 10) == 24 + 17);
    CHECK(loadBE64(first + 14) == 150);
    CHECK(loadBE16(first + 22) == 3);
    CHECK(loadBE16(first + 24) == ev::UserMsg);
    CHECK(loadBE16(first + 34) == 5); // the u16 length of a variable-size event
    const uint8_t* second = first + 41;
    CHECK(loadBE32(second + 10) == 24);
    CHECK(loadBE64(second + 14) == 300);
    CHECK(loadBE16(second + 22) == 0xFFFF);
    CHECK(loadBE16(second + 24) == 0xFFFF); // DATA_END
}

TEST_CASE("EventlogWriter adds BLOCK_MARKER to a header that lacks it", "[core][writer]")
{
    Header h;
    h.types.push_back({ 1, 4, "Run thread", "" });
    EventlogWriter w(h);
    CHECK(w.header().find(ev::BlockMarker) != nullptr);
}

TEST_CASE("EventlogWriter declares its block markers as it writes them, whatever the header it is given says",
    "[core][writer]")
{
    // A damaged trace's header can declare BLOCK_MARKER with another size (the fuzzer found one of
    // 4110 bytes); a cut copies that header. The writer's own markers have 14-byte payloads, and the
    // file it writes must say so, or its reader takes each marker for 4110 bytes and finds nothing.
    Header header = mercuryHeader();
    for (auto& t : header.types)
        if (t.number == ev::BlockMarker)
            t.size = 4110;
    EventlogWriter writer(header);
    writer.beginBlock(0, 100);
    REQUIRE(writer.event(ev::CreateThread, 100, std::vector<uint8_t> { 0, 0, 0, 7 }));
    writer.endBlock(200);
    auto back = readTraceFromBytes(writer.finish());
    REQUIRE(back);
    CHECK(back->warnings.empty());
    REQUIRE(back->engines.size() == 1);
    size_t created = 0;
    for (const Event& e : back->engines[0])
        created += e.type == ev::CreateThread;
    CHECK(created == 1);
    CHECK(back->header.find(ev::BlockMarker)->size == 14);
}
