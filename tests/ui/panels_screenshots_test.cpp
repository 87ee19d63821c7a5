// Offscreen screenshots of the metric panels (the menu pasted in where it pops up): hidden test, for
// a quick look without X. The images in docs/images come from the real app under Xvfb instead
// (tests/ui/panels_xvfb_shots.py --docs docs/images). Run on demand:
//   SPARKSCOPE_PANELS_TRACE=pipeline.eventlog SPARKSCOPE_PANELS_SHOTS=docs/images
//   sparkscope-ui-tests "[.panels-screenshots]" (both variables set, on one command line)
// It opens the trace in the real main window, waits for the metrics, hovers the first conjunction's
// start tick (position from the timeline's frame), opens the metric menu there, and saves the window
// (with the menu painted where it pops up), then the conjunction list with a curve chosen, then the
// summary. Without the variables it says so and checks nothing.
#include "sparkscope/core/event_types.h"
#include "ui/hover/hover_controller.h"
#include "ui/main_window.h"
#include "ui/panels/conjunctions_panel.h"
#include "ui/panels/metrics_panels.h"
#include "ui/panels/metrics_session.h"
#include "ui/timeline/timeline_widget.h"
#include "ui/timeline/zoom_state.h"

#include <catch2/catch.hpp>

#include <QAction>
#include <QDockWidget>
#include <QImage>
#include <QMenu>
#include <QPainter>
#include <QSignalSpy>
#include <QTest>

using namespace sparkscope;
using namespace sparkscope::ui;

TEST_CASE("screenshots of the hover menu, conjunction list and summary", "[.panels-screenshots]")
{
    const QString trace = qEnvironmentVariable("SPARKSCOPE_PANELS_TRACE");
    const QString out = qEnvironmentVariable("SPARKSCOPE_PANELS_SHOTS");
    if (trace.isEmpty() || out.isEmpty()) {
        WARN("NOT RUN: set SPARKSCOPE_PANELS_TRACE and SPARKSCOPE_PANELS_SHOTS");
        return;
    }
    MainWindow window;
    window.resize(1600, 1000);
    window.show();
    auto* panels = window.findChild<MetricsPanels*>();
    REQUIRE(panels);
    QSignalSpy ready(panels->session(), &MetricsSession::fullReady);
    window.openTrace(trace);
    REQUIRE(ready.wait(60000));
    REQUIRE(QTest::qWaitFor([&] { return panels->session()->view() != nullptr; }, 60000));
    const auto full = panels->session()->full();
    REQUIRE(!full->metrics.model.conjunctions.empty());
    const core::ConjunctionInstance& c = full->metrics.model.conjunctions.front();
    auto save = [&](const QString& name, QMenu* menu) {
        QTest::qWait(300);
        QImage image = window.grab().toImage();
        if (menu) {
            QPainter p(&image);
            p.drawImage(window.mapFromGlobal(menu->pos()), menu->grab().toImage());
        }
        REQUIRE(image.save(out + QLatin1Char('/') + name));
    };

    // 1. Hover the conjunction's start and open its menu.
    window.zoom()->zoomTo({ int64_t(c.startNs) - 20000, int64_t(c.startNs) + 120000 });
    TimelineWidget* timeline = window.timeline();
    QTest::qWait(100);
    // The analysis can arrive at any moment and its utilisation row and Why dock move the rows, so
    // the pointer is moved again, onto the tick in the frame shown now, until the hover answers (a
    // pixel to and fro, so that every move is a move); the menu is asked for in the frame shown then.
    int moves = 0;
    auto tick = [&] { return tickPosition(timeline->currentFrame(), c.startEngine, int64_t(c.startNs)); };
    REQUIRE(QTest::qWaitFor(
        [&] {
            QTest::mouseMove(timeline, (tick() + QPointF(moves++ % 2, 0)).toPoint());
            return panels->hover()->hovered().has_value();
        },
        20000));
    const QPointF at = tick();
    std::unique_ptr<QMenu> menu(panels->hover()->menuAt(at));
    REQUIRE(menu);
    menu->popup(timeline->mapToGlobal(at.toPoint() + QPoint(8, 8)));
    QTest::qWait(100);
    save(QStringLiteral("panels-hover-menu.png"), menu.get());
    for (QAction* a : menu->actions())
        if (a->text().startsWith(QStringLiteral("PARCONJ_RUNNING_SELF ")))
            a->trigger();
    menu->hide();

    // 2. The conjunction list with the granularity chart, the chosen curve over the timeline.
    window.zoom()->zoomTo({ int64_t(c.startNs) - int64_t(c.endNs - c.startNs) / 20,
        int64_t(c.endNs) + int64_t(c.endNs - c.startNs) / 20 });
    QTest::mouseMove(timeline, QPoint(5, 5));
    panels->conjunctionsDock()->raise();
    save(QStringLiteral("panels-conjunctions.png"), nullptr);

    // 3. The summary.
    panels->summaryDock()->raise();
    save(QStringLiteral("panels-summary.png"), nullptr);
}
