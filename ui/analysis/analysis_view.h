#pragma once
// AnalysisView: the analysis side of the main window — "why does it not scale". It builds the Why dock
// (WhyPanel) and wires it to the MetricsSession's analysis (computed there in the background, for the
// whole trace and for the selection) and to the timeline:
//   - the dock shows the analysis of the range on screen (the selection's when there is one);
//   - once the whole trace's analysis is ready it computes, in the background, the ledger over time
//     (core/ledger_curves.h) for the timeline's utilisation row and the critical path's segments for
//     its overlay, and hands them to the timeline;
//   - a finding clicked takes the timeline to its ranges and highlights what it names (its static id's
//     instances there, or its stretches on every engine); a ledger category clicked is shown alone in
//     the utilisation row (clicked again: all);
//   - the speed-up chart's predictions (AnalysisSession::predict, P = 1, 2, 4 … 64) and the what-if's
//     are computed in the background; the newest request wins.
// It owns two View-menu toggles: the utilisation row (on by default) and the critical path (off),
// both remembered in QSettings. MainWindow places the dock and the toggles. GUI thread only.
#include "sparkscope/core/analysis.h"
#include "ui/timeline/timeline_rows.h"
#include "ui/util/latest_job.h"

#include <QObject>

#include <memory>

class QAction;
class QDockWidget;
class QWidget;

namespace sparkscope::ui {

class MetricsPanels;
class TimelineWidget;
class WhyPanel;
class ZoomState;
struct AnalysisBundle;

class AnalysisView : public QObject {
    Q_OBJECT
public:
    // `window` parents the dock and owns this object.
    AnalysisView(QWidget* window, TimelineWidget* timeline, ZoomState* zoom, MetricsPanels* metrics);

    QDockWidget* dock() const { return m_dock; }
    WhyPanel* panel() const { return m_panel; }
    QAction* utilisationAction() const { return m_utilisation; }
    QAction* criticalPathAction() const { return m_criticalPath; }

    // Goes to finding `index` of the report shown: the timeline zooms to its ranges and highlights them.
    void activateFinding(int index);
    // Shows ledger category `category` alone in the utilisation row (-1, or the one shown: all again).
    void highlightCategory(int category);

Q_SIGNALS:
    void timelineDataReady(); // the utilisation row and the critical path are on the timeline
    void predictionsReady(); // the speed-up chart shows the newest predictions

private:
    void refresh();
    void startTimelineData(std::shared_ptr<const AnalysisBundle> analysis);
    void startPredictions();
    QAction* newToggle(const QString& text, const char* settingsKey, bool byDefault);

    // What the timeline gets from the whole trace's analysis.
    struct TimelineData {
        std::shared_ptr<const core::LedgerCurves> ledger;
        std::shared_ptr<const CriticalPathRows> path;
    };
    struct Predictions {
        std::vector<core::Prediction> base, whatIf;
    };

    QWidget* m_window;
    TimelineWidget* m_timeline;
    ZoomState* m_zoom;
    MetricsPanels* m_metrics;
    WhyPanel* m_panel;
    QDockWidget* m_dock;
    QAction* m_utilisation;
    QAction* m_criticalPath;
    std::shared_ptr<const AnalysisBundle> m_analysis; // the whole trace's, whose data the timeline has
    LatestJob<TimelineData> m_timelineJob { this };
    LatestJob<Predictions> m_predictionJob { this };
};

} // namespace sparkscope::ui
