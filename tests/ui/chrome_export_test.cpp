// File > Export Chrome/Perfetto Trace… in the real main window: the action is in the File menu once
// the window exists, and exporting the open trace writes, in the background, the very file that
// `sparkscope-cli export --format chrome` (core::writeChromeTraceFile) writes for the same eventlog.
#include "panels_test_trace.h"

#include "sparkscope/core/chrome_trace.h"
#include "sparkscope/core/reader.h"
#include "sparkscope/core/writer.h"
#include "support/test_data.h"
#include "ui/export/chrome_export.h"
#include "ui/main_window.h"
#include "ui/timeline/timeline_widget.h"

#include <catch2/catch.hpp>

#include <QAction>
#include <QFile>
#include <QMenu>
#include <QMenuBar>
#include <QSignalSpy>
#include <QTest>

using namespace sparkscope;
using namespace sparkscope::ui;

namespace {

QByteArray readAll(const QString& path)
{
    QFile f(path);
    REQUIRE(f.open(QIODevice::ReadOnly));
    return f.readAll();
}

} // namespace

TEST_CASE("File > Export Chrome/Perfetto Trace writes what the CLI writes", "[ui][window][chrome]")
{
    const QString dir = QString::fromStdString(test::scratchDir("ui-chrome-export").string());
    const QString path = dir + QStringLiteral("/hand.eventlog");
    REQUIRE(core::writeFile(path.toStdString(), core::writeTrace(test::panelsTraceBuilder().roundTrip())));

    MainWindow window;
    window.show();
    QAction* action = nullptr;
    for (QAction* a : window.menuBar()->actions())
        if (a->menu())
            for (QAction* b : a->menu()->actions())
                if (b->objectName() == QStringLiteral("exportChromeAction"))
                    action = b;
    REQUIRE(action);

    QSignalSpy shown(&window, &MainWindow::traceShown);
    window.openTrace(path);
    REQUIRE(QTest::qWaitFor([&] { return shown.count() > 0; }, 20000));
    auto* exporter = window.findChild<ChromeExport*>();
    REQUIRE(exporter);
    QSignalSpy finished(exporter, &ChromeExport::finished);
    const QString out = dir + QStringLiteral("/app.json");
    exporter->start(window.timeline()->data()->trace, out);
    REQUIRE(QTest::qWaitFor([&] { return finished.count() > 0; }, 20000));
    CHECK(finished.first().at(0).toString() == out);
    CHECK(finished.first().at(1).toString().isEmpty());

    const QString cli = dir + QStringLiteral("/cli.json");
    auto trace = core::readTrace(path.toStdString());
    REQUIRE(trace);
    REQUIRE(core::writeChromeTraceFile(trace.value(), cli.toStdString()));
    const QByteArray app = readAll(out);
    CHECK(app.size() > 1000);
    CHECK(app == readAll(cli));

    // A file that cannot be written is reported, not a crash.
    finished.clear();
    exporter->start(window.timeline()->data()->trace, dir + QStringLiteral("/missing/dir/x.json"));
    REQUIRE(QTest::qWaitFor([&] { return finished.count() > 0; }, 20000));
    CHECK(finished.first().at(1).toString().contains(QStringLiteral("missing/dir")));
}
