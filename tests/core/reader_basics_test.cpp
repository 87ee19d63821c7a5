// Reader tests on hand-built eventlogs whose answers are worked out by hand in the comments:
// engine attribution, sorting, unknown events, header errors with offsets, lying block sizes,
// garbage tails, compression, progress and cancellation.
#include "reader_test_util.h"
#include "sparkscope/core/reader.h"
#include "sparkscope/core/writer.h"
#include "support/test_data.h"
#include "support/trace_builder.h"

#include <boost/iostreams/copy.hpp>
#include <boost/iostreams/device/back_inserter.hpp>
#include <boost/iostreams/filter/bzip2.hpp>
#include <boost/iostreams/filter/gzip.hpp>
#include <boost/iostreams/filter/zstd.hpp>
#include <boost/iostreams/filtering_stream.hpp>
#include <catch2/catch.hpp>

#include <fstream>
#include <mutex>

using namespace sparkscope;
using namespace sparkscope::core;
using sparkscope::test::LogBytes;

namespace {

// The hand-built log used by several tests. Declares RUN_THREAD (1, 4 bytes), STARTUP (17, 2),
// BLOCK_MARKER (18, 14), USER_MSG (19, variable) and an event 250 SparkScope does not know (3 bytes).
//
//   STARTUP t=5                      outside any block      -> global
//   block engine 1, t=10, end 100:   RUN_THREAD t=20, USER_MSG "hi" t=15, event 250 t=30
//   block engine 0xFFFF, t=40, end 45: RUN_THREAD t=41     -> global
//   block engine 0, t=50, end 60:    RUN_THREAD t=55
//   RUN_THREAD t=70                  after block 0 ended exactly -> no engine (global)
//   DATA_END
//
// So: engines[0] = marker@50, run@55; engines[1] = marker@10, msg@15, run@20, e250@30 (sorted: the
// message was written after the run); global = startup@5, marker@40, run@41, run@70.
// firstTimeNs = 5, lastTimeNs = max(event times, block end times) = 100.
struct HandLog {
    std::vector<uint8_t> bytes;
    size_t dataStart = 0, blockA = 0, blockG = 0, blockB = 0, lastRun = 0, dataEnd = 0;
};

HandLog handLog()
{
    HandLog h;
    LogBytes b;
    b.header({ { 1, 4 }, { 17, 2 }, { 18, 14 }, { 19, 0xFFFF }, { 250, 3 } });
    h.dataStart = b.bytes.size();
    b.event(17, 5, { 0, 2 });
    h.blockA = b.beginBlock(1, 10);
    b.event(1, 20, test::be32(1)).variableEvent(19, 15, "hi").event(250, 30, { 1, 2, 3 });
    b.endBlock(h.blockA, 100);
    h.blockG = b.beginBlock(0xFFFF, 40);
    b.event(1, 41, test::be32(2));
    b.endBlock(h.blockG, 45);
    h.blockB = b.beginBlock(0, 50);
    b.event(1, 55, test::be32(3));
    b.endBlock(h.blockB, 60);
    h.lastRun = b.bytes.size();
    b.event(1, 70, test::be32(4));
    h.dataEnd = b.bytes.size();
    b.dataEnd();
    h.bytes = std::move(b.bytes);
    return h;
}

std::vector<uint64_t> times(const std::vector<Event>& v)
{
    std::vector<uint64_t> t;
    for (const auto& e : v)
        t.push_back(e.timeNs);
    return t;
}

std::vector<uint8_t> compress(const std::vector<uint8_t>& in, Compression kind)
{
    std::string out;
    boost::iostreams::filtering_ostream os;
    if (kind == Compression::Gzip)
        os.push(boost::iostreams::gzip_compressor());
    else if (kind == Compression::Zstd)
        os.push(boost::iostreams::zstd_compressor());
    else
        os.push(boost::iostreams::bzip2_compressor());
    os.push(boost::iostreams::back_inserter(out));
    os.write(reinterpret_cast<const char*>(in.data()), std::streamsize(in.size()));
    os.reset();
    return { out.begin(), out.end() };
}

} // namespace

TEST_CASE("reader decodes the 122-byte example of the format notes", "[core][reader]")
{
    // eventlog-format.md section 1.11: RUN_THREAD of thread 7 at t=1000 in a cap-0 block (t=1000..2000).
    const std::vector<uint8_t> bytes = {
        0x68,
        0x64,
        0x72,
        0x62,
        0x68,
        0x65,
        0x74,
        0x62,
        0x65,
        0x74,
        0x62,
        0x00,
        0x00,
        0x01,
        0x00,
        0x04, //
        0x00,
        0x00,
        0x00,
        0x0a,
        0x52,
        0x75,
        0x6e,
        0x20,
        0x74,
        0x68,
        0x72,
        0x65,
        0x61,
        0x64,
        0x00,
        0x00, //
        0x00,
        0x00,
        0x65,
        0x74,
        0x65,
        0x00,
        0x65,
        0x74,
        0x62,
        0x00,
        0x00,
        0x12,
        0x00,
        0x0e,
        0x00,
        0x00, //
        0x00,
        0x0c,
        0x42,
        0x6c,
        0x6f,
        0x63,
        0x6b,
        0x20,
        0x6d,
        0x61,
        0x72,
        0x6b,
        0x65,
        0x72,
        0x00,
        0x00, //
        0x00,
        0x00,
        0x65,
        0x74,
        0x65,
        0x00,
        0x68,
        0x65,
        0x74,
        0x65,
        0x68,
        0x64,
        0x72,
        0x65,
        0x64,
        0x61, //
        0x74,
        0x62,
        0x00,
        0x12,
        0x00,
        0x00,
        0x00,
        0x00,
        0x00,
        0x00,
        0x03,
        0xe8,
        0x00,
        0x00,
        0x00,
        0x26, //
        0x00,
        0x00,
        0x00,
        0x00,
        0x00,
        0x00,
        0x07,
        0xd0,
        0x00,
        0x00,
        0x00,
        0x01,
        0x00,
        0x00,
        0x00,
        0x00, //
        0x00,
        0x00,
        0x03,
        0xe8,
        0x00,
        0x00,
        0x00,
        0x07,
        0xff,
        0xff,
    };
    REQUIRE(bytes.size() == 122);
    auto trace = readTraceFromBytes(bytes);
    REQUIRE(trace.ok());
    REQUIRE(trace->header.types.size() == 2);
    CHECK(trace->header.types[0].number == 1);
    CHECK(trace->header.types[0].size == 4);
    CHECK(trace->header.types[0].description == "Run thread");
    CHECK(trace->header.types[1].description == "Block marker");
    REQUIRE(trace->engines.size() == 1);
    REQUIRE(trace->engines[0].size() == 2);
    CHECK(trace->global.empty());
    const Event& marker = trace->engines[0][0];
    const Event& run = trace->engines[0][1];
    CHECK(marker.type == ev::BlockMarker);
    CHECK(marker.offset == 82);
    CHECK(marker.engine == 0);
    CHECK(run.type == ev::RunThread);
    CHECK(run.offset == 106);
    CHECK(run.timeNs == 1000);
    CHECK(trace->payload(run).u32(0) == 7);
    CHECK(trace->firstTimeNs == 1000);
    CHECK(trace->lastTimeNs == 2000);
    CHECK(trace->warnings.empty());
    CHECK_FALSE(trace->truncated);
    CHECK(trace->compression == Compression::None);
    CHECK(trace->fileSize == 122);
    CHECK(trace->bytes().size() == 122);
}

TEST_CASE(
    "reader gives events their block's engine, sorts each engine stably and keeps unknown events", "[core][reader]")
{
    const HandLog h = handLog();
    auto trace = readTraceFromBytes(h.bytes);
    REQUIRE(trace.ok());
    CHECK(trace->warnings.empty());
    CHECK_FALSE(trace->truncated);
    REQUIRE(trace->engines.size() == 2);
    CHECK(times(trace->engines[0]) == std::vector<uint64_t> { 50, 55 });
    CHECK(times(trace->engines[1]) == std::vector<uint64_t> { 10, 15, 20, 30 });
    CHECK(times(trace->global) == std::vector<uint64_t> { 5, 40, 41, 70 });
    for (const auto& e : trace->engines[1])
        CHECK(e.engine == 1);
    for (const auto& e : trace->global)
        CHECK(e.engine == kNoEngine);
    const Event& message = trace->engines[1][1];
    CHECK(message.type == ev::UserMsg);
    CHECK(message.headerSize == 12);
    CHECK(message.payloadSize == 2);
    CHECK(trace->payload(message).text(0) == "hi");
    const Event& unknown = trace->engines[1][3];
    CHECK(unknown.type == 250);
    CHECK(unknown.payloadSize == 3);
    CHECK(trace->payload(unknown).u8(2) == 3);
    CHECK(trace->global[3].offset == h.lastRun);
    CHECK(trace->firstTimeNs == 5);
    CHECK(trace->lastTimeNs == 100);
    CHECK(trace->eventCount() == 10);
}

TEST_CASE("reader keeps the header byte for byte, extra info included", "[core][reader]")
{
    LogBytes b;
    const std::string extra("\x00\x01\x00\x02\x00\x26", 6); // Mercury: extends event 38
    b.header({ { 114, 0 }, { 18, 14 } }, extra);
    b.dataEnd();
    auto trace = readTraceFromBytes(b.bytes);
    REQUIRE(trace.ok());
    REQUIRE(trace->header.types.size() == 2);
    CHECK(trace->header.types[0].number == 114);
    CHECK(trace->header.types[0].description == "type 114");
    CHECK(trace->header.types[0].extra == extra);
    CHECK(trace->header.extends(114) == 38);
    CHECK(trace->eventCount() == 0);
    CHECK(trace->firstTimeNs == 0);
    CHECK(trace->lastTimeNs == 0);
}

TEST_CASE("reader refuses what is not an eventlog with the offset of the problem", "[core][reader]")
{
    SECTION("empty input")
    {
        auto r = readTraceFromBytes({});
        REQUIRE_FALSE(r.ok());
        CHECK(r.error().code == ErrorCode::BadFormat);
    }
    SECTION("wrong magic")
    {
        auto bytes = handLog().bytes;
        bytes[3] = 'X';
        auto r = readTraceFromBytes(bytes);
        REQUIRE_FALSE(r.ok());
        CHECK(r.error().code == ErrorCode::BadFormat);
        CHECK(r.error().byteOffset == 0u);
        CHECK(r.error().toString().find("hdrb") != std::string::npos);
    }
    SECTION("absurd description length")
    {
        // hdrb(0) hetb(4) etb(8) num(12) size(14) descLen(16)
        auto bytes = handLog().bytes;
        storeBE32(&bytes[16], 2u << 20);
        auto r = readTraceFromBytes(bytes);
        REQUIRE_FALSE(r.ok());
        CHECK(r.error().code == ErrorCode::AbsurdSize);
        CHECK(r.error().byteOffset == 16u);
    }
    SECTION("a description length that runs past the end of the file")
    {
        auto bytes = handLog().bytes;
        storeBE32(&bytes[16], 100000);
        auto r = readTraceFromBytes(bytes);
        REQUIRE_FALSE(r.ok());
        CHECK(r.error().code == ErrorCode::BadFormat);
        CHECK(r.error().byteOffset == 20u); // where the description would start
    }
    SECTION("a description length that lies by a little")
    {
        // "type 1" (bytes 20..25) is 6 bytes, then extraLen 0 (26..29) and "ete" (30..33). Claiming 7
        // reads extraLen from 27..30 = 00 00 00 'e' = 101, so "ete" is expected at 20 + 7 + 4 + 101.
        auto bytes = handLog().bytes;
        storeBE32(&bytes[16], 7);
        auto r = readTraceFromBytes(bytes);
        REQUIRE_FALSE(r.ok());
        CHECK(r.error().code == ErrorCode::BadFormat);
        CHECK(r.error().byteOffset == 20u + 7 + 4 + 101);
    }
    SECTION("absurd extra-info length")
    {
        auto bytes = handLog().bytes;
        storeBE32(&bytes[26], 0xFFFFFFF0u); // extraLen of type 1: 20 + 6
        auto r = readTraceFromBytes(bytes);
        REQUIRE_FALSE(r.ok());
        CHECK(r.error().code == ErrorCode::AbsurdSize);
        CHECK(r.error().byteOffset == 26u);
    }
    SECTION("a cut inside the header")
    {
        const HandLog h = handLog();
        std::vector<uint8_t> cut(h.bytes.begin(), h.bytes.begin() + 50);
        auto r = readTraceFromBytes(cut);
        REQUIRE_FALSE(r.ok());
        CHECK(r.error().code == ErrorCode::BadFormat);
        REQUIRE(r.error().byteOffset);
        CHECK(*r.error().byteOffset <= 50u);
    }
    SECTION("more than 65535 declarations")
    {
        LogBytes b;
        b.text("hdrbhetb");
        for (int i = 0; i < 65536; ++i)
            b.text(std::string("etb\0", 4)).u16(1).u16(4).u32(0).u32(0).text(std::string("ete\0", 4));
        b.text("hetehdredatb").dataEnd();
        auto r = readTraceFromBytes(b.bytes);
        REQUIRE_FALSE(r.ok());
        CHECK(r.error().code == ErrorCode::AbsurdSize);
        CHECK(r.error().byteOffset == 8u + 65535u * 20u);
    }
}

TEST_CASE("reader reports an undeclared event inside a block with its offset", "[core][reader]")
{
    HandLog h = handLog();
    const size_t run = h.blockA + 24; // RUN_THREAD t=20, the first event of block A
    storeBE16(&h.bytes[run], 77);
    auto r = readTraceFromBytes(h.bytes);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == ErrorCode::UndeclaredEvent);
    CHECK(r.error().byteOffset == run);
    CHECK(r.error().message.find("77") != std::string::npos);
}

TEST_CASE("reader reports an undeclared event before any block as an error", "[core][reader]")
{
    HandLog h = handLog();
    storeBE16(&h.bytes[h.dataStart], 77); // the STARTUP event
    auto r = readTraceFromBytes(h.bytes);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == ErrorCode::UndeclaredEvent);
    CHECK(r.error().byteOffset == h.dataStart);
}

TEST_CASE("reader takes an undeclared event after the last block as a garbage tail", "[core][reader]")
{
    // The RUN_THREAD t=70 after block 0 sits outside any block: a killed program's garbage there
    // ends reading like a truncation, keeping the 9 events before it.
    HandLog h = handLog();
    storeBE16(&h.bytes[h.lastRun], 77);
    auto r = readTraceFromBytes(h.bytes);
    REQUIRE(r.ok());
    CHECK(r->truncated);
    REQUIRE(r->warnings.size() == 1);
    CHECK(r->warnings[0].byteOffset == h.lastRun);
    CHECK(r->eventCount() == 9);
}

TEST_CASE("reader attributes the events of a block with size 0 to its engine until the next marker", "[core][reader]")
{
    // A crashed program leaves block sizes at their 0 placeholder. Block A (engine 1) gets size 0:
    // its 3 events still go to engine 1 and one warning names the marker; the rest is unchanged.
    HandLog h = handLog();
    storeBE32(&h.bytes[h.blockA + 10], 0);
    auto r = readTraceFromBytes(h.bytes);
    REQUIRE(r.ok());
    REQUIRE(r->warnings.size() == 1);
    CHECK(r->warnings[0].byteOffset == h.blockA);
    CHECK_FALSE(r->truncated);
    REQUIRE(r->engines.size() == 2);
    CHECK(times(r->engines[1]) == std::vector<uint64_t> { 10, 15, 20, 30 });
    CHECK(times(r->global) == std::vector<uint64_t> { 5, 40, 41, 70 });
}

TEST_CASE("reader warns when a block's size does not land on the next marker", "[core][reader]")
{
    HandLog h = handLog();
    SECTION("a block that claims more bytes than it has")
    {
        // Block A claims 8 more bytes: the next marker (block G) arrives early. Attribution of A's
        // events is unchanged; one warning at block G's marker.
        storeBE32(&h.bytes[h.blockA + 10], uint32_t(h.blockG - h.blockA + 8));
        auto r = readTraceFromBytes(h.bytes);
        REQUIRE(r.ok());
        REQUIRE(r->warnings.size() == 1);
        CHECK(r->warnings[0].byteOffset == h.blockG);
        CHECK(times(r->engines[1]) == std::vector<uint64_t> { 10, 15, 20, 30 });
    }
    SECTION("a block that ends inside an event")
    {
        // Block A claims 3 bytes fewer: its last event (e250 t=30) runs past the end; it and any
        // later events up to the next marker stay with engine 1, with one warning.
        storeBE32(&h.bytes[h.blockA + 10], uint32_t(h.blockG - h.blockA - 3));
        auto r = readTraceFromBytes(h.bytes);
        REQUIRE(r.ok());
        REQUIRE(r->warnings.size() == 1);
        CHECK(times(r->engines[1]) == std::vector<uint64_t> { 10, 15, 20, 30 });
        CHECK(times(r->global) == std::vector<uint64_t> { 5, 40, 41, 70 });
    }
}

TEST_CASE("reader warns about bytes after DATA_END and ignores them", "[core][reader]")
{
    HandLog h = handLog();
    h.bytes.insert(h.bytes.end(), { 1, 2, 3 });
    auto r = readTraceFromBytes(h.bytes);
    REQUIRE(r.ok());
    CHECK_FALSE(r->truncated);
    REQUIRE(r->warnings.size() == 1);
    CHECK(r->warnings[0].byteOffset == h.dataEnd + 2);
    CHECK(r->eventCount() == 10);
}

TEST_CASE("reader opens a stream cut without DATA_END with one warning", "[core][reader]")
{
    const HandLog h = handLog();
    std::vector<uint8_t> cut(h.bytes.begin(), h.bytes.begin() + long(h.dataEnd));
    auto r = readTraceFromBytes(cut);
    REQUIRE(r.ok());
    CHECK(r->truncated);
    REQUIRE(r->warnings.size() == 1);
    CHECK(r->warnings[0].byteOffset == h.dataEnd);
    CHECK(r->warnings[0].message.find(std::to_string(h.dataEnd)) != std::string::npos);
    CHECK(r->eventCount() == 10);
}

TEST_CASE("reader opens gzip, zstd and bzip2 streams by their magic bytes", "[core][reader]")
{
    const HandLog h = handLog();
    const auto dir = test::scratchDir("reader-compression");
    for (auto kind : { Compression::Gzip, Compression::Zstd, Compression::Bzip2 }) {
        const auto packed = compress(h.bytes, kind);
        // A misleading name: detection must not look at it.
        const auto path = (dir / ("log-" + std::to_string(int(kind)) + ".eventlog")).string();
        std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(packed.data()), long(packed.size()));
        for (int fromFile = 0; fromFile < 2; ++fromFile) {
            auto r = fromFile ? readTrace(path) : readTraceFromBytes(packed);
            REQUIRE(r.ok());
            CHECK(r->compression == kind);
            CHECK(r->fileSize == packed.size());
            CHECK(r->bytes().size() == h.bytes.size());
            CHECK(r->eventCount() == 10);
            CHECK(r->warnings.empty());
        }
    }
}

TEST_CASE("reader reports a corrupt compressed stream", "[core][reader]")
{
    auto packed = compress(handLog().bytes, Compression::Gzip);
    for (size_t i = 10; i < packed.size(); ++i)
        packed[i] ^= 0x5A;
    auto r = readTraceFromBytes(packed);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message.find("gzip") != std::string::npos);
}

TEST_CASE("a compressed stream cut short keeps what decompresses, and says where it broke", "[core][reader]")
{
    // ~2.5 MB of events: more than two of the reader's 1 MB chunks.
    test::TraceBuilder b(1);
    for (uint64_t i = 0; i < 120'000; ++i)
        b.runThread(0, 2 * i, 1).stopThread(0, 2 * i + 1, 1, kStopYielding);
    const std::vector<uint8_t> whole = writeTrace(b.roundTrip());
    REQUIRE(whole.size() > 2'200'000);
    // A gzip file without its 8-byte trailer (a program killed while compressing its trace): every
    // event is in the stream, and all but the last read's few kilobytes come out. (Reading 1 MB at a
    // time lost the whole chunk the decompressor's error came in: here 0.3 MB.)
    auto gz = compress(whole, Compression::Gzip);
    gz.resize(gz.size() - 8);
    auto r = readTraceFromBytes(gz);
    REQUIRE(r.ok());
    CHECK(r->bytes().size() + 4096 >= whole.size());
    CHECK(r->truncated);
    REQUIRE_FALSE(r->warnings.empty());
    CHECK(r->warnings.front().message.find("the gzip stream breaks off after") != std::string::npos);
    // A stream cut before anything decompresses says so, for each compression.
    for (auto kind : { Compression::Gzip, Compression::Zstd, Compression::Bzip2 }) {
        auto head = compress(whole, kind);
        head.resize(24);
        auto none = readTraceFromBytes(head);
        REQUIRE_FALSE(none.ok());
        INFO(none.error().message);
        CHECK((none.error().message.find("before its first") != std::string::npos));
    }
}

TEST_CASE("reader reports a missing file as an I/O error", "[core][reader]")
{
    auto r = readTrace((test::scratchDir("reader-missing") / "nothing.eventlog").string());
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == ErrorCode::Io);
}

TEST_CASE("reader stops with Cancelled when asked to", "[core][reader]")
{
    std::atomic<bool> cancel { true };
    ReadOptions options;
    options.cancel = &cancel;
    auto r = readTraceFromBytes(handLog().bytes, options);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == ErrorCode::Cancelled);
}

TEST_CASE("reader honours a cancel raised from its progress callback", "[core][reader]")
{
    // 40,000 blocks of 10 RUN_THREAD events (~5.6 MB): enough for several progress calls.
    LogBytes b;
    b.header({ { 1, 4 }, { 18, 14 } });
    for (int block = 0; block < 40000; ++block) {
        const size_t m = b.beginBlock(uint16_t(block % 2), uint64_t(block) * 100);
        for (int i = 0; i < 10; ++i)
            b.event(1, uint64_t(block) * 100 + uint64_t(i), test::be32(uint32_t(i)));
        b.endBlock(m, uint64_t(block) * 100 + 99);
    }
    b.dataEnd();
    for (unsigned threads : { 1u, 2u }) {
        std::atomic<bool> cancel { false };
        std::vector<std::pair<uint64_t, uint64_t>> calls;
        std::mutex mutex;
        ReadOptions options;
        options.threads = threads;
        options.cancel = &cancel;
        options.progress = [&](uint64_t done, uint64_t total) {
            std::lock_guard lock(mutex);
            calls.emplace_back(done, total);
            if (done > total / 4)
                cancel = true;
        };
        auto r = readTraceFromBytes(b.bytes, options);
        REQUIRE_FALSE(r.ok());
        CHECK(r.error().code == ErrorCode::Cancelled);
        CHECK_FALSE(calls.empty());
    }
    // Without cancelling, progress ends at total.
    uint64_t last = 0, lastTotal = 1;
    ReadOptions options;
    options.threads = 1;
    options.progress = [&](uint64_t done, uint64_t total) {
        CHECK(done >= last);
        last = done;
        lastTotal = total;
    };
    auto r = readTraceFromBytes(b.bytes, options);
    REQUIRE(r.ok());
    CHECK(last == lastTotal);
    CHECK(r->eventCount() == 40000u * 11u);
}
