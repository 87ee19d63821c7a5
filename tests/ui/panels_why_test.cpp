// The Why dock in the real main window: once the analysis is ready it shows the figures
// `sparkscope-cli analyze` computes (core::computeAnalysisReport, the CLI's function) — every ledger
// category in ns, work, span, parallelism and the findings in their order; clicking a finding takes
// the timeline to its ranges and highlights them; clicking a category shows it alone in the
// utilisation row; the critical path toggle draws the path over the engine rows; a selection shows the
// selection's analysis. On a demo trace recorded by sparkscope-demo (imbalanced: it has findings) and
// on a shared GHC eventlog.
#include "panels_test_trace.h"
#include "sparkscope/core/metrics_export.h"
#include "sparkscope/core/reader.h"
#include "support/test_data.h"
#include "ui/analysis/analysis_view.h"
#include "ui/analysis/speedup_chart.h"
#include "ui/analysis/why_panel.h"
#include "ui/hover/hover_controller.h"
#include "ui/main_window.h"
#include "ui/panels/metrics_panels.h"
#include "ui/panels/metrics_session.h"
#include "ui/timeline/frame.h"
#include "ui/timeline/timeline_widget.h"
#include "ui/timeline/zoom_state.h"

#include <QAction>
#include <QComboBox>
#include <QCoreApplication>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QListWidget>
#include <QSignalSpy>
#include <QTest>
#include <QTreeWidget>
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>

using namespace sparkscope;
using namespace sparkscope::ui;

namespace {

// The demo workload recorded on 2 engines, or nullopt (with a warning) when the demo is not built.
std::optional<std::string> demoTrace(const std::string& workload, const std::string& name)
{
    const auto file = test::recordDemoTrace(test::scratchDir("panels-why-" + name), workload);
    return file ? std::optional<std::string>(file->string()) : std::nullopt;
}

// Opens `path` and waits until the Why dock shows the whole trace's analysis and the timeline has the
// utilisation row's data.
AnalysisView* openAndAnalyse(MainWindow& window, const std::string& path)
{
    auto* view = window.analysis();
    REQUIRE(view);
    window.openTrace(QString::fromStdString(path));
    REQUIRE(QTest::qWaitFor([&] { return view->panel()->report() && window.timeline()->rows().ledger; }, 60000));
    return view;
}

// The dock's figures against the CLI's report of the same trace.
void checkFigures(const WhyPanel& panel, const core::AnalysisReport& cli)
{
    const core::Analysis& a = cli.analysis;
    const QTreeWidget* table = panel.ledgerTable();
    int shown = 0;
    for (int i = 0; i < table->topLevelItemCount(); ++i) {
        const QTreeWidgetItem* item = table->topLevelItem(i);
        const int k = item->data(0, Qt::UserRole).toInt();
        const uint64_t ns = item->data(1, Qt::UserRole).toULongLong();
        if (k < 0) {
            CHECK(ns == a.ledger.total.totalNs());
            continue;
        }
        ++shown;
        INFO(core::lossCategoryKey(core::LossCategory(k)));
        CHECK(ns == a.ledger.total.ns[size_t(k)]);
        CHECK(item->text(1) == QString::number(double(ns) / 1e9, 'f', 6));
    }
    int nonZero = 0;
    for (uint64_t ns : a.ledger.total.ns)
        nonZero += ns != 0;
    CHECK(shown == nonZero); // every category that happened, none that did not
    CHECK(panel.figure(QStringLiteral("work")) == formatDuration(int64_t(a.workSpan.workNs)));
    if (a.workSpan.spanNs)
        CHECK(panel.figure(QStringLiteral("span")) == formatDuration(int64_t(*a.workSpan.spanNs)));
    if (a.workSpan.parallelism)
        CHECK(panel.figure(QStringLiteral("parallelism")) == QString::number(*a.workSpan.parallelism, 'f', 2));
    // The line above the findings says what their shares "of the run" are of, when that is not the
    // whole range (a demo trace's start-up runs no context).
    const bool partOfRange = cli.run && (cli.run->fromNs != a.fromNs || cli.run->toNs != a.toNs);
    CHECK(panel.findingsRunLabel()->isHidden() == !partOfRange);
    if (partOfRange)
        CHECK(panel.findingsRunLabel()->text().contains(
            formatDuration(int64_t(cli.run->fromNs)) + QStringLiteral(" – ") + formatDuration(int64_t(cli.run->toNs))));
    const auto& findings = panel.report()->findings;
    REQUIRE(findings.size() == cli.findings.size());
    for (size_t i = 0; i < findings.size(); ++i) {
        CHECK(findings[i].rule == cli.findings[i].rule);
        CHECK(findings[i].recoverableNs == cli.findings[i].recoverableNs);
        CHECK(findings[i].ranges == cli.findings[i].ranges);
    }
}

} // namespace

TEST_CASE("the Why dock shows the CLI's analysis and takes the timeline to a finding", "[ui][panels][why]")
{
    const auto path = demoTrace("imbalanced --conjuncts 8 --unit 2000", "imbalanced");
    if (!path)
        return;
    auto trace = core::readTrace(*path);
    REQUIRE(trace);
    const core::AnalysisReport cli = core::computeAnalysisReport(trace.value());

    MainWindow window;
    window.resize(1600, 1000);
    window.show();
    AnalysisView* view = openAndAnalyse(window, *path);
    WhyPanel* panel = view->panel();
    checkFigures(*panel, cli);
    REQUIRE_FALSE(cli.findings.empty());

    // Click the first finding: the view holds all of its ranges, and they are highlighted.
    const core::Finding& f = cli.findings.front();
    uint64_t from = UINT64_MAX, to = 0;
    for (const auto& r : f.ranges) {
        from = std::min(from, r.fromNs);
        to = std::max(to, r.toNs);
    }
    QListWidget* list = panel->findingsList();
    REQUIRE(list->count() == int(cli.findings.size()));
    const QRect item = list->visualItemRect(list->item(0));
    QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, item.center());
    const TimeWindow w = window.zoom()->window();
    CHECK(w.startNs <= int64_t(from));
    CHECK(w.endNs >= int64_t(to));
    CHECK(w.spanNs() <= int64_t(to - from) * 2); // zoomed to it, not left at the whole trace
    CHECK_FALSE(window.metrics()->hover()->pinnedHighlight().empty());

    // A category clicked in the ledger table: shown alone in the utilisation row, clicked again: all.
    QTreeWidget* table = panel->ledgerTable();
    const int k = table->topLevelItem(0)->data(0, Qt::UserRole).toInt();
    panel->tabs()->setCurrentWidget(table);
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, table->visualItemRect(table->topLevelItem(0)).center());
    CHECK(window.timeline()->ledgerHighlight() == k);
    CHECK(window.timeline()->currentFrame().viewport.ledgerHighlight == k);
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, table->visualItemRect(table->topLevelItem(0)).center());
    CHECK(window.timeline()->ledgerHighlight() == -1);

    // The critical path: off by default in a fresh settings file; on, the frame outlines its
    // running segments.
    QAction* pathAction = view->criticalPathAction();
    pathAction->setChecked(false);
    CHECK(window.timeline()->currentFrame().pathOutlines.empty());
    pathAction->setChecked(true);
    window.zoom()->zoomToFit();
    REQUIRE(window.timeline()->rows().criticalPath);
    CHECK_FALSE(window.timeline()->currentFrame().pathOutlines.empty());
    pathAction->setChecked(false);

    // The speed-up chart: predictions for 1 … 64 engines, the measured point at 2 engines.
    REQUIRE(QTest::qWaitFor([&] { return !panel->chart()->data().predicted.empty(); }, 60000));
    CHECK(panel->chart()->data().predicted.front().engines == 1);
    CHECK(panel->chart()->data().predicted.back().engines == 64);
    REQUIRE(panel->chart()->data().measured);
    CHECK(panel->chart()->data().measured->engines == 2);
    CHECK(panel->chart()->data().predicted.front().speedup == 1);

    // A site made twice as fast: its line is over the same one-engine time as the program's, so on
    // one engine (the work less the site's saving, the same costs) it is above 1, not at 1 (it was
    // over its own one-engine time, which put a faster program's line under the program's).
    REQUIRE(panel->whatIfSite()->count() >= 2); // "(no static id)", then the sites
    panel->whatIfFactor()->setValue(2.0);
    panel->whatIfSite()->setCurrentIndex(1);
    REQUIRE(QTest::qWaitFor([&] { return !panel->chart()->data().whatIf.empty(); }, 60000));
    const auto& chart = panel->chart()->data();
    REQUIRE(chart.whatIf.size() == chart.predicted.size());
    CHECK(chart.whatIf.front().engines == 1);
    CHECK(chart.whatIf.front().speedup > 1);
    panel->whatIfSite()->setCurrentIndex(0);

    // A selection: the dock shows the selection's analysis, the CLI's for that range.
    const uint64_t a = from, b = from + (to - from) / 2;
    window.zoom()->setSelection(TimeWindow { int64_t(a), int64_t(b) });
    REQUIRE(QTest::qWaitFor(
        [&] { return panel->report() && panel->report()->analysis.fromNs == a && panel->report()->analysis.toNs == b; },
        30000));
    core::AnalysisOptions range;
    range.fromNs = a;
    range.toNs = b;
    checkFigures(*panel, core::computeAnalysisReport(trace.value(), range));
}

TEST_CASE("the Why dock on a GHC eventlog: the ledger and work, no span or critical path", "[ui][panels][why][ghc]")
{
    const auto path = test::sharedTestData("ghc/parfib-12-30.eventlog");
    if (!path)
        return;
    auto trace = core::readTrace(path->string());
    REQUIRE(trace);
    MainWindow window;
    window.resize(1600, 1000);
    window.show();
    AnalysisView* view = openAndAnalyse(window, path->string());
    checkFigures(*view->panel(), core::computeAnalysisReport(trace.value()));
    CHECK(view->panel()->figure(QStringLiteral("span")).startsWith(QStringLiteral("—")));
    CHECK_FALSE(window.timeline()->rows().criticalPath);
    view->criticalPathAction()->setChecked(true);
    CHECK(window.timeline()->currentFrame().pathOutlines.empty());
    view->criticalPathAction()->setChecked(false);
    // The utilisation row is drawn (on by default).
    CHECK_FALSE(window.timeline()->currentFrame().utilisationStrip.pixels.isNull());
    // The docks keep their share of the window (27 %): a GHC trace's long figures (the Summary's
    // spark counts, tabbed with this dock) wrap instead of widening them past a third, at the
    // timeline's expense.
    QCoreApplication::processEvents();
    CHECK(view->dock()->width() < window.width() / 3);
}

TEST_CASE(
    "the speed-up tab says where a prediction falls below the lower bound, as analyze marks it", "[ui][panels][why]")
{
    // listsum's million-deep chunk & rest recursion: its measured costs often outweigh the parallelism
    // at some engine counts, but not always, so the expectation is the CLI's own on the same trace.
    const auto path = demoTrace("listsum --n 200000 --chunk 1", "listsum");
    if (!path)
        return;
    auto trace = core::readTrace(*path);
    REQUIRE(trace);
    core::AnalysisOptions options;
    options.whatIf = core::WhatIfOptions {};
    const core::AnalysisReport cli = core::computeAnalysisReport(trace.value(), options);
    REQUIRE(cli.analysis.whatIf);
    QStringList below;
    for (const core::Prediction& q : cli.analysis.whatIf->predictions)
        if (q.bound.upper > 0 && q.speedup < q.bound.lower)
            below << QString::number(q.engines);

    MainWindow window;
    window.resize(1600, 1000);
    window.show();
    WhyPanel* panel = openAndAnalyse(window, *path)->panel();
    REQUIRE(QTest::qWaitFor([&] { return !panel->chart()->data().predicted.empty(); }, 60000));
    const QString text = panel->predictionText();
    CHECK(text.startsWith(QStringLiteral("Recorded on 2 engines")));
    if (below.isEmpty())
        CHECK_FALSE(text.contains(QStringLiteral("Below the lower bound")));
    else
        CHECK(
            text.contains(QStringLiteral("Below the lower bound at %1 engines").arg(below.join(QStringLiteral(", ")))));
}

TEST_CASE(
    "the speed-up tab notes a measured cost that rests on one or two latencies, as analyze does", "[ui][panels][why]")
{
    // The panels' hand trace: engine 1 steals the spark at 400 and runs a new context at 410, so
    // context_ns is 10 ns, the median of that one latency, and at least 1 % of the recorded wall (ctx
    // 1 from 100 to 1000: 900 ns). The note is analyze's, word for word.
    const std::vector<uint8_t> bytes = test::panelsTraceBuilder().eventlogBytes();
    const std::filesystem::path path = test::scratchDir("panels-why-costs") / "steal.eventlog";
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    auto trace = core::readTrace(path.string());
    REQUIRE(trace);
    core::AnalysisOptions options;
    options.whatIf = core::WhatIfOptions {};
    const core::Analysis cli = core::analyze(trace.value(), options);
    std::vector<std::string> costNotes;
    for (const std::string& n : cli.notes)
        if (n.find("is the median of only") != std::string::npos)
            costNotes.push_back(n);
    REQUIRE(costNotes.size() == 1);
    CHECK(costNotes[0].starts_with("context_ns is the median of only 1 latency (10 ns"));

    MainWindow window;
    window.resize(1600, 1000);
    window.show();
    WhyPanel* panel = openAndAnalyse(window, path.string())->panel();
    REQUIRE(QTest::qWaitFor([&] { return !panel->chart()->data().predicted.empty(); }, 60000));
    const QString text = panel->predictionText();
    for (const std::string& n : costNotes)
        CHECK(text.contains(QString::fromStdString(n)));
    CHECK(text.count(QStringLiteral("is the median of only")) == qsizetype(costNotes.size()));
}
