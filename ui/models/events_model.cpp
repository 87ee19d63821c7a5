#include "ui/models/events_model.h"

#include "sparkscope/core/event_fields.h"
#include "sparkscope/core/event_types.h"
#include "ui/timeline/frame.h"

#include <algorithm>

namespace sparkscope::ui {

std::vector<EventRef> buildTimeOrder(const core::Trace& trace)
{
    std::vector<EventRef> order;
    order.reserve(trace.eventCount());
    const core::Event* globalBase = trace.global.data();
    std::vector<const core::Event*> bases;
    for (const auto& e : trace.engines)
        bases.push_back(e.data());
    trace.forEachInTimeOrder([&](const core::Event& e) {
        if (e.hasEngine() && e.engine < bases.size())
            order.push_back(EventRef::make(uint32_t(e.engine) + 1, uint64_t(&e - bases[e.engine])));
        else
            order.push_back(EventRef::make(0, uint64_t(&e - globalBase)));
    });
    return order;
}

EventsModel::EventsModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void EventsModel::setTrace(std::shared_ptr<const TraceData> data, std::vector<EventRef> order)
{
    beginResetModel();
    m_data = std::move(data);
    m_all = std::make_shared<const std::vector<EventRef>>(std::move(order));
    m_filtered = m_all;
    m_isFiltered = false;
    endResetModel();
}

void EventsModel::setFilter(std::set<uint16_t> types, std::set<uint16_t> engines)
{
    beginResetModel();
    m_isFiltered = !types.empty() || !engines.empty();
    auto filtered = std::make_shared<std::vector<EventRef>>();
    if (m_isFiltered && m_data) {
        for (EventRef r : *m_all) {
            const core::Event& e = event(r);
            if ((types.empty() || types.count(e.type)) && (engines.empty() || engines.count(e.engine)))
                filtered->push_back(r);
        }
    }
    m_filtered = std::move(filtered);
    endResetModel();
}

const core::Event& EventsModel::event(EventRef ref) const
{
    const core::Trace& t = *m_data->trace;
    return ref.slot() == 0 ? t.global[ref.index()] : t.engines[ref.slot() - 1][ref.index()];
}

const core::Event* EventsModel::eventAt(int row) const
{
    const auto& rows = this->rows();
    if (!m_data || !rows || row < 0 || size_t(row) >= rows->size())
        return nullptr;
    return &event((*rows)[size_t(row)]);
}

int EventsModel::rowAtTime(int64_t timeNs) const
{
    if (!rows())
        return 0;
    const auto& rows = *this->rows();
    auto it = std::lower_bound(
        rows.begin(), rows.end(), timeNs, [this](EventRef r, int64_t t) { return int64_t(event(r).timeNs) < t; });
    return int(it - rows.begin());
}

int EventsModel::find(const QString& text, int from, bool forward) const
{
    return findEventRow(searchSnapshot(), text, from, forward);
}

int findEventRow(
    const EventRows& snapshot, const QString& text, int from, bool forward, const std::atomic<bool>* cancel)
{
    if (!snapshot.data || !snapshot.rows)
        return -1;
    const std::vector<EventRef>& rows = *snapshot.rows;
    const core::Trace& trace = *snapshot.data->trace;
    const int n = int(std::min<size_t>(rows.size(), size_t(INT32_MAX)));
    if (n == 0 || text.isEmpty())
        return -1;
    // A tight loop without QString conversions: the type name and the fields are formatted into
    // one reused buffer and searched case-insensitively (ASCII), a few million rows per second.
    const std::string needle = text.toLower().toStdString();
    auto lower = [](char c) { return char(c >= 'A' && c <= 'Z' ? c + 32 : c); };
    auto contains = [&](std::string_view hay) {
        return std::search(hay.begin(), hay.end(), needle.begin(), needle.end(), [&](char a, char b) {
            return lower(a) == b;
        }) != hay.end();
    };
    constexpr int kCancelCheckEvery = 4096;
    std::string buffer;
    for (int k = 1; k <= n; ++k) {
        if (cancel && k % kCancelCheckEvery == 0 && cancel->load(std::memory_order_relaxed))
            return kSearchCancelled;
        const int row = int(((int64_t(from) + (forward ? k : -k)) % n + n) % n);
        const EventRef ref = rows[size_t(row)];
        const core::Event& e = ref.slot() == 0 ? trace.global[ref.index()] : trace.engines[ref.slot() - 1][ref.index()];
        if (contains(core::eventTypeName(e.type)))
            return row;
        buffer.clear();
        core::appendFields(buffer, e.type, trace.payload(e));
        if (contains(buffer))
            return row;
    }
    return -1;
}

std::vector<uint16_t> EventsModel::typesPresent() const
{
    std::vector<bool> seen(65536, false);
    if (m_data) {
        for (const auto& e : m_data->trace->global)
            seen[e.type] = true;
        for (const auto& engine : m_data->trace->engines)
            for (const auto& e : engine)
                seen[e.type] = true;
    }
    std::vector<uint16_t> out;
    for (size_t t = 0; t < seen.size(); ++t)
        if (seen[t])
            out.push_back(uint16_t(t));
    return out;
}

int EventsModel::rowCount(const QModelIndex& parent) const
{
    if (parent.isValid())
        return 0;
    return rows() ? int(std::min<size_t>(rows()->size(), size_t(INT32_MAX))) : 0;
}

int EventsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant EventsModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.model() != this)
        return {};
    const core::Event* e = eventAt(index.row());
    if (!e)
        return {};
    if (role == TimeNsRole)
        return qint64(e->timeNs);
    if (role == Qt::TextAlignmentRole)
        return index.column() <= EngineColumn ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter)) : QVariant();
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole)
        return {};
    switch (index.column()) {
    case TimeColumn:
        return formatDuration(int64_t(e->timeNs), 9);
    case EngineColumn:
        return e->hasEngine() ? QVariant(int(e->engine)) : QVariant(QStringLiteral("—"));
    case TypeColumn: {
        const auto name = core::eventTypeName(e->type);
        if (name == "UNKNOWN")
            return QStringLiteral("UNKNOWN_%1").arg(e->type);
        return QString::fromUtf8(name.data(), qsizetype(name.size()));
    }
    case DetailsColumn:
        return QString::fromStdString(core::formatFields(*m_data->trace, *e));
    default:
        return {};
    }
}

QVariant EventsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case TimeColumn:
        return tr("Time");
    case EngineColumn:
        return tr("Engine");
    case TypeColumn:
        return tr("Type");
    case DetailsColumn:
        return tr("Details");
    default:
        return {};
    }
}

} // namespace sparkscope::ui
