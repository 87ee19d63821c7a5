// TraceStreamer (trace_stream.h): a stream taken in steps — to complete parts of a file, or of a file
// that grows between the steps, as a followed trace does — hands out, at every step, what one
// streamTrace to the same end hands out: the same events in the same order, the same extents and
// the same summary. Checked on the shared eventlogs, demo traces of the runtime and a hand-built
// trace in windows small enough that ranges split inside each step.
#include "format/mapped_file.h"
#include "scenario_traces.h"
#include "shared_plain.h"
#include "sparkscope/core/complete_prefix.h"
#include "sparkscope/core/trace_stream.h"
#include "sparkscope/core/writer.h"
#include "support/test_data.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace sparkscope;
using namespace sparkscope::core;
namespace fs = std::filesystem;

namespace {

// What a stream hands out, per stream (0: the global events, e + 1: engine e's), in order.
struct Gathered {
    std::vector<std::vector<Event>> streams;

    void operator()(const StreamBatch& b)
    {
        const size_t s = b.engine == kNoEngine ? 0 : size_t(b.engine) + 1;
        if (s >= streams.size())
            streams.resize(s + 1);
        streams[s].insert(streams[s].end(), b.events.begin(), b.events.end());
    }
};

bool sameEvent(const Event& a, const Event& b)
{
    return a.timeNs == b.timeNs && a.offset == b.offset && a.type == b.type && a.engine == b.engine
        && a.payloadSize == b.payloadSize && a.headerSize == b.headerSize;
}

bool sameExtent(const BlockExtent& a, const BlockExtent& b)
{
    return a.offset == b.offset && a.bytes == b.bytes && a.blockOffset == b.blockOffset && a.blockEnd == b.blockEnd
        && a.blockEndNs == b.blockEndNs && a.firstNs == b.firstNs && a.lastNs == b.lastNs && a.events == b.events;
}

void checkSame(const Gathered& stepped, const StreamedTrace& s, const Gathered& once, const StreamedTrace& o)
{
    CHECK(s.events == o.events);
    CHECK(s.lateEvents == o.lateEvents);
    CHECK(s.summary.fileSize == o.summary.fileSize);
    CHECK(s.summary.firstTimeNs == o.summary.firstTimeNs);
    CHECK(s.summary.lastTimeNs == o.summary.lastTimeNs);
    CHECK(s.summary.truncated == o.summary.truncated);
    CHECK(s.summary.engineCount() == o.summary.engineCount());
    REQUIRE(s.summary.warnings.size() == o.summary.warnings.size());
    for (size_t i = 0; i < o.summary.warnings.size(); ++i)
        CHECK(s.summary.warnings[i].message == o.summary.warnings[i].message);
    REQUIRE(stepped.streams.size() == once.streams.size());
    for (size_t k = 0; k < once.streams.size(); ++k) {
        CAPTURE(k);
        const auto &a = stepped.streams[k], &b = once.streams[k];
        REQUIRE(a.size() == b.size());
        size_t differing = 0;
        for (size_t i = 0; i < a.size(); ++i)
            differing += sameEvent(a[i], b[i]) ? 0 : 1;
        CHECK(differing == 0);
    }
    REQUIRE(s.blocks.size() == o.blocks.size());
    for (size_t e = 0; e < o.blocks.size(); ++e) {
        REQUIRE(s.blocks[e].size() == o.blocks[e].size());
        size_t differing = 0;
        for (size_t i = 0; i < o.blocks[e].size(); ++i)
            differing += sameExtent(s.blocks[e][i], o.blocks[e][i]) ? 0 : 1;
        CHECK(differing == 0);
    }
}

std::vector<uint8_t> fileBytes(const fs::path& path)
{
    std::ifstream in(path, std::ios::binary);
    return { std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>() };
}

void writeFile(const fs::path& path, std::span<const uint8_t> bytes, std::ios::openmode mode = std::ios::trunc)
{
    std::ofstream out(path, std::ios::binary | mode);
    out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

// Where a follower would stop: the complete part of the file's first `parts` k-th fractions, the
// whole file last (each distinct, growing).
std::vector<uint64_t> completeEnds(std::span<const uint8_t> bytes, int parts)
{
    std::vector<uint64_t> ends;
    for (int k = 1; k < parts; ++k) {
        const CompletePrefix p = completePrefix(bytes.first(bytes.size() * size_t(k) / size_t(parts)));
        if (p.bytes > p.dataStart && !p.damage && (ends.empty() || p.bytes > ends.back()))
            ends.push_back(p.bytes);
    }
    ends.push_back(bytes.size());
    return ends;
}

// Streams `path` in steps to each of `ends`, checking after each step that the summary (the events
// held back handed to a copy) is one stream's to that end; the last step is finished instead.
void checkSteps(const fs::path& path, const std::vector<uint64_t>& ends, uint64_t windowBytes)
{
    CAPTURE(path.string(), windowBytes);
    StreamOptions options;
    options.windowBytes = windowBytes;
    TraceStreamer streamer(path.string(), options);
    Gathered live;
    for (size_t i = 0; i < ends.size(); ++i) {
        CAPTURE(i, ends[i]);
        REQUIRE(!streamer.advance(ends[i], std::ref(live)));
        Gathered once;
        StreamOptions to = options;
        to.endBytes = ends[i];
        auto one = streamTrace(path.string(), std::ref(once), to);
        REQUIRE(one);
        Gathered stepped = live;
        if (i + 1 < ends.size()) {
            const StreamedTrace s = streamer.summary(std::ref(stepped));
            checkSame(stepped, s, once, one.value());
        } else {
            const StreamedTrace s = std::move(streamer).finish(std::ref(live));
            checkSame(live, s, once, one.value());
            return;
        }
    }
}

} // namespace

TEST_CASE("a stream taken in steps to complete parts gives one stream's result at each step", "[stream][follow]")
{
    size_t checked = 0;
    for (const fs::path& path : test::plainSharedEventlogs("trace_streamer_shared")) {
        // The biggest logs add time, not cases (their blocks are the small ones' shape).
        if (fs::file_size(path) > (uint64_t(40) << 20))
            continue;
        const auto bytes = fileBytes(path);
        checkSteps(path, completeEnds(bytes, 4), uint64_t(1) << 20);
        ++checked;
    }
    if (checked > 0)
        CHECK(checked >= 15);

    SECTION("demo traces of the runtime, and a hand-built one in windows smaller than its blocks")
    {
        for (const auto& [name, trace] :
            test::demoTraces("trace-streamer-demo", { "parfib --n 30 --cutoff 8", "pipeline --items 200" })) {
            INFO(name);
            const auto bytes = fileBytes(trace.path);
            checkSteps(trace.path, completeEnds(bytes, 7), 64 << 10);
        }
        const fs::path nested = test::scratchDir("trace_streamer_nested") / "nested.eventlog";
        const std::vector<uint8_t> bytes = writeTrace(test::nestedTrace());
        writeFile(nested, bytes);
        for (uint64_t window : { uint64_t(1), uint64_t(100), uint64_t(32) << 20 })
            checkSteps(nested, completeEnds(bytes, 5), window);
    }
}

TEST_CASE("a stream goes on over what is appended to its file between steps", "[stream][follow]")
{
    const auto traces = test::demoTraces("trace-streamer-grow", { "parfib --n 30 --cutoff 8" });
    if (traces.empty())
        return;
    const auto bytes = fileBytes(traces.front().trace.path);
    const std::vector<uint64_t> ends = completeEnds(bytes, 5);
    REQUIRE(ends.size() >= 3);
    const fs::path growing = test::scratchDir("trace_streamer_grow") / "growing.eventlog";
    writeFile(growing, std::span(bytes).first(ends.front()));

    TraceStreamer streamer(growing.string());
    Gathered live;
    uint64_t written = ends.front();
    for (uint64_t end : ends) {
        CAPTURE(end);
        // The file has more than the complete part: the start of the next block, as a writer leaves it.
        const uint64_t more = std::min<uint64_t>(bytes.size(), end + 100);
        writeFile(growing, std::span(bytes).subspan(written, more - written), std::ios::app);
        written = more;
        REQUIRE(!streamer.advance(end, std::ref(live)));
        CHECK(streamer.position() == end);
    }
    CHECK(streamer.ended()); // the last part holds DATA_END
    const StreamedTrace s = std::move(streamer).finish(std::ref(live));

    Gathered once;
    auto one = streamTrace(traces.front().trace.path, std::ref(once));
    REQUIRE(one);
    checkSame(live, s, once, one.value());
}

TEST_CASE("a stream that failed is spent and says so", "[stream][follow]")
{
    const fs::path path = test::scratchDir("trace_streamer_spent") / "nested.eventlog";
    writeFile(path, writeTrace(test::nestedTrace()));
    std::atomic<bool> cancel { true };
    TraceStreamer streamer(path.string());
    streamer.setCancel(&cancel);
    Gathered got;
    auto failed = streamer.advance(UINT64_MAX, std::ref(got));
    REQUIRE(failed);
    CHECK(failed->code == ErrorCode::Cancelled);
    cancel = false;
    failed = streamer.advance(UINT64_MAX, std::ref(got));
    REQUIRE(failed);
    CHECK(failed->message.find("cannot go on") != std::string::npos);

}

TEST_CASE("a stream whose file shrank below what it streamed refuses to go on", "[stream][follow]")
{
    const auto traces = test::demoTraces("trace-streamer-shrink", { "parfib --n 30 --cutoff 8" });
    if (traces.empty())
        return;
    const auto bytes = fileBytes(traces.front().trace.path);
    const std::vector<uint64_t> ends = completeEnds(bytes, 3);
    REQUIRE(ends.size() >= 2);
    const fs::path path = test::scratchDir("trace_streamer_shrink") / "shrinking.eventlog";
    writeFile(path, bytes);
    TraceStreamer streamer(path.string());
    Gathered got;
    REQUIRE(!streamer.advance(ends[0], std::ref(got)));
    writeFile(path, std::span(bytes).first(ends[0] / 2));
    auto failed = streamer.advance(ends[1], std::ref(got));
    REQUIRE(failed);
    CHECK(failed->message.find("shorter") != std::string::npos);
    // Spent: its held-back events (past the shorter file's end) are not handed out any more.
    const size_t before = got.streams.size() > 1 ? got.streams[1].size() : 0;
    const StreamedTrace s = streamer.summary(std::ref(got));
    CHECK((got.streams.size() > 1 ? got.streams[1].size() : 0) == before);
    CHECK(streamer.advance(ends[1], std::ref(got))->message.find("cannot go on") != std::string::npos);
}

TEST_CASE("a mapped file cut short reads as zeros past its new end instead of killing the process", "[stream][follow]")
{
    // What a follower's mapping sees when the writer truncates the file: the pages past the new end
    // are gone, and touching one raises SIGBUS. The guard puts zeros there and the file reports it.
    const fs::path path = test::scratchDir("mapped_file_shrink") / "shrinking.bin";
    const size_t page = size_t(::sysconf(_SC_PAGESIZE));
    writeFile(path, std::vector<uint8_t>(4 * page, 0xAB));
    detail::MappedFile file;
    const auto mapped = file.open(path.string());
    REQUIRE(mapped);
    const std::span<const uint8_t> bytes = mapped.value();
    REQUIRE(bytes.size() == 4 * page);
    CHECK(bytes[3 * page + 7] == 0xAB);
    CHECK(file.unchanged(path.string()));
    fs::resize_file(path, page);
    const uint64_t zeroed = detail::zeroedMappedPages();
    CHECK(bytes[100] == 0xAB); // (still in the file)
    CHECK(bytes[3 * page + 7] == 0); // (gone: zeros, not SIGBUS)
    CHECK(bytes[2 * page] == 0);
    CHECK(detail::zeroedMappedPages() == zeroed + 2);
    CHECK(file.lostPages());
    CHECK(!file.unchanged(path.string()));
    // Grown back to its old size, it is still not what was mapped: the zeros stay counted.
    fs::resize_file(path, 4 * page);
    CHECK(!file.unchanged(path.string()));
    // A new mapping of it starts clean.
    detail::MappedFile again;
    REQUIRE(again.open(path.string()));
    CHECK(!again.lostPages());
    CHECK(again.unchanged(path.string()));
}

TEST_CASE("a stream whose file is cut short while it decodes reports it and hands out nothing of it", "[stream][follow]")
{
    const auto traces = test::demoTraces("trace-streamer-cut-mid", { "parfib --n 30 --cutoff 8" });
    if (traces.empty())
        return;
    const auto bytes = fileBytes(traces.front().trace.path);
    const fs::path path = test::scratchDir("trace_streamer_cut_mid") / "cut.eventlog";
    writeFile(path, bytes);
    // The file is cut to a tenth at the first progress report (the decoder's first check, 1 MB into
    // the stream, past the tenth of this 8 MB trace): what it reads after that, up to its next
    // check, is pages that are gone.
    StreamOptions options;
    options.windowBytes = 64 << 10;
    bool cut = false;
    options.progress = [&](uint64_t, uint64_t) {
        if (!cut) {
            cut = true;
            fs::resize_file(path, bytes.size() / 10);
        }
    };
    const uint64_t zeroed = detail::zeroedMappedPages();
    TraceStreamer streamer(path.string(), options);
    Gathered got;
    auto failed = streamer.advance(UINT64_MAX, std::ref(got));
    REQUIRE(cut);
    REQUIRE(failed);
    CHECK(failed->message.find("shrank while it was being read") != std::string::npos);
    CHECK(detail::zeroedMappedPages() > zeroed);
    // Nothing of the range it was cut in was handed out (nor anything else: it was the first range).
    uint64_t handed = 0;
    for (const auto& s : got.streams)
        handed += s.size();
    CHECK(handed == 0);
}
