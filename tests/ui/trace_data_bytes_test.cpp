// The viewer keeps only the bytes of events that carry a payload (keepOnlyPayloadBytes): every
// event's payload must read exactly as from the trace the reader returned, on a real GHC log and on
// a hand-built trace, including an event whose payload was cut off and the user markers' text.
#include "support/test_data.h"
#include "support/trace_builder.h"
#include "ui/loading/trace_data.h"

#include "sparkscope/core/reader.h"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace sparkscope;
using namespace sparkscope::ui;

namespace {

// Same events, and for each the same payload bytes (or none), in `a` and `b`.
void checkSamePayloads(const core::Trace& a, const core::Trace& b)
{
    REQUIRE(a.engines.size() == b.engines.size());
    auto same = [&](const std::vector<core::Event>& x, const std::vector<core::Event>& y) {
        REQUIRE(x.size() == y.size());
        size_t mismatches = 0;
        for (size_t i = 0; i < x.size(); ++i) {
            const auto p = a.payload(x[i]).bytes(), q = b.payload(y[i]).bytes();
            mismatches += x[i].type != y[i].type || x[i].timeNs != y[i].timeNs
                || !std::equal(p.begin(), p.end(), q.begin(), q.end());
        }
        CHECK(mismatches == 0);
    };
    same(a.global, b.global);
    for (size_t e = 0; e < a.engines.size(); ++e)
        same(a.engines[e], b.engines[e]);
}

} // namespace

TEST_CASE("a GHC log keeps a fraction of its bytes and every payload reads the same", "[ui][loading]")
{
    auto path = test::sharedTestData("ghc/parfib-12-30.eventlog");
    if (!path)
        return;
    auto original = core::readTrace(path->string());
    REQUIRE(original);
    auto loaded = loadTraceData(path->string());
    REQUIRE(loaded.ok());
    const core::Trace& kept = *loaded.value()->trace;
    // parfib-12-30: 141 KB of stream; only spark steals and a few others carry payloads.
    CHECK(kept.bytes().size() < original->bytes().size() / 4);
    checkSamePayloads(original.value(), kept);
}

TEST_CASE("keeping only payload bytes preserves payloads, markers and a cut-off payload", "[ui][loading]")
{
    test::TraceBuilder b(2);
    // 400 payload-free GC events per engine, a few events with payloads (RUN_THREAD: context id;
    // a user marker's text) in between.
    for (uint64_t t = 0; t < 400; ++t) {
        b.gcStart(uint16_t(t % 2), 1000 + 20 * t).gcEnd(uint16_t(t % 2), 1010 + 20 * t);
        if (t % 100 == 0)
            b.runThread(uint16_t(t % 2), 1005 + 20 * t, uint32_t(7 + t));
    }
    const std::string text = "phase two";
    b.event(0, 5000, core::ev::UserMarker, std::vector<uint8_t>(text.begin(), text.end()));
    b.endAt(20000);
    const core::Trace original = b.roundTrip();
    core::Trace copy = original;
    // An event whose payload runs past the buffer reads as having none; it must stay so.
    auto withPayload = std::find_if(copy.engines[0].begin(), copy.engines[0].end(),
        [](const core::Event& e) { return e.type == core::ev::RunThread; });
    REQUIRE(withPayload != copy.engines[0].end());
    withPayload->payloadSize = 60000;
    core::Trace cutOriginal = copy; // the reference: shares the stream, with the cut-off event
    REQUIRE(cutOriginal.payload(*withPayload).size() == 0);

    REQUIRE(keepOnlyPayloadBytes(copy));
    CHECK(copy.bytes().size() < original.bytes().size() / 4);
    checkSamePayloads(cutOriginal, copy);
    CHECK(copy.payload(copy.engines[0][size_t(withPayload - copy.engines[0].begin())]).size() == 0);

    // The viewer's indexes read the marker's text from the kept bytes.
    auto data = buildTraceData(original);
    REQUIRE(data);
    REQUIRE(data->markers.size() == 1);
    CHECK(data->markers[0].label == text);
    CHECK(data->trace->bytes().size() < original.bytes().size() / 4);
}

TEST_CASE("a trace whose events mostly carry payloads keeps its stream", "[ui][loading]")
{
    test::TraceBuilder b(1);
    for (uint64_t t = 0; t < 100; ++t)
        b.runThread(0, 100 + 10 * t, uint32_t(t)).stopThread(0, 105 + 10 * t, uint32_t(t), 1);
    b.endAt(5000);
    core::Trace trace = b.roundTrip();
    const size_t size = trace.bytes().size();
    CHECK_FALSE(keepOnlyPayloadBytes(trace));
    CHECK(trace.bytes().size() == size);
}
