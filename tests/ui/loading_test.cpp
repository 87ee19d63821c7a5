#include "support/test_data.h"
#include "support/trace_builder.h"
#include "ui/analysis/analysis_view.h"
#include "ui/analysis/why_panel.h"
#include "ui/loading/trace_loader.h"
#include "ui/main_window.h"
#include "ui/panels/metrics_panels.h"
#include "ui/panels/metrics_session.h"
#include "ui/timeline/timeline_widget.h"

#include "sparkscope/core/writer.h"

#include <QLabel>
#include <QSignalSpy>
#include <QTest>
#include <catch2/catch.hpp>

#include <fstream>

using namespace sparkscope;
using namespace sparkscope::ui;

namespace {

std::string writeBytes(const std::string& dir, const std::string& name, const std::vector<uint8_t>& bytes)
{
    const std::string path = test::scratchDir(dir).string() + "/" + name;
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    return path;
}

std::vector<uint8_t> smallEventlog()
{
    core::EventlogWriter w(core::mercuryHeader());
    w.beginBlock(0, 0);
    core::PayloadBuilder run;
    run.u32(1);
    for (uint64_t t = 0; t < 200; ++t)
        w.event(core::ev::RunThread, 10 + t * 100, run.span());
    w.endBlock(20'000);
    return w.finish();
}

} // namespace

TEST_CASE("loading a file that is not an eventlog fails with what and where", "[ui][loading]")
{
    const std::string path = writeBytes("ui-load-bad", "bad.eventlog", { 'n', 'o', 't', ' ', 'a', 'n', ' ', 'e', 'v' });
    auto result = loadTraceData(path);
    REQUIRE_FALSE(result.ok());
    CHECK_FALSE(result.error().message.empty());

    auto missing = loadTraceData(path + ".missing");
    REQUIRE_FALSE(missing.ok());
    CHECK(missing.error().code == core::ErrorCode::Io);
}

TEST_CASE("a truncated eventlog loads with a warning", "[ui][loading]")
{
    std::vector<uint8_t> bytes = smallEventlog();
    bytes.resize(bytes.size() - 500); // cut in the middle of the events
    const std::string path = writeBytes("ui-load-trunc", "cut.eventlog", bytes);
    auto result = loadTraceData(path);
    REQUIRE(result.ok());
    CHECK(result.value()->trace->truncated);
    CHECK_FALSE(traceWarnings(*result.value()).isEmpty());
}

TEST_CASE("the loader reports failures and truncation through the main window's message bar", "[ui][loading]")
{
    MainWindow window;
    QSignalSpy failed(&window, &MainWindow::loadFailed);
    QSignalSpy shown(&window, &MainWindow::traceShown);
    const std::string bad = writeBytes("ui-window-bad", "bad.eventlog", { 1, 2, 3, 4, 5, 6, 7, 8 });
    window.openTrace(QString::fromStdString(bad));
    REQUIRE(failed.wait(10'000));
    CHECK(window.message().contains(QStringLiteral("Could not open")));
    CHECK(window.message().contains(QStringLiteral("bad.eventlog")));

    std::vector<uint8_t> cut = smallEventlog();
    cut.resize(cut.size() - 500);
    window.openTrace(QString::fromStdString(writeBytes("ui-window-cut", "cut.eventlog", cut)));
    REQUIRE(shown.wait(10'000));
    CHECK(window.message().startsWith(QStringLiteral("Warning")));
    // The timeline has the keyboard once a trace is shown: + and the arrows work without a click.
    CHECK(window.focusWidget() == window.timeline());
}

TEST_CASE("the newest load wins", "[ui][loading]")
{
    TraceLoader loader;
    QSignalSpy loaded(&loader, &TraceLoader::loaded);
    QSignalSpy failed(&loader, &TraceLoader::failed);
    const std::string good = writeBytes("ui-newest", "good.eventlog", smallEventlog());
    loader.load(QStringLiteral("/nonexistent/first.eventlog"));
    loader.load(QString::fromStdString(good));
    REQUIRE(loaded.wait(10'000));
    CHECK(loaded.count() == 1);
    CHECK(loaded.at(0).at(1).toString().endsWith(QStringLiteral("good.eventlog")));
    QTest::qWait(200);
    CHECK(failed.count() == 0); // the superseded load's failure was dropped
}

TEST_CASE("the shared GHC eventlog loads and indexes every engine", "[ui][loading]")
{
    auto path = test::sharedTestData("ghc/parfib-12-30.eventlog");
    if (!path)
        return;
    auto result = loadTraceData(path->string());
    REQUIRE(result.ok());
    const TraceData& data = *result.value();
    CHECK(data.engineCount() == 2);
    CHECK(data.trace->eventCount() > 13'000);
    // Every engine's states cover the whole trace exactly.
    std::array<uint64_t, core::LodIndex::kMaxStates> busy {};
    for (size_t e = 0; e < data.engineCount(); ++e) {
        data.lod.busy(e, uint64_t(data.startNs), uint64_t(data.endNs), busy);
        uint64_t total = 0;
        for (unsigned s = 0; s < data.lod.stateCount(); ++s)
            total += busy[s];
        CHECK(total == uint64_t(data.endNs - data.startNs));
    }
}

TEST_CASE("cancelling a load reports it cancelled and delivers no trace", "[ui][loading]")
{
    auto path = test::sharedTestData("ghc/parfib-5-34.eventlog.zst");
    if (!path)
        return;
    TraceLoader loader;
    QSignalSpy loaded(&loader, &TraceLoader::loaded);
    QSignalSpy cancelled(&loader, &TraceLoader::cancelled);
    QSignalSpy failed(&loader, &TraceLoader::failed);
    loader.load(QString::fromStdString(path->string()));
    loader.cancel(); // before the worker has read much of the 15 MB stream
    REQUIRE(cancelled.wait(10'000));
    CHECK(loaded.count() == 0);
    CHECK(failed.count() == 0);
    CHECK_FALSE(loader.isLoading());
}

TEST_CASE("a truncated trace hatches the engines whose events stop early, says so, and shows the analysis' notes",
    "[ui][loading]")
{
    // Engine 1 runs ctx 2 from 0.1 ms and stops at 0.9 ms, its last event; engine 0 runs ctx 1 with a
    // RUN_THREAD every 0.1 ms to 20 ms. The file is cut inside engine 0's last event, so it ends at
    // 19.9 ms. Engine 1's last event is 19 ms before the end, more than 1% of the span and 1 ms: its
    // row is hatched from 0.9 ms; engine 0's is not.
    core::EventlogWriter w(core::mercuryHeader());
    core::PayloadBuilder run1, run2, stop2;
    run1.u32(1);
    run2.u32(2);
    stop2.u32(2).u16(core::kStopYielding).u32(0);
    w.beginBlock(1, 100'000);
    w.event(core::ev::RunThread, 100'000, run2.span());
    w.event(core::ev::StopThread, 900'000, stop2.span());
    w.endBlock(900'000);
    w.beginBlock(0, 0);
    for (uint64_t t = 0; t <= 20'000'000; t += 100'000)
        w.event(core::ev::RunThread, t, run1.span());
    w.endBlock(20'000'000);
    const std::vector<uint8_t> whole = w.finish();
    std::vector<uint8_t> bytes = whole;
    bytes.resize(bytes.size() - 2 - 5); // DATA_END and part of the last RUN_THREAD

    MainWindow window;
    QSignalSpy shown(&window, &MainWindow::traceShown);
    window.openTrace(QString::fromStdString(writeBytes("ui-window-lost", "lost.eventlog", bytes)));
    REQUIRE(shown.wait(10'000));
    CHECK(window.message().contains(QStringLiteral("no events of engine 1 after 900")));
    const auto unwritten = window.timeline()->rows().unwritten;
    REQUIRE(unwritten);
    CHECK(*unwritten == std::vector<int64_t> { INT64_MAX, 900'000 });
    // The Why dock lists what `analyze` notes, the truncation among them.
    WhyPanel* why = window.analysis()->panel();
    REQUIRE(QTest::qWaitFor([&] { return why->report() != nullptr; }, 30'000));
    CHECK(why->notes()->isVisibleTo(why));
    CHECK(why->notes()->text().contains(QStringLiteral("the trace is truncated")));

    // A whole trace has neither.
    window.openTrace(QString::fromStdString(writeBytes("ui-window-whole", "whole.eventlog", whole)));
    REQUIRE(shown.wait(10'000));
    CHECK_FALSE(window.timeline()->rows().unwritten);
}

TEST_CASE("a trace that contradicts itself opens with the first contradiction in the message bar", "[ui][loading]")
{
    // Context 1 on engine 0 runs [0, 1000): a conjunction 0xA that starts and ends at 100 and 300, and
    // an END_PAR_CONJ for dyn id 0xB at 500 that nothing started. One problem, at 500 on engine 0.
    test::TraceBuilder b(1);
    b.internString(0, 1, "a.m:1").createThread(0, 0, 1).runThread(0, 0, 1);
    b.startParConj(0, 100, 0xA, 1).endParConjunct(0, 300, 0xA).endParConj(0, 300, 0xA);
    b.endParConj(0, 500, 0xB).stopThread(0, 1000, 1, core::kStopFinished).endAt(1000);
    MainWindow window;
    QSignalSpy shown(&window, &MainWindow::traceShown);
    window.openTrace(QString::fromStdString(writeBytes("ui-window-contradicts", "bad.eventlog", b.eventlogBytes())));
    REQUIRE(shown.wait(10'000));
    CHECK(window.message().isEmpty()); // it reads without a warning
    REQUIRE(QTest::qWaitFor([&] { return window.metrics()->session()->full() != nullptr; }, 30'000));
    QTest::qWait(0); // the window hears of the metrics after the session's own slot
    const QString message = window.message();
    CHECK(message.contains(QStringLiteral("contradicts itself in 1 place, the first at 500 ns on engine 0")));
    CHECK(message.contains(QStringLiteral("END_PAR_CONJ for dyn id 0xb without a START_PAR_CONJ")));

    // The same program without the stray END_PAR_CONJ: no warning.
    test::TraceBuilder good(1);
    good.internString(0, 1, "a.m:1").createThread(0, 0, 1).runThread(0, 0, 1);
    good.startParConj(0, 100, 0xA, 1).endParConjunct(0, 300, 0xA).endParConj(0, 300, 0xA);
    good.stopThread(0, 1000, 1, core::kStopFinished).endAt(1000);
    window.openTrace(QString::fromStdString(writeBytes("ui-window-consistent", "good.eventlog", good.eventlogBytes())));
    REQUIRE(shown.wait(10'000));
    REQUIRE(QTest::qWaitFor([&] { return window.metrics()->session()->full() != nullptr; }, 30'000));
    QTest::qWait(0);
    CHECK_FALSE(window.message().contains(QStringLiteral("contradicts itself")));
}

TEST_CASE("a file whose format check finds problems opens with them in the message bar", "[ui][loading]")
{
    // Engines 0 and 1 are assigned to the capset; engine 2 posts events without being named (a
    // damaged block marker's engine number would do this): it is shown, idle, and the bar says why.
    auto assign = [](uint16_t c) { return std::vector<uint8_t> { 0, 0, 0, 0, uint8_t(c >> 8), uint8_t(c & 0xFF) }; };
    auto build = [&](bool named) {
        test::TraceBuilder b(3);
        b.event(core::kNoEngine, 0, core::ev::CapsetAssignCap, assign(0))
            .event(core::kNoEngine, 0, core::ev::CapsetAssignCap, assign(1));
        if (named)
            b.event(core::kNoEngine, 0, core::ev::CapsetAssignCap, assign(2));
        b.createThread(0, 0, 1).runThread(0, 10, 1).stopThread(0, 500, 1, core::kStopFinished);
        b.createThread(1, 0, 2).runThread(1, 20, 2).stopThread(1, 500, 2, core::kStopFinished);
        b.createThread(2, 0, 3).runThread(2, 30, 3).stopThread(2, 500, 3, core::kStopFinished).endAt(1000);
        return b.eventlogBytes();
    };
    MainWindow window;
    QSignalSpy shown(&window, &MainWindow::traceShown);
    window.openTrace(QString::fromStdString(writeBytes("ui-window-unnamed", "unnamed.eventlog", build(false))));
    REQUIRE(shown.wait(10'000));
    CHECK(window.message().contains(QStringLiteral("opened with problems")));
    CHECK(window.message().contains(QStringLiteral("engine 2 posts events, but no CAP_CREATE or CAPSET_ASSIGN_CAP names it")));
    CHECK(window.message().count(QStringLiteral("posts events")) == 1); // engines 0 and 1 are named

    window.openTrace(QString::fromStdString(writeBytes("ui-window-named", "named.eventlog", build(true))));
    REQUIRE(shown.wait(10'000));
    CHECK_FALSE(window.message().contains(QStringLiteral("posts events")));
}

TEST_CASE("a message bar names the first three warnings and counts the rest", "[ui][loading]")
{
    CHECK(joinWarnings({}).isEmpty());
    CHECK(joinWarnings({ QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c") }) == QStringLiteral("a; b; c"));
    CHECK(joinWarnings({ QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c"), QStringLiteral("d"),
              QStringLiteral("e") })
        == QStringLiteral("a; b; c; and 2 more (sparkscope-cli check lists them)"));
}
