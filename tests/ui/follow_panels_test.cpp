// A followed trace's newer part (MetricsPanels::showTrace with `followed`, as MainWindow's follower
// calls it at each block): the Summary, the Why dock and the utilisation row keep the part before's
// figures, marked as computing, until the newer part's replace them, instead of going blank at every
// block. A trace opened anew empties them at once, as before.
#include "panels_test_trace.h"
#include "support/test_data.h"
#include "ui/analysis/analysis_view.h"
#include "ui/analysis/why_panel.h"
#include "ui/loading/trace_data.h"
#include "ui/main_window.h"
#include "ui/panels/metrics_panels.h"
#include "ui/panels/metrics_session.h"
#include "ui/panels/summary_panel.h"
#include "ui/timeline/timeline_widget.h"

#include <QTest>
#include <catch2/catch.hpp>

#include <fstream>

using namespace sparkscope;
using namespace sparkscope::ui;

namespace {

// The hand-built trace (panels_test_trace.h), run time 1,100 ns, then the same program recorded
// further: another context runs [1200, 2000) on engine 0, so the run lasts 2,100 ns.
test::TraceBuilder grownTrace()
{
    test::TraceBuilder b = test::panelsTraceBuilder();
    b.createThread(0, 1150, 3).runThread(0, 1200, 3).stopThread(0, 2000, 3, core::kStopFinished).endAt(2100);
    return b;
}

} // namespace

TEST_CASE("a followed trace's newer part keeps the panels' figures until its own are ready", "[ui][panels][follow]")
{
    const auto dir = test::scratchDir("follow-panels");
    const auto file = dir / "part.eventlog";
    {
        const auto bytes = test::panelsTraceBuilder().eventlogBytes();
        std::ofstream(file, std::ios::binary)
            .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    }
    MainWindow window;
    window.resize(1400, 900);
    window.show();
    auto* panels = window.findChild<MetricsPanels*>();
    REQUIRE(panels);
    AnalysisView* why = window.analysis();
    window.openTrace(QString::fromStdString(file.string()));
    SummaryPanel* summary = panels->summary();
    const QString before = QStringLiteral("1.1 µs");
    REQUIRE(QTest::qWaitFor(
        [&] {
            return summary->figure(QStringLiteral("Run time")) == before && why->panel()->report()
                && window.timeline()->rows().ledger;
        },
        20000));
    const auto reportBefore = why->panel()->report();
    CHECK(reportBefore->analysis.toNs == 1100);

    // The file grew: the follower hands the newer part over, to the timeline and then to the panels
    // (as MainWindow's follower does). Nothing is computed yet, and nothing goes.
    const auto grown = buildTraceData(grownTrace().roundTrip());
    window.timeline()->extendData(grown);
    panels->showTrace(grown->trace, true);
    CHECK(panels->keepsShown());
    CHECK(summary->figure(QStringLiteral("Run time")) == before);
    CHECK(summary->figure(QStringLiteral("Range")).endsWith(QStringLiteral("(computing…)")));
    CHECK(why->panel()->report() == reportBefore);
    CHECK(window.timeline()->rows().ledger);

    // Then the newer part's figures replace them, in the Summary and in the Why dock.
    REQUIRE(QTest::qWaitFor(
        [&] {
            return summary->figure(QStringLiteral("Run time")) == QStringLiteral("2.1 µs") && why->panel()->report()
                && why->panel()->report() != reportBefore && window.timeline()->rows().ledger;
        },
        20000));
    CHECK(why->panel()->report()->analysis.toNs == 2100);
    CHECK_FALSE(summary->figure(QStringLiteral("Range")).endsWith(QStringLiteral("(computing…)")));
    // Following ends: what comes next (a selection, another part) is computed as for a trace opened.
    panels->endFollowing();
    CHECK_FALSE(panels->keepsShown());

    // Another trace, not a part of this one: the panels empty at once.
    panels->showTrace(std::make_shared<const core::Trace>(test::panelsTraceBuilder().roundTrip()));
    CHECK_FALSE(panels->keepsShown());
    CHECK(summary->figure(QStringLiteral("Run time")) != QStringLiteral("2.1 µs"));
    CHECK_FALSE(why->panel()->report());
}

TEST_CASE("a followed file's part whose metrics are computed while a newer part waits says so", "[ui][panels][follow]")
{
    // MainWindow warns of a trace's contradictions only for results that are not a part's a newer
    // part follows: a part's conjunctions still open at its end are closed in the file by then.
    const auto file = test::scratchDir("follow-parts") / "grown.eventlog";
    {
        const auto bytes = grownTrace().eventlogBytes();
        std::ofstream(file, std::ios::binary)
            .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    }
    MetricsSession session;
    session.setTraceFile(file.string());
    CHECK_FALSE(session.hasNewerPart());
    session.setTraceFile(file.string()); // the file grew while the first part is computed
    CHECK(session.hasNewerPart());
    bool newerWaitedAtFirst = false;
    int ready = 0;
    QObject::connect(&session, &MetricsSession::fullReady, [&] {
        if (++ready == 1)
            newerWaitedAtFirst = session.hasNewerPart();
    });
    REQUIRE(QTest::qWaitFor([&] { return ready == 2 && session.analysis(); }, 20000));
    CHECK(newerWaitedAtFirst);
    CHECK_FALSE(session.hasNewerPart());
}
