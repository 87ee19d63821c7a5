// The timeline's optional rows (context lanes, spark deque sizes): their geometry in the pure frame
// function, scrolling, tooltips, the widget's background computation and the View menu toggles.
#include "support/trace_builder.h"
#include "ui/main_window.h"
#include "ui/timeline/frame.h"
#include "ui/timeline/timeline_widget.h"
#include "ui/timeline/zoom_state.h"

#include "sparkscope/core/event_types.h"

#include <QAction>
#include <QSettings>
#include <QSignalSpy>
#include <QTest>
#include <QWheelEvent>
#include <catch2/catch.hpp>

using namespace sparkscope;
using namespace sparkscope::ui;

namespace {

// Two engines over [0, 1000):
//   context 1: created at 0 (runnable), runs on engine 0 over [100, 600), finishes;
//   context 2: created at 0, runs on engine 1 over [200, 400), blocks, is woken at 700, runs on
//              engine 1 over [800, 1000).
//   Lane 1: runnable 100, running 500 (engine 0), then nothing. Lane 2: runnable [0,200) + [700,800)
//   = 300, running [200,400) + [800,1000) = 400, blocked [400,700) = 300.
//   Sparks: engine 0 creates at 100 and 300, engine 1 steals one from it at 500, engine 0 runs the
//   other at 700. Deque 0: 1 on [100,300), 2 on [300,500), 1 on [500,700), 0 after; deque 1: 0.
std::shared_ptr<const TraceData> handTrace()
{
    test::TraceBuilder b(2);
    b.createThread(0, 0, 1).createThread(1, 0, 2);
    b.runThread(0, 100, 1).stopThread(0, 600, 1, core::kStopFinished);
    b.runThread(1, 200, 2).stopThread(1, 400, 2, core::kStopBlocked).threadRunnable(0, 700, 2);
    b.runThread(1, 800, 2).stopThread(1, 1000, 2, core::kStopFinished);
    b.sparkCreate(0, 100, 0x10, 1).sparkCreate(0, 300, 0x10, 2).sparkSteal(1, 500, 0, 1).sparkRun(0, 700, 2);
    b.endAt(1000);
    return buildTraceData(b.build());
}

// `count` contexts, context i (1-based) created at 10 i and running on engine i % 2 over [10 i, 10 i + 5).
std::shared_ptr<const TraceData> manyContexts(uint32_t count)
{
    test::TraceBuilder b(2);
    for (uint32_t i = 1; i <= count; ++i) {
        const uint16_t e = uint16_t(i % 2);
        b.createThread(e, 10 * i, i).runThread(e, 10 * i, i).stopThread(e, 10 * i + 5, i, core::kStopFinished);
    }
    b.endAt(10 * count + 10);
    return buildTraceData(b.build());
}

TimelineRows computedRows(const TraceData& data)
{
    TimelineRows rows;
    rows.lanes = computeContextLaneRows(*data.trace);
    rows.deques = computeDequeRows(*data.trace);
    return rows;
}

// Total width × height / barHeight of the rects of one ink lying within [top, top + height].
double coveredWidth(const std::vector<QRectF>& rects, double top, double height)
{
    double area = 0;
    for (const QRectF& r : rects)
        if (r.top() >= top - 1e-9 && r.bottom() <= top + height + 1e-9)
            area += r.width() * r.height();
    return area / height;
}

} // namespace

TEST_CASE("optional rows sit under the engine rows and draw exact state widths per context", "[ui][frame][rows]")
{
    auto data = handTrace();
    const TimelineRows rows = computedRows(*data);
    REQUIRE(rows.lanes->ids == std::vector<uint32_t> { 1, 2 });
    for (double dpr : { 1.0, 2.0 }) {
        // Plot width 1000 px for 1000 ns: 1 ns per logical pixel.
        Viewport v { int(FrameLayout::kGutter) + 1000 + 4, 700, dpr, { 0, 1000 } };
        v.showLanes = v.showDeques = true;
        const Frame f = frame(*data, v, nullptr, &rows);
        const FrameLayout& L = f.layout;
        CHECK(f.axis.width == 1000.0); // everything fits: no scroll bar, no margin for it
        REQUIRE(L.hasExtras());
        CHECK(L.maxScrollY() == 0);
        CHECK(L.dequeRows == 2);
        CHECK(L.lanes == 2);
        CHECK(L.extrasTop >= L.rowTop(1) + L.rowHeight); // under the engine rows
        CHECK(L.rowHeight >= 26);
        CHECK(L.dequeRowTop(1) == L.dequeRowTop(0) + L.dequeRowHeight);
        CHECK(L.laneTop(0) >= L.dequeRowTop(1) + L.dequeRowHeight);
        CHECK(L.extrasBottom() <= v.height - FrameLayout::kLegendHeight);
        CHECK(f.extras.lanesDrawn == 2);
        CHECK(f.extras.laneStrips.size() == 2);
        CHECK(f.extras.dequeStrips.size() == 2);

        auto laneWidth = [&](Ink ink, size_t lane) {
            const double barTop = L.laneTop(lane) + (L.laneHeight - L.laneBarHeight) / 2;
            return coveredWidth(f.extras.rects[size_t(ink)], barTop, L.laneBarHeight);
        };
        CHECK(laneWidth(Ink::LaneRunnable, 0) == Approx(100));
        CHECK(laneWidth(Ink::Running, 0) == Approx(500));
        CHECK(laneWidth(Ink::LaneBlocked, 0) == 0);
        CHECK(laneWidth(Ink::LaneRunnable, 1) == Approx(300));
        CHECK(laneWidth(Ink::Running, 1) == Approx(400));
        CHECK(laneWidth(Ink::LaneBlocked, 1) == Approx(300));

        // Deque 0 peaks at 2, the shared scale: full height on [300, 500), half on [100, 300) and
        // [500, 700), so its area is 200 × 1 + 400 × 1/2 = 400 row-heights × pixels.
        CHECK(f.extras.dequeScale == 2);
        const Frame::Strip& d0 = f.extras.dequeStrips[0];
        CHECK(coveredWidth(f.extras.rects[size_t(Ink::Deque)], d0.target.top(), d0.target.height())
            == Approx(400).epsilon(0.02));
        // Deque 1 never held a spark: nothing drawn in its row.
        const Frame::Strip& d1 = f.extras.dequeStrips[1];
        CHECK(coveredWidth(f.extras.rects[size_t(Ink::Deque)], d1.target.top(), d1.target.height()) == 0);
    }
}

TEST_CASE("optional rows are absent until switched on and show a note while being computed", "[ui][frame][rows]")
{
    auto data = handTrace();
    const Viewport off { int(FrameLayout::kGutter) + 1000 + 4, 700, 1.0, { 0, 1000 } };
    const Frame plain = frame(*data, off);
    const TimelineRows rows = computedRows(*data);
    const Frame withDataButOff = frame(*data, off, nullptr, &rows);
    CHECK_FALSE(withDataButOff.layout.hasExtras());
    CHECK(withDataButOff.layout.rowHeight == plain.layout.rowHeight);
    CHECK(withDataButOff.primitiveCount() == plain.primitiveCount());

    Viewport on = off;
    on.showLanes = true;
    TimelineRows pending;
    pending.lanesPending = true;
    const Frame f = frame(*data, on, nullptr, &pending);
    REQUIRE(f.layout.hasExtras());
    CHECK(f.extras.lanesDrawn == 0);
    REQUIRE(f.extras.texts.size() == 1);
    CHECK(f.extras.texts[0].role == FrameText::Status);
    CHECK(f.extras.texts[0].text.startsWith(QStringLiteral("Computing context lanes")));
}

TEST_CASE("thousands of context lanes scroll and only the visible ones are built", "[ui][frame][rows]")
{
    auto data = manyContexts(2000);
    TimelineRows rows;
    rows.lanes = computeContextLaneRows(*data->trace);
    REQUIRE(rows.lanes->size() == 2000);
    Viewport v { 1200, 800, 1.0, { data->startNs, data->endNs } };
    v.showLanes = true;
    const Frame top = frame(*data, v, nullptr, &rows);
    const FrameLayout& L = top.layout;
    CHECK(L.laneHeight == 16); // the minimum: they do not fit
    CHECK(L.maxScrollY() == Approx(2000 * 16 - L.extrasHeight));
    CHECK(L.rightMargin == 4 + FrameLayout::kScrollBarWidth);
    CHECK(L.rowHeight >= 26); // the engine rows keep their size
    const auto [first, last] = L.visibleLanes();
    CHECK(first == 0);
    CHECK(last == size_t(std::ceil(L.extrasHeight / 16)));
    CHECK(top.extras.lanesDrawn == last - first);
    auto hasLabel = [](const Frame& f, const QString& text) {
        return std::any_of(
            f.extras.texts.begin(), f.extras.texts.end(), [&](const FrameText& t) { return t.text == text; });
    };
    CHECK(hasLabel(top, QStringLiteral("Ctx 1")));
    CHECK_FALSE(hasLabel(top, QStringLiteral("Ctx 2000")));

    // Scrolled past the end: clamped to the last page, which ends with context 2000.
    v.scrollY = 1'000'000;
    const Frame end = frame(*data, v, nullptr, &rows);
    CHECK(end.layout.scrollY == Approx(end.layout.maxScrollY()));
    CHECK(end.extras.lanesDrawn <= last - first + 1);
    CHECK(hasLabel(end, QStringLiteral("Ctx 2000")));
    CHECK_FALSE(hasLabel(end, QStringLiteral("Ctx 1")));
    // The lane under a y is the one drawn there.
    const double y = end.layout.laneTop(1999) + 5;
    CHECK(end.layout.laneAt(y) == 1999);
    CHECK(end.layout.laneAt(end.layout.extrasTop - 1) == -1);
}

TEST_CASE("tooltips over the optional rows name the context, state, engine and deque size", "[ui][frame][rows]")
{
    auto data = handTrace();
    const TimelineRows rows = computedRows(*data);
    Viewport v { int(FrameLayout::kGutter) + 1000 + 4, 700, 1.0, { 0, 1000 } };
    v.showLanes = v.showDeques = true;
    const Frame f = frame(*data, v, nullptr, &rows);
    const FrameLayout& L = f.layout;
    const double x300 = L.kGutter + 300.5, x450 = L.kGutter + 450.5, x650 = L.kGutter + 650.5;
    const QString running = describeAt(*data, f, QPointF(x300, L.laneTop(1) + 8), nullptr, &rows);
    CHECK(running.startsWith(QStringLiteral("Context 2: running on engine 1")));
    CHECK(running.contains(QStringLiteral("for 200 ns")));
    const QString blocked = describeAt(*data, f, QPointF(x450, L.laneTop(1) + 8), nullptr, &rows);
    CHECK(blocked.startsWith(QStringLiteral("Context 2: blocked")));
    CHECK(blocked.contains(QStringLiteral("for 300 ns")));
    CHECK(describeAt(*data, f, QPointF(x650, L.laneTop(0) + 8), nullptr, &rows)
              .contains(QStringLiteral("does not exist")));
    const QString deque = describeAt(*data, f, QPointF(x450, L.dequeRowTop(0) + 10), nullptr, &rows);
    CHECK(deque.startsWith(QStringLiteral("Spark deque of engine 0")));
    CHECK(deque.contains(QStringLiteral(": 2 sparks")));
}

TEST_CASE(
    "timeline widget computes optional rows in the background and drops them when switched off", "[ui][widget][rows]")
{
    ZoomState zoom;
    TimelineWidget widget(&zoom);
    widget.resize(1000, 600);
    widget.setData(manyContexts(300));
    widget.show();
    REQUIRE(QTest::qWaitForWindowExposed(&widget));
    CHECK_FALSE(widget.currentFrame().layout.hasExtras());

    QSignalSpy ready(&widget, &TimelineWidget::rowsReady);
    widget.setShowContextLanes(true);
    widget.setShowDequeSizes(true);
    CHECK(widget.rowsPending());
    for (int i = 0; i < 100 && widget.rowsPending(); ++i)
        ready.wait(100);
    REQUIRE_FALSE(widget.rowsPending());
    CHECK(ready.count() == 2);
    REQUIRE(widget.rows().lanes);
    CHECK(widget.rows().lanes->size() == 300);
    const Frame& f = widget.currentFrame();
    CHECK(f.extras.lanesDrawn > 0);
    CHECK(f.extras.dequeStrips.size() == 2);

    // 300 lanes do not fit in 600 px: the wheel over them and Page Down scroll them.
    REQUIRE(widget.maxRowsScroll() > 0);
    const QPointF at(500, f.layout.extrasTop + 20);
    QWheelEvent wheel(
        at, widget.mapToGlobal(at), QPoint(), QPoint(0, -120), Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(&widget, &wheel);
    CHECK(widget.rowsScroll() == int(3 * f.layout.laneHeight));
    const TimeWindow window = zoom.window(); // the wheel over the rows did not pan
    QTest::keyClick(&widget, Qt::Key_PageDown);
    CHECK(widget.rowsScroll() > int(3 * f.layout.laneHeight));
    CHECK(zoom.window() == window);
    widget.setRowsScroll(1'000'000);
    CHECK(widget.rowsScroll() == widget.maxRowsScroll());
    CHECK(widget.currentFrame().layout.scrollY == Approx(widget.rowsScroll()));

    widget.setShowContextLanes(false);
    widget.setShowDequeSizes(false);
    CHECK_FALSE(widget.rows().lanes);
    CHECK_FALSE(widget.rows().deques);
    CHECK_FALSE(widget.currentFrame().layout.hasExtras());
    CHECK(widget.maxRowsScroll() == 0);
}

TEST_CASE("the View menu's optional-row toggles are remembered in the settings", "[ui][window][rows]")
{
    const QString lanesKey = QStringLiteral("timeline/contextLanes"),
                  dequesKey = QStringLiteral("timeline/sparkDequeSizes");
    QSettings().setValue(lanesKey, true);
    QSettings().remove(dequesKey);
    {
        MainWindow window;
        REQUIRE(window.contextLanesAction());
        REQUIRE(window.dequeSizesAction());
        CHECK(window.contextLanesAction()->isChecked());
        CHECK(window.timeline()->showContextLanes());
        CHECK_FALSE(window.dequeSizesAction()->isChecked()); // off by default
        CHECK_FALSE(window.timeline()->showDequeSizes());
        window.contextLanesAction()->trigger();
        window.dequeSizesAction()->trigger();
        CHECK_FALSE(window.timeline()->showContextLanes());
        CHECK(window.timeline()->showDequeSizes());
        CHECK(QSettings().value(lanesKey).toBool() == false);
        CHECK(QSettings().value(dequesKey).toBool() == true);
    }
    QSettings().remove(lanesKey);
    QSettings().remove(dequesKey);
}

TEST_CASE("the optional rows' colours differ from the engine states' in light and dark palettes", "[ui][frame][rows]")
{
    QPalette light, dark;
    light.setColor(QPalette::Base, Qt::white);
    dark.setColor(QPalette::Base, QColor(30, 30, 30));
    for (const QPalette& palette : { light, dark }) {
        const FramePalette p = FramePalette::fromPalette(palette);
        const std::vector<Ink> boxes { Ink::Idle, Ink::Running, Ink::Gc, Ink::Searching, Ink::Sleeping,
            Ink::LaneRunnable, Ink::LaneBlocked, Ink::Deque };
        for (size_t i = 0; i < boxes.size(); ++i)
            for (size_t j = i + 1; j < boxes.size(); ++j) {
                INFO(inkName(boxes[i]) << " vs " << inkName(boxes[j]));
                CHECK(p.ink[size_t(boxes[i])].rgb() != p.ink[size_t(boxes[j])].rgb());
            }
        // Distinguishable from the background.
        for (Ink ink : { Ink::LaneRunnable, Ink::LaneBlocked, Ink::Deque })
            CHECK(std::abs(p.ink[size_t(ink)].lightnessF() - p.background.lightnessF()) > 0.2);
    }
}
