#pragma once
// ConjunctionInstancesModel: the instance list under the conjunction table, one row per instance of
// the chosen static id ("#41  at 1.234 ms  for 12 µs, 2 conjuncts"). Rows are formatted when a
// view asks for them, from the model's instance array: a static id can have millions of instances
// (2.2 M in a 13 M-event parfib), and a QListWidget item with its text per instance cost about
// 400 bytes and a string format each before the window could settle (~0.9 GB and seconds of CPU
// there); this costs the 4-byte index per instance the panel keeps anyway. Use it with a view that
// has uniform item sizes (QListView::setUniformItemSizes), so the view's layout is O(1) too.
// GUI thread only.
#include "sparkscope/core/metrics.h"

#include <QAbstractListModel>

#include <memory>
#include <vector>

namespace sparkscope::ui {

class ConjunctionInstancesModel : public QAbstractListModel {
    Q_OBJECT
public:
    explicit ConjunctionInstancesModel(QObject* parent = nullptr);

    // Lists `instances` of `metrics`' model (which must outlive the list or be replaced first).
    void setInstances(std::shared_ptr<const core::Metrics> metrics, std::vector<core::ConjunctionIndex> instances);
    const std::vector<core::ConjunctionIndex>& instances() const { return m_instances; }

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const core::Metrics> m_metrics;
    std::vector<core::ConjunctionIndex> m_instances;
};

} // namespace sparkscope::ui
