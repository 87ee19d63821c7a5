// The metrics and analysis of a streamed trace (MetricsPanels::showStreamed): computed in the
// background from a compact read of its file, they are exactly the CLI's; the read is let go once the
// analysis session is built, and a selection reads the file again; a trace whose metrics would not fit
// beside the timeline gets a statement of how much they would take instead.
#include "panels_test_trace.h"
#include "support/scoped_env.h"
#include "support/test_data.h"
#include "ui/loading/streamed_events.h"
#include "ui/loading/trace_data.h"
#include "ui/main_window.h"
#include "ui/panels/metrics_panels.h"
#include "ui/panels/metrics_session.h"
#include "ui/timeline/timeline_widget.h"

#include "sparkscope/core/metrics_export.h"
#include "sparkscope/core/reader.h"
#include "sparkscope/core/writer.h"

#include <QFile>
#include <QLocale>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTest>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

using namespace sparkscope;
using namespace sparkscope::ui;

namespace {

// How long a wait for a background job may take before the test gives up: long, since a loaded CI
// machine (the suite runs two tests at once on two cores) once took more than the 30 s it was.
constexpr int kWaitMs = 120000;

// Shows `window` with `path` opened by streaming; returns its metrics session.
MetricsSession* openStreamed(MainWindow& window, const QString& path)
{
    window.resize(1400, 900);
    window.show();
    auto* panels = window.findChild<MetricsPanels*>();
    REQUIRE(panels);
    {
        // Streams every file while this one loads (later tests must not stream).
        const test::ScopedEnv env("SPARKSCOPE_STREAM_BYTES", "0");
        QSignalSpy shown(&window, &MainWindow::traceShown);
        window.openTrace(path);
        REQUIRE(shown.wait(kWaitMs));
    }
    REQUIRE(window.timeline()->data());
    REQUIRE(window.timeline()->data()->isStreamed());
    return panels->session();
}

// Selects [fromNs, toNs) in the window's timeline, as a person does. The panels pass a selection to
// the session after a debounce, the one opening the trace too: a range set on the session directly
// could be replaced by that pending "no selection" when its view is slower than the debounce.
void select(MainWindow& window, int64_t fromNs, int64_t toNs)
{
    window.zoom()->setSelection(TimeWindow { fromNs, toNs });
}

// Selects [100, 600) in `window` and waits for its metrics and analysis: the CLI's for that range of
// `trace` (the same file read whole), byte for byte. Returns the selection's metrics.
std::shared_ptr<const core::Metrics> selectAsTheCli(MainWindow& window, const core::Trace& trace)
{
    MetricsSession* session = window.findChild<MetricsPanels*>()->session();
    core::MetricsOptions range;
    range.fromNs = 100;
    range.toNs = 600;
    select(window, int64_t(range.fromNs), int64_t(range.toNs));
    REQUIRE(QTest::qWaitFor([&] { return session->analysisFor(100, 600) != nullptr; }, kWaitMs));
    const auto metrics = session->metricsFor(range);
    REQUIRE(metrics);
    CHECK(core::formatMetrics(*metrics, core::MetricsFormat::Json, session->analysisFor(100, 600).get())
        == core::formatMetricsFile(core::computeMetricsFile(trace, range), core::MetricsFormat::Json));
    return metrics;
}

} // namespace

TEST_CASE("a streamed trace's metrics and analysis come from a compact read, as the CLI's", "[ui][stream][panels]")
{
    const auto path = test::sharedTestData("ghc/parfib-12-30.eventlog");
    if (!path)
        return;
    MainWindow window;
    MetricsSession* session = openStreamed(window, QString::fromStdString(path->string()));
    REQUIRE(QTest::qWaitFor([&] { return session->analysisFor(0, UINT64_MAX) != nullptr; }, 60000));
    CHECK(session->unavailable().isEmpty());
    CHECK(session->hasTrace());

    auto trace = core::readTrace(path->string());
    REQUIRE(trace);
    CHECK(core::formatMetrics(
              session->full()->metrics, core::MetricsFormat::Json, session->analysisFor(0, UINT64_MAX).get())
        == core::formatMetricsFile(core::computeMetricsFile(trace.value()), core::MetricsFormat::Json));
    // The analysis reaches the timeline too: its utilisation row.
    REQUIRE(QTest::qWaitFor([&] { return window.timeline()->rows().ledger != nullptr; }, kWaitMs));
}

TEST_CASE(
    "a streamed trace too big for its metrics beside the timeline says what they would take", "[ui][stream][panels]")
{
    MainWindow window;
    auto* panels = window.findChild<MetricsPanels*>();
    REQUIRE(panels);
    // 100 M events none of which can be a mark: about 165 bytes each, 16.5 GB (compactMetricsBytes).
    TraceData data;
    data.trace = std::make_shared<const core::Trace>();
    data.streamed = std::make_shared<const StreamedEvents>(
        "big.eventlog", core::Header {}, std::vector<std::vector<core::BlockExtent>> {}, 100'000'000, 0);
    QSignalSpy unavailable(panels->session(), &MetricsSession::unavailableSet);
    panels->showStreamed(data);
    CHECK(unavailable.size() == 1);
    const QString why = panels->session()->unavailable();
    CHECK(why.contains(QLocale().toString(qulonglong(100'000'000)) + QStringLiteral(" events")));
    CHECK(why.contains(QLocale().formattedDataSize(qint64(16'500'000'000))));
    CHECK(why.contains(QStringLiteral("sparkscope-cli metrics and analyze")));
    CHECK(why.contains(QStringLiteral("File ▸ Export Range as Eventlog"))); // the way to a part's metrics
    CHECK_FALSE(panels->session()->hasTrace());
}

TEST_CASE(
    "a streamed trace's selection reads the file again, and a file changed since is refused", "[ui][stream][panels]")
{
    const QString dir = QString::fromStdString(test::scratchDir("streamed-selection").string());
    const QString path = dir + QStringLiteral("/hand.eventlog");
    REQUIRE(core::writeFile(path.toStdString(), core::writeTrace(test::panelsTraceBuilder().roundTrip())));
    auto trace = core::readTrace(path.toStdString());
    REQUIRE(trace);

    MainWindow window;
    MetricsSession* session = openStreamed(window, path);
    auto* panels = window.findChild<MetricsPanels*>();
    REQUIRE(QTest::qWaitFor([&] { return session->analysisFor(0, UINT64_MAX) != nullptr; }, 60000));

    // A selection's metrics and analysis, from the file read again: the CLI's for that range.
    INFO("step: the selection [100, 600)");
    selectAsTheCli(window, trace.value());
    // The export of another range with a call count writes the CLI's file for it.
    MetricsExportRequest part { dir + QStringLiteral("/part.json"), {}, core::MetricsFormat::Json };
    part.options.fromNs = 200;
    part.options.toNs = 900;
    part.options.callCount = 3;
    panels->exportMetrics(part);
    INFO("step: the export of [200, 900) with a call count");
    REQUIRE(QTest::qWaitFor([&] { return QFile::exists(part.path); }, kWaitMs));
    QFile written(part.path);
    REQUIRE(written.open(QIODevice::ReadOnly));
    CHECK(written.readAll().toStdString()
        == core::formatMetricsFile(core::computeMetricsFile(trace.value(), part.options), core::MetricsFormat::Json));

    // The file replaced by another trace: the model the view would borrow is not its, so the
    // selection is refused with a message, and the whole trace's metrics and analysis stay.
    // (Written beside it and renamed over it, as a writer replaces a file; the viewer's mapping keeps
    // the old one.)
    test::TraceBuilder other = test::panelsTraceBuilder();
    other.createThread(0, 5, 3).createThread(1, 6, 4);
    const std::string next = path.toStdString() + ".next";
    REQUIRE(core::writeFile(next, core::writeTrace(other.roundTrip())));
    std::filesystem::rename(next, path.toStdString());
    QSignalSpy failed(session, &MetricsSession::viewFailed);
    select(window, 300, 700);
    INFO("step: the selection of the replaced file (viewFailed so far: " << failed.size() << ")");
    REQUIRE((failed.size() > 0 || failed.wait(kWaitMs)));
    const QString why = failed.last().at(0).toString();
    CHECK(why.contains(QStringLiteral("the file was replaced since its metrics were computed")));
    CHECK(session->analysisFor(0, UINT64_MAX) != nullptr);
    REQUIRE(session->full());
    CHECK(session->viewOptions().fromNs == 0);
    CHECK(session->viewOptions().toNs == UINT64_MAX);
    CHECK(failed.size() == 1);

    // An export that needs a view (the whole trace with a call count) is given up at once, with the
    // reason, and the file is not read again and again.
    MetricsExportRequest counted { dir + QStringLiteral("/counted.json"), {}, core::MetricsFormat::Json };
    counted.options.callCount = 5;
    panels->exportMetrics(counted);
    CHECK(failed.size() == 2);
    CHECK(window.statusBar()->currentMessage().startsWith(QStringLiteral("Metrics not exported.")));
    QTest::qWait(200);
    CHECK(failed.size() == 2);
    CHECK_FALSE(QFile::exists(counted.path));
    // The whole trace without a call count needs no view: it is written.
    MetricsExportRequest whole { dir + QStringLiteral("/whole.json"), {}, core::MetricsFormat::Json };
    panels->exportMetrics(whole);
    INFO("step: the export of the whole trace");
    REQUIRE(QTest::qWaitFor([&] { return QFile::exists(whole.path); }, kWaitMs));
}

TEST_CASE(
    "a streamed trace without its end marker: a selection's metrics still say it is truncated", "[ui][stream][panels]")
{
    // A run killed before it wrote DATA_END: whole blocks, no end. A view reads the file as the first
    // read did, to its end, so the truncation warning stays in the selection's metrics as in the CLI's
    // (read up to a given end, a stream counts as finished).
    const QString dir = QString::fromStdString(test::scratchDir("streamed-truncated").string());
    const QString path = dir + QStringLiteral("/cut.eventlog");
    std::vector<uint8_t> bytes = core::writeTrace(test::panelsTraceBuilder().roundTrip());
    REQUIRE(bytes.size() > 2);
    REQUIRE((bytes[bytes.size() - 2] == 0xFF && bytes.back() == 0xFF)); // DATA_END
    bytes.resize(bytes.size() - 2);
    REQUIRE(core::writeFile(path.toStdString(), bytes));
    auto trace = core::readTrace(path.toStdString());
    REQUIRE(trace);
    REQUIRE(trace->truncated);

    MainWindow window;
    MetricsSession* session = openStreamed(window, path);
    REQUIRE(QTest::qWaitFor([&] { return session->analysisFor(0, UINT64_MAX) != nullptr; }, 60000));
    CHECK_FALSE(selectAsTheCli(window, trace.value())->trace.warnings.empty());
}

TEST_CASE(
    "a streamed trace's file rewritten in place or cut shorter: its selections are refused", "[ui][stream][panels]")
{
    const QString dir = QString::fromStdString(test::scratchDir("streamed-rewritten").string());
    const QString path = dir + QStringLiteral("/hand.eventlog");
    const std::vector<uint8_t> bytes = core::writeTrace(test::panelsTraceBuilder().roundTrip());
    REQUIRE(core::writeFile(path.toStdString(), bytes));
    auto trace = core::readTrace(path.toStdString());
    REQUIRE(trace);

    MainWindow window;
    MetricsSession* session = openStreamed(window, path);
    REQUIRE(QTest::qWaitFor([&] { return session->analysisFor(0, UINT64_MAX) != nullptr; }, 60000));
    selectAsTheCli(window, trace.value());
    QSignalSpy failed(session, &MetricsSession::viewFailed);

    SECTION("rewritten in place, same inode, size, events and span")
    {
        // One letter of an event type's description in the header: the events read the same, so
        // only the bytes themselves tell this file from the one the metrics came from.
        const std::string text = "Run context";
        const auto at = std::search(bytes.begin(), bytes.end(), text.begin(), text.end());
        REQUIRE(at != bytes.end());
        {
            std::fstream file(path.toStdString(), std::ios::binary | std::ios::in | std::ios::out);
            REQUIRE(file);
            file.seekp(std::streamoff(at - bytes.begin()));
            file.put('r');
        }
        auto reread = core::readTrace(path.toStdString());
        REQUIRE(reread);
        REQUIRE(reread->eventCount() == trace->eventCount());
        REQUIRE(reread->lastTimeNs == trace->lastTimeNs);
        select(window, 300, 700);
        REQUIRE(failed.wait(kWaitMs));
        CHECK(failed.last().at(0).toString().contains(QStringLiteral("the file was rewritten since")));
    }
    SECTION("cut shorter")
    {
        std::filesystem::resize_file(path.toStdString(), bytes.size() / 2);
        select(window, 300, 700);
        REQUIRE(failed.wait(kWaitMs));
        CHECK(failed.last().at(0).toString().contains(QStringLiteral("the file is shorter than when")));
    }
    // Either way the whole trace's figures stay, and the next selection is refused (once: no view
    // job reads the file again and fails again).
    CHECK(session->analysisFor(0, UINT64_MAX) != nullptr);
    CHECK(session->viewOptions().fromNs == 0);
    select(window, 100, 600);
    REQUIRE((failed.size() == 2 || failed.wait(kWaitMs)));
    QTest::qWait(200);
    CHECK(failed.size() == 2);
    CHECK(session->viewOptions().fromNs == 0);
}
