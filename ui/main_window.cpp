#include "ui/main_window.h"

#include "ui/docks/bookmarks_panel.h"
#include "ui/docks/events_panel.h"
#include "ui/export/timeline_export.h"
#include "ui/loading/trace_loader.h"
#include "ui/models/bookmarks_model.h"
#include "ui/panels/metrics_panels.h"
#include "ui/timeline/timeline_widget.h"
#include "ui/timeline/zoom_state.h"

#include <QAction>
#include <QApplication>
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
} // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent)
    , m_zoom(new ZoomState(this))
    , m_loader(new TraceLoader(this))
{
    initSparkScopeResources();
    setWindowTitle(QStringLiteral("SparkScope"));
    setWindowIcon(QIcon(QStringLiteral(":/sparkscope.svg")));
    setAcceptDrops(true);
    resize(1280, 800);

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
    m_timeline = new TimelineWidget(m_zoom, central);
    layout->addWidget(m_timeline, 1);
    setCentralWidget(central);

    // Status bar: position, selection, progress and cancel.
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

    // Menus and toolbar.
    auto* file = menuBar()->addMenu(tr("&File"));
    auto* open = file->addAction(
        style()->standardIcon(QStyle::SP_DialogOpenButton), tr("&Open…"), this, &MainWindow::openDialog);
    open->setShortcut(QKeySequence::Open);
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    auto* exportAction = file->addAction(
        style()->standardIcon(QStyle::SP_DialogSaveButton), tr("&Export Timeline…"), this, &MainWindow::exportDialog);
    exportAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    file->addSeparator();
    auto* quit = file->addAction(tr("&Quit"), qApp, &QApplication::closeAllWindows);
    quit->setShortcut(QKeySequence::Quit);

    auto* view = menuBar()->addMenu(tr("&View"));
    m_back = view->addAction(style()->standardIcon(QStyle::SP_ArrowBack), tr("Zoom &Back"), m_zoom, &ZoomState::goBack);
    m_back->setShortcuts({ QKeySequence::Back, QKeySequence(Qt::Key_Backspace) });
    m_forward = view->addAction(
        style()->standardIcon(QStyle::SP_ArrowForward), tr("Zoom &Forward"), m_zoom, &ZoomState::goForward);
    m_forward->setShortcut(QKeySequence::Forward);
    auto centreOfView = [this] {
        const TimeWindow w = m_zoom->window();
        return m_zoom->cursorNs().value_or(w.startNs + w.spanNs() / 2);
    };
    auto* zoomIn = view->addAction(tr("Zoom &In"), this, [this, centreOfView] { m_zoom->zoomBy(2.0, centreOfView()); });
    zoomIn->setShortcut(QKeySequence::ZoomIn);
    auto* zoomOut
        = view->addAction(tr("Zoom &Out"), this, [this, centreOfView] { m_zoom->zoomBy(0.5, centreOfView()); });
    zoomOut->setShortcut(QKeySequence::ZoomOut);
    auto* fit = view->addAction(tr("Zoom to &Fit"), m_zoom, &ZoomState::zoomToFit);
    fit->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));
    auto* toSel = view->addAction(tr("Zoom to &Selection"), m_zoom, &ZoomState::zoomToSelection);
    toSel->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Return));
    // Optional timeline rows: off by default, remembered between sessions; computed when switched on.
    view->addSeparator();
    auto addRowToggle = [&](const QString& text, const char* key, void (TimelineWidget::*set)(bool)) {
        auto* action = view->addAction(text);
        action->setCheckable(true);
        const bool on = QSettings().value(QString::fromLatin1(key), false).toBool();
        action->setChecked(on);
        (m_timeline->*set)(on);
        connect(action, &QAction::toggled, this, [this, key, set](bool checked) {
            QSettings().setValue(QString::fromLatin1(key), checked);
            (m_timeline->*set)(checked);
        });
        return action;
    };
    m_contextLanesAction = addRowToggle(tr("&Context Lanes"), kContextLanesKey, &TimelineWidget::setShowContextLanes);
    m_dequeSizesAction = addRowToggle(tr("Spark &Deque Sizes"), kDequeSizesKey, &TimelineWidget::setShowDequeSizes);

    auto* tools = addToolBar(tr("Main"));
    tools->setObjectName(QStringLiteral("mainToolBar"));
    tools->addAction(open);
    tools->addAction(exportAction);
    tools->addSeparator();
    tools->addAction(m_back);
    tools->addAction(m_forward);
    tools->addAction(zoomIn);
    tools->addAction(zoomOut);
    tools->addAction(fit);
    tools->addAction(toSel);

    connect(m_zoom, &ZoomState::historyChanged, this, [this] {
        m_back->setEnabled(m_zoom->canGoBack());
        m_forward->setEnabled(m_zoom->canGoForward());
    });
    m_back->setEnabled(false);
    m_forward->setEnabled(false);
    connect(m_zoom, &ZoomState::windowChanged, this, &MainWindow::updateStatus);
    connect(m_zoom, &ZoomState::selectionChanged, this, &MainWindow::updateStatus);
    connect(m_zoom, &ZoomState::cursorChanged, this, &MainWindow::updateStatus);

    // Loading.
    connect(m_loader, &TraceLoader::started, this, [this](const QString& path) {
        m_progress->setValue(0);
        m_progress->show();
        m_cancel->show();
        statusBar()->showMessage(tr("Loading %1…").arg(path));
    });
    connect(m_loader, &TraceLoader::progressed, m_progress, &QProgressBar::setValue);
    connect(m_loader, &TraceLoader::loaded, this, &MainWindow::onLoaded);
    connect(m_loader, &TraceLoader::failed, this, [this](const QString& path, const QString& message) {
        m_progress->hide();
        m_cancel->hide();
        statusBar()->clearMessage();
        const QString text = tr("Could not open %1: %2").arg(path, message);
        showMessage(text, true);
        Q_EMIT loadFailed(text);
    });
    connect(m_loader, &TraceLoader::cancelled, this, [this](const QString& path) {
        m_progress->hide();
        m_cancel->hide();
        statusBar()->showMessage(tr("Loading %1 cancelled").arg(path), 5000);
    });
    // Docks: events list and bookmarks.
    m_bookmarkModel = new BookmarksModel(this);
    m_events = new EventsPanel(m_zoom, this);
    m_bookmarks = new BookmarksPanel(m_zoom, m_bookmarkModel, this);
    auto* eventsDock = new QDockWidget(tr("Events"), this);
    eventsDock->setObjectName(QStringLiteral("eventsDock"));
    eventsDock->setWidget(m_events);
    addDockWidget(Qt::BottomDockWidgetArea, eventsDock);
    auto* bookmarksDock = new QDockWidget(tr("Bookmarks"), this);
    bookmarksDock->setObjectName(QStringLiteral("bookmarksDock"));
    bookmarksDock->setWidget(m_bookmarks);
    addDockWidget(Qt::RightDockWidgetArea, bookmarksDock);
    resizeDocks({ bookmarksDock }, { 260 }, Qt::Horizontal);
    resizeDocks({ eventsDock }, { 260 }, Qt::Vertical);
    // The events list costs 8 bytes per event for its time-order index, built when it is first
    // shown: hidden by default so that opening a huge trace stays lean (View > Events shows it).
    eventsDock->hide();
    view->addSeparator();
    view->addAction(eventsDock->toggleViewAction());
    view->addAction(bookmarksDock->toggleViewAction());
    auto* addBookmark = view->addAction(tr("Add &Bookmark"), m_bookmarks, &BookmarksPanel::addAtCursor);
    addBookmark->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_B));
    connect(m_bookmarkModel, &BookmarksModel::bookmarksChanged, this,
        [this] { m_timeline->setBookmarks(&m_bookmarkModel->bookmarks()); });
    installMetricsPanels(this); // conjunctions, summary, engines and metric docks; hover menus; Export Metrics
    rebuildRecentMenu();
}

MainWindow::~MainWindow() = default;

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
    m_progress->hide();
    m_cancel->hide();
    statusBar()->clearMessage();
    m_timeline->setData(data);
    m_bookmarkModel->reset(data->markers, data->startNs);
    m_events->setData(data);
    setWindowTitle(QStringLiteral("%1 — SparkScope").arg(QFileInfo(path).fileName()));
    addRecent(QFileInfo(path).absoluteFilePath());
    if (!warnings.isEmpty())
        showMessage(tr("Warning: %1 opened with problems: %2")
                        .arg(QFileInfo(path).fileName(), warnings.join(QStringLiteral("; "))),
            false);
    updateStatus();
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

void MainWindow::updateStatus()
{
    const auto& data = m_timeline->data();
    if (!data) {
        m_status->clear();
        return;
    }
    const TimeWindow w = m_zoom->window();
    QString text = tr("%1 events, %2 engines   view %3 – %4 (%5)")
                       .arg(data->trace->eventCount())
                       .arg(data->engineCount())
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
