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
//   - with View ▸ Colour by Static Id, the engine rows' running time is coloured by the static id of
//     the conjunct being run (computed in the background when switched on, dropped when off), and the
//     Summary splits the range's running time by static id.
// It owns three View-menu toggles: the utilisation row (on by default), the critical path and the
// colouring by static id (off), remembered in QSettings. MainWindow places the dock and the toggles. GUI thread only.
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
class SummaryPanel;
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
    QAction* colourBySiteAction() const { return m_colourBySite; }

    // Goes to finding `index` of the report shown: the timeline zooms to its ranges and highlights them.
    void activateFinding(int index);
    // Shows ledger category `category` alone in the utilisation row (-1, or the one shown: all again).
    void highlightCategory(int category);
    // The Summary's split of the range's running time by static id (empty until computed).
    const std::vector<SiteTime>& siteSplit() const { return m_siteSplit; }

Q_SIGNALS:
    void timelineDataReady(); // the utilisation row and the critical path are on the timeline
    void predictionsReady(); // the speed-up chart shows the newest predictions

private:
    void refresh();
    void startTimelineData(std::shared_ptr<const AnalysisBundle> analysis);
    void startPredictions();
    void startSites();
    void startSiteSplit();
    QAction* newToggle(const QString& text, const char* settingsKey, bool byDefault);

    // What the timeline gets from the whole trace's analysis.
    struct TimelineData {
        std::shared_ptr<const core::LedgerCurves> ledger;
        std::shared_ptr<const CriticalPathRows> path;
    };
    struct Predictions {
        std::vector<core::Prediction> base, whatIf;
        std::vector<std::string> costNotes; // the base's measured costs that rest on too few latencies
    };

    QWidget* m_window;
    TimelineWidget* m_timeline;
    ZoomState* m_zoom;
    MetricsPanels* m_metrics;
    WhyPanel* m_panel;
    QDockWidget* m_dock;
    QAction* m_utilisation;
    QAction* m_criticalPath;
    QAction* m_colourBySite;
    std::shared_ptr<const AnalysisBundle> m_analysis; // the whole trace's, whose data the timeline has
    std::vector<SiteTime> m_siteSplit;
    // The predictions of the recorded run, once per analysis (a what-if only adds its own).
    std::vector<core::Prediction> m_base;
    std::shared_ptr<const AnalysisBundle> m_baseFor;
    LatestJob<TimelineData> m_timelineJob { this };
    LatestJob<Predictions> m_predictionJob { this };
    LatestJob<std::shared_ptr<const SiteRows>> m_sitesJob { this };
    LatestJob<std::vector<SiteTime>> m_siteSplitJob { this };
    std::pair<uint64_t, uint64_t> m_siteSplitRange { 1, 0 }; // the range the Summary's split is of
};

} // namespace sparkscope::ui
