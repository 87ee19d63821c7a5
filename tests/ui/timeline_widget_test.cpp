#include "support/trace_builder.h"
#include "ui/timeline/timeline_widget.h"

#include "sparkscope/core/event_types.h"

#include <QTest>
#include <QWheelEvent>
#include <catch2/catch.hpp>

using namespace sparkscope;
using namespace sparkscope::ui;

namespace {

std::shared_ptr<const TraceData> twoEngines()
{
    test::TraceBuilder b(2);
    b.runThread(0, 0, 1).stopThread(0, 500'000, 1, core::kStopFinished).runThread(1, 200'000, 2);
    b.stopThread(1, 1'000'000, 2, core::kStopFinished).endAt(1'000'000);
    return buildTraceData(b.build());
}

} // namespace

TEST_CASE("timeline widget zooms with keys and ctrl+wheel and selects by dragging", "[ui][widget]")
{
    ZoomState zoom;
    TimelineWidget widget(&zoom);
    widget.resize(1000 + int(FrameLayout::kGutter) + 4, 400);
    widget.setData(twoEngines());
    widget.show();
    REQUIRE(QTest::qWaitForWindowExposed(&widget));
    CHECK(zoom.window() == TimeWindow { 0, 1'000'000 });

    QTest::keyClick(&widget, Qt::Key_Plus); // zoom in 2x around the centre
    CHECK(zoom.window().spanNs() == 500'000);
    QTest::keyClick(&widget, Qt::Key_0); // fit
    CHECK(zoom.window() == TimeWindow { 0, 1'000'000 });

    // Ctrl+wheel up one notch at x = gutter + 250 px (t = 250 us): zooms in by sqrt(2) around it.
    const QPointF at(FrameLayout::kGutter + 250, 200);
    QWheelEvent wheel(at, widget.mapToGlobal(at), QPoint(), QPoint(0, 120), Qt::NoButton, Qt::ControlModifier,
        Qt::NoScrollPhase, false);
    QApplication::sendEvent(&widget, &wheel);
    CHECK(zoom.window().spanNs() == Approx(1'000'000 / std::sqrt(2.0)).epsilon(0.001));
    CHECK(TimeAxis { zoom.window().startNs, zoom.window().endNs, FrameLayout::kGutter, 1000 }.timeAt(at.x())
        == Approx(250'000).margin(1000));
    // A wheel gesture is a step in the history, as + is: Zoom Back returns to the whole trace.
    zoom.goBack();
    CHECK(zoom.window() == TimeWindow { 0, 1'000'000 });
    zoom.zoomToFit();

    // Drag from 100 us to 300 us: a selection, which Enter zooms to.
    const int y = int(widget.currentFrame().layout.barTop(0)) + 2;
    QTest::mousePress(&widget, Qt::LeftButton, {}, QPoint(int(FrameLayout::kGutter) + 100, y));
    QTest::mouseMove(&widget, QPoint(int(FrameLayout::kGutter) + 200, y));
    QTest::mouseMove(&widget, QPoint(int(FrameLayout::kGutter) + 300, y));
    QTest::mouseRelease(&widget, Qt::LeftButton, {}, QPoint(int(FrameLayout::kGutter) + 300, y));
    REQUIRE(zoom.selection());
    CHECK(zoom.selection()->startNs == Approx(100'000).margin(1000));
    CHECK(zoom.selection()->endNs == Approx(300'000).margin(1000));
    QTest::keyClick(&widget, Qt::Key_Return);
    CHECK(zoom.window() == *zoom.selection());
    CHECK(zoom.canGoBack());
}

TEST_CASE("the frame palette follows a dark desktop palette", "[ui][widget]")
{
    QPalette dark;
    dark.setColor(QPalette::Base, QColor(30, 30, 30));
    dark.setColor(QPalette::Text, QColor(230, 230, 230));
    const FramePalette p = FramePalette::fromPalette(dark);
    CHECK(p.background == QColor(30, 30, 30));
    CHECK(p.text == QColor(230, 230, 230));
    CHECK(p.ink[size_t(Ink::Idle)].lightnessF() < 0.5); // idle bars stay dim on dark
    const FramePalette light = FramePalette::fromPalette(QPalette(Qt::white));
    CHECK(light.ink[size_t(Ink::Idle)].lightnessF() > 0.5);
    CHECK(p.ink[size_t(Ink::Running)] != p.ink[size_t(Ink::Gc)]);
}
