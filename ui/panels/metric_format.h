#pragma once
// Display helpers shared by the metric panels: how a (metric key, statistic) number is shown
// (durations for times, plain numbers for counts and ratios), and a flat list of the statistics of
// one core::MetricValue. Pure functions.
#include "sparkscope/core/metrics.h"

#include <QString>

#include <vector>

class QTreeWidget;
class QTreeWidgetItem;

namespace sparkscope::ui {

// True when `statistic` of `key` is a time in nanoseconds (so it is shown as a duration).
bool isDurationStatistic(const QString& key, const QString& statistic);
QString formatMetricNumber(const QString& key, const QString& statistic, double value);

struct StatisticRow {
    QString statistic; // "mean", "max.mean" (a sub-statistic), "complete", ...
    double value = 0;
    QString text; // formatted (also for string fields)
};
// Every number of a metric value: a Stat's six fields, each field, each sub-statistic's six fields.
std::vector<StatisticRow> statisticRows(const QString& key, const core::MetricValue& value);

// Appends one item per metric of `group` under `parent` (or at the top level when null): the metric
// key with its statistics as children ("count 12", "mean 3.2 ms", ...).
void addMetricItems(QTreeWidget* tree, QTreeWidgetItem* parent, const core::MetricGroup& group);

} // namespace sparkscope::ui
