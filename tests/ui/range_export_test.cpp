// File > Export Range as Eventlog…: EventlogRangeExport writes, in the background, the file
// `sparkscope-cli cut` writes for the same range (core::cutTrace), and reports a file it cannot write.
#include "support/trace_builder.h"
#include "ui/export/eventlog_range_export.h"
#include "ui/timeline/zoom_state.h"

#include "sparkscope/core/cut.h"
#include "sparkscope/core/reader.h"
#include "sparkscope/core/writer.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>

using namespace sparkscope;
using namespace sparkscope::ui;

namespace {

std::shared_ptr<const TraceData> smallTrace()
{
    test::TraceBuilder b(2);
    b.createThread(0, 10, 1).runThread(0, 20, 1).stopThread(0, 500, 1, core::kStopFinished);
    b.createThread(1, 30, 2).runThread(1, 40, 2).stopThread(1, 400, 2, core::kStopFinished);
    b.endAt(600);
    return buildTraceData(b.roundTrip());
}

} // namespace

TEST_CASE("export range as eventlog writes the cut of the range", "[ui][export]")
{
    QTemporaryDir dir;
    REQUIRE(dir.isValid());
    const auto data = smallTrace();
    ZoomState zoom;
    EventlogRangeExport exporter(&zoom, nullptr);
    QSignalSpy exported(&exporter, &EventlogRangeExport::exported);
    const QString path = dir.filePath(QStringLiteral("range.eventlog"));
    exporter.exportRangeTo(data, path, 100, 450);
    REQUIRE(QTest::qWaitFor([&] { return exported.count() == 1; }, 30000));
    std::ifstream in(path.toStdString(), std::ios::binary);
    const std::vector<uint8_t> written((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto expected = core::cutTrace(*data->trace, 100, 450);
    REQUIRE(expected);
    CHECK(written == expected->bytes);
    // In [100, 450]: ctx 2 stops at 400; both contexts run at 100 (state), ctx 1 stops at 500 (outside).
    // The cut lasts to the range's end, 450, past its last event at 400 (ctx 1 still runs then).
    auto back = core::readTrace(path.toStdString());
    REQUIRE(back);
    CHECK(back->firstTimeNs == 100);
    CHECK(back->lastTimeNs == 450);
}

TEST_CASE("export range as eventlog reports a file it cannot write", "[ui][export]")
{
    const auto data = smallTrace();
    ZoomState zoom;
    EventlogRangeExport exporter(&zoom, nullptr);
    QSignalSpy failed(&exporter, &EventlogRangeExport::failed);
    exporter.exportRangeTo(data, QStringLiteral("/nonexistent-dir/range.eventlog"), 0, 600);
    REQUIRE(QTest::qWaitFor([&] { return failed.count() == 1; }, 30000));
    CHECK(failed.at(0).at(1).toString().contains(QStringLiteral("nonexistent-dir")));
}

TEST_CASE("export range as eventlog of a streamed trace cuts the file", "[ui][export][stream]")
{
    // The same trace as a file, opened by streaming: the export streams the file again and writes
    // what the cut of the trace read whole is.
    QTemporaryDir dir;
    REQUIRE(dir.isValid());
    const std::string file = dir.filePath(QStringLiteral("small.eventlog")).toStdString();
    REQUIRE(core::writeFile(file, core::writeTrace(*smallTrace()->trace)));
    auto streamed = streamTraceData(file);
    REQUIRE(streamed);
    REQUIRE(streamed.value()->isStreamed());
    ZoomState zoom;
    EventlogRangeExport exporter(&zoom, nullptr);
    QSignalSpy exported(&exporter, &EventlogRangeExport::exported);
    const QString path = dir.filePath(QStringLiteral("range.eventlog"));
    exporter.exportRangeTo(streamed.value(), path, 100, 450);
    REQUIRE(QTest::qWaitFor([&] { return exported.count() == 1; }, 30000));
    std::ifstream in(path.toStdString(), std::ios::binary);
    const std::vector<uint8_t> written((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto whole = core::readTrace(file);
    REQUIRE(whole);
    auto expected = core::cutTrace(whole.value(), 100, 450);
    REQUIRE(expected);
    CHECK(written == expected->bytes);
    CHECK(expected->stats.rangeEvents > 0);
}
