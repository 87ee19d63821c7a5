#pragma once
// EnginesPanel: the engine-behaviour metrics of the view metrics, per engine and in total — state
// times (running, searching, sleeping, GC, idle) with shares, search success rates per source,
// time to find work / to sleep, wake-up latency, steal contention, spark counts (per capability for
// GHC eventlogs) and spark deque size — as an expandable tree. A trace without search events (GHC's)
// shows a note instead of the search rows. GUI thread only.
#include "sparkscope/core/metrics.h"

#include <QWidget>

#include <memory>

class QLabel;
class QTreeWidget;

namespace sparkscope::ui {

class EnginesPanel : public QWidget {
    Q_OBJECT
public:
    explicit EnginesPanel(QWidget* parent = nullptr);
    void setMetrics(std::shared_ptr<const core::Metrics> metrics);
    // No metrics will come, and why (MetricsSession::unavailable).
    void setUnavailable(const QString& why);
    QTreeWidget* tree() const { return m_tree; }
    // Shown when the trace cannot measure an engine's search (TraceSummary::engineSearch).
    QLabel* searchNote() const { return m_searchNote; }

private:
    QTreeWidget* m_tree;
    QLabel* m_searchNote;
};

} // namespace sparkscope::ui
