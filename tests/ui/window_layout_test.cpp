// The main window's layout: only docks with something to say are shown (none before a trace; the
// Conjunctions only for a trace with conjunctions, the Bookmarks only with markers or once the person
// adds one; the person's own View-menu choice wins), the right docks leave the timeline most of the
// width, and between sessions docks moved or hidden and the window's size come back in the next
// window that remembers its layout, while a window that does not (--screenshot, the other tests)
// keeps the default layout. The layout is kept in an ini file in a temporary directory, so a person's
// own settings are never read or written.
#include "panels_test_trace.h"

#include "sparkscope/core/writer.h"
#include "support/test_data.h"
#include "ui/analysis/analysis_view.h"
#include "ui/docks/bookmarks_panel.h"
#include "ui/main_window.h"
#include "ui/panels/metrics_panels.h"
#include "ui/timeline/timeline_widget.h"

#include <QAction>
#include <QCoreApplication>
#include <QDockWidget>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <catch2/catch.hpp>

#include <memory>

using namespace sparkscope;
using namespace sparkscope::ui;

namespace {

QDockWidget* dock(const MainWindow& window, const char* name)
{
    auto* found = window.findChild<QDockWidget*>(QString::fromLatin1(name));
    REQUIRE(found);
    return found;
}

constexpr const char* kRightDocks[] = { "whyDock", "conjunctionsDock", "summaryDock", "enginesDock", "bookmarksDock" };

// The default layout of createDocks before a trace: the right docks in place but none shown (they
// would be empty), Events at the bottom and hidden.
void checkDefaultLayout(const MainWindow& window)
{
    CHECK(window.dockWidgetArea(dock(window, "summaryDock")) == Qt::RightDockWidgetArea);
    CHECK(window.dockWidgetArea(dock(window, "whyDock")) == Qt::RightDockWidgetArea);
    CHECK(window.dockWidgetArea(dock(window, "eventsDock")) == Qt::BottomDockWidgetArea);
    for (const char* name : kRightDocks)
        CHECK(dock(window, name)->isHidden());
    CHECK(dock(window, "eventsDock")->isHidden());
}

// Opens `path` in `window` and waits until it is on screen.
void open(MainWindow& window, const QString& path)
{
    QSignalSpy shown(&window, &MainWindow::traceShown);
    window.openTrace(path);
    REQUIRE(QTest::qWaitFor([&] { return shown.count() == 1; }, 30000));
    QCoreApplication::sendPostedEvents();
}

QString writePanelsTrace()
{
    const QString dir = QString::fromStdString(test::scratchDir("window-layout").string());
    const QString path = dir + QStringLiteral("/conjunctions.eventlog");
    REQUIRE(core::writeFile(path.toStdString(), core::writeTrace(test::panelsTraceBuilder().roundTrip())));
    return path;
}

} // namespace

TEST_CASE("docks are shown when they have something to say about the trace", "[ui][window][layout]")
{
    MainWindow window;
    window.resize(1600, 1000);
    window.show();
    REQUIRE(QTest::qWaitForWindowExposed(&window));
    checkDefaultLayout(window);

    // A trace with conjunctions and no markers: the Why dock in front, Conjunctions, Summary and
    // Engines as its tabs, no Bookmarks; together they leave the timeline at least 70 % of the width.
    open(window, writePanelsTrace());
    for (const char* name : { "whyDock", "conjunctionsDock", "summaryDock", "enginesDock" })
        CHECK_FALSE(dock(window, name)->isHidden());
    CHECK(dock(window, "bookmarksDock")->isHidden());
    CHECK(window.tabifiedDockWidgets(dock(window, "whyDock")).size() == 3);
    CHECK(window.timeline()->width() >= 0.7 * window.width());

    // Adding a bookmark shows the Bookmarks dock.
    window.findChild<BookmarksPanel*>()->addAtCursor();
    CHECK_FALSE(dock(window, "bookmarksDock")->isHidden());

    // A GHC eventlog has no conjunctions: no Conjunctions dock; the analysis and the summary stay.
    if (const auto ghc = test::sharedTestData("ghc/parfib-12-30.eventlog")) {
        open(window, QString::fromStdString(ghc->string()));
        CHECK(dock(window, "conjunctionsDock")->isHidden());
        CHECK_FALSE(dock(window, "whyDock")->isHidden());
        CHECK_FALSE(dock(window, "summaryDock")->isHidden());
        CHECK(dock(window, "bookmarksDock")->isHidden()); // its markers: none

        // The person's choice wins: Conjunctions switched on from the View menu stays on for the
        // next GHC eventlog, and Why switched off stays off.
        dock(window, "conjunctionsDock")->toggleViewAction()->trigger();
        dock(window, "whyDock")->toggleViewAction()->trigger();
        open(window, QString::fromStdString(ghc->string()));
        CHECK_FALSE(dock(window, "conjunctionsDock")->isHidden());
        CHECK(dock(window, "whyDock")->isHidden());
    }
}

TEST_CASE("a moved or hidden dock and the window size come back in the next window", "[ui][window][layout]")
{
    QTemporaryDir dir;
    REQUIRE(dir.isValid());
    const QString ini = dir.filePath(QStringLiteral("layout.ini"));
    auto settings = [&] { return std::make_unique<QSettings>(ini, QSettings::IniFormat); };
    const QString trace = writePanelsTrace();
    QSize size;
    {
        MainWindow window;
        window.rememberLayout(settings()); // nothing saved yet: the default layout
        checkDefaultLayout(window);
        window.resize(1500, 900); // not the default 1280 × 800, and room for every dock's minimum
        window.show();
        REQUIRE(QTest::qWaitForWindowExposed(&window));
        open(window, trace);
        window.addDockWidget(Qt::LeftDockWidgetArea, window.metrics()->summaryDock());
        dock(window, "whyDock")->toggleViewAction()->trigger(); // hidden by the person
        dock(window, "eventsDock")->show();
        QCoreApplication::sendPostedEvents(); // the layout takes in the moved docks
        size = window.size();
        CHECK(size != QSize(1280, 800));
        window.close(); // saves
    }
    CHECK(QSettings(ini, QSettings::IniFormat).contains(QStringLiteral("window/dockState")));
    {
        MainWindow window;
        window.rememberLayout(settings());
        window.show();
        REQUIRE(QTest::qWaitForWindowExposed(&window));
        open(window, trace);
        CHECK(window.dockWidgetArea(window.metrics()->summaryDock()) == Qt::LeftDockWidgetArea);
        CHECK_FALSE(window.metrics()->summaryDock()->isHidden());
        CHECK(dock(window, "whyDock")->isHidden()); // the person's choice, kept over the trace's
        CHECK_FALSE(dock(window, "eventsDock")->isHidden());
        CHECK(window.size() == size);
    }
    // A window that does not remember its layout ignores the saved one.
    MainWindow plain;
    checkDefaultLayout(plain);
    plain.show();
    REQUIRE(QTest::qWaitForWindowExposed(&plain));
    checkDefaultLayout(plain);
    open(plain, trace);
    CHECK_FALSE(dock(plain, "whyDock")->isHidden());
}

TEST_CASE("a window that does not remember its layout saves none on close", "[ui][window][layout]")
{
    // The tests' QSettings (organisation SparkScopeTests, tests/ui/ui_main.cpp) only read here.
    const QString key = QStringLiteral("window/dockState");
    REQUIRE_FALSE(QSettings().contains(key));
    MainWindow window;
    window.show();
    REQUIRE(QTest::qWaitForWindowExposed(&window));
    window.addDockWidget(Qt::LeftDockWidgetArea, window.metrics()->summaryDock());
    window.close();
    CHECK_FALSE(QSettings().contains(key));
}
