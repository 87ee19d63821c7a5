#include "ui/panels/ready_report.h"

#include "ui/hover/hover_controller.h"
#include "ui/main_window.h"
#include "ui/panels/metrics_panels.h"
#include "ui/panels/metrics_session.h"
#include "ui/timeline/timeline_widget.h"

#include <QTabBar>
#include <QTimer>

#include <cstdio>

namespace sparkscope::ui {

namespace {
    constexpr size_t kReportedConjunctions = 20;

    void report(MainWindow* window)
    {
        auto* panels = window->metrics();
        const auto full = panels ? panels->session()->full() : nullptr;
        TimelineWidget* timeline = window->timeline();
        const Frame& f = timeline->currentFrame();
        const QPoint origin = timeline->mapToGlobal(QPoint(0, 0));
        std::printf(
            "sparkscope-ready: timeline %d %d %d %d\n", origin.x(), origin.y(), timeline->width(), timeline->height());
        std::printf("sparkscope-ready: axis %.3f %.3f %lld %lld ticks %d\n", f.axis.left, f.axis.width,
            static_cast<long long>(f.axis.startNs), static_cast<long long>(f.axis.endNs), int(f.ticksShown));
        if (full) {
            const auto& conjunctions = full->metrics.model.conjunctions;
            for (size_t j = 0; j < std::min(conjunctions.size(), kReportedConjunctions); ++j) {
                const auto& c = conjunctions[j];
                const int64_t start = int64_t(c.startNs);
                QString tick = QStringLiteral("-");
                if (f.ticksShown && start >= f.axis.startNs && start < f.axis.endNs) {
                    const QPoint p = timeline->mapToGlobal(tickPosition(f, c.startEngine, start).toPoint());
                    tick = QStringLiteral("%1 %2").arg(p.x()).arg(p.y());
                }
                std::printf("sparkscope-ready: conjunction %zu engine %u start %llu end %llu tick %s\n", j,
                    unsigned(c.startEngine), static_cast<unsigned long long>(c.startNs),
                    static_cast<unsigned long long>(c.endNs), qPrintable(tick));
            }
        }
        for (const QTabBar* bar : window->findChildren<QTabBar*>()) {
            if (!bar->isVisible())
                continue;
            for (int i = 0; i < bar->count(); ++i) {
                const QPoint p = bar->mapToGlobal(bar->tabRect(i).center());
                std::printf("sparkscope-ready: tab %d %d %s\n", p.x(), p.y(), qPrintable(bar->tabText(i)));
            }
        }
        std::printf("sparkscope-ready: done\n");
        std::fflush(stdout);
    }
} // namespace

void installReadyReport(MainWindow* window)
{
    if (qEnvironmentVariableIsEmpty("SPARKSCOPE_REPORT_READY"))
        return;
    auto* panels = window->metrics();
    if (!panels)
        return;
    // viewReady follows fullReady once per trace (and again per selection): report each time, after
    // the panels have had time to lay out and paint.
    QObject::connect(panels->session(), &MetricsSession::viewReady, window,
        [window] { QTimer::singleShot(500, window, [window] { report(window); }); });
}

} // namespace sparkscope::ui
