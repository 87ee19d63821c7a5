#pragma once
// WhyPanel: the analysis of the range on screen (the whole trace, or the selection) — "why does it
// not scale" — in the Why dock. At the top, always: the loss ledger as one stacked bar (LedgerBar) and
// the work, span and parallelism. Below, in tabs: the findings ranked by the time they could win back
// (clicking one emits findingActivated: the timeline goes to its ranges), the ledger in seconds and
// shares per category (clicking a category emits categoryClicked: the timeline shows where it
// happened), the critical path by static id (with the View ▸ Critical Path toggle), and the speed-up
// chart. It shows an AnalysisReport computed elsewhere (MetricsSession); it computes nothing.
// GUI thread only.
#include "sparkscope/core/findings.h"

#include <QWidget>

#include <memory>

class QAction;
class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QListWidget;
class QTabWidget;
class QToolButton;
class QTreeWidget;

namespace sparkscope::ui {

class LedgerBar;
class SpeedupChart;

class WhyPanel : public QWidget {
    Q_OBJECT
public:
    explicit WhyPanel(QWidget* parent = nullptr);

    // Nothing to show yet: `what` says why ("Computing the analysis…", "Open a trace").
    void setPending(const QString& what);
    // The report of `range` (a description: "whole trace", "selection 1.2 ms – 3.4 ms").
    void setReport(std::shared_ptr<const core::AnalysisReport> report, const QString& range);
    const std::shared_ptr<const core::AnalysisReport>& report() const { return m_report; }
    // What the report shown is of, as setReport was given it ("Whole trace", a selection, ...).
    const QString& range() const { return m_rangeText; }
    // The toggle of the critical path overlay, shown as a button on the Critical path tab.
    void setCriticalPathAction(QAction* action);
    // The category highlighted on the timeline (-1: none): outlined in the bar, selected in the table.
    void setHighlight(int category);

    LedgerBar* bar() const { return m_bar; }
    QTreeWidget* ledgerTable() const { return m_ledger; }
    QListWidget* findingsList() const { return m_findings; }
    // What the findings' shares "of the run" are of, when that is not the whole range; else hidden.
    QLabel* findingsRunLabel() const { return m_findingsRun; }
    QTreeWidget* pathTable() const { return m_path; }
    QTabWidget* tabs() const { return m_tabs; }
    QLabel* notes() const { return m_notes; } // the analysis' notes; hidden when it has none
    QLabel* rangeLabel() const { return m_range; } // what the report is of: "Whole trace", a selection, ...
    SpeedupChart* chart() const { return m_chart; }
    QWidget* chartPage() const;
    QComboBox* whatIfSite() const { return m_whatIfSite; }
    QDoubleSpinBox* whatIfFactor() const { return m_whatIfFactor; }
    // The what-if asked for on the Speed-up tab: a static id made `factor` times as fast (none: 0),
    // and whether scheduling costs are zero.
    struct WhatIf {
        uint32_t staticId = 0;
        double factor = 1;
        bool zeroCosts = false;
        bool any() const { return staticId != 0 || zeroCosts; }
    };
    WhatIf whatIf() const;
    // The predicted wall time line under the chart.
    void setPredictionText(const QString& text);
    QString predictionText() const;
    // A figure as shown, by name: "work", "span", "parallelism".
    QString figure(const QString& name) const;

Q_SIGNALS:
    void categoryClicked(int category);
    void findingActivated(int index); // index into report()->findings
    void pathSiteClicked(uint32_t staticId); // a row of the critical path table (0: outside every conjunct)
    void whatIfChanged(); // the person changed the what-if controls

private:
    void fillLedger(const core::Analysis& a);
    void fillFigures(const core::Analysis& a);
    void fillFindings(const core::AnalysisReport& r);
    void fillPath(const core::Analysis& a);

    std::shared_ptr<const core::AnalysisReport> m_report;
    QString m_rangeText; // empty while pending
    QLabel* m_range;
    LedgerBar* m_bar;
    QLabel* m_work;
    QLabel* m_span;
    QLabel* m_parallelism;
    QLabel* m_notes;
    QTabWidget* m_tabs;
    QListWidget* m_findings;
    QLabel* m_findingsRun;
    QTreeWidget* m_ledger;
    QToolButton* m_pathButton;
    QLabel* m_pathSummary;
    QTreeWidget* m_path;
    SpeedupChart* m_chart;
    QComboBox* m_whatIfSite;
    QDoubleSpinBox* m_whatIfFactor;
    QCheckBox* m_zeroCosts;
    QLabel* m_prediction;
};

} // namespace sparkscope::ui
