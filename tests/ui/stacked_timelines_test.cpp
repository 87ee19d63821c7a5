// Compare With…'s stacked timelines (ui/compare/stacked_timelines, time_alignment): the time map from
// A to B worked out by hand for each alignment (start, a marker's n-th occurrence, a conjunction
// site's n-th instance, normalised or not), and the widget carrying window, selection and cursor
// both ways between A's zoom state and B's, on a hand-built trace and the same trace 500 ns later; a
// B that does not read is named with the reason; the Conjunctions list's rows in compare mode, a site
// found only in B among them.
#include "support/trace_builder.h"

#include "sparkscope/core/compare.h"
#include "sparkscope/core/event_types.h"
#include "sparkscope/core/writer.h"
#include "ui/compare/stacked_timelines.h"
#include "ui/compare/time_alignment.h"
#include "ui/panels/conjunctions_model.h"
#include "ui/panels/conjunctions_panel.h"
#include "ui/panels/metric_detail_panel.h"
#include "ui/timeline/timeline_widget.h"
#include "ui/timeline/zoom_state.h"

#include <catch2/catch.hpp>

#include <QComboBox>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace sparkscope;
using namespace sparkscope::ui;

namespace {

// One conjunction "fib.m:12" (two conjuncts on two engines), every event `shift` ns later: from
// shift + 10 (the first context) to shift + 1100 (the end). The conjunction starts at shift + 200.
core::Trace shiftedTrace(uint64_t s)
{
    test::TraceBuilder b(2);
    b.internString(s + 10, 1, "fib.m:12");
    b.createThread(0, s + 10, 1).runThread(0, s + 100, 1);
    b.startParConj(0, s + 200, 0xA, 1).sparkCreate(0, s + 250, 0xA, 7);
    b.createThread(1, s + 390, 2).sparkSteal(1, s + 400, 0, 7).runThread(1, s + 410, 2);
    b.endParConjunct(0, s + 700, 0xA).endParConj(0, s + 900, 0xA).stopThread(0, s + 1000, 1, core::kStopFinished);
    b.endParConjunct(1, s + 800, 0xA).stopThread(1, s + 810, 2, core::kStopFinished);
    b.endAt(s + 1100);
    return b.roundTrip();
}

// shiftedTrace(0) and then, on engine 0, a second site "fib.m:20": started at 920, its second
// conjunct run from the engine's own deque at 940, ended at 970 (covered 50 ns, PARCONJ_TIME 50 ns).
core::Trace twoSiteTrace()
{
    test::TraceBuilder b(2);
    b.internString(10, 1, "fib.m:12").internString(10, 2, "fib.m:20");
    b.createThread(0, 10, 1).runThread(0, 100, 1);
    b.startParConj(0, 200, 0xA, 1).sparkCreate(0, 250, 0xA, 7);
    b.createThread(1, 390, 2).sparkSteal(1, 400, 0, 7).runThread(1, 410, 2);
    b.endParConjunct(0, 700, 0xA).endParConj(0, 900, 0xA);
    b.endParConjunct(1, 800, 0xA).stopThread(1, 810, 2, core::kStopFinished);
    b.startParConj(0, 920, 0xB, 2).sparkCreate(0, 925, 0xB, 8);
    b.endParConjunct(0, 940, 0xB).sparkRun(0, 940, 8).endParConjunct(0, 960, 0xB).endParConj(0, 970, 0xB);
    b.stopThread(0, 1000, 1, core::kStopFinished);
    b.endAt(1100);
    return b.roundTrip();
}

} // namespace

TEST_CASE("the time map puts B's anchor under A's, scaled when normalised", "[ui][compare]")
{
    RunAnchors a, b;
    a.startNs = 100, a.endNs = 1100; // 1000 ns long
    b.startNs = 50, b.endNs = 2050; // 2000 ns long
    a.markers["phase"] = { 300, 700 };
    b.markers["phase"] = { 250, 1450 };
    a.markers["only in A"] = { 400 };
    a.conjunctions["f.c:1"] = { 400 };
    b.conjunctions["f.c:1"] = { 900, 1900 };

    auto start = alignRuns(a, b, {});
    REQUIRE(start);
    CHECK(start->toB(100) == 50);
    CHECK(start->toB(600) == 550);
    CHECK(start->toA(550) == 600);

    // Normalised: 2 ns of B per ns of A, the ends line up: 1100 -> 50 + 1000 * 2.
    auto normalised = alignRuns(a, b, { Alignment::At::Start, {}, 0, true });
    REQUIRE(normalised);
    CHECK(normalised->scale == 2.0);
    CHECK(normalised->toB(600) == 1050);
    CHECK(normalised->toB(1100) == 2050);
    CHECK(normalised->toA(2050) == 1100);
    CHECK(normalised->toB(TimeWindow { 100, 600 }) == TimeWindow { 50, 1050 });

    // The second "phase" marker: 700 in A under 1450 in B.
    auto marker = alignRuns(a, b, { Alignment::At::Marker, "phase", 1, false });
    REQUIRE(marker);
    CHECK(marker->toB(800) == 1550);
    CHECK(marker->toA(1350) == 600);

    auto conjunction = alignRuns(a, b, { Alignment::At::Conjunction, "f.c:1", 0, false });
    REQUIRE(conjunction);
    CHECK(conjunction->toB(400) == 900);
    CHECK(conjunction->toB(0) == 500);

    // An anchor one trace lacks: no map.
    CHECK_FALSE(alignRuns(a, b, { Alignment::At::Marker, "only in A", 0, false }));
    CHECK_FALSE(alignRuns(a, b, { Alignment::At::Conjunction, "f.c:1", 1, false })); // A has one instance
    CHECK_FALSE(alignRuns(a, b, { Alignment::At::Marker, "absent", 0, false }));

    const auto common = commonAnchors(a.markers, b.markers);
    REQUIRE(common.size() == 1);
    CHECK(common[0] == std::pair<std::string, size_t>("phase", 2));
    CHECK(commonAnchors(a.conjunctions, b.conjunctions)[0].second == 1);
}

TEST_CASE("stacked timelines carry window, selection and cursor between A and B", "[ui][compare]")
{
    QTemporaryDir dir;
    REQUIRE(dir.isValid());
    const QString pathB = dir.filePath(QStringLiteral("b.eventlog"));
    REQUIRE(core::writeFile(pathB.toStdString(), core::writeTrace(shiftedTrace(500))));
    auto a = buildTraceData(shiftedTrace(0));
    REQUIRE(a);

    ZoomState zoomA;
    zoomA.reset(a->startNs, a->endNs);
    StackedTimelines stacked(&zoomA);
    QSignalSpy shown(&stacked, &StackedTimelines::shown);
    stacked.open(a, pathB);
    REQUIRE(QTest::qWaitFor([&] { return shown.count() == 1; }, 30000));
    REQUIRE(stacked.timelineB()->data());
    const int64_t startA = a->startNs, startB = stacked.timelineB()->data()->startNs;
    REQUIRE(startB - startA == 500); // B is the same trace 500 ns later
    // B's utilisation row: its loss ledger over time, the same as A's shifted by 500 ns.
    REQUIRE(QTest::qWaitFor([&] { return stacked.timelineB()->rows().ledger != nullptr; }, 30000));
    {
        const core::Trace traceA = shiftedTrace(0);
        const core::LedgerCurves ledgerA = core::computeLedgerCurves(core::AnalysisSession(traceA));
        const core::LedgerCurves& ledgerB = *stacked.timelineB()->rows().ledger;
        CHECK(ledgerB.engines == ledgerA.engines);
        CHECK(ledgerB.endNs - ledgerB.beginNs == ledgerA.endNs - ledgerA.beginNs);
        CHECK(ledgerB.ledger(ledgerB.beginNs, ledgerB.endNs).ns == ledgerA.ledger(ledgerA.beginNs, ledgerA.endNs).ns);
        CHECK(ledgerA.ledger(ledgerA.beginNs, ledgerA.endNs).runningNs() > 0);
    }

    // At the start: A's t is B's t + 500.
    REQUIRE(stacked.map());
    CHECK(stacked.map()->toB(startA) == startB);
    zoomA.zoomTo({ startA + 200, startA + 600 });
    CHECK(stacked.zoomB()->window() == TimeWindow { startB + 200, startB + 600 });
    zoomA.setSelection(TimeWindow { startA + 300, startA + 400 });
    CHECK(stacked.zoomB()->selection() == TimeWindow { startB + 300, startB + 400 });
    zoomA.setCursor(startA + 350);
    CHECK(stacked.zoomB()->cursorNs() == startB + 350);

    // B's changes come back to A.
    stacked.zoomB()->moveTo({ startB + 100, startB + 500 });
    CHECK(zoomA.window() == TimeWindow { startA + 100, startA + 500 });
    stacked.zoomB()->setSelection(TimeWindow { startB + 150, startB + 250 });
    CHECK(zoomA.selection() == TimeWindow { startA + 150, startA + 250 });
    stacked.zoomB()->setCursor(std::nullopt);
    CHECK_FALSE(zoomA.cursorNs());

    // At the conjunction's first instance: 200 of A (its start) under 200 of B. The traces are the
    // same but for the shift, so the map is the same; and A's window carries over unchanged.
    const int conjunction = stacked.alignChoice()->findText(QStringLiteral("conjunction fib.m:12"));
    REQUIRE(conjunction > 0);
    stacked.alignChoice()->setCurrentIndex(conjunction);
    REQUIRE(stacked.map());
    CHECK(stacked.map()->aAnchorNs == 200);
    CHECK(stacked.map()->bAnchorNs == 700);
    CHECK(stacked.zoomB()->window() == TimeWindow { zoomA.window().startNs + 500, zoomA.window().endNs + 500 });

    stacked.close();
    CHECK_FALSE(stacked.isOpen());
    CHECK_FALSE(stacked.timelineB()->data());
}

TEST_CASE("a compared trace that does not read is named with the reason", "[ui][compare]")
{
    QTemporaryDir dir;
    REQUIRE(dir.isValid());
    const QString bad = dir.filePath(QStringLiteral("broken.eventlog"));
    QFile file(bad);
    REQUIRE(file.open(QIODevice::WriteOnly));
    file.write("not an eventlog\n");
    file.close();
    auto a = buildTraceData(shiftedTrace(0));
    ZoomState zoomA;
    zoomA.reset(a->startNs, a->endNs);
    StackedTimelines stacked(&zoomA);
    QSignalSpy failed(&stacked, &StackedTimelines::failed);
    stacked.open(a, bad);
    REQUIRE(QTest::qWaitFor([&] { return failed.count() == 1; }, 30000));
    const QString message = failed.at(0).at(0).toString();
    CHECK(message.startsWith(bad + QStringLiteral(": ")));
    CHECK(message.contains(QStringLiteral("not an eventlog")));
    CHECK(stacked.headerText().contains(QStringLiteral("broken.eventlog could not be read")));
    CHECK(stacked.headerText().contains(message));
    CHECK_FALSE(stacked.map());
    CHECK(zoomA.extent() == TimeWindow { a->startNs, a->endNs }); // A as it was
}

TEST_CASE("in compare mode the Conjunctions list has a row for each site found only in B", "[ui][compare]")
{
    // A: fib.m:12 once, [200, 900). B: the same, then fib.m:20 [920, 970), which A lacks.
    const core::Trace a = shiftedTrace(0), b = twoSiteTrace();
    ConjunctionsModel model;
    model.setMetrics(std::make_shared<const core::Metrics>(core::computeMetrics(a)));
    REQUIRE(model.rowCount() == 1);
    const auto comparison = std::make_shared<const core::RunComparison>(core::compareRuns(
        core::RunInput { "a", core::profileTrace(a), {} }, core::RunInput { "b", core::profileTrace(b), {} }));
    model.setComparison(comparison);
    REQUIRE(model.rowCount() == 2);
    REQUIRE(model.columnCount() == ConjunctionsModel::ColumnCountWithComparison);
    const auto sort
        = [&](int row, int column) { return model.data(model.index(row, column), ConjunctionsModel::kSortRole); };
    const auto text = [&](int row, int column) { return model.data(model.index(row, column)).toString(); };
    // A's own row: covered 700 ns in both, mean 700 in both, differences 0.
    CHECK(model.staticId(0) == QStringLiteral("fib.m:12"));
    CHECK_FALSE(model.onlyInB(0));
    CHECK(model.number(0, ConjunctionsModel::Instances) == 1);
    for (int c : { ConjunctionsModel::CoveredA, ConjunctionsModel::CoveredB, ConjunctionsModel::MeanA,
             ConjunctionsModel::MeanB })
        CHECK(sort(0, c).toDouble() == 700);
    CHECK(sort(0, ConjunctionsModel::CoveredDifference).toDouble() == 0);
    CHECK(sort(0, ConjunctionsModel::MeanDifference).toDouble() == 0);
    // B's own site: after A's, marked, A's columns empty; B covered and mean 50 ns; the covered
    // difference counts A's (never open) as 0; the mean's is absent (no instance in A).
    CHECK(model.staticId(1) == QStringLiteral("fib.m:20"));
    CHECK(model.onlyInB(1));
    CHECK(text(1, ConjunctionsModel::Name) == QStringLiteral("fib.m:20 (only in B)"));
    for (int c = ConjunctionsModel::Instances; c < ConjunctionsModel::ColumnCount; ++c)
        CHECK(text(1, c).isEmpty());
    CHECK(text(1, ConjunctionsModel::CoveredA) == QStringLiteral("-"));
    CHECK_FALSE(sort(1, ConjunctionsModel::CoveredA).isValid());
    CHECK(sort(1, ConjunctionsModel::CoveredB).toDouble() == 50);
    CHECK(sort(1, ConjunctionsModel::CoveredDifference).toDouble() == 50);
    CHECK(text(1, ConjunctionsModel::CoveredDifference) == QStringLiteral("+50 ns")); // in the unit that reads best
    CHECK(sort(1, ConjunctionsModel::MeanB).toDouble() == 50);
    CHECK_FALSE(sort(1, ConjunctionsModel::MeanDifference).isValid());
    // The CLI's sort key: |B − A| of the covered time, a missing side as 0.
    for (const core::SiteComparison& site : comparison->sites)
        if (site.site == "fib.m:20")
            CHECK(site.timeDifferenceNs == 50);
    // In the panel, choosing B's row says why A has nothing to show for it (and highlights nothing).
    ConjunctionsPanel panel;
    panel.setMetrics(std::make_shared<const core::Metrics>(core::computeMetrics(a)), true);
    panel.model()->setComparison(comparison);
    REQUIRE(panel.selectStaticId(QStringLiteral("fib.m:20")));
    CHECK(panel.selectedStaticId() == QStringLiteral("fib.m:20"));
    CHECK(panel.selectedInstances().empty());
    CHECK(panel.detail()->title().contains(QStringLiteral("ran only in B")));
    REQUIRE(panel.selectStaticId(QStringLiteral("fib.m:12")));
    CHECK(panel.selectedInstances().size() == 1);
    CHECK_FALSE(panel.detail()->title().contains(QStringLiteral("ran only in B")));
    // Closing the comparison takes B's row away again; a new one brings it back once.
    model.setComparison(nullptr);
    CHECK(model.rowCount() == 1);
    model.setComparison(comparison);
    model.setComparison(comparison);
    CHECK(model.rowCount() == 2);
}
