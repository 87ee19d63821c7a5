#include "ui/panels/metrics_panels.h"

#include "sparkscope/core/compact_trace.h"

#include "ui/docks/dock.h"
#include "ui/export/eventlog_range_export.h"
#include "ui/export/metrics_export_action.h"
#include "ui/hover/hover_controller.h"
#include "ui/panels/conjunctions_model.h"
#include "ui/panels/conjunctions_panel.h"
#include "ui/panels/engines_panel.h"
#include "ui/panels/metric_detail_panel.h"
#include "ui/panels/metrics_session.h"
#include "ui/panels/summary_panel.h"
#include "ui/timeline/timeline_widget.h"
#include "ui/timeline/zoom_state.h"

#include <QDockWidget>
#include <QLocale>
#include <QMessageBox>
#include <QStatusBar>
#include <QTimer>

#include <utility>

namespace sparkscope::ui {

MetricsPanels::MetricsPanels(QWidget* window, TimelineWidget* timeline, ZoomState* zoom, QStatusBar* status)
    : QObject(window)
    , m_window(window)
    , m_zoom(zoom)
    , m_status(status)
    , m_session(new MetricsSession(this))
{
    setObjectName(QStringLiteral("metricsPanels"));
    m_hover = new HoverController(timeline, m_session, this);
    m_conjunctions = new ConjunctionsPanel(window);
    m_summary = new SummaryPanel(window);
    m_engines = new EnginesPanel(window);
    m_conjunctionsDock = makeDock(m_conjunctions, tr("Conjunctions"), "conjunctionsDock", window);
    m_summaryDock = makeDock(m_summary, tr("Summary"), "summaryDock", window);
    m_enginesDock = makeDock(m_engines, tr("Engines"), "enginesDock", window);
    connectPanels();
}

void MetricsPanels::connectPanels()
{
    connect(m_session, &MetricsSession::fullReady, this, [this] {
        const auto full = m_session->full();
        m_conjunctions->setMetrics(std::shared_ptr<const core::Metrics>(full, &full->metrics), full->conjunctionEvents);
        m_status->showMessage(tr("Metrics ready (%1 ms)").arg(full->computeMs, 0, 'f', 0), 5000);
    });
    connect(m_session, &MetricsSession::viewReady, this, [this] {
        const auto full = m_session->full();
        m_summary->setMetrics(m_session->view(), !full || full->conjunctionEvents);
        m_engines->setMetrics(m_session->view());
    });
    connect(m_session, &MetricsSession::computing, this, [this] { m_summary->setComputing(true); });
    // No metrics will come (a streamed trace too big for them, or a compact read that failed): every
    // panel says why instead of "computing".
    connect(m_session, &MetricsSession::unavailableSet, this, [this] {
        m_summary->setUnavailable(m_session->unavailable());
        m_engines->setUnavailable(m_session->unavailable());
    });
    // A selection whose file cannot be read again as it was: a waiting export that needs a view
    // gives up (asking again would fail again), and the status bar says why.
    connect(m_session, &MetricsSession::viewFailed, this, [this](const QString& why) {
        const bool needsView = m_pendingExport
            && (m_pendingExport->options.fromNs != 0 || m_pendingExport->options.toNs != UINT64_MAX
                || m_pendingExport->options.callCount.value_or(0) != 0);
        if (needsView) {
            m_pendingExport.reset();
            m_status->showMessage(tr("Metrics not exported. %1").arg(why), 15000);
        } else {
            m_status->showMessage(why, 15000);
        }
    });
    connect(m_session, &MetricsSession::analysisReady, this, &MetricsPanels::finishExport);
    // A view of another range (the selection's, debounced) can replace the one a waiting export set;
    // the export then asks for its range again instead of waiting for an analysis that never comes.
    connect(m_session, &MetricsSession::viewReady, this, &MetricsPanels::finishExport);
    connect(m_summary, &SummaryPanel::callCountChanged, m_session, &MetricsSession::setCallCount);
    // The selection restricts the summary and engine figures; debounced while it is being dragged.
    auto* debounce = new QTimer(this);
    debounce->setSingleShot(true);
    debounce->setInterval(250);
    connect(m_zoom, &ZoomState::selectionChanged, debounce, qOverload<>(&QTimer::start));
    connect(debounce, &QTimer::timeout, this, &MetricsPanels::applyRange);
    connect(m_conjunctions, &ConjunctionsPanel::navigateTo, m_zoom, &ZoomState::zoomTo);
    connect(m_conjunctions, &ConjunctionsPanel::highlightRequested, this,
        [this](std::vector<core::ConjunctionIndex> instances) {
            const auto full = m_session->full();
            HighlightSet set = full ? highlightConjunctions(full->metrics.model, instances) : HighlightSet {};
            m_conjunctions->setHighlighted(set.instances);
            if (set.instances < instances.size())
                m_status->showMessage(
                    tr("Highlighted the first %1 of %2 instances: a highlight holds one frame's worth")
                        .arg(QLocale().toString(qulonglong(set.instances)),
                            QLocale().toString(qulonglong(instances.size()))),
                    10000);
            m_listPinning = true;
            m_hover->setPinned(std::move(set));
            m_listPinning = false;
        });
    connect(m_hover, &HoverController::pinnedChanged, this, [this] {
        if (!m_listPinning)
            m_conjunctions->highlightReplaced();
    });
    connect(m_hover, &HoverController::metricChosen, this, [this](const MetricChoice& choice) {
        m_conjunctions->showChoice(choice.owner, choice.key);
        m_conjunctionsDock->show();
        m_conjunctionsDock->raise();
    });
    connect(m_hover, &HoverController::hoveredChanged, this, [this](const QString& what) {
        if (what.isEmpty())
            m_status->clearMessage();
        else
            m_status->showMessage(tr("%1 — click for its metrics").arg(what));
    });
}

void MetricsPanels::applyRange()
{
    const auto sel = m_zoom->selection();
    if (sel && sel->endNs > sel->startNs)
        m_session->setRange(std::pair<uint64_t, uint64_t>(
            uint64_t(std::max<int64_t>(0, sel->startNs)), uint64_t(std::max<int64_t>(1, sel->endNs))));
    else if (m_liveHorizon)
        m_session->setRange(std::pair<uint64_t, uint64_t>(0, *m_liveHorizon));
    else
        m_session->setRange(std::nullopt);
}

void MetricsPanels::setLiveHorizon(std::optional<uint64_t> horizon)
{
    m_liveHorizon = horizon;
    m_summary->setLiveHorizon(horizon, false);
    const bool wasStopped = std::exchange(m_liveStopped, false);
    applyRange();
    if (wasStopped) // (after the range, which the Why dock's label reads with it)
        Q_EMIT liveStoppedChanged();
}

void MetricsPanels::stopLive()
{
    if (!m_liveHorizon || m_liveStopped)
        return;
    m_liveStopped = true;
    m_summary->setLiveHorizon(m_liveHorizon, true);
    Q_EMIT liveStoppedChanged();
}

void MetricsPanels::clearPanels()
{
    m_pendingExport.reset(); // it was about the trace shown before
    setComparison(nullptr);
    m_conjunctions->setMetrics(nullptr, true);
    m_summary->setMetrics(nullptr, true);
    m_engines->setMetrics(nullptr);
}

void MetricsPanels::keepOrClear(bool keep)
{
    m_keepShown = keep;
    if (keep)
        setComparison(nullptr); // (as clearPanels: the comparison's A was the part before)
    else
        clearPanels();
}

void MetricsPanels::showTrace(std::shared_ptr<const core::Trace> trace, bool followed)
{
    keepOrClear(followed && trace);
    m_session->setTrace(std::move(trace));
}

void MetricsPanels::showStreamed(const TraceData& data, bool followed)
{
    // The metrics of a streamed trace come from a compact read of its file, in the background, when
    // that fits in memory beside the timeline: the viewer holds ~0.2-0.3 GB of a 2 GB trace, so 3.5
    // GB for the metrics keeps the two within 4 GB (docs/performance.md, "Metrics of big traces").
    // The panels hold a followed part's results (its model, its analysis) until the next part's
    // are ready, so they are kept only when both parts' fit.
    constexpr uint64_t kBudget = 3'500'000'000;
    const uint64_t need = core::compactMetricsBytes(data.eventCount(), data.streamed->markCount());
    keepOrClear(followed && 2 * need <= kBudget); // the session is left to setTraceFile: metrics in flight go on
    if (need <= kBudget) {
        // A compressed trace: its decompressed copy, the viewer's, is read again (named after the
        // compressed file); no second decompression.
        m_session->setTraceFile(
            data.decompressed ? data.trace->path : data.streamed->path(), data.streamed->endBytes(), data.decompressed);
        return;
    }
    const QLocale locale;
    const QString why = tr("No metrics or analysis: this trace was opened by streaming, and computing them over its "
                           "%1 events would take about %2 of memory, more than the %3 the app allows them beside the "
                           "timeline. To see them for a part of it: select that part, File ▸ Export Range as "
                           "Eventlog, and open what it writes. sparkscope-cli metrics and analyze compute them for "
                           "the whole trace without a window.")
                            .arg(locale.toString(qulonglong(data.eventCount())), locale.formattedDataSize(qint64(need)),
                                locale.formattedDataSize(qint64(kBudget)));
    m_session->setUnavailable(why);
}

void MetricsPanels::setComparison(std::shared_ptr<const core::RunComparison> comparison)
{
    m_conjunctions->model()->setComparison(comparison);
    m_summary->setComparison(std::move(comparison));
}

void MetricsPanels::exportMetrics()
{
    if (!m_session->hasTrace() && !m_session->isLoading())
        return;
    if (auto request = askMetricsExport(m_window, m_zoom, m_session->viewOptions().callCount))
        exportMetrics(std::move(*request));
}

void MetricsPanels::exportMetrics(MetricsExportRequest request)
{
    m_pendingExport = std::move(request);
    finishExport();
}

// Writes the requested file once the MetricsSession has the analysis of its range; until then the
// request waits (the session computes it in the background) and this runs again on analysisReady
// and viewReady.
void MetricsPanels::finishExport()
{
    if (m_pendingExport && !m_session->hasTrace() && m_session->isLoading())
        m_status->showMessage(tr("Exporting metrics when they are ready…"));
    if (!m_pendingExport || !m_session->hasTrace())
        return;
    const core::MetricsOptions& options = m_pendingExport->options;
    if (options.instances) { // the session computes no per-instance records; the CLI does
        m_pendingExport.reset();
        m_status->showMessage(tr("Metrics not exported: per-instance records come from sparkscope-cli metrics "
                                 "--instances or the headless --export-metrics"),
            15000);
        return;
    }
    const auto metrics = m_session->metricsFor(options);
    const auto analysis = m_session->analysisFor(options.fromNs, options.toNs);
    if (!metrics || !analysis) {
        // The whole trace's metrics and analysis come by themselves; a range's, or a call count's, are
        // the view's (setRange and setCallCount do nothing when the view already has them).
        // (The message first: a view that cannot be computed says so at once, and drops the export.)
        m_status->showMessage(tr("Exporting metrics when the analysis is ready…"));
        const bool whole = options.fromNs == 0 && options.toNs == UINT64_MAX;
        const std::optional<uint64_t> count = options.callCount.value_or(0) != 0 ? options.callCount : std::nullopt;
        if (!whole || count) {
            const MetricsExportRequest waiting = *m_pendingExport;
            m_session->setRange(whole
                    ? std::nullopt
                    : std::optional(std::pair<uint64_t, uint64_t>(waiting.options.fromNs, waiting.options.toNs)));
            if (m_pendingExport) // (setRange may have dropped it)
                m_session->setCallCount(count);
        }
        return;
    }
    // The session's metrics for that range: computed in the background, as the CLI computes them
    // (core::computeMetrics, with the whole trace's states and model lent), never on this thread.
    const MetricsExportRequest request = std::move(*m_pendingExport);
    m_pendingExport.reset();
    const QString error = writeMetricsFile(request.path, *metrics, request.format, *analysis);
    if (!error.isEmpty())
        QMessageBox::warning(m_window, tr("Export metrics"), tr("Error: %1").arg(error));
    else
        m_status->showMessage(tr("Exported metrics to %1").arg(request.path), 5000);
}

MetricDetailPanel* MetricsPanels::detail() const { return m_conjunctions->detail(); }

} // namespace sparkscope::ui
