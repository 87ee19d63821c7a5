// The main window's layout between sessions: docks moved or hidden and the window's size come back
// in the next window that remembers its layout, and a window that does not (--screenshot, the other
// tests) keeps the default layout. The layout is kept in an ini file in a temporary directory, so a
// person's own settings are never read or written.
#include "ui/main_window.h"
#include "ui/panels/metrics_panels.h"

#include <QCoreApplication>
#include <QDockWidget>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>
#include <catch2/catch.hpp>

#include <memory>

using namespace sparkscope::ui;

namespace {

QDockWidget* dock(const MainWindow& window, const char* name)
{
    auto* found = window.findChild<QDockWidget*>(QString::fromLatin1(name));
    REQUIRE(found);
    return found;
}

// The default layout of createDocks: Bookmarks and the metrics docks on the right, Events hidden.
void checkDefaultLayout(const MainWindow& window)
{
    CHECK(window.dockWidgetArea(dock(window, "summaryDock")) == Qt::RightDockWidgetArea);
    CHECK(window.dockWidgetArea(dock(window, "eventsDock")) == Qt::BottomDockWidgetArea);
    CHECK_FALSE(dock(window, "bookmarksDock")->isHidden());
    CHECK(dock(window, "eventsDock")->isHidden());
}

} // namespace

TEST_CASE("a moved or hidden dock and the window size come back in the next window", "[ui][window][layout]")
{
    QTemporaryDir dir;
    REQUIRE(dir.isValid());
    const QString ini = dir.filePath(QStringLiteral("layout.ini"));
    auto settings = [&] { return std::make_unique<QSettings>(ini, QSettings::IniFormat); };
    QSize size;
    {
        MainWindow window;
        window.rememberLayout(settings()); // nothing saved yet: the default layout
        checkDefaultLayout(window);
        window.resize(window.minimumSizeHint() + QSize(40, 30)); // not the default 1280 × 800
        window.show();
        REQUIRE(QTest::qWaitForWindowExposed(&window));
        window.addDockWidget(Qt::LeftDockWidgetArea, window.metrics()->summaryDock());
        dock(window, "bookmarksDock")->hide();
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
        CHECK(window.dockWidgetArea(window.metrics()->summaryDock()) == Qt::LeftDockWidgetArea);
        CHECK(dock(window, "bookmarksDock")->isHidden());
        CHECK_FALSE(dock(window, "eventsDock")->isHidden());
        CHECK(window.size() == size);
    }
    // A window that does not remember its layout ignores the saved one.
    MainWindow plain;
    checkDefaultLayout(plain);
    plain.show();
    REQUIRE(QTest::qWaitForWindowExposed(&plain));
    checkDefaultLayout(plain);
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
