#pragma once
// BookmarksModel: labelled points in time (initially the trace's USER_MARKER events), as a
// two-column table (time, label) whose labels are editable. Kept sorted by time. GUI thread only.
#include "ui/loading/trace_data.h"

#include <QAbstractTableModel>

#include <vector>

namespace sparkscope::ui {

class BookmarksModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { TimeColumn, LabelColumn, ColumnCount };
    explicit BookmarksModel(QObject* parent = nullptr);

    void reset(std::vector<Marker> markers, int64_t originNs);
    const std::vector<Marker>& bookmarks() const { return m_marks; }
    // Inserts in time order; returns the new row.
    int add(int64_t timeNs, const QString& label);
    void remove(int row);
    void rename(int row, const QString& label);
    int64_t timeAt(int row) const { return m_marks.at(size_t(row)).timeNs; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

Q_SIGNALS:
    void bookmarksChanged();

private:
    std::vector<Marker> m_marks;
    int64_t m_originNs = 0;
};

} // namespace sparkscope::ui
