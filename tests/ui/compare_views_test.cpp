// File > Compare With… and File > Open Scaling Series… in the app (ui/compare/): the actions are in the
// File menu; a comparison of two demo traces (parfib on 1 and on 2 engines), computed in the background
// as the action does, shows in its tables the very numbers `sparkscope-cli compare --format json`
// writes (A, B, B − A, B / A of every program and ledger figure and of every site's figures), and a
// scaling series the CLI's speed-ups, efficiencies and serial fractions; a hand-built pair whose
// differences are worked out by hand shows them.
#include "panels_test_trace.h"

#include "sparkscope/core/compare.h"
#include "sparkscope/core/writer.h"
#include "support/test_data.h"
#include "ui/compare/compare_actions.h"
#include "ui/compare/comparison_view.h"
#include "ui/compare/figure_table.h"
#include "ui/compare/scaling_chart.h"
#include "ui/compare/scaling_view.h"
#include "ui/compare/stacked_timelines.h"
#include "ui/main_window.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include <QAction>
#include <QLabel>
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMenuBar>
#include <QProcess>
#include <QSet>
#include <QSignalSpy>
#include <QTest>

using namespace sparkscope;
using namespace sparkscope::ui;

namespace {

const QString kBinaryDir = QStringLiteral(SPARKSCOPE_BINARY_DIR);

// parfib recorded by the built demo on `engines` engines into `dir` (empty when the demo is not built).
QString demoTrace(const QString& dir, int engines)
{
    const QString demo = kBinaryDir + QStringLiteral("/app/sparkscope-demo");
    if (!QFile::exists(demo))
        return {};
    const QString path = dir + QStringLiteral("/parfib-%1.eventlog").arg(engines);
    QProcess p;
    p.start(demo,
        { QStringLiteral("parfib"), QStringLiteral("--n"), QStringLiteral("22"), QStringLiteral("--cutoff"),
            QStringLiteral("12"), QStringLiteral("--engines"), QString::number(engines), QStringLiteral("--trace"),
            path });
    REQUIRE(p.waitForFinished(60000));
    REQUIRE(p.exitCode() == 0);
    return path;
}

QJsonObject cliJson(const QStringList& args)
{
    QProcess p;
    p.start(kBinaryDir + QStringLiteral("/app/sparkscope-cli"),
        args + QStringList { QStringLiteral("--format"), QStringLiteral("json") });
    REQUIRE(p.waitForFinished(120000));
    REQUIRE(p.exitCode() == 0);
    return QJsonDocument::fromJson(p.readAllStandardOutput()).object();
}

// A table cell's number (Qt::UserRole), or null when the cell shows none.
QJsonValue cellValue(const QTableWidget* t, int row, int column)
{
    const QVariant v = t->item(row, column)->data(Qt::UserRole);
    return v.isValid() ? QJsonValue(v.toDouble()) : QJsonValue();
}

bool sameNumber(const QJsonValue& a, const QJsonValue& b)
{
    if (a.isNull() || b.isNull())
        return a.isNull() && b.isNull();
    return std::abs(a.toDouble() - b.toDouble()) <= 1e-9 * std::max(1.0, std::abs(b.toDouble()));
}

// The next figures.size() rows of `t` from `row` on are those figures (each row's key is its first
// cell's UserRole; QJsonObject keeps keys sorted, so they are looked up, not walked in order), each
// showing the figure's a, b, difference and ratio. Advances `row`; returns how many rows matched.
int checkRows(const QTableWidget* t, int& row, const QJsonObject& figures)
{
    int checked = 0;
    for (int n = 0; n < figures.size(); ++n, ++row) {
        REQUIRE(row < t->rowCount());
        const QString key = t->item(row, 0)->data(Qt::UserRole).toString();
        INFO("row " << row << ": " << key.toStdString());
        REQUIRE(figures.contains(key));
        const QJsonObject f = figures.value(key).toObject();
        const char* columns[] = { "a", "b", "difference", "ratio" };
        for (int c = 0; c < 4; ++c) {
            INFO(columns[c]);
            CHECK(sameNumber(cellValue(t, row, c + 1), f.value(QLatin1String(columns[c]))));
        }
        ++checked;
    }
    return checked;
}

} // namespace

TEST_CASE("the File menu has Compare With and Open Scaling Series", "[ui][compare]")
{
    MainWindow window;
    QStringList file;
    for (QAction* a : window.menuBar()->actions().front()->menu()->actions())
        file << a->objectName();
    CHECK(file.contains(QStringLiteral("compareWithAction")));
    CHECK(file.contains(QStringLiteral("openScalingSeriesAction")));
    REQUIRE(window.compare());
    CHECK(!window.compare()->resultWindow());
}

TEST_CASE("a comparison view shows a hand-built pair's differences", "[ui][compare]")
{
    // The panels trace (panels_test_trace.h) and the same with the trace's end 100 ns later: only the
    // range (1100 → 1200) and the idle time at the end change; the ledger's total grows by 2 × 100.
    auto a = test::panelsTraceBuilder();
    auto b = test::panelsTraceBuilder();
    b.endAt(1200);
    const core::RunComparison c = core::compareRuns(core::RunInput { "a", core::profileTrace(a.roundTrip()), {} },
        core::RunInput { "b", core::profileTrace(b.roundTrip()), {} });
    ComparisonView view(c);
    const FigureTable* program = view.programTable();
    auto rowOf = [](const QTableWidget* t, const QString& key) {
        for (int r = 0; r < t->rowCount(); ++r)
            if (t->item(r, 0)->data(Qt::UserRole).toString() == key)
                return r;
        FAIL("no row " << key.toStdString());
        return -1;
    };
    int r = rowOf(program, QStringLiteral("range_ns"));
    CHECK(program->item(r, 3)->data(Qt::UserRole).toDouble() == 100);
    CHECK(program->item(r, 3)->text() == QStringLiteral("+100 ns")); // in the unit that reads best
    r = rowOf(program, QStringLiteral("work_ns"));
    CHECK(program->item(r, 3)->data(Qt::UserRole).toDouble() == 0);
    CHECK(program->item(r, 4)->data(Qt::UserRole).toDouble() == 1);
    r = rowOf(view.ledgerTable(), QStringLiteral("total_ns"));
    CHECK(view.ledgerTable()->item(r, 3)->data(Qt::UserRole).toDouble() == 200);
    // fib.m:12: covered [200, 900) = 700 in both; a heading row, then its figures.
    CHECK(view.sitesTable()->item(0, 0)->text() == QStringLiteral("fib.m:12"));
    r = rowOf(view.sitesTable(), QStringLiteral("covered_ns"));
    CHECK(view.sitesTable()->item(r, 1)->data(Qt::UserRole).toDouble() == 700);
    CHECK(view.sitesTable()->item(r, 3)->data(Qt::UserRole).toDouble() == 0);
    CHECK(view.warningText().isEmpty());
}

TEST_CASE("Compare With and a scaling series of demo traces show the CLI's figures", "[ui][compare]")
{
    const QString dir = QString::fromStdString(test::scratchDir("ui-compare").string());
    const QString one = demoTrace(dir, 1), two = demoTrace(dir, 2);
    if (one.isEmpty()) {
        WARN("NOT RUN: sparkscope-demo is not built");
        return;
    }
    MainWindow window;
    CompareActions* actions = window.compare();
    QSignalSpy compared(actions, &CompareActions::comparisonShown);
    actions->compare(one, two);
    REQUIRE(QTest::qWaitFor([&] { return compared.count() == 1; }, 120000));
    auto* view = actions->resultWindow()->findChild<ComparisonView*>();
    REQUIRE(view);
    const QJsonObject json = cliJson({ QStringLiteral("compare"), one, two });
    int row = 0;
    CHECK(checkRows(view->programTable(), row, json.value(QLatin1String("program")).toObject()) == 15);
    row = 0;
    CHECK(checkRows(view->ledgerTable(), row, json.value(QLatin1String("ledger")).toObject()) == 21);
    // Sites in the CLI's order, each a heading row, its figures, then each conjunct's.
    row = 0;
    const QJsonArray sites = json.value(QLatin1String("sites")).toArray();
    REQUIRE(!sites.isEmpty());
    for (const QJsonValue& s : sites) {
        const QJsonObject site = s.toObject();
        CHECK(view->sitesTable()->item(row, 0)->text() == site.value(QLatin1String("site")).toString());
        ++row;
        checkRows(view->sitesTable(), row, site.value(QLatin1String("figures")).toObject());
        for (const QJsonValue& k : site.value(QLatin1String("conjuncts")).toArray())
            checkRows(view->sitesTable(), row, k.toObject().value(QLatin1String("figures")).toObject());
    }
    CHECK(row == view->sitesTable()->rowCount());

    QSignalSpy scaled(actions, &CompareActions::scalingShown);
    actions->openSeries({ two, one });
    REQUIRE(QTest::qWaitFor([&] { return scaled.count() == 1; }, 120000));
    auto* scaling = actions->resultWindow()->findChild<ScalingView*>();
    REQUIRE(scaling);
    const QJsonArray points = cliJson({ QStringLiteral("scaling"), two, one }).value(QLatin1String("points")).toArray();
    REQUIRE(scaling->table()->rowCount() == points.size());
    for (int i = 0; i < points.size(); ++i) {
        const QJsonObject p = points[i].toObject();
        INFO("point " << i);
        CHECK(sameNumber(cellValue(scaling->table(), i, 0), p.value(QLatin1String("engines"))));
        CHECK(sameNumber(cellValue(scaling->table(), i, 3), p.value(QLatin1String("speedup"))));
        CHECK(sameNumber(cellValue(scaling->table(), i, 4), p.value(QLatin1String("efficiency"))));
        CHECK(sameNumber(cellValue(scaling->table(), i, 5), p.value(QLatin1String("serial_fraction"))));
        CHECK(scaling->table()->item(i, 8)->text().contains(QStringLiteral("from")));
    }
    // The chart paints (offscreen) a picture, not a blank: the background, axes, two series, labels.
    scaling->chart()->resize(480, 320);
    const QImage image = scaling->chart()->grab().toImage();
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); y += 2)
        for (int x = 0; x < image.width(); x += 2)
            colours.insert(image.pixel(x, y));
    CHECK(colours.size() >= 4);
}

TEST_CASE("while a comparison is open, A's timeline is named as B's is", "[ui][compare]")
{
    const std::filesystem::path dir = test::scratchDir("ui-compare-names");
    auto writeTrace = [&](const std::string& name, uint64_t endNs) {
        auto b = test::panelsTraceBuilder();
        b.endAt(endNs);
        const std::vector<uint8_t> bytes = b.eventlogBytes();
        const std::filesystem::path path = dir / name;
        std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
        return QString::fromStdString(path.string());
    };
    const QString a = writeTrace("first.eventlog", 1100), b = writeTrace("second.eventlog", 1200);
    MainWindow window;
    window.resize(1400, 900);
    window.show();
    QSignalSpy loaded(&window, &MainWindow::traceShown);
    window.openTrace(a);
    REQUIRE(loaded.wait(10'000));
    auto* nameA = window.findChild<QLabel*>(QStringLiteral("compareNameA"));
    REQUIRE(nameA);
    CHECK_FALSE(nameA->isVisible()); // no comparison: no names
    QSignalSpy shown(window.stacked(), &StackedTimelines::shown);
    window.compare()->compare(a, b);
    REQUIRE(QTest::qWaitFor([&] { return shown.count() == 1; }, 30'000));
    CHECK(nameA->isVisible());
    CHECK(nameA->text() == QStringLiteral("A: first.eventlog"));
    CHECK(window.stacked()->headerText().startsWith(QStringLiteral("B: second.eventlog")));
    window.stacked()->close();
    CHECK_FALSE(nameA->isVisible());
}
