#pragma once
// MetricDetailPanel: one chosen metric (from a hover menu or the conjunction list) — its value for
// the chosen instance (core::instanceMetrics) and, in the same table, its summary over every
// instance of the same static id / position / variable (the report group core::summaryGroupOf
// names). Curve metrics note that the curve is drawn over the timeline. GUI thread only.
#include "sparkscope/core/metrics.h"
#include "sparkscope/core/metrics_query.h"

#include <QWidget>

class QLabel;
class QTreeWidget;

namespace sparkscope::ui {

class MetricDetailPanel : public QWidget {
    Q_OBJECT
public:
    explicit MetricDetailPanel(QWidget* parent = nullptr);

    // Shows `key` for `owner` (owner.kind() None: only the summary of `group` of `section`).
    void showMetric(const core::Metrics& metrics, core::EventOwner owner, const QString& key);
    void showSummary(const core::Metrics& metrics, const QString& section, const QString& group, const QString& key);
    void clear();
    // No figures, and `text` saying why (a site of the compared trace only).
    void showNote(const QString& text);

    QString title() const;
    // The text shown for (part, statistic): part "instance" or "summary". Empty when absent.
    QString shownValue(const QString& part, const QString& statistic) const;

private:
    void addSummary(const core::Metrics& metrics, const QString& section, const QString& group, const QString& key);

    QLabel* m_title;
    QTreeWidget* m_table;
};

} // namespace sparkscope::ui
