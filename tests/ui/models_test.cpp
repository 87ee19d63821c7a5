#include "support/trace_builder.h"
#include "ui/models/bookmarks_model.h"
#include "ui/models/events_model.h"

#include "sparkscope/core/event_types.h"

#include <QAbstractItemModelTester>
#include <catch2/catch.hpp>

using namespace sparkscope;
using namespace sparkscope::ui;

namespace {

std::shared_ptr<const TraceData> smallTrace()
{
    // Six events: engine 1 at 5 and 40, engine 0 at 10, 20 and 30, and one global event at 0.
    test::TraceBuilder b(2);
    b.internString(0, 1, "main");
    b.runThread(0, 10, 1).gcStart(0, 20).gcEnd(0, 30);
    b.runThread(1, 5, 2).stopThread(1, 40, 2, core::kStopFinished);
    return buildTraceData(b.build());
}

} // namespace

TEST_CASE("events model lists every event in time order and passes the model tester", "[ui][models]")
{
    auto data = smallTrace();
    EventsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.setTrace(data, buildTimeOrder(*data->trace));
    REQUIRE(model.rowCount() == 6);
    REQUIRE(model.columnCount() == EventsModel::ColumnCount);
    std::vector<qint64> times;
    for (int r = 0; r < model.rowCount(); ++r)
        times.push_back(model.data(model.index(r, 0), EventsModel::TimeNsRole).toLongLong());
    CHECK(times == std::vector<qint64> { 0, 5, 10, 20, 30, 40 });
    CHECK(model.data(model.index(2, EventsModel::TypeColumn)).toString() == QStringLiteral("RUN_THREAD"));
    CHECK(model.data(model.index(2, EventsModel::EngineColumn)).toInt() == 0);
    CHECK(model.data(model.index(0, EventsModel::EngineColumn)).toString() == QStringLiteral("—"));
    CHECK(model.rowAtTime(15) == 3);
    CHECK(model.rowAtTime(1000) == 6);
}

TEST_CASE("events model filters by type and engine and searches the formatted text", "[ui][models]")
{
    auto data = smallTrace();
    EventsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.setTrace(data, buildTimeOrder(*data->trace));
    model.setFilter({ core::ev::RunThread }, {});
    CHECK(model.rowCount() == 2);
    model.setFilter({}, { 1 });
    CHECK(model.rowCount() == 2);
    model.setFilter({ core::ev::GcStart }, { 1 });
    CHECK(model.rowCount() == 0);
    model.setFilter({}, {});
    CHECK(model.rowCount() == 6);
    // Search wraps around: from row 4, the next "RUN_THREAD" is row 1 (engine 1 at 5 ns).
    CHECK(model.find(QStringLiteral("run_thread"), 4) == 1);
    CHECK(model.find(QStringLiteral("GC_END"), 0) == 4);
    CHECK(model.find(QStringLiteral("no such text"), 0) == -1);
    const auto types = model.typesPresent();
    CHECK(std::find(types.begin(), types.end(), core::ev::GcEnd) != types.end());
}

TEST_CASE("bookmarks model adds in time order, renames and removes", "[ui][models]")
{
    BookmarksModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.reset({ { 300, "b", core::kNoEngine }, { 100, "a", core::kNoEngine } }, 0);
    REQUIRE(model.rowCount() == 2);
    CHECK(model.timeAt(0) == 100);
    CHECK(model.add(200, QStringLiteral("middle")) == 1);
    CHECK(model.data(model.index(1, BookmarksModel::LabelColumn)).toString() == QStringLiteral("middle"));
    model.rename(1, QStringLiteral("renamed"));
    CHECK(model.bookmarks()[1].label == "renamed");
    CHECK(model.flags(model.index(1, BookmarksModel::LabelColumn)) & Qt::ItemIsEditable);
    CHECK_FALSE(model.flags(model.index(1, BookmarksModel::TimeColumn)) & Qt::ItemIsEditable);
    model.remove(0);
    CHECK(model.rowCount() == 2);
    CHECK(model.timeAt(0) == 200);
}
