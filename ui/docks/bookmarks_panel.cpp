#include "ui/docks/bookmarks_panel.h"

#include "ui/models/bookmarks_model.h"
#include "ui/timeline/zoom_state.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

namespace sparkscope::ui {

BookmarksPanel::BookmarksPanel(ZoomState* zoom, BookmarksModel* model, QWidget* parent)
    : QWidget(parent)
    , m_zoom(zoom)
    , m_model(model)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    m_view = new QTableView(this);
    m_view->setModel(m_model);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->verticalHeader()->hide();
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->setEditTriggers(QAbstractItemView::EditKeyPressed | QAbstractItemView::SelectedClicked);
    layout->addWidget(m_view, 1);
    auto* buttons = new QHBoxLayout;
    auto add = [&](const QString& text, void (BookmarksPanel::*slot)()) {
        auto* b = new QPushButton(text, this);
        connect(b, &QPushButton::clicked, this, slot);
        buttons->addWidget(b);
    };
    add(tr("Add"), &BookmarksPanel::addAtCursor);
    add(tr("Rename"), &BookmarksPanel::renameCurrent);
    add(tr("Remove"), &BookmarksPanel::removeCurrent);
    add(tr("Go to"), &BookmarksPanel::jumpToCurrent);
    layout->addLayout(buttons);
    connect(m_view, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
        if (index.column() == BookmarksModel::TimeColumn)
            jumpToCurrent();
    });
}

void BookmarksPanel::addAtCursor()
{
    const TimeWindow w = m_zoom->window();
    const int64_t t = m_zoom->cursorNs().value_or(w.startNs + w.spanNs() / 2);
    const int row = m_model->add(t, tr("bookmark %1").arg(m_model->rowCount() + 1));
    m_view->setCurrentIndex(m_model->index(row, BookmarksModel::LabelColumn));
    m_view->edit(m_view->currentIndex());
}

void BookmarksPanel::renameCurrent()
{
    if (!m_view->currentIndex().isValid())
        return;
    const QModelIndex index = m_model->index(m_view->currentIndex().row(), BookmarksModel::LabelColumn);
    m_view->setCurrentIndex(index);
    m_view->edit(index);
}

void BookmarksPanel::removeCurrent()
{
    if (m_view->currentIndex().isValid())
        m_model->remove(m_view->currentIndex().row());
}

void BookmarksPanel::jumpToCurrent()
{
    if (!m_view->currentIndex().isValid())
        return;
    const int64_t t = m_model->timeAt(m_view->currentIndex().row());
    m_zoom->setCursor(t);
    m_zoom->centreOn(t);
}

} // namespace sparkscope::ui
