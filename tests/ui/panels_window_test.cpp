// The metric panels inside the real main window: a trace opened from a file fills the panels in the
// background; moving the mouse onto a conjunction tick (position from the timeline's own frame)
// highlights it (leaving the timeline clears it); the click menu's PARCONJ_TIME entry shows core's
// value in the Conjunctions dock's metric detail.
#include "panels_test_trace.h"

#include "sparkscope/core/writer.h"
#include "support/test_data.h"
#include "ui/hover/hover_controller.h"
#include "ui/main_window.h"
#include "ui/panels/conjunctions_panel.h"
#include "ui/panels/metric_detail_panel.h"
#include "ui/panels/metrics_panels.h"
#include "ui/panels/metrics_session.h"
#include "ui/panels/summary_panel.h"
#include "ui/timeline/frame.h"
#include "ui/timeline/timeline_widget.h"
#include "ui/timeline/zoom_state.h"

#include <catch2/catch.hpp>

#include <QAction>
#include <QApplication>
#include <QMenu>
#include <QMenuBar>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTest>

using namespace sparkscope;
using namespace sparkscope::ui;

TEST_CASE("the main window's panels fill in after loading and answer hover and menu", "[ui][panels][window]")
{
    const QString dir = QString::fromStdString(test::scratchDir("panels-window").string());
    const QString path = dir + QStringLiteral("/hand.eventlog");
    REQUIRE(core::writeFile(path.toStdString(), core::writeTrace(test::panelsTraceBuilder().roundTrip())));

    MainWindow window;
    window.resize(1400, 900);
    window.show();
    auto* panels = window.findChild<MetricsPanels*>();
    REQUIRE(panels);
    // File > Export Metrics… is in the File menu.
    bool exportAction = false;
    for (QAction* a : window.menuBar()->actions())
        if (a->menu())
            for (QAction* b : a->menu()->actions())
                exportAction = exportAction || b->objectName() == QStringLiteral("exportMetricsAction");
    CHECK(exportAction);

    QSignalSpy ready(panels->session(), &MetricsSession::fullReady);
    window.openTrace(path);
    REQUIRE(ready.wait(20000));
    REQUIRE(QTest::qWaitFor([&] { return panels->session()->view() != nullptr; }, 10000));
    CHECK(panels->conjunctions()->proxy()->rowCount() == 1);
    CHECK(panels->summary()->figure(QStringLiteral("Run time")) == formatDuration(1100));

    TimelineWidget* timeline = window.timeline();
    window.zoom()->zoomTo({ 0, 1100 });
    const Frame& f = timeline->currentFrame();
    REQUIRE(f.ticksShown);
    // The analysis can arrive at any moment and its utilisation row and Why dock move the rows, so
    // the pointer is moved again, onto the tick in the frame shown now, until the hover answers (a
    // pixel to and fro, so that every move is a move).
    int moves = 0;
    REQUIRE(QTest::qWaitFor(
        [&] {
            const QPointF at = tickPosition(timeline->currentFrame(), 0, 200) + QPointF(moves++ % 2, 0);
            QTest::mouseMove(timeline, at.toPoint());
            return panels->hover()->hovered().has_value();
        },
        20000));
    CHECK(panels->hover()->hovered()->kind() == core::OwnerKind::Conjunction);
    CHECK(!panels->hover()->hoverHighlight().empty());
    // Leaving the timeline ends the hover and its highlight.
    QEvent leave(QEvent::Leave);
    QApplication::sendEvent(timeline, &leave);
    CHECK_FALSE(panels->hover()->hovered().has_value());
    CHECK(panels->hover()->hoverHighlight().empty());

    // The analysis may have arrived since (its utilisation row and the Why dock change the
    // timeline's layout), so the tick is found again in the frame now shown.
    const QPointF menuAt = tickPosition(timeline->currentFrame(), 0, 200);
    std::unique_ptr<QMenu> menu(panels->hover()->menuAt(menuAt));
    REQUIRE(menu);
    QAction* time = nullptr;
    QAction* running = nullptr;
    for (QAction* a : menu->actions()) {
        if (a->text() == QStringLiteral("PARCONJ_TIME"))
            time = a;
        if (a->text().startsWith(QStringLiteral("PARCONJ_RUNNING_SELF ")))
            running = a;
    }
    REQUIRE(time);
    REQUIRE(running);
    time->trigger();
    CHECK(panels->detail()->shownValue(QStringLiteral("instance"), QStringLiteral("value")) == formatDuration(700));
    running->trigger();
    REQUIRE(panels->hover()->curve());
    CHECK(panels->hover()->curve()->beginNs() == 200);
    CHECK(panels->hover()->curve()->endNs() == 900);

    // A selection recomputes the summary for that range.
    QSignalSpy view(panels->session(), &MetricsSession::viewReady);
    window.zoom()->setSelection(TimeWindow { 100, 600 });
    REQUIRE(view.wait(10000));
    CHECK(panels->summary()->figure(QStringLiteral("Run time")) == formatDuration(500));
}
