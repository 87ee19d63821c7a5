#pragma once
// SummaryPanel: the whole-program figures of the view metrics (MetricsSession::view — the selected
// time range when there is one): run time, CPUs max / average, GC statistics, mutator vs GC and
// productivity, spark and context counts, and NANOSECS_PER_CALL with a field for the sequential
// call-sequence count (typing it asks the session to recompute). Below, every program-section
// metric as a tree, which for GHC eventlogs includes the ThreadScope figures (HEAP, the
// per-generation GC table), with a plain note that a GHC program has no conjunctions. Between them,
// the range's running time split by static id (which code ran: AnalysisView computes it).
// With a comparison open (File > Compare With…, this trace being A), a table under the figures: the
// whole traces' program and loss-ledger figures in A, B, B − A and B / A, as `sparkscope-cli compare`.
// GUI thread only.
#include "sparkscope/core/compare.h"
#include "sparkscope/core/metrics.h"
#include "ui/analysis/site_running.h"

#include <QWidget>

#include <memory>
#include <optional>

class QFormLayout;
class QLabel;
class QLineEdit;
class QTreeWidget;

namespace sparkscope::ui {

class FigureTable;

class SummaryPanel : public QWidget {
    Q_OBJECT
public:
    explicit SummaryPanel(QWidget* parent = nullptr);

    void setMetrics(std::shared_ptr<const core::Metrics> metrics, bool conjunctionEvents);
    void setComputing(bool computing);
    // No metrics will come for the trace shown, and why.
    void setUnavailable(const QString& why);
    // A followed trace's live horizon (MetricsPanels::setLiveHorizon): metrics of [0, horizon) are
    // labelled as what every engine has written so far, not as a selection.
    // `stopped`: following stopped (MetricsPanels::stopLive), so the horizon is no longer live.
    // A stop rewrites the Range line in its words at once; the rest of the panel stays.
    void setLiveHorizon(std::optional<uint64_t> horizon, bool stopped);
    // The range's running time per static id, largest first (empty: the table is hidden).
    void setSiteSplit(const std::vector<SiteTime>& split);
    QTreeWidget* siteTable() const { return m_sites; }
    // The comparison whose A is this trace (null: none, the table is hidden).
    void setComparison(std::shared_ptr<const core::RunComparison> comparison);
    FigureTable* comparisonTable() const { return m_comparison; }

    QLineEdit* callCountField() const { return m_callCount; }
    // The text of a summary line by its label ("Run time", "Productivity", ...); empty when absent.
    QString figure(const QString& label) const;

Q_SIGNALS:
    // The person entered a call-sequence count (nullopt: cleared).
    void callCountChanged(std::optional<uint64_t> count);

private:
    void setFigure(const QString& label, const QString& text);
    // The Range line of the metrics shown: whole trace, live (or stopped) horizon, or selection.
    QString rangeText() const;

    QLabel* m_range;
    QLabel* m_note;
    QFormLayout* m_form;
    QLineEdit* m_callCount;
    QTreeWidget* m_tree;
    QTreeWidget* m_sites;
    QLabel* m_comparisonTitle;
    FigureTable* m_comparison;
    std::vector<std::pair<QString, QLabel*>> m_figures;
    std::optional<uint64_t> m_liveHorizon;
    bool m_liveStopped = false;
    struct ShownRange {
        uint64_t firstNs, lastNs, fromNs, toNs; // the trace's, and the metrics' range
    };
    std::optional<ShownRange> m_shown; // of the metrics shown, for rangeText
};

} // namespace sparkscope::ui
