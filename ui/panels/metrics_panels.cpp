#include "ui/panels/metrics_panels.h"

#include "ui/export/metrics_export_action.h"
#include "ui/hover/hover_controller.h"
#include "ui/main_window.h"
#include "ui/panels/conjunctions_panel.h"
#include "ui/panels/engines_panel.h"
#include "ui/panels/metric_detail_panel.h"
#include "ui/panels/metrics_session.h"
#include "ui/panels/summary_panel.h"
#include "ui/timeline/timeline_widget.h"
#include "ui/timeline/zoom_state.h"

#include <QAction>
#include <QDockWidget>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QStatusBar>
#include <QTimer>

namespace sparkscope::ui {

MetricsPanels::MetricsPanels(MainWindow* window)
    : QObject(window)
    , m_window(window)
    , m_session(new MetricsSession(this))
{
    setObjectName(QStringLiteral("metricsPanels"));
    m_hover = new HoverController(window->timeline(), m_session, this);
    m_conjunctions = new ConjunctionsPanel(window);
    m_summary = new SummaryPanel(window);
    m_engines = new EnginesPanel(window);
    auto dock = [&](QWidget* widget, const QString& title, const char* name, Qt::DockWidgetArea area) {
        auto* d = new QDockWidget(title, window);
        d->setObjectName(QString::fromLatin1(name));
        d->setWidget(widget);
        window->addDockWidget(area, d);
        return d;
    };
    m_conjunctionsDock = dock(m_conjunctions, tr("Conjunctions"), "conjunctionsDock", Qt::RightDockWidgetArea);
    m_summaryDock = dock(m_summary, tr("Summary"), "summaryDock", Qt::RightDockWidgetArea);
    m_enginesDock = dock(m_engines, tr("Engines"), "enginesDock", Qt::RightDockWidgetArea);
    window->tabifyDockWidget(m_conjunctionsDock, m_summaryDock);
    window->tabifyDockWidget(m_summaryDock, m_enginesDock);
    m_conjunctionsDock->raise();
    window->resizeDocks({ m_conjunctionsDock }, { 520 }, Qt::Horizontal);

    // Menus: File > Export Metrics… (before the separator above Quit) and the docks under View.
    const auto menus = window->menuBar()->findChildren<QMenu*>(QString(), Qt::FindDirectChildrenOnly);
    for (QMenu* menu : menus) {
        const QString title = menu->title().remove(QLatin1Char('&'));
        if (title == tr("File")) {
            auto* action = new QAction(tr("Export &Metrics…"), menu);
            action->setObjectName(QStringLiteral("exportMetricsAction"));
            action->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_M));
            connect(action, &QAction::triggered, this, qOverload<>(&MetricsPanels::exportMetrics));
            QAction* before = nullptr;
            for (QAction* a : menu->actions())
                if (a->isSeparator()) {
                    before = a;
                    break;
                }
            menu->insertAction(before, action);
        } else if (title == tr("View")) {
            menu->addSeparator();
            for (QDockWidget* d : { m_conjunctionsDock, m_summaryDock, m_enginesDock })
                menu->addAction(d->toggleViewAction());
        }
    }

    connect(window, &MainWindow::traceShown, this, &MetricsPanels::onTraceShown);
    connect(m_session, &MetricsSession::fullReady, this, [this] {
        const auto full = m_session->full();
        m_conjunctions->setMetrics(std::shared_ptr<const core::Metrics>(full, &full->metrics), full->conjunctionEvents);
        m_window->statusBar()->showMessage(tr("Metrics ready (%1 ms)").arg(full->computeMs, 0, 'f', 0), 5000);
    });
    connect(m_session, &MetricsSession::viewReady, this, [this] {
        const auto full = m_session->full();
        m_summary->setMetrics(m_session->view(), !full || full->conjunctionEvents);
        m_engines->setMetrics(m_session->view());
    });
    connect(m_session, &MetricsSession::computing, this, [this] { m_summary->setComputing(true); });
    connect(m_session, &MetricsSession::analysisReady, this, &MetricsPanels::finishExport);
    connect(m_summary, &SummaryPanel::callCountChanged, m_session, &MetricsSession::setCallCount);
    // The selection restricts the summary and engine figures; debounced while it is being dragged.
    auto* debounce = new QTimer(this);
    debounce->setSingleShot(true);
    debounce->setInterval(250);
    connect(window->zoom(), &ZoomState::selectionChanged, debounce, qOverload<>(&QTimer::start));
    connect(debounce, &QTimer::timeout, this, [this] {
        const auto sel = m_window->zoom()->selection();
        if (sel && sel->endNs > sel->startNs)
            m_session->setRange(std::pair<uint64_t, uint64_t>(
                uint64_t(std::max<int64_t>(0, sel->startNs)), uint64_t(std::max<int64_t>(1, sel->endNs))));
        else
            m_session->setRange(std::nullopt);
    });
    connect(m_conjunctions, &ConjunctionsPanel::navigateTo, window->zoom(), &ZoomState::zoomTo);
    connect(m_conjunctions, &ConjunctionsPanel::highlightRequested, this, [this](std::vector<uint32_t> instances) {
        const auto full = m_session->full();
        m_hover->setPinned(full ? highlightConjunctions(full->metrics.model, instances) : HighlightSet {});
    });
    connect(m_hover, &HoverController::metricChosen, this, [this](const MetricChoice& choice) {
        m_conjunctions->showChoice(choice.owner, choice.key);
        m_conjunctionsDock->show();
        m_conjunctionsDock->raise();
    });
    connect(m_hover, &HoverController::hoveredChanged, this, [this](const QString& what) {
        if (what.isEmpty())
            m_window->statusBar()->clearMessage();
        else
            m_window->statusBar()->showMessage(tr("%1 — click for its metrics").arg(what));
    });
}

void MetricsPanels::onTraceShown()
{
    m_pendingExport.reset(); // it was about the trace shown before
    const auto& data = m_window->timeline()->data();
    m_conjunctions->setMetrics(nullptr, true);
    m_summary->setMetrics(nullptr, true);
    m_engines->setMetrics(nullptr);
    m_session->setTrace(data ? data->trace : nullptr);
}

void MetricsPanels::exportMetrics()
{
    if (!m_session->trace())
        return;
    if (auto request = askMetricsExport(m_window, m_window->zoom(), m_session->viewOptions().callCount))
        exportMetrics(std::move(*request));
}

void MetricsPanels::exportMetrics(MetricsExportRequest request)
{
    m_pendingExport = std::move(request);
    finishExport();
}

// Writes the requested file once the MetricsSession has the analysis of its range; until then the
// request waits (the session computes it in the background) and this runs again on analysisReady.
void MetricsPanels::finishExport()
{
    const auto trace = m_session->trace();
    if (!m_pendingExport || !trace)
        return;
    const core::MetricsOptions& options = m_pendingExport->options;
    const auto analysis = m_session->analysisFor(options.fromNs, options.toNs);
    if (!analysis) {
        const auto& view = m_session->viewOptions();
        if (options.toNs != UINT64_MAX && (view.fromNs != options.fromNs || view.toNs != options.toNs))
            m_session->setRange(std::pair<uint64_t, uint64_t>(options.fromNs, options.toNs));
        m_window->statusBar()->showMessage(tr("Exporting metrics when the analysis is ready…"));
        return;
    }
    const MetricsExportRequest request = std::move(*m_pendingExport);
    m_pendingExport.reset();
    const QString error = writeMetricsFile(request.path, *trace, request.options, request.format, *analysis);
    if (!error.isEmpty())
        QMessageBox::warning(m_window, tr("Export metrics"), tr("Error: %1").arg(error));
    else
        m_window->statusBar()->showMessage(tr("Exported metrics to %1").arg(request.path), 5000);
}

MetricDetailPanel* MetricsPanels::detail() const { return m_conjunctions->detail(); }

MetricsPanels* installMetricsPanels(MainWindow* window) { return new MetricsPanels(window); }

} // namespace sparkscope::ui
