// Opening traces in the main window by drag and drop and from File > Open Recent, with QSettings
// redirected to a temporary directory (the person's own recent list is never touched).
#include "support/test_data.h"
#include "support/trace_builder.h"
#include "ui/main_window.h"

#include "sparkscope/core/writer.h"

#include <QAction>
#include <QApplication>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileInfo>
#include <QMenu>
#include <QMenuBar>
#include <QMimeData>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QUrl>
#include <catch2/catch.hpp>

using namespace sparkscope;
using namespace sparkscope::ui;

namespace {

// QSettings (user scope) live in a fresh temporary directory while this object exists.
struct TemporarySettings {
    QTemporaryDir dir;
    TemporarySettings()
    {
        REQUIRE(dir.isValid());
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, dir.path());
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, dir.path());
        QSettings().clear();
    }
    ~TemporarySettings()
    {
        const QString standard = QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation);
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, standard);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, standard);
    }
};

// A small valid trace (two engines, one thread each) written to `dir` as `name`.
QString writeSmallTrace(const std::string& dir, const std::string& name)
{
    test::TraceBuilder b(2);
    b.createThread(0, 10, 1).runThread(0, 20, 1).stopThread(0, 500, 1, core::kStopFinished);
    b.createThread(1, 30, 2).runThread(1, 40, 2).stopThread(1, 400, 2, core::kStopFinished);
    b.endAt(600);
    const std::string path = dir + "/" + name;
    REQUIRE(core::writeFile(path, core::writeTrace(b.roundTrip())));
    return QString::fromStdString(path);
}

QMenu* recentMenu(MainWindow& window)
{
    for (QAction* a : window.menuBar()->actions())
        if (a->menu())
            for (QAction* b : a->menu()->actions())
                if (b->menu() && b->text().remove(QLatin1Char('&')) == QStringLiteral("Open Recent"))
                    return b->menu();
    return nullptr;
}

QStringList recentEntries(MainWindow& window)
{
    QStringList out;
    if (QMenu* menu = recentMenu(window))
        for (QAction* a : menu->actions())
            out << a->text();
    return out;
}

} // namespace

TEST_CASE("dropping a trace file on the window opens it and other drops are refused", "[ui][window]")
{
    TemporarySettings settings;
    const QString path = writeSmallTrace(test::scratchDir("ui-window-drop").string(), "dropped.eventlog");
    MainWindow window;
    window.show();
    REQUIRE(window.acceptDrops());

    QMimeData files;
    files.setUrls({ QUrl::fromLocalFile(path) });
    QDragEnterEvent enter(QPoint(50, 50), Qt::CopyAction, &files, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&window, &enter);
    CHECK(enter.isAccepted());

    QSignalSpy shown(&window, &MainWindow::traceShown);
    QDropEvent drop(QPointF(50, 50), Qt::CopyAction, &files, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&window, &drop);
    CHECK(drop.isAccepted());
    REQUIRE(shown.wait(10000));
    CHECK(window.windowTitle().startsWith(QStringLiteral("dropped.eventlog")));
    CHECK(recentEntries(window) == QStringList { QFileInfo(path).absoluteFilePath() });

    // Plain text is not a file: the drag is not accepted.
    QMimeData text;
    text.setText(QStringLiteral("hello"));
    QDragEnterEvent enterText(QPoint(50, 50), Qt::CopyAction, &text, Qt::LeftButton, Qt::NoModifier);
    enterText.setAccepted(false);
    QApplication::sendEvent(&window, &enterText);
    CHECK_FALSE(enterText.isAccepted());

    // A remote URL is refused at the drop and nothing is loaded.
    QMimeData remote;
    remote.setUrls({ QUrl(QStringLiteral("https://example.org/x.eventlog")) });
    QDropEvent dropRemote(QPointF(50, 50), Qt::CopyAction, &remote, Qt::LeftButton, Qt::NoModifier);
    dropRemote.setAccepted(false);
    QApplication::sendEvent(&window, &dropRemote);
    CHECK_FALSE(dropRemote.isAccepted());
    CHECK(window.message().isEmpty());
}

TEST_CASE("the recent-files menu lists opened traces newest first, at most ten, and reopens them", "[ui][window]")
{
    TemporarySettings settings;
    MainWindow window;
    window.show();
    QMenu* menu = recentMenu(window);
    REQUIRE(menu);
    CHECK_FALSE(menu->isEnabled()); // nothing opened yet in this settings scope
    CHECK(recentEntries(window).isEmpty());

    const std::string dir = test::scratchDir("ui-window-recent").string(); // one fresh dir for all files
    const QString a = writeSmallTrace(dir, "recent-a.eventlog");
    const QString b = writeSmallTrace(dir, "recent-b.eventlog");
    QSignalSpy shown(&window, &MainWindow::traceShown);
    window.openTrace(a);
    REQUIRE(shown.wait(10000));
    window.openTrace(b);
    REQUIRE(shown.wait(10000));
    CHECK(menu->isEnabled());
    CHECK(recentEntries(window) == QStringList { b, a });

    // Reopening a moves it to the top without duplicating it.
    window.openTrace(a);
    REQUIRE(shown.wait(10000));
    CHECK(recentEntries(window) == QStringList { a, b });

    // The list survives in the settings: a new window shows it too.
    {
        MainWindow other;
        CHECK(recentEntries(other) == QStringList { a, b });
    }

    // Choosing an entry opens that trace.
    menu->actions().at(1)->trigger();
    REQUIRE(shown.wait(10000));
    CHECK(window.windowTitle().startsWith(QStringLiteral("recent-b.eventlog")));
    CHECK(recentEntries(window) == QStringList { b, a });

    // At most ten entries: twelve files leave the ten newest.
    QStringList opened;
    for (int i = 0; i < 12; ++i) {
        const QString p = writeSmallTrace(dir, "recent-" + std::to_string(i) + ".eventlog");
        window.openTrace(p);
        REQUIRE(shown.wait(10000));
        opened.prepend(p);
    }
    CHECK(recentEntries(window) == opened.mid(0, 10));

    // An entry whose file has gone away says so in the message bar.
    QSettings().setValue(QStringLiteral("recentFiles"), QStringList { a + QStringLiteral(".gone") });
    MainWindow fresh;
    fresh.show();
    QSignalSpy failed(&fresh, &MainWindow::loadFailed);
    REQUIRE(recentMenu(fresh));
    REQUIRE(recentMenu(fresh)->actions().size() == 1);
    recentMenu(fresh)->actions().front()->trigger();
    REQUIRE(failed.wait(10000));
    CHECK(fresh.message().contains(QStringLiteral("recent-a.eventlog.gone")));
}
