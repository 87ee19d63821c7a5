#include "ui/docks/events_panel.h"

#include "sparkscope/core/event_types.h"
#include "ui/export/eventlog_range_export.h"
#include "ui/models/events_model.h"
#include "ui/timeline/zoom_state.h"

#include <QApplication>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QTableView>
#include <QVBoxLayout>

namespace sparkscope::ui {

EventsPanel::EventsPanel(ZoomState* zoom, QWidget* parent)
    : QWidget(parent)
    , m_zoom(zoom)
    , m_model(new EventsModel(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    auto* bar = new QHBoxLayout;
    m_search = new QLineEdit(this);
    m_search->setPlaceholderText(tr("Search type or details (Enter: next, Shift+Enter: previous)"));
    m_search->setClearButtonEnabled(true);
    m_type = new QComboBox(this);
    m_engine = new QComboBox(this);
    m_engine->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_info = new QLabel(this);
    bar->addWidget(m_search, 2);
    bar->addWidget(m_type, 1);
    bar->addWidget(m_engine);
    bar->addWidget(m_info);
    layout->addLayout(bar);
    m_view = new QTableView(this);
    m_view->setModel(m_model);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->verticalHeader()->hide();
    m_view->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_view->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 4);
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->setWordWrap(false);
    m_view->setColumnWidth(EventsModel::TimeColumn, 130);
    m_view->setColumnWidth(EventsModel::EngineColumn, 60);
    m_view->setColumnWidth(EventsModel::TypeColumn, 180);
    layout->addWidget(m_view, 1);

    connect(m_search, &QLineEdit::returnPressed, this,
        [this] { findNext(!(QApplication::keyboardModifiers() & Qt::ShiftModifier)); });
    connect(m_type, &QComboBox::currentIndexChanged, this, &EventsPanel::applyFilter);
    connect(m_engine, &QComboBox::currentIndexChanged, this, &EventsPanel::applyFilter);
    connect(
        m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& current) {
            if (!current.isValid())
                return;
            const qint64 t = m_model->data(current, EventsModel::TimeNsRole).toLongLong();
            m_selecting = true;
            m_zoom->setCursor(t);
            m_zoom->centreOn(t);
            m_selecting = false;
        });
    connect(m_zoom, &ZoomState::windowChanged, this, [this] {
        if (!m_selecting)
            syncToWindow();
    });
}

void EventsPanel::setData(std::shared_ptr<const TraceData> data)
{
    cancelSearch();
    m_data = std::move(data);
    m_built = false;
    m_indexJob.cancel();
    m_model->setTrace(nullptr, {});
    m_type->blockSignals(true);
    m_engine->blockSignals(true);
    m_type->clear();
    m_engine->clear();
    m_type->addItem(tr("All types"), -1);
    m_engine->addItem(tr("All engines"), -1);
    if (m_data) {
        m_engine->addItem(tr("No engine"), int(core::kNoEngine));
        for (size_t e = 0; e < m_data->engineCount(); ++e)
            m_engine->addItem(tr("Engine %1").arg(e), int(e));
    }
    m_type->blockSignals(false);
    m_engine->blockSignals(false);
    m_info->clear();
    if (isVisible())
        buildIfNeeded();
}

void EventsPanel::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    buildIfNeeded();
}

void EventsPanel::buildIfNeeded()
{
    if (m_built || !m_data)
        return;
    m_built = true;
    if (m_data->isStreamed()) {
        m_info->setText(streamedRefusal(tr("The events list")));
        return;
    }
    m_info->setText(tr("indexing…"));
    auto data = m_data;
    m_indexJob.start([data] { return buildTimeOrder(*data->trace); },
        [this, data](std::vector<EventRef> order) {
            m_model->setTrace(data, std::move(order));
            m_type->blockSignals(true);
            for (uint16_t t : m_model->typesPresent()) {
                const auto name = core::eventTypeName(t);
                m_type->addItem(
                    QStringLiteral("%1 (%2)").arg(QString::fromUtf8(name.data(), qsizetype(name.size()))).arg(t),
                    int(t));
            }
            m_type->blockSignals(false);
            m_info->setText(tr("%1 events").arg(m_model->rowCount()));
            syncToWindow();
        });
}

void EventsPanel::applyFilter()
{
    cancelSearch(); // its rows are about to be replaced
    std::set<uint16_t> types, engines;
    if (int t = m_type->currentData().toInt(); t >= 0)
        types.insert(uint16_t(t));
    if (int e = m_engine->currentData().toInt(); e >= 0)
        engines.insert(uint16_t(e));
    m_model->setFilter(std::move(types), std::move(engines));
    m_info->setText(tr("%1 events").arg(m_model->rowCount()));
    syncToWindow();
}

void EventsPanel::cancelSearch() { m_searchJob.cancel(); }

void EventsPanel::findNext(bool forward)
{
    cancelSearch();
    const QString text = m_search->text();
    if (text.isEmpty() || m_model->rowCount() == 0)
        return;
    const int current = m_view->currentIndex().isValid() ? m_view->currentIndex().row() : -1;
    const int from = current < 0 ? (forward ? -1 : 0) : current;
    const EventRows snapshot = m_model->searchSnapshot();
    m_info->setText(tr("searching…"));
    m_searchJob.start(
        [snapshot, text, from, forward](
            JobControl& control) { return findEventRow(snapshot, text, from, forward, control.stopFlag()); },
        [this, snapshot](int row) {
            if (snapshot.rows != m_model->searchSnapshot().rows) {
                m_info->setText(tr("search dropped: the list changed"));
                return; // its row numbers belong to rows the model no longer shows
            }
            if (row < 0) {
                m_info->setText(tr("not found"));
            } else {
                m_info->setText(tr("%1 events").arg(m_model->rowCount()));
                m_view->setCurrentIndex(m_model->index(row, 0));
                m_view->scrollTo(m_model->index(row, 0), QAbstractItemView::PositionAtCenter);
            }
            Q_EMIT searchFinished(row < 0 ? -1 : row);
        });
}

void EventsPanel::syncToWindow()
{
    if (!m_model->rowCount())
        return;
    const int row = std::min(m_model->rowAtTime(m_zoom->window().startNs), m_model->rowCount() - 1);
    m_view->scrollTo(m_model->index(row, 0), QAbstractItemView::PositionAtTop);
}

} // namespace sparkscope::ui
