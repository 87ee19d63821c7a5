#include "ui/panels/conjunction_instances_model.h"

#include "ui/timeline/frame.h"

namespace sparkscope::ui {

ConjunctionInstancesModel::ConjunctionInstancesModel(QObject* parent)
    : QAbstractListModel(parent)
{
}

void ConjunctionInstancesModel::setInstances(
    std::shared_ptr<const core::Metrics> metrics, std::vector<core::ConjunctionIndex> instances)
{
    beginResetModel();
    m_metrics = std::move(metrics);
    m_instances = m_metrics ? std::move(instances) : std::vector<core::ConjunctionIndex> {};
    endResetModel();
}

int ConjunctionInstancesModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_instances.size());
}

QVariant ConjunctionInstancesModel::data(const QModelIndex& index, int role) const
{
    if (role != Qt::DisplayRole || !index.isValid() || index.row() >= int(m_instances.size()))
        return {};
    const core::ConjunctionIndex j = m_instances[size_t(index.row())];
    const core::ConjunctionInstance& c = m_metrics->model.conjunction(j);
    QString text = tr("#%1  at %2").arg(j.value()).arg(formatDuration(int64_t(c.startNs), 9));
    text += c.complete
        ? tr("  for %1, %2 conjuncts").arg(formatDuration(int64_t(c.endNs - c.startNs))).arg(c.conjuncts.size())
        : tr("  (incomplete)");
    return text;
}

} // namespace sparkscope::ui
