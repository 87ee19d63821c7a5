// Hover response time on a big trace (not a test: prints figures, asserts nothing about time):
//   SPARKSCOPE_PANELS_BENCH_TRACE=big.eventlog sparkscope-ui-tests "[.panels-bench]"
// Loads the trace into the real main window, waits for the background metrics, then zooms to 40
// windows spread over the trace and moves the pointer over every conjunction/conjunct tick there
// (positions from the frame), timing HoverController::hoverAt (hit test + highlight) and menuAt.
#include "ui/hover/hover_controller.h"
#include "ui/main_window.h"
#include "ui/panels/metrics_panels.h"
#include "ui/panels/metrics_session.h"
#include "ui/timeline/timeline_widget.h"
#include "ui/timeline/zoom_state.h"

#include <catch2/catch.hpp>

#include <QElapsedTimer>
#include <QMenu>
#include <QSignalSpy>

#include <algorithm>
#include <cstdio>

using namespace sparkscope;
using namespace sparkscope::ui;

TEST_CASE("hover and menu response times on a big trace", "[.panels-bench]")
{
    const QString trace = qEnvironmentVariable("SPARKSCOPE_PANELS_BENCH_TRACE");
    if (trace.isEmpty()) {
        WARN("NOT RUN: set SPARKSCOPE_PANELS_BENCH_TRACE");
        return;
    }
    MainWindow window;
    window.resize(1600, 1000);
    window.show();
    auto* panels = window.findChild<MetricsPanels*>();
    QSignalSpy shown(&window, &MainWindow::traceShown);
    QSignalSpy ready(panels->session(), &MetricsSession::fullReady);
    QElapsedTimer timer;
    timer.start();
    window.openTrace(trace);
    REQUIRE(shown.wait(600000));
    const double loadMs = double(timer.elapsed());
    REQUIRE((ready.size() > 0 || ready.wait(600000)));
    const auto full = panels->session()->full();
    const auto& m = full->metrics.model;
    std::printf("trace: %zu events, %zu conjunctions, %zu conjuncts; shown after %.0f ms, metrics %.0f ms "
                "(background), index %zu entries\n",
        size_t(full->metrics.trace.eventCount), m.conjunctions.size(), m.conjuncts.size(), loadMs, full->computeMs,
        full->index.size());
    std::vector<double> hover, menu;
    const size_t windows = 40;
    for (size_t w = 0; w < windows && !m.conjunctions.empty(); ++w) {
        const auto& c = m.conjunctions[w * (m.conjunctions.size() - 1) / std::max<size_t>(1, windows - 1)];
        window.zoom()->zoomTo({ int64_t(c.startNs) - 2000, int64_t(c.startNs) + 20000 });
        const Frame& f = window.timeline()->currentFrame();
        if (!f.ticksShown)
            continue;
        for (const auto& g : { c.startEngine }) {
            const QPointF at = tickPosition(f, g, int64_t(c.startNs));
            QElapsedTimer t;
            t.start();
            panels->hover()->hoverAt(at + QPointF(0, 1));
            hover.push_back(double(t.nsecsElapsed()) / 1e6);
            t.restart();
            std::unique_ptr<QMenu> menuWidget(panels->hover()->menuAt(at));
            menu.push_back(double(t.nsecsElapsed()) / 1e6);
        }
        // Pointer moves over empty space in the same frame.
        for (int x = 100; x < 1000; x += 50) {
            QElapsedTimer t;
            t.start();
            panels->hover()->hoverAt(QPointF(x, f.layout.barTop(0) + 3));
            hover.push_back(double(t.nsecsElapsed()) / 1e6);
        }
    }
    auto report = [](const char* what, std::vector<double> v) {
        if (v.empty())
            return;
        std::sort(v.begin(), v.end());
        std::printf("%s: %zu samples, median %.3f ms, p99 %.3f ms, max %.3f ms (one frame = 16 ms: %.1fx headroom)\n",
            what, v.size(), v[v.size() / 2], v[v.size() * 99 / 100], v.back(), 16.0 / std::max(1e-6, v.back()));
    };
    report("hoverAt (hit test + highlight)", hover);
    report("menuAt (hit test + menu)", menu);
}
