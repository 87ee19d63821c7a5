#pragma once
// MainWindow: the application window — timeline in the centre (with a compared trace's under it), events and bookmarks
// docks, the metrics docks (MetricsPanels), the Why dock and the analysis' View toggles (AnalysisView), a message bar
// for load errors and warnings, progress bar and cancel button while loading, recent files (QSettings) and drag and
// drop. The constructor only calls the create…() functions, one per part of the window, in the order the parts depend
// on each other; createDocks is the one place that decides where every dock goes (the default layout); which docks are
// shown follows the trace on screen (DockVisibility: only docks with something to say).
//
// A person's own layout (docks moved, hidden or resized, the window's size and place) is kept
// between sessions only when the app asks for it (rememberLayout): a window made without it, as for
// --screenshot and in the tests, always has the default layout, whatever was saved. GUI thread only.
#include "ui/loading/trace_data.h"

#include <QMainWindow>

#include <memory>

class QAction;
class QDockWidget;
class QLabel;
class QMenu;
class QProgressBar;
class QPushButton;
class QFrame;
class QSettings;
class QSplitter;

namespace sparkscope::ui {

class TraceLoader;
class TraceFollower;
class TimelineWidget;
class ZoomState;
class EventsPanel;
class BookmarksPanel;
class BookmarksModel;
class MetricsPanels;
class ChromeExport;
class AnalysisView;
class DockVisibility;
class EventlogRangeExport;
class CompareActions;
class StackedTimelines;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    TimelineWidget* timeline() const { return m_timeline; }
    ZoomState* zoom() const { return m_zoom; }
    TraceLoader* loader() const { return m_loader; }
    TraceFollower* follower() const { return m_follower; }
    MetricsPanels* metrics() const { return m_metrics; }
    AnalysisView* analysis() const { return m_analysis; }
    EventlogRangeExport* rangeExport() const { return m_rangeExport; }
    CompareActions* compare() const { return m_compare; } // File > Compare With…, Open Scaling Series…
    // Trace B's timeline under A's while a comparison is open (hidden otherwise).
    StackedTimelines* stacked() const { return m_stacked; }
    // The text of the message bar ("" when hidden).
    QString message() const;
    // View > Context Lanes and View > Spark Deque Sizes (checkable; QSettings remembers them).
    QAction* contextLanesAction() const { return m_actions.contextLanes; }
    QAction* dequeSizesAction() const { return m_actions.dequeSizes; }

    // Restores the dock layout and window geometry saved in `settings` by an earlier window (if any)
    // and saves them there when this window closes. Without an argument: the app's QSettings.
    void rememberLayout();
    void rememberLayout(std::unique_ptr<QSettings> settings);

public Q_SLOTS:
    void openTrace(const QString& path);
    void openDialog();
    // Opens a trace that is still being written and follows it as it grows (TraceFollower).
    void followTrace(const QString& path);
    void followDialog();
    void exportDialog();

Q_SIGNALS:
    void traceShown(); // a trace finished loading and is on screen
    void loadFailed(const QString& message);

protected:
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;
    void closeEvent(QCloseEvent* event) override;

private:
    void createCentralWidget();
    void createStatusBar();
    void createActions();
    QAction* createRowToggle(const QString& text, const char* settingsKey, void (TimelineWidget::*show)(bool));
    void createDocks();
    void showDocksFor(const TraceData& data);
    void createMenus();
    void createToolBar();
    void connectZoom();
    void connectLoader();
    void connectFollower();
    // The "live" indicator for the snapshot shown: which engines' events stop well before its end.
    void updateLive(const TraceData& data);
    void endLive(); // the followed trace is complete, or no longer followed
    void connectCompare();

    void showMessage(const QString& text, bool error);
    void hideProgress();
    void addRecent(const QString& path);
    void rebuildRecentMenu();
    void updateStatus();
    // Once the metrics are ready: the places where the trace contradicts itself (the model's problems,
    // `sparkscope-cli check`'s "model" ones), which the metrics leave out, in the message bar.
    void warnOfModelProblems();
    void onLoaded(std::shared_ptr<const TraceData> data, const QString& path, const QStringList& warnings);

    struct Actions {
        QAction* open = nullptr;
        QAction* follow = nullptr; // File > Follow…
        QAction* exportTimeline = nullptr;
        QAction* exportMetrics = nullptr;
        QAction* exportChrome = nullptr; // File > Export Chrome/Perfetto Trace…
        QAction* exportRange = nullptr; // File > Export Range as Eventlog…
        QAction* quit = nullptr;
        QAction* back = nullptr;
        QAction* forward = nullptr;
        QAction* zoomIn = nullptr;
        QAction* zoomOut = nullptr;
        QAction* zoomToFit = nullptr;
        QAction* zoomToSelection = nullptr;
        QAction* contextLanes = nullptr; // View > Context Lanes
        QAction* dequeSizes = nullptr; // View > Spark Deque Sizes
        QAction* addBookmark = nullptr;
    };

    ZoomState* m_zoom;
    TraceLoader* m_loader;
    TraceFollower* m_follower;
    TimelineWidget* m_timeline = nullptr;
    EventsPanel* m_events = nullptr;
    BookmarksPanel* m_bookmarks = nullptr;
    BookmarksModel* m_bookmarkModel = nullptr;
    MetricsPanels* m_metrics = nullptr;
    ChromeExport* m_chromeExport = nullptr;
    AnalysisView* m_analysis = nullptr;
    DockVisibility* m_dockVisibility = nullptr;
    EventlogRangeExport* m_rangeExport = nullptr;
    CompareActions* m_compare = nullptr;
    StackedTimelines* m_stacked = nullptr;
    QSplitter* m_split = nullptr; // A's timeline over B's
    QDockWidget* m_eventsDock = nullptr;
    QDockWidget* m_bookmarksDock = nullptr;
    QFrame* m_messageBar = nullptr;
    QLabel* m_messageLabel = nullptr;
    QProgressBar* m_progress = nullptr;
    QPushButton* m_cancel = nullptr;
    QLabel* m_status = nullptr;
    QLabel* m_live = nullptr; // "● live" while a trace is followed
    QStringList m_followWarnings; // what the reader said of the followed trace's newest part
    QLabel* m_nameA = nullptr; // "A: file" over the timeline while a comparison is open
    const void* m_problemsWarnedFor = nullptr; // the trace data whose model problems the bar has named
    QMenu* m_recentMenu = nullptr;
    Actions m_actions;
    std::unique_ptr<QSettings> m_layoutSettings; // set by rememberLayout: saved to on close
    bool m_layoutRestored = false; // a remembered dock layout was restored (its sizes are kept)
    bool m_docksSized = false; // the right docks got their default width (the first trace shown)
};

} // namespace sparkscope::ui
