// The events list's search runs in the background: findNext returns at once, the newest search
// wins, and a re-filter drops a search in flight. The trace and its rows are worked out below.
#include "support/trace_builder.h"
#include "ui/docks/events_panel.h"
#include "ui/models/events_model.h"
#include "ui/timeline/zoom_state.h"

#include "sparkscope/core/event_types.h"

#include <QLineEdit>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>
#include <catch2/catch.hpp>

using namespace sparkscope;
using namespace sparkscope::ui;

namespace {

constexpr int kPairs = 150'000; // run/stop pairs on engine 0, 10 ns apart

std::shared_ptr<const TraceData> manyEvents()
{
    test::TraceBuilder b(2);
    for (uint64_t k = 0; k < kPairs; ++k)
        b.runThread(0, 10 * k, 1).stopThread(0, 10 * k + 5, 1, core::kStopYielding);
    b.sparkCreate(1, 1'000'003, 0xA, 7);
    b.gcStart(0, 2'000'000).gcEnd(0, 2'000'005);
    return buildTraceData(b.build());
}

// Rows in time order: engine 0 runs and stops context 1 at 10 k and 10 k + 5 (k < kPairs, the last
// stop at 1,499,995); engine 1 creates a spark at 1,000,003; engine 0 collects at 2,000,000 to
// 2,000,005. Before the spark come the runs k = 0..100,000 (100,001) and the stops k = 0..99,999
// (100,000), so it is row 200,001. GC_START follows all 2 × kPairs pair events and the spark: row
// 2 × kPairs + 1, GC_END the next and last (2 × kPairs + 3 rows).
constexpr int kSparkRow = 200'001;
constexpr int kGcStartRow = 2 * kPairs + 1;

} // namespace

TEST_CASE("a search over a snapshot finds the row and stops when cancelled", "[ui][models][search]")
{
    const auto data = manyEvents();
    EventsModel model;
    model.setTrace(data, buildTimeOrder(*data->trace));
    REQUIRE(model.rowCount() == 2 * kPairs + 3);
    const EventRows snapshot = model.searchSnapshot();
    CHECK(findEventRow(snapshot, QStringLiteral("spark_create"), -1, true) == kSparkRow);
    CHECK(findEventRow(snapshot, QStringLiteral("GC_START"), 0, false) == kGcStartRow);
    std::atomic<bool> cancel { true };
    CHECK(findEventRow(snapshot, QStringLiteral("no such text"), 0, true, &cancel) == kSearchCancelled);
    cancel = false;
    CHECK(findEventRow(snapshot, QStringLiteral("no such text"), 0, true, &cancel) == -1);
    // The snapshot keeps its rows while the model is re-filtered.
    model.setFilter({ core::ev::GcStart }, {});
    CHECK(model.rowCount() == 1);
    CHECK(findEventRow(snapshot, QStringLiteral("spark_create"), -1, true) == kSparkRow);
}

TEST_CASE("the events panel searches in the background and the newest search wins", "[ui][panels][search]")
{
    ZoomState zoom;
    const auto data = manyEvents();
    zoom.reset(data->startNs, data->endNs);
    EventsPanel panel(&zoom);
    panel.resize(800, 400);
    panel.setData(data);
    panel.show(); // builds the time-order index in the background
    REQUIRE(QTest::qWaitFor([&] { return panel.model()->rowCount() == 2 * kPairs + 3; }, 20000));

    QSignalSpy finished(&panel, &EventsPanel::searchFinished);
    panel.searchField()->setText(QStringLiteral("SPARK_CREATE"));
    panel.findNext(true);
    // findNext returned without searching on this thread: nothing is selected yet.
    CHECK(panel.isSearching());
    CHECK_FALSE(panel.view()->currentIndex().isValid());
    REQUIRE(finished.wait(20000));
    CHECK(finished.takeFirst().at(0).toInt() == kSparkRow);
    CHECK(panel.view()->currentIndex().row() == kSparkRow);
    CHECK_FALSE(panel.isSearching());

    // Two searches in a row: only the second is applied.
    panel.searchField()->setText(QStringLiteral("GC_START"));
    panel.findNext(true);
    panel.searchField()->setText(QStringLiteral("GC_END"));
    panel.findNext(true);
    REQUIRE(finished.wait(20000));
    QTest::qWait(200); // the first one, had it not been dropped, would have arrived by now
    REQUIRE(finished.size() == 1);
    CHECK(finished.takeFirst().at(0).toInt() == kGcStartRow + 1);
    CHECK(panel.view()->currentIndex().row() == kGcStartRow + 1);

    // A filter change while a search runs drops it: its rows are no longer the model's.
    panel.searchField()->setText(QStringLiteral("no such text"));
    panel.findNext(true);
    panel.model()->setFilter({ core::ev::GcStart }, {});
    REQUIRE(QTest::qWaitFor([&] { return !panel.isSearching(); }, 20000));
    CHECK(finished.isEmpty());
    // A new search runs over the filtered rows: GC_START is their only row.
    panel.searchField()->setText(QStringLiteral("gc_start"));
    panel.findNext(true);
    REQUIRE(finished.wait(20000));
    CHECK(finished.takeFirst().at(0).toInt() == 0);
}
