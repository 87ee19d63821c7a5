#include "ui/panels/ready_report.h"

#include "ui/analysis/analysis_view.h"
#include "ui/analysis/why_panel.h"
#include "ui/compare/compare_actions.h"
#include "ui/compare/figure_table.h"
#include "ui/compare/stacked_timelines.h"
#include "ui/hover/hover_controller.h"
#include "ui/main_window.h"
#include "ui/panels/conjunctions_model.h"
#include "ui/panels/conjunctions_panel.h"
#include "ui/panels/metrics_panels.h"
#include "ui/panels/metrics_session.h"
#include "ui/panels/summary_panel.h"
#include "ui/timeline/timeline_widget.h"
#include "ui/timeline/zoom_state.h"

#include <QAction>

#include <QListWidget>
#include <QTabBar>
#include <QTimer>
#include <QTreeWidget>

#include <cstdio>

namespace sparkscope::ui {

namespace {
    constexpr size_t kReportedConjunctions = 20;

    // The Why dock's figures as shown (ledger seconds with their exact ns, work, span, parallelism),
    // the findings' screen positions and time ranges, and whether the critical path is drawn.
    void reportWhy(MainWindow* window)
    {
        AnalysisView* view = window->analysis();
        if (!view || !view->panel()->report())
            return;
        WhyPanel* panel = view->panel();
        const QTreeWidget* ledger = panel->ledgerTable();
        for (int i = 0; i < ledger->topLevelItemCount(); ++i) {
            const QTreeWidgetItem* item = ledger->topLevelItem(i);
            const int k = item->data(0, Qt::UserRole).toInt();
            const std::string key
                = k < 0 ? std::string("total") : std::string(core::lossCategoryKey(core::LossCategory(k)));
            std::printf("sparkscope-ready: why ledger %s %llu %s %s\n", key.c_str(),
                static_cast<unsigned long long>(item->data(1, Qt::UserRole).toULongLong()), qPrintable(item->text(1)),
                qPrintable(item->text(2)));
        }
        for (const char* name : { "work", "span", "parallelism" })
            std::printf("sparkscope-ready: why %s %s\n", name, qPrintable(panel->figure(QString::fromLatin1(name))));
        const auto& findings = panel->report()->findings;
        const QListWidget* list = panel->findingsList();
        for (int i = 0; i < list->count(); ++i) {
            const QListWidgetItem* item = list->item(i);
            const int index = item->data(Qt::UserRole).isValid() ? item->data(Qt::UserRole).toInt() : -1;
            if (index < 0 || size_t(index) >= findings.size() || !list->isVisible())
                continue;
            const QRect r = list->visualItemRect(item);
            if (!list->viewport()->rect().intersects(r))
                continue;
            const QPoint p = list->viewport()->mapToGlobal(r.center());
            uint64_t from = UINT64_MAX, to = 0;
            for (const auto& range : findings[size_t(index)].ranges) {
                from = std::min(from, range.fromNs);
                to = std::max(to, range.toNs);
            }
            std::printf("sparkscope-ready: why finding %d %d %d %s %llu %llu\n", index, p.x(), p.y(),
                findings[size_t(index)].rule.c_str(), static_cast<unsigned long long>(from),
                static_cast<unsigned long long>(to));
        }
        const Frame& f = window->timeline()->currentFrame();
        std::printf("sparkscope-ready: why path %d outlines %zu waits %zu utilisation %d\n",
            int(f.viewport.showCriticalPath), f.pathOutlines.size(), f.pathWaits.size(),
            int(!f.utilisationStrip.pixels.isNull()));
    }

    QString number(const QVariant& v)
    {
        return v.isValid() ? QString::number(v.toDouble(), 'g', 17) : QStringLiteral("-");
    }

    void printTimeline(const char* name, TimelineWidget* timeline)
    {
        const Frame& f = timeline->currentFrame();
        const QPoint origin = timeline->mapToGlobal(QPoint(0, 0));
        std::printf("sparkscope-ready: compare timeline %s %d %d %d %d axis %.3f %.3f %lld %lld\n", name, origin.x(),
            origin.y(), timeline->width(), timeline->height(), f.axis.left, f.axis.width,
            static_cast<long long>(f.axis.startNs), static_cast<long long>(f.axis.endNs));
    }

    // With a comparison open: both timelines' places and axes, the alignment, the header (B's name or
    // why it did not read, the warnings), and the A, B, B − A figures of the Summary's table and of
    // the Conjunctions list as stored in their cells (raw numbers).
    void reportCompare(MainWindow* window)
    {
        StackedTimelines* stacked = window->stacked();
        if (!stacked || !stacked->isOpen())
            return;
        std::printf("sparkscope-ready: compare header %s\n",
            qPrintable(stacked->headerText().replace(QLatin1Char('\n'), QLatin1String(" | "))));
        if (stacked->timelineB()->data() && stacked->timelineB()->isVisible()) {
            printTimeline("a", window->timeline());
            printTimeline("b", stacked->timelineB());
        }
        if (const auto& map = stacked->map())
            std::printf("sparkscope-ready: compare map %lld %lld %.17g\n", static_cast<long long>(map->aAnchorNs),
                static_cast<long long>(map->bAnchorNs), map->scale);
        const FigureTable* summary = window->metrics()->summary()->comparisonTable();
        for (int r = 0; summary->isVisible() && r < summary->rowCount(); ++r) {
            const QVariant key = summary->item(r, 0)->data(Qt::UserRole);
            if (!key.isValid())
                continue; // a heading
            const auto cell
                = [&](int c) { return summary->item(r, c) ? summary->item(r, c)->data(Qt::UserRole) : QVariant(); };
            std::printf("sparkscope-ready: compare summary %s %s %s %s\n", qPrintable(key.toString()),
                qPrintable(number(cell(1))), qPrintable(number(cell(2))), qPrintable(number(cell(3))));
        }
        const ConjunctionsModel* model = window->metrics()->conjunctions()->model();
        if (!model->hasComparison())
            return;
        for (int r = 0; r < model->rowCount(); ++r) {
            QStringList values;
            for (int c = ConjunctionsModel::CoveredA; c < ConjunctionsModel::ColumnCountWithComparison; ++c)
                values << number(model->data(model->index(r, c), ConjunctionsModel::kSortRole));
            std::printf("sparkscope-ready: compare site %s %s\n", qPrintable(model->staticId(r)),
                qPrintable(values.join(QLatin1Char(' '))));
        }
    }

    void report(MainWindow* window)
    {
        auto* panels = window->metrics();
        const auto full = panels ? panels->session()->full() : nullptr;
        TimelineWidget* timeline = window->timeline();
        const Frame& f = timeline->currentFrame();
        const QPoint origin = timeline->mapToGlobal(QPoint(0, 0));
        std::printf(
            "sparkscope-ready: timeline %d %d %d %d\n", origin.x(), origin.y(), timeline->width(), timeline->height());
        // Whether the optional rows switched on (context lanes, spark deques) are drawn yet: a script
        // that grabs the screen for them waits for "rows ready" (another report follows when they are).
        std::printf("sparkscope-ready: rows %s\n", timeline->rowsPending() ? "pending" : "ready");
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
        reportWhy(window);
        reportCompare(window);
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
    // Once the analysis is on the timeline and in the Why dock; and after the view moved (a finding
    // clicked) or the critical path was toggled, when things have settled.
    auto* settle = new QTimer(window);
    settle->setSingleShot(true);
    settle->setInterval(600);
    QObject::connect(settle, &QTimer::timeout, window, [window] { report(window); });
    QObject::connect(window->timeline(), &TimelineWidget::rowsReady, settle, qOverload<>(&QTimer::start));
    if (AnalysisView* view = window->analysis()) {
        QObject::connect(view, &AnalysisView::timelineDataReady, settle, qOverload<>(&QTimer::start));
        QObject::connect(view->criticalPathAction(), &QAction::toggled, settle, qOverload<>(&QTimer::start));
    }
    // A trace whose metrics will not come (a streamed trace too big for them, or whose compact read
    // failed: MetricsPanels::showStreamed) is ready once it is on screen, or once that is known.
    QObject::connect(window, &MainWindow::traceShown, settle, [panels, settle] {
        if (!panels->session()->unavailable().isEmpty())
            settle->start();
    });
    QObject::connect(panels->session(), &MetricsSession::unavailableSet, settle, qOverload<>(&QTimer::start));
    // A comparison: once B's timeline is on screen (or did not read), once its figures are in the
    // docks, and when it is realigned.
    QObject::connect(window->stacked(), &StackedTimelines::shown, settle, qOverload<>(&QTimer::start));
    QObject::connect(window->stacked(), &StackedTimelines::failed, settle, qOverload<>(&QTimer::start));
    QObject::connect(window->compare(), &CompareActions::comparisonReady, settle, qOverload<>(&QTimer::start));
    QObject::connect(window->zoom(), &ZoomState::windowChanged, settle, [panels, settle] {
        if (panels->session()->full()) // not while loading: the first report is the metrics' (viewReady)
            settle->start();
    });
}

} // namespace sparkscope::ui
