#include "ui/models/bookmarks_model.h"

#include "ui/timeline/frame.h"

#include <algorithm>

namespace sparkscope::ui {

BookmarksModel::BookmarksModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void BookmarksModel::reset(std::vector<Marker> markers, int64_t originNs)
{
    beginResetModel();
    m_marks = std::move(markers);
    std::stable_sort(
        m_marks.begin(), m_marks.end(), [](const Marker& a, const Marker& b) { return a.timeNs < b.timeNs; });
    m_originNs = originNs;
    endResetModel();
    Q_EMIT bookmarksChanged();
}

int BookmarksModel::add(int64_t timeNs, const QString& label)
{
    auto it = std::upper_bound(
        m_marks.begin(), m_marks.end(), timeNs, [](int64_t t, const Marker& m) { return t < m.timeNs; });
    const int row = int(it - m_marks.begin());
    beginInsertRows({}, row, row);
    m_marks.insert(it, Marker { timeNs, label.toStdString(), core::kNoEngine });
    endInsertRows();
    Q_EMIT bookmarksChanged();
    return row;
}

void BookmarksModel::remove(int row)
{
    if (row < 0 || row >= rowCount())
        return;
    beginRemoveRows({}, row, row);
    m_marks.erase(m_marks.begin() + row);
    endRemoveRows();
    Q_EMIT bookmarksChanged();
}

void BookmarksModel::rename(int row, const QString& label) { setData(index(row, LabelColumn), label); }

int BookmarksModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(m_marks.size()); }
int BookmarksModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant BookmarksModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || size_t(index.row()) >= m_marks.size())
        return {};
    const Marker& m = m_marks[size_t(index.row())];
    if (role == Qt::UserRole)
        return qint64(m.timeNs);
    if (role != Qt::DisplayRole && role != Qt::EditRole)
        return {};
    if (index.column() == TimeColumn)
        return formatDuration(m.timeNs, 9);
    return QString::fromStdString(m.label);
}

bool BookmarksModel::setData(const QModelIndex& index, const QVariant& value, int role)
{
    if (!index.isValid() || index.column() != LabelColumn || role != Qt::EditRole
        || size_t(index.row()) >= m_marks.size())
        return false;
    m_marks[size_t(index.row())].label = value.toString().toStdString();
    Q_EMIT dataChanged(index, index, { Qt::DisplayRole, Qt::EditRole });
    Q_EMIT bookmarksChanged();
    return true;
}

Qt::ItemFlags BookmarksModel::flags(const QModelIndex& index) const
{
    Qt::ItemFlags f = QAbstractTableModel::flags(index);
    if (index.isValid() && index.column() == LabelColumn)
        f |= Qt::ItemIsEditable;
    return f;
}

QVariant BookmarksModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    return section == TimeColumn ? tr("Time") : tr("Label");
}

} // namespace sparkscope::ui
