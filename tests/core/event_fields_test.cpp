// Field decoding against hand-built payloads whose expected text is worked out by hand from the
// layouts in eventlog-format.md section 2.
#include "sparkscope/core/event_fields.h"
#include "sparkscope/core/writer.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>
#include <random>

using namespace sparkscope::core;

namespace {

std::string fields(uint16_t type, const PayloadBuilder& b)
{
    std::string out;
    appendFields(out, type, Payload(b.span()));
    return out;
}

} // namespace

TEST_CASE("STOP_THREAD decodes both the 10-byte and the old 6-byte layout", "[core][fields]")
{
    CHECK(fields(ev::StopThread, PayloadBuilder().u32(7).u16(8).u32(3))
        == "thread=7 status=8 reason=BlockedOnBlackHole info=3");
    CHECK(fields(ev::StopThread, PayloadBuilder().u32(7).u16(4)) == "thread=7 status=4 reason=ThreadBlocked");
    CHECK(fields(ev::StopThread, PayloadBuilder().u32(1).u16(99).u32(0)) == "thread=1 status=99 reason=Unknown info=0");
    // A cut payload gives the fields that fit.
    CHECK(fields(ev::StopThread, PayloadBuilder().u32(1).u8(0)) == "thread=1 extra=00");
}

TEST_CASE("GC_STATS_GHC decodes the 50-byte and the 58-byte layout", "[core][fields]")
{
    PayloadBuilder old;
    old.u32(0).u16(1).u64(100).u64(20).u64(30).u32(2).u64(60).u64(90); // 4+2+8+8+8+4+8+8 = 50
    REQUIRE(old.data().size() == 50);
    const std::string oldText = "heap_capset=0 gen=1 copied=100 slop=20 frag=30 par_n_threads=2 "
                                "par_max_copied=60 par_tot_copied=90";
    CHECK(fields(ev::GcStatsGhc, old) == oldText);
    PayloadBuilder now = old;
    now.u64(45);
    CHECK(fields(ev::GcStatsGhc, now) == oldText + " par_balanced_copied=45");
    // A newer GHC adding a field at the end: the known prefix, then the rest as hex.
    now.u16(0xBEEF);
    CHECK(fields(ev::GcStatsGhc, now) == oldText + " par_balanced_copied=45 extra=beef");
}

TEST_CASE("NONMOVING_HEAP_CENSUS decodes the 13-byte (log2) and 14-byte (u16 size) layouts", "[core][fields]")
{
    CHECK(fields(ev::NonmovingHeapCensus, PayloadBuilder().u8(8).u32(1).u32(2).u32(3))
        == "blk_size_log2=8 active_segs=1 filled_segs=2 live_blocks=3");
    CHECK(fields(ev::NonmovingHeapCensus, PayloadBuilder().u16(256).u32(1).u32(2).u32(3))
        == "blk_size=256 active_segs=1 filled_segs=2 live_blocks=3");
}

TEST_CASE("TICKY_COUNTER_DEF decodes the old and the new layout", "[core][fields]")
{
    CHECK(fields(ev::TickyCounterDef, PayloadBuilder().u64(11).u16(1).cstring("M").cstring("go{v s1bK} (Main) (fun)"))
        == "id=11 arity=1 kinds=M name=\"go{v s1bK} (Main) (fun)\"");
    CHECK(fields(ev::TickyCounterDef,
              PayloadBuilder().u64(11).u16(0).cstring("").cstring("f").u64(0x4050e0).cstring("{\"a\":1}"))
        == "id=11 arity=0 kinds=\"\" name=f itbl=0x4050e0 json={\\\"a\\\":1}");
}

TEST_CASE("heap-profile events decode NUL-terminated strings and cost-centre stacks", "[core][fields]")
{
    CHECK(
        fields(ev::HeapProfCostCentre, PayloadBuilder().u32(5).cstring("main").cstring("Main").cstring("a.hs:1").u8(1))
        == "cc=5 label=main module=Main srcloc=a.hs:1 flags=1");
    CHECK(fields(ev::HeapProfSampleCostCentre, PayloadBuilder().u8(0).u64(4096).u8(2).u32(7).u32(9))
        == "profile=0 residency=4096 depth=2 cc=7 cc=9");
    CHECK(fields(ev::HeapProfSampleString, PayloadBuilder().u8(0).u64(64).cstring("THUNK"))
        == "profile=0 residency=64 label=THUNK");
    PayloadBuilder begin;
    begin.u8(0).u64(100000000).u32(1);
    for (int i = 0; i < 7; ++i)
        begin.cstring("");
    CHECK(fields(ev::HeapProfBegin, begin)
        == "profile=0 sampling_period=100000000 breakdown=1 breakdown_name=CostCentre module_filter=\"\" "
           "closure_descr_filter=\"\" type_descr_filter=\"\" cost_centre_filter=\"\" cost_centre_stack_filter=\"\" "
           "retainer_filter=\"\" biography_filter=\"\"");
}

TEST_CASE("PROGRAM_ARGS gives one arg per NUL-terminated string", "[core][fields]")
{
    CHECK(fields(ev::ProgramArgs, PayloadBuilder().u32(0).cstring("./sumfib").cstring("30").cstring("a b"))
        == "capset=0 arg=./sumfib arg=30 arg=\"a b\"");
    // Without the final NUL (ghc-events' writer) the last string still counts.
    CHECK(fields(ev::ProgramArgs, PayloadBuilder().u32(0).cstring("x").text("y")) == "capset=0 arg=x arg=y");
    // Too short for the capset: the bytes are shown, and decoding stops (it once looped forever here).
    CHECK(fields(ev::ProgramArgs, PayloadBuilder().u16(7)) == "extra=0007");
    CHECK(fields(ev::Ipe, PayloadBuilder().u32(7)) == "extra=00000007");
}

TEST_CASE("INTERN_STRING is text followed by its u32 id", "[core][fields]")
{
    CHECK(fields(ev::InternString, PayloadBuilder().text("fib.m:12").u32(3)) == "text=fib.m:12 id=3");
    CHECK(fields(ev::InternString, PayloadBuilder().u32(3)) == "text=\"\" id=3");
}

TEST_CASE("Mercury's events 100-116 decode with ids in hex", "[core][fields]")
{
    CHECK(fields(ev::MerStartParConj, PayloadBuilder().u64(0x7f0012345678).u32(4))
        == "dyn_id=0x7f0012345678 static_id=4");
    CHECK(fields(ev::MerEndParConj, PayloadBuilder().u64(0x10)) == "dyn_id=0x10");
    CHECK(fields(ev::MerEndParConjunct, PayloadBuilder().u64(0x10)) == "dyn_id=0x10");
    CHECK(fields(ev::MerSparkCreate, PayloadBuilder().u64(0x10).u32(0x01000002)) == "dyn_id=0x10 spark=0x1000002");
    CHECK(fields(ev::MerFutCreate, PayloadBuilder().u64(0xabc).u32(9)) == "future=0xabc name_id=9");
    CHECK(fields(ev::MerFutWaitNoSuspend, PayloadBuilder().u64(0xabc)) == "future=0xabc");
    CHECK(fields(ev::MerFutWaitSuspended, PayloadBuilder().u64(0xabc)) == "future=0xabc");
    CHECK(fields(ev::MerFutSignal, PayloadBuilder().u64(0xabc)) == "future=0xabc");
    for (uint16_t empty : { 108, 109, 111, 112, 113 })
        CHECK(fields(empty, PayloadBuilder()).empty());
    CHECK(fields(ev::MerReleaseContext, PayloadBuilder().u32(12)) == "context=12");
    CHECK(fields(ev::MerSparkRun, PayloadBuilder().u32(0x02000007)) == "spark=0x2000007");
    CHECK(fields(ev::MerSparkSteal, PayloadBuilder().u16(2).u32(0x02000007)) == "victim_engine=2 spark=0x2000007");
    CHECK(fields(ev::MerReuseContext, PayloadBuilder().u32(5).u32(3)) == "context=5 old_context=3");
}

TEST_CASE("block markers show size, end time and cap", "[core][fields]")
{
    CHECK(fields(ev::BlockMarker, PayloadBuilder().u32(38).u64(2000).u16(0xFFFF)) == "size=38 end_time=2000 cap=65535");
}

TEST_CASE("unknown events show their raw bytes in hex", "[core][fields]")
{
    CHECK(fields(209, PayloadBuilder().u8(0).u8(0xab).u8(0x10)) == "bytes=00ab10");
    CHECK(fields(1000, PayloadBuilder()).empty());
    CHECK(fields(ev::UserBinaryMsg, PayloadBuilder().u8(0xff).u8(0)) == "bytes=ff00");
}

TEST_CASE("old Mercury RUN_SPARK and STEAL_SPARK carry a spark id after the GHC fields", "[core][fields]")
{
    CHECK(fields(ev::RunSparkOld, PayloadBuilder().u32(3)) == "thread=3");
    CHECK(fields(ev::RunSparkOld, PayloadBuilder().u32(3).u32(0x01000001)) == "thread=3 spark=0x1000001");
    CHECK(fields(ev::StealSparkOld, PayloadBuilder().u32(3).u16(1)) == "thread=3 victim_cap=1");
    CHECK(fields(ev::StealSparkOld, PayloadBuilder().u32(3).u16(1).u32(0x01000001))
        == "thread=3 victim_cap=1 spark=0x1000001");
    CHECK(fields(ev::OsProcessPid, PayloadBuilder().u32(4242)) == "pid=4242"); // Mercury's 4-byte form
    CHECK(fields(ev::OsProcessPid, PayloadBuilder().u32(0).u32(4242)) == "capset=0 pid=4242");
}

TEST_CASE("text is escaped for one-line output and quoted when it has spaces", "[core][fields]")
{
    CHECK(fields(ev::UserMsg, PayloadBuilder().text("a\tb\nc\\d\"e\x01")) == "message=a\\tb\\nc\\\\d\\\"e\\x01");
    CHECK(fields(ev::UserMsg, PayloadBuilder().text("hello world")) == "message=\"hello world\"");
    CHECK(fields(ev::UserMsg, PayloadBuilder()) == "message=\"\"");
    // Valid UTF-8 passes through; a stray continuation byte and a cut sequence are escaped.
    CHECK(escapeText("caf\xc3\xa9") == "caf\xc3\xa9");
    CHECK(escapeText("\x80x\xe2\x82") == "\\x80x\\xe2\\x82");
    CHECK(fields(ev::RtsIdentifier, PayloadBuilder().u32(0).text("GHC-9.0.2 rts_thr_l"))
        == "capset=0 name=\"GHC-9.0.2 rts_thr_l\"");
}

TEST_CASE("decodeFields returns the same fields as the text form, unquoted", "[core][fields]")
{
    const PayloadBuilder b = PayloadBuilder().u32(0).u16(2);
    const auto list = decodeFields(ev::CapsetCreate, Payload(b.span()));
    REQUIRE(list.size() == 3);
    CHECK(list[0].key == "capset");
    CHECK(list[0].value == "0");
    CHECK(list[1].key == "type");
    CHECK(list[2].key == "type_name");
    CHECK(list[2].value == "OsProcess");
    const PayloadBuilder m = PayloadBuilder().text("a b");
    CHECK(decodeFields(ev::UserMsg, Payload(m.span()))[0].value == "a b");
}

TEST_CASE("stop status names follow ghc-events' spelling", "[core][fields]")
{
    CHECK(stopStatusName(5) == "ThreadFinished");
    CHECK(stopStatusName(18) == "BlockedOnMsgThrowTo");
    CHECK(stopStatusName(20) == "BlockedOnMVarRead");
    CHECK(stopStatusName(14) == "Unknown");
}

TEST_CASE("field decoding of random payloads of every type and size stays inside the payload", "[core][fields]")
{
    // Run under ASan in scripts/test: a read past the payload or a bad escape would be caught there.
    // Here: every output is one line, and decodeFields and appendFields agree on the field count.
    std::mt19937 rng(20240611);
    std::vector<uint8_t> bytes;
    for (int type = 0; type < 256; ++type) {
        for (size_t size = 0; size <= 72; ++size) {
            bytes.resize(size);
            for (auto& b : bytes)
                b = static_cast<uint8_t>(rng() % 4 == 0 ? 0 : rng()); // NULs often, for the string layouts
            // An exact-size heap copy, so ASan sees the end of the payload.
            auto copy = std::make_unique<uint8_t[]>(size + 1);
            std::copy(bytes.begin(), bytes.end(), copy.get());
            const Payload p(std::span<const uint8_t>(copy.get(), size));
            std::string text;
            appendFields(text, static_cast<uint16_t>(type), p);
            INFO("type " << type << " size " << size << ": " << text);
            CHECK(text.find('\n') == std::string::npos);
            CHECK(text.find('\t') == std::string::npos);
            const auto fields = decodeFields(static_cast<uint16_t>(type), p);
            CHECK(static_cast<size_t>(std::count(text.begin(), text.end(), '=')) >= fields.size());
        }
    }
}
