// The analysis in the app: the MetricsSession analyses the trace in the background after its
// metrics (whole trace, then a selection's range from the same session), and File > Export Metrics
// writes, once that analysis is ready, byte for byte the file `sparkscope-cli metrics` writes for the
// same range (core::computeMetricsFile) — analysis section and findings included.
#include "panels_test_trace.h"

#include "sparkscope/core/metrics_export.h"
#include "sparkscope/core/reader.h"
#include "sparkscope/core/writer.h"
#include "support/test_data.h"
#include "ui/main_window.h"
#include "ui/panels/metrics_panels.h"
#include "ui/panels/metrics_session.h"

#include <catch2/catch.hpp>

#include <QFile>
#include <QSignalSpy>
#include <QTest>
#include <QThreadPool>

using namespace sparkscope;
using namespace sparkscope::ui;

namespace {

std::string readFile(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return f.readAll().toStdString();
}

} // namespace

TEST_CASE("the metrics session analyses the whole trace and a selection in the background", "[ui][panels][findings]")
{
    auto trace = std::make_shared<const core::Trace>(test::panelsTraceBuilder().roundTrip());
    MetricsSession session;
    QSignalSpy analysed(&session, &MetricsSession::analysisReady);
    session.setTrace(trace);
    CHECK(session.analysisFor(0, UINT64_MAX) == nullptr); // not before it is computed
    REQUIRE(QTest::qWaitFor([&] { return session.analysisFor(0, UINT64_MAX) != nullptr; }, 20000));
    REQUIRE(session.analysis());
    REQUIRE(session.full());
    // The whole trace's analysis is the CLI's: the file from the session's metrics and analysis is
    // the file computeMetricsFile gives.
    const core::MetricsFile cli = core::computeMetricsFile(*trace);
    CHECK(core::formatMetrics(
              session.full()->metrics, core::MetricsFormat::Json, session.analysisFor(0, UINT64_MAX).get())
        == core::formatMetricsFile(cli, core::MetricsFormat::Json));

    // A selection: its analysis comes from the same session, with the view's metrics.
    CHECK(session.analysisFor(100, 600) == nullptr);
    session.setRange(std::pair<uint64_t, uint64_t>(100, 600));
    REQUIRE(QTest::qWaitFor([&] { return session.analysisFor(100, 600) != nullptr; }, 20000));
    core::MetricsOptions range;
    range.fromNs = 100;
    range.toNs = 600;
    CHECK(core::formatMetrics(*session.view(), core::MetricsFormat::Csv, session.analysisFor(100, 600).get())
        == core::formatMetricsFile(core::computeMetricsFile(*trace, range), core::MetricsFormat::Csv));
    CHECK(session.analysisFor(0, UINT64_MAX) != nullptr); // the whole trace's stays
    CHECK(session.analysisFor(100, 700) == nullptr);
    CHECK(!analysed.isEmpty());
}

TEST_CASE("a range set when a view is delivered is analysed once, from its own metrics", "[ui][panels][findings]")
{
    // As a waiting export does (MetricsPanels::finishExport on viewReady): the view of [100, 600) is
    // delivered, and a listener sets [200, 900) at once. Only that newer view's analysis may come
    // (one analysisReady), and it is the CLI's for its range; the first view's range must not start
    // an analysis of its own metrics under the newer range.
    auto trace = std::make_shared<const core::Trace>(test::panelsTraceBuilder().roundTrip());
    MetricsSession session;
    session.setTrace(trace);
    REQUIRE(QTest::qWaitFor([&] { return session.analysisFor(0, UINT64_MAX) != nullptr; }, 20000));
    bool moved = false;
    QObject::connect(&session, &MetricsSession::viewReady, &session, [&] {
        if (!moved && session.viewOptions().fromNs == 100) {
            moved = true;
            session.setRange(std::pair<uint64_t, uint64_t>(200, 900));
        }
    });
    QSignalSpy analysed(&session, &MetricsSession::analysisReady);
    session.setRange(std::pair<uint64_t, uint64_t>(100, 600));
    REQUIRE(QTest::qWaitFor([&] { return session.analysisFor(200, 900) != nullptr; }, 20000));
    // Every job done and delivered: nothing else arrives.
    QThreadPool::globalInstance()->waitForDone();
    QTest::qWait(50);
    CHECK(moved);
    CHECK(analysed.count() == 1);
    core::MetricsOptions range;
    range.fromNs = 200;
    range.toNs = 900;
    REQUIRE(session.analysisFor(200, 900));
    CHECK(core::formatMetrics(*session.view(), core::MetricsFormat::Json, session.analysisFor(200, 900).get())
        == core::formatMetricsFile(core::computeMetricsFile(*trace, range), core::MetricsFormat::Json));
}

TEST_CASE("File > Export Metrics waits for the analysis and writes what the CLI writes", "[ui][panels][findings]")
{
    const QString dir = QString::fromStdString(test::scratchDir("panels-analysis").string());
    const QString path = dir + QStringLiteral("/hand.eventlog");
    REQUIRE(core::writeFile(path.toStdString(), core::writeTrace(test::panelsTraceBuilder().roundTrip())));
    auto trace = core::readTrace(path.toStdString());
    REQUIRE(trace);

    MainWindow window;
    window.resize(1200, 800);
    window.show();
    auto* panels = window.findChild<MetricsPanels*>();
    REQUIRE(panels);
    QSignalSpy shown(&window, &MainWindow::traceShown);
    window.openTrace(path);
    // File > Export Metrics is there once a trace is shown (the load runs in the background).
    REQUIRE(QTest::qWaitFor([&] { return shown.count() == 1; }, 20000));
    // Asked for at once: the export waits for the session's analysis, then writes.
    MetricsExportRequest whole { dir + QStringLiteral("/whole.json"), {}, core::MetricsFormat::Json };
    panels->exportMetrics(whole);
    REQUIRE(QTest::qWaitFor([&] { return QFile::exists(whole.path); }, 20000));
    CHECK(readFile(whole.path)
        == core::formatMetricsFile(core::computeMetricsFile(trace.value()), core::MetricsFormat::Json));

    // A range that is not the view's yet: the session is set to it, and the file follows.
    MetricsExportRequest part { dir + QStringLiteral("/part.csv"), {}, core::MetricsFormat::Csv };
    part.options.fromNs = 100;
    part.options.toNs = 600;
    part.options.callCount = 7;
    panels->exportMetrics(part);
    REQUIRE(QTest::qWaitFor([&] { return QFile::exists(part.path); }, 20000));
    CHECK(readFile(part.path)
        == core::formatMetricsFile(core::computeMetricsFile(trace.value(), part.options), core::MetricsFormat::Csv));
}
