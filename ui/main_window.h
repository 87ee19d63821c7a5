#pragma once
// MainWindow: the application window — timeline in the centre, events and bookmarks docks, a
// message bar for load errors and warnings, progress bar and cancel button while loading, recent
// files (QSettings) and drag and drop. GUI thread only.
#include "ui/loading/trace_data.h"

#include <QMainWindow>

#include <memory>

class QAction;
class QLabel;
class QMenu;
class QProgressBar;
class QPushButton;
class QFrame;

namespace sparkscope::ui {

class TraceLoader;
class TimelineWidget;
class ZoomState;
class EventsPanel;
class BookmarksPanel;
class BookmarksModel;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    TimelineWidget* timeline() const { return m_timeline; }
    ZoomState* zoom() const { return m_zoom; }
    TraceLoader* loader() const { return m_loader; }
    // The text of the message bar ("" when hidden).
    QString message() const;
    // View > Context Lanes and View > Spark Deque Sizes (checkable; QSettings remembers them).
    QAction* contextLanesAction() const { return m_contextLanesAction; }
    QAction* dequeSizesAction() const { return m_dequeSizesAction; }

public Q_SLOTS:
    void openTrace(const QString& path);
    void openDialog();
    void exportDialog();

Q_SIGNALS:
    void traceShown(); // a trace finished loading and is on screen
    void loadFailed(const QString& message);

protected:
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void showMessage(const QString& text, bool error);
    void addRecent(const QString& path);
    void rebuildRecentMenu();
    void updateStatus();
    void onLoaded(std::shared_ptr<const TraceData> data, const QString& path, const QStringList& warnings);

    ZoomState* m_zoom;
    TraceLoader* m_loader;
    TimelineWidget* m_timeline;
    EventsPanel* m_events = nullptr;
    BookmarksPanel* m_bookmarks = nullptr;
    BookmarksModel* m_bookmarkModel = nullptr;
    QFrame* m_messageBar;
    QLabel* m_messageLabel;
    QProgressBar* m_progress;
    QPushButton* m_cancel;
    QLabel* m_status;
    QMenu* m_recentMenu;
    QAction* m_back;
    QAction* m_forward;
    QAction* m_contextLanesAction = nullptr; // View > Context Lanes
    QAction* m_dequeSizesAction = nullptr; // View > Spark Deque Sizes
};

} // namespace sparkscope::ui
