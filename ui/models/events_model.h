#pragma once
// EventsModel: every event of a trace in time order, as a table (time, engine, type, details),
// filterable by event type and engine. Rows are a vector of packed references (8 bytes per event,
// built once with a k-way merge); cells are formatted only when a view asks for them, so a
// 10-million-event trace never materialises 10 million strings. Filtering is one pass over the
// index into a second vector of references. GUI thread only; the index can be built elsewhere
// with buildTimeOrder() and handed over with setTrace(). The row vectors are immutable and shared,
// so a text search can run on another thread over a snapshot (searchSnapshot() + findEventRow())
// while the model is re-filtered; the panel drops results whose snapshot is no longer current.
#include "ui/loading/trace_data.h"

#include <QAbstractTableModel>

#include <atomic>
#include <memory>
#include <optional>
#include <set>
#include <vector>

namespace sparkscope::ui {

// slot 0 = the trace's global events, slot 1 + e = engine e; index into that vector.
struct EventRef {
    uint64_t packed = 0;
    static EventRef make(uint32_t slot, uint64_t index) { return { (uint64_t(slot) << 40) | index }; }
    uint32_t slot() const { return uint32_t(packed >> 40); }
    uint64_t index() const { return packed & ((uint64_t(1) << 40) - 1); }
};
std::vector<EventRef> buildTimeOrder(const core::Trace& trace);

// The rows of an EventsModel at one moment, safe to read on any thread.
struct EventRows {
    std::shared_ptr<const TraceData> data;
    std::shared_ptr<const std::vector<EventRef>> rows;
};
// The next row after `from` (wrapping; backwards when !forward) whose type name or details contain
// `text` (ASCII case-insensitive), or -1. Checks `cancel` every few thousand rows and returns
// kSearchCancelled when it is set. Cost: O(rows) formatting in one reused buffer.
inline constexpr int kSearchCancelled = -2;
int findEventRow(
    const EventRows& rows, const QString& text, int from, bool forward, const std::atomic<bool>* cancel = nullptr);

class EventsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { TimeColumn, EngineColumn, TypeColumn, DetailsColumn, ColumnCount };
    static constexpr int TimeNsRole = Qt::UserRole + 1;

    explicit EventsModel(QObject* parent = nullptr);

    void setTrace(std::shared_ptr<const TraceData> data, std::vector<EventRef> order);
    // Empty set = all. Engine kNoEngine selects events outside engines.
    void setFilter(std::set<uint16_t> types, std::set<uint16_t> engines);
    const core::Event* eventAt(int row) const;
    // First row whose time is >= timeNs (rowCount() if none).
    int rowAtTime(int64_t timeNs) const;
    // Next row after `from` (wrapping) whose type name or details contain `text`, or -1.
    int find(const QString& text, int from, bool forward = true) const;
    // The current rows, for a search on another thread.
    EventRows searchSnapshot() const { return { m_data, rows() }; }
    // Types present in the trace (for the filter menu).
    std::vector<uint16_t> typesPresent() const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    const core::Event& event(EventRef ref) const;
    const std::shared_ptr<const std::vector<EventRef>>& rows() const { return m_isFiltered ? m_filtered : m_all; }

    std::shared_ptr<const TraceData> m_data;
    std::shared_ptr<const std::vector<EventRef>> m_all;
    std::shared_ptr<const std::vector<EventRef>> m_filtered;
    bool m_isFiltered = false;
};

} // namespace sparkscope::ui
