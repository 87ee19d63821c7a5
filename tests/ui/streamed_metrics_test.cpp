// The metrics and analysis of a streamed trace (MetricsPanels::showStreamed): computed in the
// background from a compact read of its file, they are exactly the CLI's; a trace whose metrics would
// not fit beside the timeline gets a statement of how much they would take instead.
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

#include <QLocale>
#include <QSignalSpy>
#include <QTest>

#include <catch2/catch.hpp>

#include <cstdlib>

using namespace sparkscope;
using namespace sparkscope::ui;

TEST_CASE("a streamed trace's metrics and analysis come from a compact read, as the CLI's", "[ui][stream][panels]")
{
    const auto path = test::sharedTestData("ghc/parfib-12-30.eventlog");
    if (!path)
        return;
    MainWindow window;
    window.resize(1400, 900);
    window.show();
    auto* panels = window.findChild<MetricsPanels*>();
    REQUIRE(panels);
    MetricsSession* session = panels->session();
    {
        // Streams every file while this one loads (later tests must not stream).
        const test::ScopedEnv env("SPARKSCOPE_STREAM_BYTES", "0");
        QSignalSpy shown(&window, &MainWindow::traceShown);
        window.openTrace(QString::fromStdString(path->string()));
        REQUIRE(shown.wait(30000));
    }
    REQUIRE(window.timeline()->data());
    REQUIRE(window.timeline()->data()->isStreamed());
    REQUIRE(QTest::qWaitFor([&] { return session->analysisFor(0, UINT64_MAX) != nullptr; }, 60000));
    CHECK(session->unavailable().isEmpty());
    REQUIRE(session->trace());
    CHECK(session->trace()->hasMarks()); // GHC's spark events, held as marks

    auto trace = core::readTrace(path->string());
    REQUIRE(trace);
    CHECK(core::formatMetrics(session->full()->metrics, core::MetricsFormat::Json, session->analysisFor(0, UINT64_MAX).get())
        == core::formatMetricsFile(core::computeMetricsFile(trace.value()), core::MetricsFormat::Json));
    // The analysis reaches the timeline too: its utilisation row.
    REQUIRE(QTest::qWaitFor([&] { return window.timeline()->rows().ledger != nullptr; }, 30000));
}

TEST_CASE("a streamed trace too big for its metrics beside the timeline says what they would take", "[ui][stream][panels]")
{
    MainWindow window;
    auto* panels = window.findChild<MetricsPanels*>();
    REQUIRE(panels);
    // 100 M events none of which can be a mark: about 165 bytes each, 16.5 GB (compactMetricsBytes).
    TraceData data;
    data.trace = std::make_shared<const core::Trace>();
    data.streamed = std::make_shared<const StreamedEvents>("big.eventlog", core::Header {},
        std::vector<std::vector<core::BlockExtent>> {}, 100'000'000, 0);
    QSignalSpy unavailable(panels->session(), &MetricsSession::unavailableSet);
    panels->showStreamed(data);
    CHECK(unavailable.size() == 1);
    const QString why = panels->session()->unavailable();
    CHECK(why.contains(QLocale().toString(qulonglong(100'000'000)) + QStringLiteral(" events")));
    CHECK(why.contains(QLocale().formattedDataSize(qint64(16'500'000'000))));
    CHECK(why.contains(QStringLiteral("sparkscope-cli metrics and analyze")));
    CHECK(why.contains(QStringLiteral("File ▸ Export Range as Eventlog"))); // the way to a part's metrics
    CHECK_FALSE(panels->session()->trace());
}
