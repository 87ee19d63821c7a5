#pragma once
// ConjunctionsModel: one row per parallel conjunction static id (source location) of the report's
// `conjunctions` section — instances, PARCONJ_TIME (mean, total, max), mean of the per-instance
// average RUNNABLE_SELF and RUNNING_SELF, and the CONTINUE_ON_BEFORE / _LAST fractions. Display
// text is formatted; Qt::UserRole holds the raw number (or the name) so a QSortFilterProxyModel
// sorts numerically (it is given kSortRole). Reset when new metrics arrive; GUI thread only.
// With a comparison open (File > Compare With…, this trace being A), six more columns: each static id's
// covered time (the union of its instances' spans) and mean PARCONJ_TIME in A, in B and B − A, the
// very figures of `sparkscope-cli compare` (core::SiteComparison; "-" where one run lacks the site),
// and a row for each site found only in B, after A's rows: its name marked "only in B", A's columns
// empty. The covered difference of a site one run lacks counts the missing side as 0 (it was never
// open there: the CLI's time_difference_ns, signed); the mean's is "-" (no instance, no mean).
#include "sparkscope/core/compare.h"
#include "sparkscope/core/metrics.h"

#include <QAbstractTableModel>

#include <memory>
#include <optional>
#include <vector>

namespace sparkscope::ui {

class ConjunctionsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        Name,
        Instances,
        TimeMean,
        TimeTotal,
        TimeMax,
        RunnableAvg,
        RunningAvg,
        ContinueBefore,
        ContinueLast,
        ColumnCount,
        // Shown only while a comparison is set.
        CoveredA = ColumnCount,
        CoveredB,
        CoveredDifference,
        MeanA,
        MeanB,
        MeanDifference,
        ColumnCountWithComparison
    };
    static constexpr int kSortRole = Qt::UserRole;

    explicit ConjunctionsModel(QObject* parent = nullptr);
    void setMetrics(std::shared_ptr<const core::Metrics> metrics);
    // The comparison whose A is this trace (null: none; the extra columns go).
    void setComparison(std::shared_ptr<const core::RunComparison> comparison);
    bool hasComparison() const { return m_comparison != nullptr; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // The static id (report group id) of a row.
    QString staticId(int row) const;
    // Whether a row is a site found only in B (a comparison is set): A has no figures for it.
    bool onlyInB(int row) const;
    double number(int row, Column column) const;

private:
    struct Row {
        QString name;
        std::array<double, ColumnCount> values {};
        const core::SiteComparison* site = nullptr; // in m_comparison; null: none or not in it
        bool onlyB = false; // a site of B that A lacks: no metrics of A
    };
    void matchSites();
    std::optional<double> compared(const Row& r, int column) const;

    std::shared_ptr<const core::Metrics> m_metrics;
    std::shared_ptr<const core::RunComparison> m_comparison;
    std::vector<Row> m_rows;
};

} // namespace sparkscope::ui
