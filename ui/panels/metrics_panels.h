#pragma once
// MetricsPanels: the metrics side of the main window. It owns the MetricsSession (background
// computation), builds the panels that show its results, each in its QDockWidget (Conjunctions with
// the metric detail and the granularity chart, Summary, Engines), and the hover controller on the
// timeline, and wires them: a shown trace starts the computation; a selection or a call-sequence
// count recomputes the view metrics; list navigation moves the timeline; hover-menu choices fill the
// Conjunctions dock's metric detail — the one place where a chosen metric's value is shown, whether
// it was chosen on the timeline or in the list. File > Export Metrics… writes the file once the
// session has the analysis of the chosen range.
//
// MetricsPanels builds and owns its docks; MainWindow places them (dock areas, tabs, sizes, View
// menu entries) and its File > Export Metrics… calls exportMetrics(). This way round, the whole
// window layout — what QMainWindow::saveState remembers — is assembled in one function
// (MainWindow::createDocks) beside the Events and Bookmarks docks, and MetricsPanels needs nothing of
// the window but the timeline, the zoom state and the status bar: it does not reach into the
// window's menus or layout. GUI thread only.
#include "sparkscope/core/compare.h"
#include "sparkscope/core/trace.h"
#include "ui/export/metrics_export_action.h"

#include <QList>
#include <QObject>

#include <memory>
#include <optional>

class QDockWidget;
class QStatusBar;
class QWidget;

namespace sparkscope::ui {

class MetricsSession;
struct TraceData;
class HoverController;
class ConjunctionsPanel;
class SummaryPanel;
class EnginesPanel;
class MetricDetailPanel;
class TimelineWidget;
class ZoomState;

class MetricsPanels : public QObject {
    Q_OBJECT
public:
    // `window` parents the docks (not yet placed) and the export dialog, and owns this object (found
    // again with window->findChild<MetricsPanels*>()); `status` shows the hover and export messages.
    MetricsPanels(QWidget* window, TimelineWidget* timeline, ZoomState* zoom, QStatusBar* status);

    MetricsSession* session() const { return m_session; }
    HoverController* hover() const { return m_hover; }
    ConjunctionsPanel* conjunctions() const { return m_conjunctions; }
    SummaryPanel* summary() const { return m_summary; }
    EnginesPanel* engines() const { return m_engines; }
    // The metric detail inside the Conjunctions dock (hover-menu choices and list choices).
    MetricDetailPanel* detail() const;
    QDockWidget* conjunctionsDock() const { return m_conjunctionsDock; }
    QDockWidget* summaryDock() const { return m_summaryDock; }
    QDockWidget* enginesDock() const { return m_enginesDock; }
    // The three docks in View-menu order, for the window to place.
    QList<QDockWidget*> docks() const { return { m_conjunctionsDock, m_summaryDock, m_enginesDock }; }

    // A trace is on screen (null: none): empties the panels and starts computing its metrics.
    // `followed`: it is a followed trace's newer part; the panels and the Why dock keep the part
    // before's figures, marked as computing, until this part's replace them, rather than going blank
    // at every block (keepsShown).
    void showTrace(std::shared_ptr<const core::Trace> trace, bool followed = false);
    // A streamed trace (TraceData::isStreamed): the viewer holds none of its events, so its metrics are
    // computed from a compact read of its file (MetricsSession::setTraceFile) when that fits in memory
    // beside the timeline; else the panels say why. `followed` as for showTrace, when the part
    // before's results and this part's computation fit in that memory together; else they empty.
    void showStreamed(const TraceData& data, bool followed = false);
    // The panels show the figures of a followed trace's part before while its newer part's are
    // computed (showTrace, showStreamed): a missing analysis then means "not ready yet", not "none".
    bool keepsShown() const { return m_keepShown; }
    // Following ended (complete, or stopped): what is shown next is computed as for a trace opened.
    void endFollowing() { m_keepShown = false; }
    // A comparison whose A is the trace on screen (null: none): the Conjunctions list and the Summary
    // add A, B and B − A. Cleared by showTrace (a new trace is not that comparison's A).
    void setComparison(std::shared_ptr<const core::RunComparison> comparison);
    // A followed trace whose engines have not all written their events up to its end (MainWindow::
    // updateLive): the time up to which every engine's are written, or nullopt. Without a selection,
    // the panels and the Why dock show [0, horizon), not the whole trace so far: after it, an engine
    // whose buffer is not written yet would count as idle. A selection is shown as it is. Set again
    // after each showTrace/showStreamed of a followed trace's part (which start from the whole trace).
    void setLiveHorizon(std::optional<uint64_t> horizon);
    std::optional<uint64_t> liveHorizon() const { return m_liveHorizon; }
    // Following stopped on bad input: the horizon stays (what every engine wrote is still all that is
    // known), but it is no longer live, and the panels' range labels say so. Cleared by setLiveHorizon.
    void stopLive();
    bool liveStopped() const { return m_liveStopped; }
    // File > Export Metrics…: asks for the file and range, then exports them.
    void exportMetrics();
    // Writes the file as soon as the session has the analysis of its range (at once if it has).
    void exportMetrics(MetricsExportRequest request);

Q_SIGNALS:
    // stopLive, or a new horizon after it.
    void liveStoppedChanged();

private:
    void clearPanels(); // the panels as before any metrics, the session untouched
    void keepOrClear(bool keep); // a newer part's figures are coming: keep the panels' (or clear them)
    void connectPanels();
    void finishExport();
    // The session's view range: the selection's, else [0, live horizon), else the whole trace.
    void applyRange();

    QWidget* m_window;
    ZoomState* m_zoom;
    QStatusBar* m_status;
    MetricsSession* m_session;
    HoverController* m_hover;
    bool m_listPinning = false; // the conjunction list is setting the highlight (not another tool replacing it)
    ConjunctionsPanel* m_conjunctions;
    SummaryPanel* m_summary;
    EnginesPanel* m_engines;
    QDockWidget* m_conjunctionsDock;
    QDockWidget* m_summaryDock;
    QDockWidget* m_enginesDock;
    std::optional<MetricsExportRequest> m_pendingExport; // asked for, waiting for its range's analysis
    std::optional<uint64_t> m_liveHorizon;
    bool m_liveStopped = false;
    bool m_keepShown = false;
};

} // namespace sparkscope::ui
