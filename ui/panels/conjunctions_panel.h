#pragma once
// ConjunctionsPanel: the conjunction list dock. A sortable, filterable table of static ids
// (ConjunctionsModel behind a QSortFilterProxyModel); choosing one shows any conjunction metric
// summarised over its instances (metric combo + MetricDetailPanel), lists its instances, steps the
// timeline to each (previous / next) and asks for all of them to be highlighted; below, the
// granularity profile of the chosen static id or of the whole program (GranularityChart).
// Its MetricDetailPanel is also where a metric chosen in a timeline hover menu is shown
// (showChoice), so the app has one place for metric values. For a GHC eventlog (no conjunction
// events) the list, detail and chart are hidden and a note says why. GUI thread only.
#include "sparkscope/core/metrics.h"
#include "sparkscope/core/metrics_query.h"
#include "ui/timeline/time_axis.h"

#include <QWidget>

#include <memory>
#include <vector>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QListView;
class QPushButton;
class QSortFilterProxyModel;
class QSplitter;
class QTableView;

namespace sparkscope::ui {

class ConjunctionsModel;
class ConjunctionInstancesModel;
class GranularityChart;
class MetricDetailPanel;

class ConjunctionsPanel : public QWidget {
    Q_OBJECT
public:
    explicit ConjunctionsPanel(QWidget* parent = nullptr);

    // New metrics (null: computing); `conjunctionEvents` false says the trace cannot have any.
    void setMetrics(std::shared_ptr<const core::Metrics> metrics, bool conjunctionEvents);

    QTableView* table() const { return m_table; }
    QCheckBox* highlightAllBox() const { return m_highlightAll; }
    QSortFilterProxyModel* proxy() const { return m_proxy; }
    ConjunctionsModel* model() const { return m_model; }
    QLineEdit* filter() const { return m_filter; }
    QComboBox* metricChoice() const { return m_metric; }
    QListView* instanceList() const { return m_instances; }
    MetricDetailPanel* detail() const { return m_detail; }
    GranularityChart* chart() const { return m_chart; }
    QString selectedStaticId() const { return m_static; }
    const std::vector<core::ConjunctionIndex>& selectedInstances() const { return m_instanceIds; }
    int currentInstance() const; // row in the instance list, -1 when none

    // Selects the static id (by name) in the table; false when it is not listed (or filtered out).
    bool selectStaticId(const QString& name);
    // Shows `key` of `owner` (a hover-menu choice) in the detail: its value for that instance and the
    // summary over its static id / position / variable. For a conjunction, the list also moves to
    // its static id, metric and instance (without moving the timeline).
    void showChoice(core::EventOwner owner, const QString& key);
    // The note above the list ("" when hidden): computing, GHC eventlog, or nothing ran.
    QString note() const;
    // False when the list, detail and chart are hidden (GHC eventlogs).
    bool listShown() const;
    void showNext();
    void showPrevious();
    // How many of the chosen static id's instances the timeline highlights (the first ones: a
    // highlight holds one frame's worth, highlight_set.h): the box names the part when it is not all.
    void setHighlighted(size_t shown);
    // Something else took the timeline's highlight (a hover menu's choice, a finding): the box is
    // unticked, as nothing of the list is highlighted any more; a click highlights the list again.
    void highlightReplaced();

Q_SIGNALS:
    // Show this window on the timeline (an instance with a margin).
    void navigateTo(sparkscope::ui::TimeWindow window);
    // Highlight these conjunction instances (empty: none).
    void highlightRequested(std::vector<core::ConjunctionIndex> conjunctions);

private:
    void onStaticChosen();
    void showMetricSummary();
    void goToInstance(int row);
    void setCurrentInstance(int row); // -1: none
    void updateChart();

    std::shared_ptr<const core::Metrics> m_metrics;
    ConjunctionsModel* m_model;
    QSortFilterProxyModel* m_proxy;
    QLineEdit* m_filter;
    QTableView* m_table;
    QLabel* m_note;
    QSplitter* m_split;
    QComboBox* m_metric;
    MetricDetailPanel* m_detail;
    QListView* m_instances;
    ConjunctionInstancesModel* m_instanceModel;
    QPushButton* m_previous;
    QPushButton* m_next;
    QCheckBox* m_highlightAll;
    bool m_highlightWanted = true; // the person's choice: highlight the instances of the static id they choose
    // True while setMetrics selects the first row for the detail view, or showChoice the static id of
    // a hover menu's choice: that choice is the panel's, not the person's, so it does not paint the
    // whole timeline in the highlight colour.
    bool m_autoSelecting = false;
    QCheckBox* m_cumulative;
    QCheckBox* m_overall;
    GranularityChart* m_chart;
    QString m_static;
    std::vector<core::ConjunctionIndex> m_instanceIds;
};

} // namespace sparkscope::ui
