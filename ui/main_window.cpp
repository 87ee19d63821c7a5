#include "ui/main_window.h"

#include "sparkscope/core/metrics_query.h"
#include "ui/analysis/analysis_view.h"
#include "ui/compare/compare_actions.h"
#include "ui/compare/stacked_timelines.h"
#include "ui/docks/bookmarks_panel.h"
#include "ui/docks/dock.h"
#include "ui/docks/dock_visibility.h"
#include "ui/docks/events_panel.h"
#include "ui/export/chrome_export.h"
#include "ui/export/eventlog_range_export.h"
#include "ui/export/timeline_export.h"
#include "ui/loading/trace_data.h"
#include "ui/loading/trace_follower.h"
#include "ui/loading/trace_loader.h"
#include "ui/models/bookmarks_model.h"
#include "ui/panels/metrics_panels.h"
#include "ui/panels/metrics_session.h"
#include "ui/timeline/frame.h"
#include "ui/timeline/timeline_widget.h"
#include "ui/timeline/zoom_state.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QIcon>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QStyle>
#include <QToolBar>
#include <QToolButton>
#include <QVBoxLayout>

// Q_INIT_RESOURCE must be used at global scope; the .qrc is compiled into the static ui library.
static void initSparkScopeResources() { Q_INIT_RESOURCE(sparkscope); }

namespace sparkscope::ui {

namespace {
    constexpr int kMaxRecent = 10;
    const char* kRecentKey = "recentFiles";
    const char* kContextLanesKey = "timeline/contextLanes";
    const char* kDequeSizesKey = "timeline/sparkDequeSizes";
    const char* kGeometryKey = "window/geometry";
    const char* kDockStateKey = "window/dockState";
    const char* kDockChoicesKey = "window/dockChoices";
    // QMainWindow::restoreState ignores a state saved under another version: raise it when a change
    // of docks or toolbars would make an old saved layout wrong.
    constexpr int kLayoutVersion = 2; // 2: the Why dock
    // The right docks' default share of the window's width, set when they are first shown: the
    // timeline keeps most of the window.
    constexpr double kRightDockShare = 0.27;

    template <typename Receiver, typename Slot>
    QAction* newAction(
        QObject* parent, const QString& text, const QKeySequence& shortcut, const Receiver* receiver, Slot slot)
    {
        auto* action = new QAction(text, parent);
        action->setShortcut(shortcut);
        QObject::connect(action, &QAction::triggered, receiver, slot);
        return action;
    }
} // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent)
    , m_zoom(new ZoomState(this))
    , m_loader(new TraceLoader(this))
    , m_follower(new TraceFollower(this))
{
    initSparkScopeResources();
    setWindowTitle(QStringLiteral("SparkScope"));
    setWindowIcon(QIcon(QStringLiteral(":/sparkscope.svg")));
    setAcceptDrops(true);
    resize(1280, 800);
    createCentralWidget(); // the message bar over the timeline
    createStatusBar();
    createActions(); // needs the timeline (the optional rows' toggles)
    createDocks();
    createMenus(); // needs the actions and the docks' toggles
    createToolBar();
    connectZoom();
    connectLoader();
    connectFollower();
    connectCompare();
    rebuildRecentMenu();
}

void MainWindow::createCentralWidget()
{
    auto* central = new QWidget(this);
    auto* layout = new QVBoxLayout(central);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    m_messageBar = new QFrame(central);
    m_messageBar->setObjectName(QStringLiteral("messageBar"));
    auto* barLayout = new QHBoxLayout(m_messageBar);
    barLayout->setContentsMargins(8, 4, 4, 4);
    m_messageLabel = new QLabel(m_messageBar);
    m_messageLabel->setWordWrap(true);
    m_messageLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* close = new QToolButton(m_messageBar);
    close->setText(QStringLiteral("✕"));
    close->setAutoRaise(true);
    connect(close, &QToolButton::clicked, m_messageBar, &QWidget::hide);
    barLayout->addWidget(m_messageLabel, 1);
    barLayout->addWidget(close);
    m_messageBar->hide();
    layout->addWidget(m_messageBar);
    // A compared trace's timeline goes under this one (File > Compare With…), the splitter between them.
    m_split = new QSplitter(Qt::Vertical, central);
    m_split->setChildrenCollapsible(false);
    // A's name over its timeline while a comparison is open, as B's header names B.
    auto* timelineA = new QWidget(m_split);
    auto* aLayout = new QVBoxLayout(timelineA);
    aLayout->setContentsMargins(0, 0, 0, 0);
    aLayout->setSpacing(0);
    m_nameA = new QLabel(timelineA);
    m_nameA->setObjectName(QStringLiteral("compareNameA"));
    m_nameA->setTextFormat(Qt::PlainText);
    m_nameA->setContentsMargins(6, 4, 2, 4);
    QFont bold = m_nameA->font();
    bold.setBold(true);
    m_nameA->setFont(bold);
    m_nameA->hide();
    m_timeline = new TimelineWidget(m_zoom, timelineA);
    aLayout->addWidget(m_nameA);
    aLayout->addWidget(m_timeline, 1);
    m_stacked = new StackedTimelines(m_zoom, m_split);
    m_split->addWidget(timelineA);
    m_split->addWidget(m_stacked);
    layout->addWidget(m_split, 1);
    setCentralWidget(central);
}

// Position and selection (updateStatus), and the progress bar and Cancel button while loading.
void MainWindow::createStatusBar()
{
    m_status = new QLabel(this);
    statusBar()->addWidget(m_status, 1);
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 1000);
    m_progress->setMaximumWidth(240);
    m_progress->hide();
    m_cancel = new QPushButton(tr("Cancel"), this);
    m_cancel->hide();
    statusBar()->addPermanentWidget(m_progress);
    statusBar()->addPermanentWidget(m_cancel);
    connect(m_cancel, &QPushButton::clicked, m_loader, &TraceLoader::cancel);
}

void MainWindow::createActions()
{
    Actions& a = m_actions;
    a.open = newAction(this, tr("&Open…"), QKeySequence::Open, this, &MainWindow::openDialog);
    a.open->setIcon(style()->standardIcon(QStyle::SP_DialogOpenButton));
    a.follow = newAction(this, tr("&Follow…"), QKeySequence(), this, &MainWindow::followDialog);
    a.follow->setObjectName(QStringLiteral("followAction"));
    a.exportTimeline
        = newAction(this, tr("&Export Timeline…"), QKeySequence(Qt::CTRL | Qt::Key_E), this, &MainWindow::exportDialog);
    a.exportTimeline->setIcon(style()->standardIcon(QStyle::SP_DialogSaveButton));
    a.exportMetrics = newAction(this, tr("Export &Metrics…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_M), this,
        [this] { m_metrics->exportMetrics(); });
    a.exportMetrics->setObjectName(QStringLiteral("exportMetricsAction"));
    // For Perfetto's UI and chrome://tracing; written in the background, reported in the status bar.
    m_chromeExport = new ChromeExport(this);
    a.exportChrome = newAction(this, tr("Export &Chrome/Perfetto Trace…"), QKeySequence(), this, [this] {
        if (!m_timeline->data())
            return;
        if (m_timeline->data()->isStreamed())
            showMessage(streamedRefusal(tr("Export Chrome/Perfetto Trace")), true);
        else
            m_chromeExport->ask(this, m_timeline->data()->trace);
    });
    a.exportChrome->setObjectName(QStringLiteral("exportChromeAction"));
    connect(m_chromeExport, &ChromeExport::started, this,
        [this](const QString& path) { statusBar()->showMessage(tr("Exporting %1…").arg(path)); });
    connect(m_chromeExport, &ChromeExport::finished, this, [this](const QString& path, const QString& error) {
        if (!error.isEmpty())
            showMessage(tr("Export failed: %1").arg(error), true);
        else
            statusBar()->showMessage(tr("Exported %1").arg(path), 5000);
    });
    m_rangeExport = new EventlogRangeExport(m_zoom, this);
    a.exportRange = newAction(this, tr("Export &Range as Eventlog…"), QKeySequence(), this,
        [this] { m_rangeExport->exportRange(m_timeline->data()); });
    a.exportRange->setObjectName(QStringLiteral("exportRangeAction"));
    connect(m_rangeExport, &EventlogRangeExport::exported, this,
        [this](const QString& path) { statusBar()->showMessage(tr("Exported %1").arg(path), 5000); });
    connect(m_rangeExport, &EventlogRangeExport::failed, this, [this](const QString& path, const QString& error) {
        showMessage(tr("Could not write %1: %2").arg(path, error), true);
    });
    a.quit = newAction(this, tr("&Quit"), QKeySequence::Quit, qApp, &QApplication::closeAllWindows);
    m_compare = new CompareActions(this,
        [this] { return m_timeline->data() ? QString::fromStdString(m_timeline->data()->trace->path) : QString(); });

    a.back = newAction(this, tr("Zoom &Back"), QKeySequence(), m_zoom, &ZoomState::goBack);
    a.back->setShortcuts({ QKeySequence::Back, QKeySequence(Qt::Key_Backspace) });
    a.back->setIcon(style()->standardIcon(QStyle::SP_ArrowBack));
    a.back->setEnabled(false); // until there is a history to go back in (connectZoom)
    a.forward = newAction(this, tr("Zoom &Forward"), QKeySequence::Forward, m_zoom, &ZoomState::goForward);
    a.forward->setIcon(style()->standardIcon(QStyle::SP_ArrowForward));
    a.forward->setEnabled(false);
    // Zooming in and out keeps the cursor where it is, or the middle of the view without a cursor.
    auto centreOfView = [this] {
        const TimeWindow w = m_zoom->window();
        return m_zoom->cursorNs().value_or(w.startNs + w.spanNs() / 2);
    };
    a.zoomIn = newAction(this, tr("Zoom &In"), QKeySequence::ZoomIn, this,
        [this, centreOfView] { m_zoom->zoomBy(2.0, centreOfView()); });
    a.zoomOut = newAction(this, tr("Zoom &Out"), QKeySequence::ZoomOut, this,
        [this, centreOfView] { m_zoom->zoomBy(0.5, centreOfView()); });
    a.zoomToFit
        = newAction(this, tr("Zoom to &Fit"), QKeySequence(Qt::CTRL | Qt::Key_0), m_zoom, &ZoomState::zoomToFit);
    a.zoomToSelection = newAction(
        this, tr("Zoom to &Selection"), QKeySequence(Qt::CTRL | Qt::Key_Return), m_zoom, &ZoomState::zoomToSelection);

    a.contextLanes = createRowToggle(tr("&Context Lanes"), kContextLanesKey, &TimelineWidget::setShowContextLanes);
    a.dequeSizes = createRowToggle(tr("Spark &Deque Sizes"), kDequeSizesKey, &TimelineWidget::setShowDequeSizes);
    a.addBookmark = newAction(
        this, tr("Add &Bookmark"), QKeySequence(Qt::CTRL | Qt::Key_B), this, [this] { m_bookmarks->addAtCursor(); });
}

// An optional timeline row's toggle: off by default, remembered between sessions (QSettings); the
// timeline computes the row when it is switched on.
QAction* MainWindow::createRowToggle(const QString& text, const char* settingsKey, void (TimelineWidget::*show)(bool))
{
    auto* action = new QAction(text, this);
    action->setCheckable(true);
    const bool on = QSettings().value(QString::fromLatin1(settingsKey), false).toBool();
    action->setChecked(on);
    (m_timeline->*show)(on);
    connect(action, &QAction::toggled, this, [this, settingsKey, show](bool checked) {
        QSettings().setValue(QString::fromLatin1(settingsKey), checked);
        (m_timeline->*show)(checked);
    });
    return action;
}

// Every dock of the window and where it goes: the Events list under the timeline, the Bookmarks on
// the right, and below them the Why dock (AnalysisView) and the metrics docks (MetricsPanels) as tabs
// with Why in front. None is shown before a trace is open (showDocksFor decides per trace).
void MainWindow::createDocks()
{
    m_bookmarkModel = new BookmarksModel(this);
    m_events = new EventsPanel(m_zoom, this);
    m_bookmarks = new BookmarksPanel(m_zoom, m_bookmarkModel, this);
    m_eventsDock = makeDock(m_events, tr("Events"), "eventsDock", this);
    m_bookmarksDock = makeDock(m_bookmarks, tr("Bookmarks"), "bookmarksDock", this);
    m_metrics = new MetricsPanels(this, m_timeline, m_zoom, statusBar());
    m_analysis = new AnalysisView(this, m_timeline, m_zoom, m_metrics);
    connect(m_metrics->session(), &MetricsSession::fullReady, this, &MainWindow::warnOfModelProblems);
    // A compared trace's timeline shows the utilisation row when A's does.
    m_stacked->timelineB()->setShowUtilisation(m_analysis->utilisationAction()->isChecked());
    connect(m_analysis->utilisationAction(), &QAction::toggled, m_stacked->timelineB(),
        &TimelineWidget::setShowUtilisation);
    connect(m_bookmarkModel, &BookmarksModel::bookmarksChanged, this, [this] {
        m_timeline->setBookmarks(&m_bookmarkModel->bookmarks());
        if (!m_bookmarkModel->bookmarks().empty())
            m_dockVisibility->apply({ { m_bookmarksDock, true } }); // a marker, or one the person added
    });

    addDockWidget(Qt::BottomDockWidgetArea, m_eventsDock);
    addDockWidget(Qt::RightDockWidgetArea, m_bookmarksDock);
    resizeDocks({ m_eventsDock }, { 260 }, Qt::Vertical);
    // The events list costs 8 bytes per event for its time-order index, built when it is first
    // shown: hidden by default so that opening a huge trace stays lean (View > Events shows it).
    m_eventsDock->hide();
    QDockWidget* why = m_analysis->dock();
    addDockWidget(Qt::RightDockWidgetArea, why);
    for (QDockWidget* dock : m_metrics->docks())
        addDockWidget(Qt::RightDockWidgetArea, dock);
    tabifyDockWidget(why, m_metrics->conjunctionsDock());
    tabifyDockWidget(m_metrics->conjunctionsDock(), m_metrics->summaryDock());
    tabifyDockWidget(m_metrics->summaryDock(), m_metrics->enginesDock());
    why->raise();
    m_dockVisibility = new DockVisibility(this);
    for (QDockWidget* dock :
        { m_bookmarksDock, why, m_metrics->conjunctionsDock(), m_metrics->summaryDock(), m_metrics->enginesDock() }) {
        m_dockVisibility->add(dock);
        dock->hide(); // nothing to say before a trace is open
    }
}

// The docks that have something to say about this trace: Why, Summary and Engines always, the
// Conjunctions only for a trace with conjunctions (not a GHC eventlog), the Bookmarks only when it has
// markers (or the person adds one).
void MainWindow::showDocksFor(const TraceData& data)
{
    QDockWidget* why = m_analysis->dock();
    m_dockVisibility->apply(
        { { why, true }, { m_metrics->conjunctionsDock(), core::declaresConjunctionEvents(*data.trace) },
            { m_metrics->summaryDock(), true }, { m_metrics->enginesDock(), true },
            { m_bookmarksDock, !data.markers.empty() } });
    if (why->isVisible())
        why->raise();
    // The default layout's width, once: a remembered layout keeps the person's.
    if (!m_docksSized && !m_layoutRestored) {
        m_docksSized = true;
        const int w = int(width() * kRightDockShare);
        resizeDocks({ why, m_bookmarksDock }, { w, w }, Qt::Horizontal);
    }
}

void MainWindow::createMenus()
{
    const Actions& a = m_actions;
    auto* file = menuBar()->addMenu(tr("&File"));
    file->addActions({ a.open, a.follow });
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    file->addActions({ m_compare->compareWith(), m_compare->openScalingSeries() });
    file->addSeparator();
    file->addActions({ a.exportTimeline, a.exportMetrics, a.exportChrome, a.exportRange });
    file->addSeparator();
    file->addAction(a.quit);

    auto* view = menuBar()->addMenu(tr("&View"));
    view->addActions({ a.back, a.forward, a.zoomIn, a.zoomOut, a.zoomToFit, a.zoomToSelection });
    view->addSeparator();
    view->addActions({ m_analysis->utilisationAction(), m_analysis->criticalPathAction(),
        m_analysis->colourBySiteAction(), a.contextLanes, a.dequeSizes });
    view->addSeparator();
    view->addActions({ m_eventsDock->toggleViewAction(), m_bookmarksDock->toggleViewAction(), a.addBookmark });
    view->addSeparator();
    view->addAction(m_analysis->dock()->toggleViewAction());
    for (QDockWidget* dock : m_metrics->docks())
        view->addAction(dock->toggleViewAction());
}

void MainWindow::createToolBar()
{
    const Actions& a = m_actions;
    auto* tools = addToolBar(tr("Main"));
    tools->setObjectName(QStringLiteral("mainToolBar"));
    tools->addActions({ a.open, a.exportTimeline });
    tools->addSeparator();
    tools->addActions({ a.back, a.forward, a.zoomIn, a.zoomOut, a.zoomToFit, a.zoomToSelection });
}

void MainWindow::connectZoom()
{
    connect(m_zoom, &ZoomState::historyChanged, this, [this] {
        m_actions.back->setEnabled(m_zoom->canGoBack());
        m_actions.forward->setEnabled(m_zoom->canGoForward());
    });
    connect(m_zoom, &ZoomState::windowChanged, this, &MainWindow::updateStatus);
    connect(m_zoom, &ZoomState::selectionChanged, this, &MainWindow::updateStatus);
    connect(m_zoom, &ZoomState::cursorChanged, this, &MainWindow::updateStatus);
}

void MainWindow::connectLoader()
{
    connect(m_loader, &TraceLoader::started, this, [this](const QString& path) {
        m_progress->setValue(0);
        m_progress->show();
        m_cancel->show();
        statusBar()->showMessage(tr("Loading %1…").arg(path));
    });
    connect(m_loader, &TraceLoader::progressed, m_progress, &QProgressBar::setValue);
    connect(m_loader, &TraceLoader::loaded, this, &MainWindow::onLoaded);
    connect(m_loader, &TraceLoader::failed, this, [this](const QString& path, const QString& message) {
        hideProgress();
        statusBar()->clearMessage();
        const QString text = tr("Could not open %1: %2").arg(path, message);
        showMessage(text, true);
        Q_EMIT loadFailed(text);
    });
    connect(m_loader, &TraceLoader::cancelled, this, [this](const QString& path) {
        hideProgress();
        statusBar()->showMessage(tr("Loading %1 cancelled").arg(path), 5000);
    });
}

// Compare With…: B's timeline stacked under A's, and A, B and B − A in the Conjunctions list and the
// Summary once the figures arrive (those of the trace on screen only: a newer trace closes both).
void MainWindow::connectCompare()
{
    connect(m_compare, &CompareActions::comparisonStarted, this, [this](const QString& a, const QString& b) {
        m_metrics->setComparison(nullptr);
        if (m_timeline->data() && QString::fromStdString(m_timeline->data()->trace->path) == a) {
            m_stacked->open(m_timeline->data(), b);
            m_nameA->setText(tr("A: %1").arg(QFileInfo(a).fileName()));
            m_nameA->show();
            const int h = m_split->height();
            m_split->setSizes({ h / 2, h - h / 2 }); // A and B get the same height
        }
    });
    connect(m_compare, &CompareActions::comparisonReady, this, [this](std::shared_ptr<const core::RunComparison> c) {
        if (!m_timeline->data() || m_timeline->data()->trace->path != c->a.path)
            return;
        QStringList warnings;
        for (const std::string& w : c->warnings)
            warnings << QString::fromStdString(w);
        m_stacked->setWarnings(warnings);
        m_metrics->setComparison(std::move(c));
    });
    connect(m_stacked, &StackedTimelines::closed, this, [this] {
        m_nameA->hide();
        m_metrics->setComparison(nullptr);
    });
}

void MainWindow::hideProgress()
{
    m_progress->hide();
    m_cancel->hide();
}

MainWindow::~MainWindow() = default;

void MainWindow::rememberLayout() { rememberLayout(std::make_unique<QSettings>()); }

void MainWindow::rememberLayout(std::unique_ptr<QSettings> settings)
{
    m_layoutSettings = std::move(settings);
    restoreGeometry(m_layoutSettings->value(QString::fromLatin1(kGeometryKey)).toByteArray());
    m_layoutRestored
        = restoreState(m_layoutSettings->value(QString::fromLatin1(kDockStateKey)).toByteArray(), kLayoutVersion);
    m_dockVisibility->setChoices(m_layoutSettings->value(QString::fromLatin1(kDockChoicesKey)).toStringList());
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    if (m_layoutSettings) {
        m_layoutSettings->setValue(QString::fromLatin1(kGeometryKey), saveGeometry());
        m_layoutSettings->setValue(QString::fromLatin1(kDockStateKey), saveState(kLayoutVersion));
        m_layoutSettings->setValue(QString::fromLatin1(kDockChoicesKey), m_dockVisibility->choices());
        m_layoutSettings->sync();
    }
    QMainWindow::closeEvent(event);
}

QString MainWindow::message() const { return m_messageBar->isHidden() ? QString() : m_messageLabel->text(); }

void MainWindow::showMessage(const QString& text, bool error)
{
    m_messageLabel->setText(text);
    m_messageBar->setStyleSheet(error ? QStringLiteral("#messageBar { background: #f8d7da; } QLabel { "
                                                       "color: #721c24; }")
                                      : QStringLiteral("#messageBar { background: #fff3cd; } QLabel { "
                                                       "color: #664d03; }"));
    m_messageBar->show();
}

void MainWindow::openTrace(const QString& path)
{
    m_messageBar->hide();
    m_follower->stop();
    endLive();
    m_loader->load(path);
}

void MainWindow::openDialog()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Open trace"), QString(),
        tr("Eventlogs (*.eventlog *.eventlog.gz *.eventlog.zst *.eventlog.bz2 "
           "*.gz *.zst *.bz2);;All files (*)"));
    if (!path.isEmpty())
        openTrace(path);
}

void MainWindow::onLoaded(std::shared_ptr<const TraceData> data, const QString& path, const QStringList& warnings)
{
    hideProgress();
    statusBar()->clearMessage();
    m_stacked->close(); // it compared the trace shown before
    m_problemsWarnedFor = nullptr; // (a new trace's data may reuse the old one's address)
    m_timeline->setData(data);
    m_bookmarkModel->reset(data->markers, data->startNs);
    m_events->setData(data);
    setWindowTitle(QStringLiteral("%1 — SparkScope").arg(QFileInfo(path).fileName()));
    addRecent(QFileInfo(path).absoluteFilePath());
    QStringList problems;
    if (!warnings.isEmpty())
        problems << joinWarnings(warnings);
    // A truncated file lost each engine's buffer not yet written: an engine whose events stop well before
    // the end is hatched from there (unknown, not idle), as the engines behind in a followed trace.
    if (data->trace->truncated) {
        const std::vector<int64_t> last = writtenUntil(*data);
        auto lost = std::make_shared<const std::vector<int64_t>>(unwrittenFrom(*data, last));
        QStringList engines;
        for (size_t e = 0; e < lost->size(); ++e)
            if ((*lost)[e] != INT64_MAX)
                engines << (last[e] == INT64_MIN ? tr("engine %1 (none at all)").arg(e)
                                                 : tr("engine %1 after %2").arg(e).arg(formatDuration((*lost)[e], 6)));
        if (!engines.isEmpty()) {
            m_timeline->setUnwritten(std::move(lost));
            problems << tr("no events of %1 are in the file (hatched)").arg(engines.join(QStringLiteral(", ")));
        }
    }
    if (!problems.isEmpty())
        showMessage(tr("Warning: %1 opened with problems: %2")
                        .arg(QFileInfo(path).fileName(), problems.join(QStringLiteral("; "))),
            false);
    updateStatus();
    showDocksFor(*data);
    if (data->isStreamed())
        m_metrics->showStreamed(*data);
    else
        m_metrics->showTrace(data->trace);
    m_timeline->setFocus(); // the keys (+, -, arrows, Home, End) move the view at once, without a click
    Q_EMIT traceShown();
}

void MainWindow::exportDialog()
{
    if (!m_timeline->data())
        return;
    const QString path = QFileDialog::getSaveFileName(this, tr("Export timeline"), QStringLiteral("timeline.png"),
        tr("PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)"));
    if (path.isEmpty())
        return;
    const QString error = exportTimeline(path, *m_timeline->data(), m_timeline->viewport(),
        FramePalette::fromPalette(m_timeline->palette()), &m_bookmarkModel->bookmarks(), &m_timeline->rows());
    if (!error.isEmpty())
        showMessage(tr("Export failed: %1").arg(error), true);
    else
        statusBar()->showMessage(tr("Exported %1").arg(path), 5000);
}

void MainWindow::addRecent(const QString& path)
{
    QSettings settings;
    QStringList recent = settings.value(QString::fromLatin1(kRecentKey)).toStringList();
    recent.removeAll(path);
    recent.prepend(path);
    while (recent.size() > kMaxRecent)
        recent.removeLast();
    settings.setValue(QString::fromLatin1(kRecentKey), recent);
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu()
{
    m_recentMenu->clear();
    const QStringList recent = QSettings().value(QString::fromLatin1(kRecentKey)).toStringList();
    for (const QString& path : recent)
        m_recentMenu->addAction(path, this, [this, path] { openTrace(path); });
    m_recentMenu->setEnabled(!recent.isEmpty());
}

void MainWindow::warnOfModelProblems()
{
    const auto full = m_metrics->session()->full();
    const auto data = m_timeline->data();
    // A truncated or followed trace leaves instances open at its end: expected there, and the message
    // bar or the live indicator already says why.
    if (!full || !data || data->trace->truncated || m_follower->isFollowing())
        return;
    // A part's metrics, computed while the file grew, whose open instances a newer part closes.
    if (m_metrics->session()->hasNewerPart())
        return;
    // Once per trace shown: its metrics can come again (a call count), and a person who closed the
    // bar has read it.
    if (m_problemsWarnedFor == data.get())
        return;
    m_problemsWarnedFor = data.get();
    std::vector<const core::Problem*> problems;
    for (const core::Problem& p : full->metrics.model.problems)
        if (!p.isNote)
            problems.push_back(&p);
    if (problems.empty())
        return;
    const core::Problem& first = *problems.front();
    const QString where = first.engine == core::kNoEngine
        ? tr("at %1").arg(formatDuration(int64_t(first.timeNs), 6))
        : tr("at %1 on engine %2").arg(formatDuration(int64_t(first.timeNs), 6)).arg(first.engine);
    const QString places = problems.size() == 1 ? tr("1 place") : tr("%1 places").arg(problems.size());
    QString text = tr("Warning: the trace contradicts itself in %1, the first %2: %3. The metrics and the "
                      "analysis leave the instances involved out; sparkscope-cli check lists every place.")
                       .arg(places, where, QString::fromStdString(first.message));
    // Under what the loading said, if it said something.
    const QString shown = m_messageBar->isHidden() ? QString() : m_messageLabel->text();
    if (!shown.isEmpty())
        text = shown + QStringLiteral("\n") + text;
    showMessage(text, false);
}

void MainWindow::updateStatus()
{
    const auto& data = m_timeline->data();
    if (!data) {
        m_status->clear();
        return;
    }
    const TimeWindow w = m_zoom->window();
    QString text = tr("%1 events%2, %3   view %4 – %5 (%6)")
                       .arg(data->eventCount())
                       .arg(data->isStreamed() ? tr(" (streamed)") : QString())
                       .arg(formatEngines(data->engineCount()))
                       .arg(formatDuration(w.startNs, 6), formatDuration(w.endNs, 6), formatDuration(w.spanNs()));
    if (auto c = m_zoom->cursorNs())
        text += tr("   cursor %1").arg(formatDuration(*c, 7));
    if (auto s = m_zoom->selection())
        text += tr("   selection %1 – %2 (%3)")
                    .arg(formatDuration(s->startNs, 6), formatDuration(s->endNs, 6), formatDuration(s->spanNs()));
    m_status->setText(text);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event)
{
    if (event->mimeData()->hasUrls())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event)
{
    const auto urls = event->mimeData()->urls();
    if (!urls.isEmpty() && urls.first().isLocalFile()) {
        openTrace(urls.first().toLocalFile());
        event->acceptProposedAction();
    }
}

} // namespace sparkscope::ui
