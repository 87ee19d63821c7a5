#pragma once
// BookmarksPanel: the bookmarks dock — list of (time, label) with Add (at the cursor, or the
// window's centre), Rename, Remove; double-click or Enter jumps the timeline to a bookmark.
#include <QWidget>

class QTableView;

namespace sparkscope::ui {

class BookmarksModel;
class ZoomState;

class BookmarksPanel : public QWidget {
    Q_OBJECT
public:
    BookmarksPanel(ZoomState* zoom, BookmarksModel* model, QWidget* parent = nullptr);

public Q_SLOTS:
    void addAtCursor();
    void renameCurrent();
    void removeCurrent();
    void jumpToCurrent();

private:
    ZoomState* m_zoom;
    BookmarksModel* m_model;
    QTableView* m_view;
};

} // namespace sparkscope::ui
