#pragma once
// ConjunctionsModel: one row per parallel conjunction static id (source location) of the report's
// `conjunctions` section — instances, PARCONJ_TIME (mean, total, max), mean of the per-instance
// average RUNNABLE_SELF and RUNNING_SELF, and the CONTINUE_ON_BEFORE / _LAST fractions. Display
// text is formatted; Qt::UserRole holds the raw number (or the name) so a QSortFilterProxyModel
// sorts numerically (it is given kSortRole). Reset when new metrics arrive; GUI thread only.
#include "sparkscope/core/metrics.h"

#include <QAbstractTableModel>

#include <memory>
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
        ColumnCount
    };
    static constexpr int kSortRole = Qt::UserRole;

    explicit ConjunctionsModel(QObject* parent = nullptr);
    void setMetrics(std::shared_ptr<const core::Metrics> metrics);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // The static id (report group id) of a row.
    QString staticId(int row) const;
    double number(int row, Column column) const;

private:
    struct Row {
        QString name;
        std::array<double, ColumnCount> values {};
    };
    std::shared_ptr<const core::Metrics> m_metrics;
    std::vector<Row> m_rows;
};

} // namespace sparkscope::ui
