// Following a trace while it is written (TraceFollower, File > Follow…): the test writes an eventlog
// block by block into a file the main window follows, and after each block waits until the window's
// trace holds exactly the events written so far (and the metrics were computed for it); a half
// written block is seen and waited for, never reported; the view follows the end until the person
// zooms elsewhere; DATA_END ends following. A child process (sparkscope-demo) writes its trace while
// the window follows it: each update shown is exactly the file's complete part. Bad input: a damaged
// block, a file that shrinks and a file replaced while followed each stop following with a message
// and keep what was shown.
// Every wait is for a condition (QTest::qWaitFor with a generous timeout), never a fixed sleep.
#include "ui/analysis/analysis_view.h"
#include "ui/analysis/why_panel.h"
#include "ui/loading/trace_follower.h"
#include "ui/main_window.h"
#include "ui/panels/metrics_panels.h"
#include "ui/panels/metrics_session.h"
#include "ui/panels/summary_panel.h"
#include "ui/timeline/frame.h"
#include "ui/timeline/timeline_widget.h"
#include "ui/timeline/zoom_state.h"

#include "sparkscope/core/complete_prefix.h"
#include "sparkscope/core/reader.h"
#include "sparkscope/core/writer.h"
#include "support/scoped_env.h"

#include <QFileInfo>
#include <QLabel>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QUuid>
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

using namespace sparkscope;
using namespace sparkscope::ui;

namespace {

constexpr int kWaitMs = 30000;

// An eventlog made block by block with core's writer; `cuts` are the file sizes after the header
// and after each block, so the test can append one block at a time.
struct BlockFile {
    std::vector<uint8_t> bytes;
    std::vector<size_t> cuts;
};

std::vector<uint8_t> ctx(uint32_t id)
{
    core::PayloadBuilder b;
    b.u32(id);
    return b.data();
}
std::vector<uint8_t> stop(uint32_t id, uint16_t status)
{
    core::PayloadBuilder b;
    b.u32(id).u16(status).u32(0);
    return b.data();
}

// Ten blocks, alternating engines 0 and 1; block k (from 0) holds context 100+k created, run from
// 1000k + 100 to 1000k + 900 and finished: three events and its marker.
BlockFile tenBlocks()
{
    core::EventlogWriter w(core::mercuryHeader());
    BlockFile f;
    f.cuts.push_back(w.size()); // the header
    for (uint32_t k = 0; k < 10; ++k) {
        const uint16_t engine = uint16_t(k % 2);
        const uint64_t t = 1000ull * k;
        w.beginBlock(engine, t + 100);
        REQUIRE(w.event(core::ev::CreateThread, t + 100, ctx(100 + k)));
        REQUIRE(w.event(core::ev::RunThread, t + 100, ctx(100 + k)));
        REQUIRE(w.event(core::ev::StopThread, t + 900, stop(100 + k, core::kStopFinished)));
        w.endBlock(t + 900);
        f.cuts.push_back(w.size());
    }
    f.bytes = w.finish(); // + DATA_END
    return f;
}

// Events (block markers included) of the first `blocks` blocks of tenBlocks().
size_t eventsIn(size_t blocks) { return blocks * 4; }

void writeBytes(const std::string& path, const std::vector<uint8_t>& bytes, size_t from, size_t to,
    std::ios::openmode mode = std::ios::app)
{
    std::ofstream out(path, std::ios::binary | mode);
    out.write(reinterpret_cast<const char*>(bytes.data() + from), std::streamsize(to - from));
    out.flush();
    REQUIRE(out.good());
}

size_t shownEvents(MainWindow& window)
{
    const auto& data = window.timeline()->data();
    return data ? data->eventCount() : 0;
}

bool liveShown(MainWindow& window)
{
    auto* live = window.findChild<QLabel*>(QStringLiteral("liveIndicator"));
    return live && !live->isHidden();
}

// The metrics are of the trace on screen: the same trace, or for a streamed one (whose events the
// window does not hold) the compact read of the same part of the file.
bool metricsCaughtUp(MainWindow& window)
{
    const auto& data = window.timeline()->data();
    const auto full = window.metrics()->session()->full();
    if (!data || !full)
        return false;
    return data->isStreamed() ? full->metrics.trace.eventCount == data->eventCount()
                              : window.metrics()->session()->heldTrace() == data->trace;
}

// The window follows `path`, which holds `blocks` whole blocks: waits until it shows them all.
void followFrom(MainWindow& window, const std::string& path, size_t blocks)
{
    window.followTrace(QString::fromStdString(path));
    REQUIRE(QTest::qWaitFor([&] { return shownEvents(window) == eventsIn(blocks); }, kWaitMs));
    REQUIRE(liveShown(window));
}

// Waits until the follower has looked at the file at its current size.
void waitChecked(MainWindow& window, const std::string& path)
{
    const auto size = quint64(std::filesystem::file_size(path));
    QSignalSpy checked(window.follower(), &TraceFollower::checked);
    REQUIRE(QTest::qWaitFor(
        [&] {
            for (const auto& args : checked)
                if (args.at(0).toULongLong() == size)
                    return true;
            return false;
        },
        kWaitMs));
}

// Every size streams (SPARKSCOPE_STREAM_BYTES=0) while one lives.
struct StreamAll : test::ScopedEnv {
    StreamAll()
        : ScopedEnv("SPARKSCOPE_STREAM_BYTES", "0")
    {
    }
};

// tenBlocks()'s header and first `blocks` blocks written to a file `name` in a fresh folder, and a
// shown window following it that shows them all.
struct Followed {
    Followed(const char* name, size_t blocks)
        : path(dir.filePath(QString::fromLatin1(name)).toStdString())
    {
        REQUIRE(dir.isValid());
        writeBytes(path, f.bytes, 0, f.cuts[blocks], std::ios::trunc);
        window.show();
        followFrom(window, path, blocks);
    }
    QTemporaryDir dir;
    const BlockFile f = tenBlocks();
    const std::string path;
    MainWindow window;
};

// Writes tenBlocks() a block or a part of one at a time into a file the window follows, checking
// after each that the window and its metrics caught up; `streamed`: the window streams each snapshot.
void catchUpWithEachBlock(bool streamed)
{
    Followed followed("growing.eventlog", 1); // header + block 0
    MainWindow& window = followed.window;
    const std::string& path = followed.path;
    const BlockFile& f = followed.f;
    CHECK(window.timeline()->data()->isStreamed() == streamed);

    for (size_t k = 2; k <= 5; ++k) {
        INFO("block " << k);
        writeBytes(path, f.bytes, f.cuts[k - 1], f.cuts[k]);
        REQUIRE(QTest::qWaitFor([&] { return shownEvents(window) == eventsIn(k); }, kWaitMs));
        REQUIRE(QTest::qWaitFor([&] { return metricsCaughtUp(window); }, kWaitMs));
        // Nothing was zoomed: the view shows the whole trace, up to the last block's end.
        CHECK(window.zoom()->window().endNs >= int64_t(1000 * (k - 1) + 900));
        CHECK(window.message().isEmpty());
    }
    CHECK(window.metrics()->session()->full()->metrics.trace.engines == 2);

    // Half a block: seen, waited for, not reported.
    const size_t half = (f.cuts[5] + f.cuts[6]) / 2;
    writeBytes(path, f.bytes, f.cuts[5], half);
    waitChecked(window, path);
    CHECK(shownEvents(window) == eventsIn(5));
    CHECK(window.message().isEmpty());
    CHECK(liveShown(window));
    writeBytes(path, f.bytes, half, f.cuts[6]);
    REQUIRE(QTest::qWaitFor([&] { return shownEvents(window) == eventsIn(6); }, kWaitMs));

    // The person zooms into the start: the view stays there as blocks arrive.
    const TimeWindow looked { 100, 600 };
    window.zoom()->zoomTo(looked);
    writeBytes(path, f.bytes, f.cuts[6], f.cuts[8]);
    REQUIRE(QTest::qWaitFor([&] { return shownEvents(window) == eventsIn(8); }, kWaitMs));
    CHECK(window.zoom()->window() == looked);
    CHECK(window.zoom()->extent().endNs >= 7900);

    // The rest and DATA_END: following ends, the whole trace is shown.
    writeBytes(path, f.bytes, f.cuts[8], f.bytes.size());
    REQUIRE(QTest::qWaitFor([&] { return !liveShown(window); }, kWaitMs));
    CHECK(shownEvents(window) == eventsIn(10));
    CHECK_FALSE(window.follower()->isFollowing());
    CHECK(window.message().contains(QStringLiteral("growing.eventlog is complete"))); // a banner: it stays
    CHECK(window.timeline()->data()->isStreamed() == streamed);
}

} // namespace

TEST_CASE("a followed file with a header alone says it waits for the first events", "[ui][follow]")
{
    QTemporaryDir dir;
    REQUIRE(dir.isValid());
    const BlockFile f = tenBlocks();
    const std::string path = dir.filePath(QStringLiteral("header.eventlog")).toStdString();
    writeBytes(path, f.bytes, 0, f.cuts[0], std::ios::trunc); // the header only
    MainWindow window;
    window.show();
    window.followTrace(QString::fromStdString(path));
    CHECK(window.timeline()->emptyText().contains(QStringLiteral("Waiting for the first events of header.eventlog")));
    waitChecked(window, path);
    CHECK_FALSE(window.timeline()->data());
    CHECK(liveShown(window));
    writeBytes(path, f.bytes, f.cuts[0], f.bytes.size());
    REQUIRE(QTest::qWaitFor([&] { return !liveShown(window); }, kWaitMs));
    CHECK(shownEvents(window) == eventsIn(10));
    CHECK(window.timeline()->emptyText().isEmpty());
}

TEST_CASE("the window catches up with each block of a trace being written", "[ui][follow]")
{
    catchUpWithEachBlock(false);
}

// The events of the first `bytes` bytes of the eventlog `all`, read as the follower reads a complete
// part: those bytes and a DATA_END. They must be whole blocks: nothing cut short, nothing to warn of.
uint64_t eventsInPart(const std::vector<uint8_t>& all, uint64_t bytes)
{
    CHECK(core::completePrefix(std::span<const uint8_t>(all).first(bytes)).bytes == bytes);
    std::vector<uint8_t> part(all.begin(), all.begin() + std::ptrdiff_t(bytes));
    part.push_back(0xFF);
    part.push_back(0xFF);
    auto trace = core::readTraceFromBytes(std::move(part));
    REQUIRE(trace);
    CHECK_FALSE(trace.value().truncated);
    CHECK(trace.value().warnings.empty());
    return trace.value().eventCount();
}

TEST_CASE("the window follows our runtime's trace while a child process writes it", "[ui][follow]")
{
    // sparkscope-demo, a child process, runs a workload of about a second with a 20 ms flush
    // interval while the window follows its trace (from before the child starts: the file is made
    // empty first, and the runtime truncates it, keeping it the same file). However the updates
    // fall (the machine's load decides how many there are), each one the window showed must be
    // exactly the complete part of the file at its size — whole blocks, no event lost or made up,
    // read as the finished file's first bytes — and the sizes must grow; once the child is done the
    // window shows the whole file, says it is complete, and its metrics are of it.
    const std::filesystem::path demo = std::filesystem::path(SPARKSCOPE_BINARY_DIR) / "app" / "sparkscope-demo";
    if (!std::filesystem::exists(demo)) {
        WARN("NOT RUN: " << demo.string() << " is not built");
        return;
    }
    QTemporaryDir dir;
    REQUIRE(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("running.eventlog"));
    writeBytes(path.toStdString(), {}, 0, 0, std::ios::trunc);

    MainWindow window;
    window.show();
    std::vector<std::pair<uint64_t, uint64_t>> shown; // (complete bytes, events) of each update
    QObject::connect(window.follower(), &TraceFollower::updated, &window,
        [&shown](std::shared_ptr<const TraceData> data, bool, const QStringList&) {
            shown.emplace_back(data->trace->fileSize, data->eventCount());
        });
    window.followTrace(path);
    REQUIRE(liveShown(window));

    QProcess child;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("SPARKSCOPE_TRACE_FLUSH_MS"), QStringLiteral("20"));
    child.setProcessEnvironment(env);
    child.setProgram(QString::fromStdString(demo.string()));
    child.setArguments(
        { QStringLiteral("sumeuler"), QStringLiteral("--n"), QStringLiteral("8000"), QStringLiteral("--chunk"),
            QStringLiteral("20"), QStringLiteral("--engines"), QStringLiteral("2"), QStringLiteral("--trace"), path });
    child.start();
    REQUIRE(child.waitForStarted(kWaitMs));
    REQUIRE(QTest::qWaitFor([&] { return child.state() == QProcess::NotRunning; }, 4 * kWaitMs));
    CAPTURE(child.readAllStandardError().toStdString());
    REQUIRE(child.exitStatus() == QProcess::NormalExit);
    REQUIRE(child.exitCode() == 0);
    REQUIRE(QTest::qWaitFor([&] { return !liveShown(window); }, kWaitMs));

    std::ifstream in(path.toStdString(), std::ios::binary);
    const std::vector<uint8_t> all { std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>() };
    auto whole = core::readTraceFromBytes(std::vector<uint8_t>(all));
    REQUIRE(whole);
    REQUIRE(whole.value().warnings.empty());
    CHECK(window.message().contains(QStringLiteral("running.eventlog is complete")));
    CHECK(shownEvents(window) == whole.value().eventCount());
    REQUIRE(!shown.empty());
    INFO(shown.size() << " updates");
    size_t whileWritten = 0;
    for (size_t i = 0; i < shown.size(); ++i) {
        CAPTURE(i, shown[i].first, shown[i].second);
        if (i > 0)
            CHECK(shown[i].first > shown[i - 1].first);
        if (shown[i].first < all.size()) { // (the last one, complete, holds DATA_END)
            CHECK(shown[i].second == eventsInPart(all, shown[i].first));
            ++whileWritten;
        }
    }
    if (whileWritten == 0) // (a machine so busy that the child finished before the first look)
        WARN("NOT CHECKED: the window saw the trace only once it was complete");
    CHECK(shown.back().second == whole.value().eventCount());
    REQUIRE(QTest::qWaitFor([&] { return metricsCaughtUp(window); }, kWaitMs));
    CHECK(window.metrics()->session()->full()->metrics.trace.eventCount == whole.value().eventCount());
}

TEST_CASE("a trace being written that is big enough to stream is followed streamed", "[ui][follow][stream]")
{
    StreamAll env;
    catchUpWithEachBlock(true);
}

// The size from which a followed trace is streamed (SPARKSCOPE_FOLLOW_STREAM_BYTES) is below the
// one from which a trace is opened streamed, and never above it.
TEST_CASE(
    "a followed trace is streamed from the follow size, below the size an open streams from", "[ui][follow][stream]")
{
    {
        const test::ScopedEnv open("SPARKSCOPE_STREAM_BYTES", nullptr),
            follow("SPARKSCOPE_FOLLOW_STREAM_BYTES", nullptr);
        CHECK(followStreamThresholdBytes() == uint64_t(64) << 20);
        CHECK(streamThresholdBytes() == uint64_t(1) << 30);
    }
    {
        const test::ScopedEnv open("SPARKSCOPE_STREAM_BYTES", "1000"),
            follow("SPARKSCOPE_FOLLOW_STREAM_BYTES", nullptr);
        CHECK(followStreamThresholdBytes() == 1000); // never above what an open streams from
    }
    // A value that is not a whole number of bytes is ignored (read as 0 it would stream every file),
    // with one warning per name and value however often it is read. The warnings are counted on the
    // same values with a tag made new for this run after them, so that one given earlier in the
    // process for the same text cannot take one away.
    static QString tag;
    tag = QUuid::createUuid().toString(QUuid::WithoutBraces);
    static int warnings = 0;
    warnings = 0;
    const QtMessageHandler before = qInstallMessageHandler(
        [](QtMsgType type, const QMessageLogContext&, const QString& m) {
            if (type == QtWarningMsg && m.contains(QStringLiteral("is not a whole number of bytes")) && m.contains(tag))
                ++warnings;
        });
    for (const char* badText : { "64M", "abc", "-1", "12 ", "1e9" }) {
        for (const std::string& bad : { std::string(badText), std::string(badText) + " " + tag.toStdString() }) {
            INFO(bad);
            const test::ScopedEnv open("SPARKSCOPE_STREAM_BYTES", bad.c_str()),
                follow("SPARKSCOPE_FOLLOW_STREAM_BYTES", bad.c_str());
            CHECK(streamThresholdBytes() == uint64_t(1) << 30);
            CHECK(followStreamThresholdBytes() == uint64_t(64) << 20);
            CHECK(followStreamThresholdBytes() == uint64_t(64) << 20);
        }
    }
    qInstallMessageHandler(before);
    CHECK(warnings == 10); // five tagged values, two names

    const test::ScopedEnv open("SPARKSCOPE_STREAM_BYTES", nullptr), follow("SPARKSCOPE_FOLLOW_STREAM_BYTES", "0");
    CHECK(followStreamThresholdBytes() == 0);
    Followed followed("growing.eventlog", 1);
    MainWindow& window = followed.window;
    const std::string& path = followed.path;
    const BlockFile& f = followed.f;
    CHECK(window.timeline()->data()->isStreamed()); // followed streamed, though an open would read it whole
    writeBytes(path, f.bytes, f.cuts[1], f.cuts[4]);
    REQUIRE(QTest::qWaitFor([&] { return shownEvents(window) == eventsIn(4); }, kWaitMs));
    CHECK(window.message().isEmpty());
    // Complete: small enough to open whole, so the message says how to get what streaming left out.
    writeBytes(path, f.bytes, f.cuts[4], f.bytes.size());
    REQUIRE(QTest::qWaitFor([&] { return !liveShown(window); }, kWaitMs));
    CHECK(shownEvents(window) == eventsIn(10));
    CHECK(window.message().contains(QStringLiteral("is complete")));
    CHECK(window.message().contains(QStringLiteral("open it again")));
}

// A trace read whole while small is streamed once it reaches the follow size, and the window says so.
TEST_CASE("a followed trace that reaches the follow size goes on streamed, with a message", "[ui][follow][stream]")
{
    const std::string at = std::to_string(tenBlocks().cuts[3]);
    const test::ScopedEnv open("SPARKSCOPE_STREAM_BYTES", nullptr),
        follow("SPARKSCOPE_FOLLOW_STREAM_BYTES", at.c_str());
    Followed followed("growing.eventlog", 1);
    MainWindow& window = followed.window;
    const std::string& path = followed.path;
    const BlockFile& f = followed.f;
    writeBytes(path, f.bytes, f.cuts[1], f.cuts[2]);
    REQUIRE(QTest::qWaitFor([&] { return shownEvents(window) == eventsIn(2); }, kWaitMs));
    CHECK_FALSE(window.timeline()->data()->isStreamed());
    CHECK(window.message().isEmpty());
    writeBytes(path, f.bytes, f.cuts[2], f.cuts[4]); // past the follow size
    REQUIRE(QTest::qWaitFor([&] { return shownEvents(window) == eventsIn(4); }, kWaitMs));
    CHECK(window.timeline()->data()->isStreamed());
    CHECK(window.message().contains(QStringLiteral("followed streamed from now on")));
    CHECK(liveShown(window));
}

namespace {

void stopAtDamagedBlock()
{
    Followed followed("damaged.eventlog", 2);
    MainWindow& window = followed.window;
    const std::string& path = followed.path;
    const BlockFile& f = followed.f;
    // Block 2 with its first event's type changed to an undeclared number (0x7777), then block 3.
    std::vector<uint8_t> bad(f.bytes.begin() + long(f.cuts[2]), f.bytes.begin() + long(f.cuts[4]));
    bad[24] = 0x77;
    bad[25] = 0x77;
    writeBytes(path, bad, 0, bad.size());
    REQUIRE(QTest::qWaitFor([&] { return !window.message().isEmpty(); }, kWaitMs));
    CHECK(window.message().contains(QStringLiteral("damaged")));
    CHECK(window.message().contains(QString::number(f.cuts[2] + 24))); // where: the bad event's byte
    CHECK(shownEvents(window) == eventsIn(2));
    CHECK_FALSE(liveShown(window));
    CHECK_FALSE(window.follower()->isFollowing());
}

} // namespace

TEST_CASE("following stops with a message at a damaged block and keeps what was read", "[ui][follow]")
{
    stopAtDamagedBlock();
}

TEST_CASE("following a streamed trace stops with a message at a damaged block and keeps what was read",
    "[ui][follow][stream]")
{
    StreamAll env;
    stopAtDamagedBlock();
}

TEST_CASE(
    "a followed file's newer parts wait for the metrics in flight, and the newest is read next", "[ui][follow][stream]")
{
    QTemporaryDir dir;
    REQUIRE(dir.isValid());
    const std::string path = dir.filePath(QStringLiteral("parts.eventlog")).toStdString();
    const BlockFile f = tenBlocks();
    writeBytes(path, f.bytes, 0, f.cuts[8], std::ios::trunc);
    MetricsSession session;
    std::vector<size_t> delivered; // the events of each part whose metrics were delivered
    QObject::connect(
        &session, &MetricsSession::fullReady, [&] { delivered.push_back(session.full()->metrics.trace.eventCount); });
    // Three parts in a row, as a follower hands them over while the first is still being computed
    // (its result can only arrive through the event loop, after these calls): the first goes on,
    // the second is dropped for the third, which is read once the first and its analysis are done.
    session.setTraceFile(path, f.cuts[2]);
    session.setTraceFile(path, f.cuts[4]);
    session.setTraceFile(path, f.cuts[6]);
    CHECK(session.isLoading());
    REQUIRE(QTest::qWaitFor([&] { return delivered.size() == 2 && session.analysis(); }, kWaitMs));
    CHECK(delivered == std::vector<size_t> { eventsIn(2), eventsIn(6) });
    CHECK(session.unavailable().isEmpty());
}

TEST_CASE("following stops with a message when the file shrinks or is replaced", "[ui][follow]")
{
    SECTION("shrinks")
    {
        Followed followed("shrinks.eventlog", 3);
        MainWindow& window = followed.window;
        const std::string& path = followed.path;
        const BlockFile& f = followed.f;
        std::filesystem::resize_file(path, f.cuts[1]);
        REQUIRE(QTest::qWaitFor([&] { return !window.message().isEmpty(); }, kWaitMs));
        CHECK(window.message().contains(QStringLiteral("shrank")));
        CHECK(shownEvents(window) == eventsIn(3));
        CHECK_FALSE(liveShown(window));
    }
    SECTION("is replaced")
    {
        Followed followed("replaced.eventlog", 3);
        MainWindow& window = followed.window;
        const std::string& path = followed.path;
        const BlockFile& f = followed.f;
        const std::string other = followed.dir.filePath(QStringLiteral("other.eventlog")).toStdString();
        writeBytes(other, f.bytes, 0, f.cuts[5], std::ios::trunc);
        std::filesystem::rename(other, path);
        REQUIRE(QTest::qWaitFor([&] { return !window.message().isEmpty(); }, kWaitMs));
        CHECK(window.message().contains(QStringLiteral("replaced")));
        CHECK(shownEvents(window) == eventsIn(3));
        CHECK_FALSE(liveShown(window));
    }
}

// A program run again with the same output file writes over it in place: the same file, the same
// header, and it soon passes the old size. Here five blocks are written over the three read, with one
// time of the third changed (as a new run's would be), without ever making the file shorter.
void rewrittenInPlace(bool streamed)
{
    std::optional<StreamAll> streamAll;
    if (streamed)
        streamAll.emplace();
    Followed followed("rewritten.eventlog", 3);
    MainWindow& window = followed.window;
    CHECK(window.timeline()->data()->isStreamed() == streamed);
    std::vector<uint8_t> other = followed.f.bytes;
    other[followed.f.cuts[3] - 5] ^= 0x01; // a byte of block 2's last event
    writeBytes(followed.path, other, 0, followed.f.cuts[5], std::ios::in | std::ios::out);
    REQUIRE(QTest::qWaitFor([&] { return !window.message().isEmpty(); }, kWaitMs));
    CHECK(window.message().contains(QStringLiteral("rewritten")));
    CHECK(shownEvents(window) == eventsIn(3));
    CHECK_FALSE(liveShown(window));
}

TEST_CASE("following stops with a message when the file is rewritten in place", "[ui][follow]")
{
    rewrittenInPlace(false);
}

TEST_CASE("following a streamed trace stops with a message when the file is rewritten in place", "[ui][follow][stream]")
{
    rewrittenInPlace(true);
}

TEST_CASE("following a file that does not exist says so", "[ui][follow]")
{
    QTemporaryDir dir;
    REQUIRE(dir.isValid());
    MainWindow window;
    window.show();
    QSignalSpy failed(&window, &MainWindow::loadFailed); // (--screenshot exits on it, not waiting on)
    window.followTrace(dir.filePath(QStringLiteral("missing.eventlog")));
    REQUIRE(QTest::qWaitFor([&] { return !window.message().isEmpty(); }, kWaitMs));
    CHECK(window.message().contains(QStringLiteral("no such file")));
    REQUIRE(failed.count() == 1);
    CHECK(failed.front().front().toString().contains(QStringLiteral("no such file")));
    CHECK(window.timeline()->emptyText().isEmpty()); // not "Waiting for the first events" of nothing
    CHECK_FALSE(window.message().contains(QStringLiteral("disappeared")));
}

namespace {

// Engine 1 runs ctx 3 from 100 ns to 1 ms, then creates and runs ctx 1, and writes its block; engine 0
// runs ctx 2 from 100 ns to 5 ms. `firstPart`: the bytes up to there. Then engine 1's last block (ctx
// 1 stops at 5 ms) and DATA_END.
std::vector<uint8_t> laggingEngineTrace(size_t& firstPart)
{
    core::EventlogWriter w(core::mercuryHeader());
    w.beginBlock(1, 100);
    REQUIRE(w.event(core::ev::CreateThread, 100, ctx(3)));
    REQUIRE(w.event(core::ev::RunThread, 100, ctx(3)));
    REQUIRE(w.event(core::ev::StopThread, 1'000'000, stop(3, core::kStopFinished)));
    REQUIRE(w.event(core::ev::CreateThread, 1'000'000, ctx(1)));
    REQUIRE(w.event(core::ev::RunThread, 1'000'000, ctx(1)));
    w.endBlock(1'000'000);
    w.beginBlock(0, 100);
    REQUIRE(w.event(core::ev::CreateThread, 100, ctx(2)));
    REQUIRE(w.event(core::ev::RunThread, 100, ctx(2)));
    REQUIRE(w.event(core::ev::StopThread, 5'000'000, stop(2, core::kStopFinished)));
    w.endBlock(5'000'000);
    firstPart = w.size();
    w.beginBlock(1, 5'000'000);
    REQUIRE(w.event(core::ev::StopThread, 5'000'000, stop(1, core::kStopFinished)));
    w.endBlock(5'000'000);
    return w.finish();
}

} // namespace

TEST_CASE("an engine whose events stop well before the rest is named, hatched and left out of the live analysis",
    "[ui][follow]")
{
    // Engine 1 runs ctx 3 from 100 ns to 1 ms, then creates and runs ctx 1, and writes its block;
    // engine 0 runs ctx 2 from 100 ns to 5 ms. Nothing of engine 1 after 1 ms is in the file: it may
    // be running ctx 1 all along. So the indicator names it, its row is hatched from 1 ms, and the
    // metrics and the analysis are of [0, 1 ms), where every engine's events are written. Then
    // engine 1's last block (ctx 1 stops at 5 ms) and DATA_END: the whole trace, nothing hatched.
    size_t firstPart = 0;
    const std::vector<uint8_t> bytes = laggingEngineTrace(firstPart);

    QTemporaryDir dir;
    REQUIRE(dir.isValid());
    const std::string path = dir.filePath(QStringLiteral("lagging.eventlog")).toStdString();
    writeBytes(path, bytes, 0, firstPart, std::ios::trunc);
    MainWindow window;
    window.show();
    window.followTrace(QString::fromStdString(path));
    REQUIRE(QTest::qWaitFor([&] { return shownEvents(window) > 0; }, kWaitMs));
    auto* live = window.findChild<QLabel*>(QStringLiteral("liveIndicator"));
    REQUIRE(live);
    CHECK(liveShown(window));
    CHECK(live->text().contains(QStringLiteral("engine 1: to ") + formatDuration(1'000'000)));
    CHECK_FALSE(live->text().contains(QStringLiteral("engine 0")));
    const auto unwritten = window.timeline()->rows().unwritten;
    REQUIRE(unwritten);
    CHECK(*unwritten == std::vector<int64_t> { INT64_MAX, 1'000'000 });

    MetricsPanels* panels = window.metrics();
    MetricsSession* session = panels->session();
    CHECK(panels->liveHorizon() == std::optional<uint64_t>(1'000'000));
    CHECK((session->viewOptions().fromNs == 0 && session->viewOptions().toNs == 1'000'000));
    REQUIRE(QTest::qWaitFor([&] { return session->analysisFor(0, 1'000'000) != nullptr; }, kWaitMs));
    // Engine 1 ran ctx 3 throughout [100, 1 ms): none of its time there is idle; after 1 ms, counted
    // in the whole range, it would be.
    const auto report = session->analysisFor(0, 1'000'000);
    CHECK(report->analysis.ledger.perEngine.at(1).runningNs() == 1'000'000 - 100);
    REQUIRE(QTest::qWaitFor([&] { return session->view() && session->view()->options.toNs == 1'000'000; }, kWaitMs));
    CHECK(panels->summary()->figure(QStringLiteral("Range")).startsWith(QStringLiteral("live:")));

    WhyPanel* why = window.analysis()->panel();
    REQUIRE(QTest::qWaitFor([&] { return why->report() != nullptr; }, kWaitMs));
    CHECK(why->rangeLabel()->text().contains(QStringLiteral("Live, to")));

    // A selection is shown as selected, live or not; cleared, the live range again.
    window.zoom()->setSelection(TimeWindow { 2'000'000, 3'000'000 });
    REQUIRE(QTest::qWaitFor([&] { return session->viewOptions().fromNs == 2'000'000; }, kWaitMs));
    CHECK(session->viewOptions().toNs == 3'000'000);
    window.zoom()->setSelection(std::nullopt);
    REQUIRE(QTest::qWaitFor([&] { return session->viewOptions().toNs == 1'000'000; }, kWaitMs));

    // The selection stays through the next part (whose metrics start again from scratch).
    window.zoom()->setSelection(TimeWindow { 2'000'000, 3'000'000 });
    REQUIRE(QTest::qWaitFor([&] { return session->viewOptions().fromNs == 2'000'000; }, kWaitMs));
    writeBytes(path, bytes, firstPart, bytes.size());
    REQUIRE(QTest::qWaitFor([&] { return !liveShown(window); }, kWaitMs));
    CHECK_FALSE(window.timeline()->rows().unwritten);
    CHECK_FALSE(panels->liveHorizon());
    CHECK((session->viewOptions().fromNs == 2'000'000 && session->viewOptions().toNs == 3'000'000));
    window.zoom()->setSelection(std::nullopt);
    REQUIRE(QTest::qWaitFor([&] { return session->viewOptions().toNs == UINT64_MAX; }, kWaitMs));
    CHECK(session->viewOptions().fromNs == 0);
    REQUIRE(QTest::qWaitFor([&] { return metricsCaughtUp(window) && session->analysis(); }, kWaitMs));
    CHECK(panels->summary()->figure(QStringLiteral("Range")).startsWith(QStringLiteral("whole trace")));
}

// GHC writes a block's size when it closes it: a file that ends with one never closed (size 0) is
// complete once DATA_END is its last bytes, and the banner that says so names what the reader made
// of that block (only the first part's warnings were shown, when it opened).
TEST_CASE("a followed file that ends complete says what the reader warned of after its first part", "[ui][follow]")
{
    Followed followed("unclosed.eventlog", 2);
    MainWindow& window = followed.window;
    CHECK(window.message().isEmpty());
    std::vector<uint8_t> bytes = followed.f.bytes;
    const size_t marker = followed.f.cuts[5]; // block 5's marker: type (2), time (8), size (4)
    bytes[marker + 10] = bytes[marker + 11] = bytes[marker + 12] = bytes[marker + 13] = 0;
    writeBytes(followed.path, bytes, followed.f.cuts[2], bytes.size());
    REQUIRE(QTest::qWaitFor([&] { return !liveShown(window); }, kWaitMs));
    CHECK(shownEvents(window) == eventsIn(10));
    INFO(window.message().toStdString());
    CHECK(window.message().contains(QStringLiteral("unclosed.eventlog is complete. Warning: ")));
    CHECK(window.message().contains(QStringLiteral("at byte %1").arg(marker)));
}

TEST_CASE("following that stops on bad input keeps the written part, no longer called live", "[ui][follow]")
{
    // laggingEngineTrace's first part: engine 1's events stop at 1 ms, engine 0's at 5 ms, so the docks
    // show [0, 1 ms). Then bytes that are no block: following stops, the range stays, and the Summary and
    // Why docks no longer call it live.
    size_t firstPart = 0;
    const std::vector<uint8_t> bytes = laggingEngineTrace(firstPart);

    QTemporaryDir dir;
    REQUIRE(dir.isValid());
    const std::string path = dir.filePath(QStringLiteral("stopped.eventlog")).toStdString();
    writeBytes(path, bytes, 0, firstPart, std::ios::trunc);
    MainWindow window;
    window.show();
    window.followTrace(QString::fromStdString(path));
    MetricsPanels* panels = window.metrics();
    MetricsSession* session = panels->session();
    WhyPanel* why = window.analysis()->panel();
    REQUIRE(QTest::qWaitFor([&] { return panels->liveHorizon() == std::optional<uint64_t>(1'000'000); }, kWaitMs));
    REQUIRE(QTest::qWaitFor([&] { return session->view() && session->view()->options.toNs == 1'000'000; }, kWaitMs));
    REQUIRE(QTest::qWaitFor([&] { return why->report() != nullptr; }, kWaitMs));
    CHECK(panels->summary()->figure(QStringLiteral("Range")).startsWith(QStringLiteral("live:")));
    CHECK(why->rangeLabel()->text().contains(QStringLiteral("Live, to")));

    const std::vector<uint8_t> junk(64, 0x77); // an event type no header declares, as a block marker
    writeBytes(path, junk, 0, junk.size());
    REQUIRE(QTest::qWaitFor([&] { return !window.follower()->isFollowing(); }, kWaitMs));
    CHECK(window.message().contains(QStringLiteral("damaged")));
    CHECK(panels->liveHorizon() == std::optional<uint64_t>(1'000'000)); // what is known stays
    CHECK(session->viewOptions().toNs == 1'000'000);
    const QString range = panels->summary()->figure(QStringLiteral("Range"));
    INFO(range.toStdString());
    CHECK(range.contains(QStringLiteral("what every engine wrote before following stopped")));
    CHECK_FALSE(range.startsWith(QStringLiteral("live")));
    CHECK(why->rangeLabel()->text().contains(QStringLiteral("before following stopped")));
    CHECK_FALSE(why->rangeLabel()->text().contains(QStringLiteral("Live")));
}
