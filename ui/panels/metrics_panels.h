#pragma once
// MetricsPanels: puts the metrics into the main window — one call, installMetricsPanels(window),
// from MainWindow's constructor. It owns the MetricsSession (background computation), adds the
// docks (Conjunctions with the metric detail and the granularity chart, Summary, Engines), the
// hover controller on the timeline, and File > Export Metrics… (written once the session has the
// analysis of the chosen range), and wires them: a shown trace starts the computation; a selection
// or a call-sequence count recomputes the view metrics; list navigation moves the timeline;
// hover-menu choices fill the Conjunctions dock's metric detail — the one place where a chosen
// metric's value is shown, whether it was chosen on the timeline or in the list.
// GUI thread only.
#include "ui/export/metrics_export_action.h"

#include <QObject>

#include <memory>
#include <optional>

class QDockWidget;

namespace sparkscope::ui {

class MainWindow;
class MetricsSession;
class HoverController;
class ConjunctionsPanel;
class SummaryPanel;
class EnginesPanel;
class MetricDetailPanel;

class MetricsPanels : public QObject {
    Q_OBJECT
public:
    explicit MetricsPanels(MainWindow* window);

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

    // File > Export Metrics…: asks for the file and range, then exports them.
    void exportMetrics();
    // Writes the file as soon as the session has the analysis of its range (at once if it has).
    void exportMetrics(MetricsExportRequest request);

private:
    void onTraceShown();
    void finishExport();

    MainWindow* m_window;
    MetricsSession* m_session;
    HoverController* m_hover;
    ConjunctionsPanel* m_conjunctions;
    SummaryPanel* m_summary;
    EnginesPanel* m_engines;
    QDockWidget* m_conjunctionsDock;
    QDockWidget* m_summaryDock;
    QDockWidget* m_enginesDock;
    std::optional<MetricsExportRequest> m_pendingExport; // asked for, waiting for its range's analysis
};

// Creates the panels as a child of `window` (found again with window->findChild<MetricsPanels*>()).
MetricsPanels* installMetricsPanels(MainWindow* window);

} // namespace sparkscope::ui
