#include "support/test_data.h"
#include "support/trace_builder.h"
#include "ui/export/timeline_export.h"
#include "ui/hover/highlight_set.h"
#include "ui/timeline/frame.h"

#include "sparkscope/core/event_types.h"

#include <catch2/catch.hpp>

#include <QFileInfo>
#include <QImage>
#include <QPainter>
#include <QPalette>
#include <cmath>
#include <random>
#include <set>

using namespace sparkscope;
using namespace sparkscope::ui;

namespace {

// Engine 0: runs context 1 over [100, 600), GC over [700, 800), idle otherwise.
// Engine 1: runs context 2 over the whole [0, 1000).
// So CPUs over time is 1 on [0,100), 2 on [100,600), 1 on [600,1000).
std::shared_ptr<const TraceData> handTrace()
{
    test::TraceBuilder b(2);
    b.runThread(1, 0, 2).runThread(0, 100, 1).stopThread(0, 600, 1, core::kStopFinished);
    b.gcStart(0, 700).gcEnd(0, 800).sparkCreate(0, 300, 0x10, 1).stopThread(1, 1000, 2, core::kStopFinished);
    b.endAt(1000);
    return buildTraceData(b.build());
}

double totalWidth(const std::vector<QRectF>& rects, double top, double bottom)
{
    double w = 0;
    for (const QRectF& r : rects)
        if (r.top() >= top - 1e-9 && r.bottom() <= bottom + 1e-9)
            w += r.width() * r.height();
    return w;
}

} // namespace

TEST_CASE("frame draws each engine's states with exact widths", "[ui][frame]")
{
    auto data = handTrace();
    REQUIRE(data->engineCount() == 2);
    for (double dpr : { 1.0, 2.0 }) {
        // Plot width 1000 px for 1000 ns: 1 ns per logical pixel.
        const Viewport v { int(FrameLayout::kGutter) + 1000 + 4, 400, dpr, { 0, 1000 } };
        const Frame f = frame(*data, v);
        CHECK(f.axis.width == 1000.0);
        const FrameLayout& L = f.layout;
        const double bar = L.barHeight;
        auto area = [&](Ink ink, size_t engine) {
            return totalWidth(f.rects[size_t(ink)], L.barTop(engine), L.barTop(engine) + bar) / bar;
        };
        CHECK(area(Ink::Running, 0) == Approx(500));
        CHECK(area(Ink::Gc, 0) == Approx(100));
        CHECK(area(Ink::Idle, 0) == Approx(400));
        CHECK(area(Ink::Running, 1) == Approx(1000));
        CHECK(area(Ink::Gc, 1) == 0);
        // The spark-created tick is shown (few events) at x of t = 300.
        REQUIRE(f.lines[size_t(Ink::TickSparkCreate)].size() == 1);
        CHECK(f.lines[size_t(Ink::TickSparkCreate)][0].x1() == Approx(L.kGutter + 300));
    }
}

TEST_CASE("frame's CPUs curve is the exact average per column", "[ui][frame]")
{
    auto data = handTrace();
    // 10 columns of 100 ns: averages 1, 2, 2, 2, 2, 2, 1, 1, 1, 1 engines.
    const Viewport v { int(FrameLayout::kGutter) + 10 + 4, 400, 1.0, { 0, 1000 } };
    const Frame f = frame(*data, v);
    const double bottom = f.layout.curveTop() + f.layout.curveHeight;
    std::vector<double> heights;
    for (const QPointF& p : f.curve)
        if (p.y() < bottom)
            heights.push_back((bottom - p.y()) / f.layout.curveHeight * 2);
    // Two points (left and right edge) per column.
    REQUIRE(heights.size() == 20);
    const double want[] = { 1, 2, 2, 2, 2, 2, 1, 1, 1, 1 };
    for (size_t i = 0; i < 10; ++i) {
        CHECK(heights[2 * i] == Approx(want[i]));
        CHECK(heights[2 * i + 1] == Approx(want[i]));
    }
    CHECK(f.curveLevels.size() == 2); // dashed lines at 1 and 2 engines
}

TEST_CASE("the grid crosses the CPUs curve's area in the area's colours and the empty part in the background's",
    "[ui][frame]")
{
    // One engine running over [0, 400) of [0, 1000): the curve's area covers the first 400 px only.
    test::TraceBuilder b(1);
    b.runThread(0, 0, 1).stopThread(0, 400, 1, core::kStopFinished).endAt(1000);
    const auto data = buildTraceData(b.build());
    const Viewport v { int(FrameLayout::kGutter) + 1000 + 4, 400, 1.0, { 0, 1000 } };
    const Frame f = frame(*data, v);
    const FramePalette palette = FramePalette::fromPalette(QPalette());
    QImage image(v.width, v.height, QImage::Format_ARGB32_Premultiplied);
    QPainter painter(&image);
    paintFrame(painter, f, palette);
    painter.end();
    const QRgb onArea = palette.faintGridOver(palette.curveFill).rgb();
    const QRgb onBackground = palette.faintGridOver(palette.background).rgb();
    REQUIRE(onArea != onBackground);
    // Count each grid colour in the curve's row, left and right of t = 400 (x = gutter + 400).
    const int top = int(f.layout.curveTop()) + 2, bottom = int(f.layout.curveTop() + f.layout.curveHeight) - 2;
    const int split = int(FrameLayout::kGutter) + 400;
    int areaLeft = 0, areaRight = 0, backgroundRight = 0;
    for (int y = top; y < bottom; ++y)
        for (int x = int(FrameLayout::kGutter); x < int(FrameLayout::kGutter) + 1000; ++x) {
            const QRgb p = image.pixel(x, y);
            (x < split - 1 ? areaLeft : areaRight) += p == onArea;
            backgroundRight += x > split + 1 && p == onBackground;
        }
    CHECK(areaLeft > 0); // the grid is drawn over the area
    CHECK(areaRight == 0); // and not in the area's colours where there is no area
    CHECK(backgroundRight > 0);
}

TEST_CASE("a column that is partly running shows that fraction of the bar", "[ui][frame]")
{
    auto data = handTrace();
    // One column over [0, 1000) on engine 0: running 50%, GC 10%, idle 40% of the bar height. (At this
    // width the legend wraps to a line per item, ~400 px: the frame is tall enough to leave rows above it.)
    const Viewport v { int(FrameLayout::kGutter) + 1 + 4, 600, 1.0, { 0, 1000 } };
    const Frame f = frame(*data, v);
    auto height = [&](Ink ink) {
        double h = 0;
        for (const QRectF& r : f.rects[size_t(ink)])
            if (r.top() >= f.layout.barTop(0) && r.bottom() <= f.layout.barTop(0) + f.layout.barHeight)
                h += r.height();
        return h / f.layout.barHeight;
    };
    CHECK(height(Ink::Running) == Approx(0.5).margin(0.5 / f.layout.barHeight));
    CHECK(height(Ink::Gc) == Approx(0.1).margin(0.5 / f.layout.barHeight));
    CHECK(height(Ink::Idle) == Approx(0.4).margin(1.0 / f.layout.barHeight));
}

TEST_CASE("frame size depends on pixels, not on the number of spans", "[ui][frame]")
{
    // 4 engines × 200'000 random spans: the frame still has at most a few rectangles per column.
    std::mt19937_64 rng(3);
    std::vector<std::vector<core::LodSpan>> spans(4);
    std::vector<core::StepFunction::Step> deltas;
    for (auto& engine : spans) {
        uint64_t t = 0;
        for (int i = 0; i < 200'000; ++i) {
            const uint64_t len = 1 + rng() % 50;
            const uint8_t state = uint8_t(rng() % 5);
            engine.push_back({ t, t + len, uint32_t(i), state });
            if (state == 1) {
                deltas.push_back({ int64_t(t), 1 });
                deltas.push_back({ int64_t(t + len), -1 });
            }
            t += len;
        }
    }
    auto data = std::make_shared<TraceData>();
    auto trace = std::make_shared<core::Trace>();
    trace->engines.resize(4);
    data->trace = trace;
    data->startNs = 0;
    data->endNs = 5'000'000;
    data->cpus = core::StepFunction::fromDeltas(deltas, 0, data->endNs);
    data->lod = core::LodIndex::build(std::move(spans), 5, 0, uint64_t(data->endNs));
    const Viewport v { 1600, 1000, 1.0, { 0, data->endNs } };
    const Frame f = frame(*data, v);
    size_t rects = 0;
    for (size_t i = 0; i <= size_t(Ink::Sleeping); ++i)
        rects += f.rects[i].size();
    CHECK(rects <= 4 * 5 * size_t(f.axis.width + 1));
    CHECK(size_t(f.curve.size()) <= 2 * size_t(f.axis.width + 1) + 2);
}

TEST_CASE("tooltips say what is under the mouse", "[ui][frame]")
{
    auto data = handTrace();
    const Viewport v { int(FrameLayout::kGutter) + 1000 + 4, 400, 1.0, { 0, 1000 } };
    const Frame f = frame(*data, v);
    const double y0 = f.layout.barTop(0) + 2;
    const QString running = describeAt(*data, f, QPointF(f.axis.xOf(200), y0));
    CHECK(running.contains(QStringLiteral("running context 1")));
    CHECK(running.contains(QStringLiteral("engine 0")));
    CHECK(running.contains(QStringLiteral("500 ns")));
    CHECK(describeAt(*data, f, QPointF(f.axis.xOf(750), y0)).contains(QStringLiteral("GC")));
    CHECK(describeAt(*data, f, QPointF(f.axis.xOf(300), y0)).contains(QStringLiteral("SPARK")));
    CHECK(describeAt(*data, f, QPointF(f.axis.xOf(300), f.layout.curveTop() + 5))
              .contains(QStringLiteral("CPUs running: 2.00")));
    CHECK(describeAt(*data, f, QPointF(5, y0)).isEmpty()); // the gutter
}

TEST_CASE("exported images are not blank and vector exports are written", "[ui][export]")
{
    auto data = handTrace();
    const Viewport v { 800, 400, 2.0, { 0, 1000 } };
    const FramePalette palette = FramePalette::fromPalette(QPalette());
    const QImage image = renderTimelineImage(*data, v, palette);
    CHECK(image.size() == QSize(1600, 800));
    std::set<QRgb> colours;
    for (int y = 0; y < image.height(); y += 3)
        for (int x = 0; x < image.width(); x += 3)
            colours.insert(image.pixel(x, y));
    CHECK(colours.size() > 8);
    CHECK(colours.count(palette.ink[size_t(Ink::Running)].rgb()) == 1);
    const QString dir = QString::fromStdString(test::scratchDir("ui-export").string());
    for (const char* name : { "t.png", "t.svg", "t.pdf" }) {
        const QString path = dir + QLatin1Char('/') + QLatin1String(name);
        CHECK(exportTimeline(path, *data, v, palette).isEmpty());
        CHECK(QFileInfo(path).size() > 200);
    }
    CHECK_FALSE(exportTimeline(dir + QStringLiteral("/t.bmpx"), *data, v, palette).isEmpty());
}

TEST_CASE("a 48-engine trace keeps every engine row on screen with readable labels", "[ui][frame]")
{
    // Engine e runs context e + 1 over [10 e, 1000): all 48 rows have something to draw.
    test::TraceBuilder b(48);
    for (uint16_t e = 0; e < 48; ++e)
        b.runThread(e, 10 * e, e + 1u).stopThread(e, 1000, e + 1u, core::kStopFinished);
    b.endAt(1000);
    const auto data = buildTraceData(b.build());
    // At 1000 px the rows are 14 px and every one is named; at 800 px, 10 px, and every other one.
    for (const auto& [height, named] : { std::pair<int, size_t> { 1000, 48 }, std::pair<int, size_t> { 800, 24 } }) {
        INFO(height << " px");
        const Viewport v { int(FrameLayout::kGutter) + 1000 + 4, height, 1.0, { 0, 1000 } };
        const Frame f = frame(*data, v);
        const FrameLayout& L = f.layout;
        // Every row fits above the legend (26 px rows would need 1,248 px).
        CHECK(L.rowHeight < 26);
        CHECK(L.rowHeight >= FrameLayout::kMinRowHeight);
        CHECK(L.rowTop(47) + L.rowHeight <= double(v.height) - FrameLayout::kLegendHeight);
        // Each row still draws its running bar: engine 47 runs over [470, 1000) = 530 px.
        const double bar = L.barHeight;
        CHECK(totalWidth(f.rects[size_t(Ink::Running)], L.barTop(47), L.barTop(47) + bar) / bar == Approx(530));
        // Names and the curve's labels thin out so that none overlaps the next (text is ~12 px high).
        std::vector<double> names, levels;
        for (const FrameText& t : f.texts)
            if (t.role == FrameText::EngineName && t.pos.y() > L.rowsTop())
                names.push_back(t.pos.y());
            else if (t.role == FrameText::CurveLabel)
                levels.push_back(t.pos.y());
        CHECK(names.size() == named);
        for (auto* ys : { &names, &levels }) {
            std::sort(ys->begin(), ys->end());
            for (size_t k = 1; k < ys->size(); ++k)
                CHECK((*ys)[k] - (*ys)[k - 1] >= 12.0);
        }
        CHECK(levels.size() >= 4);
        CHECK(levels.size() < 48);
    }
}

TEST_CASE("the ruler leaves off a label that would run past the plot's right edge, not its tick", "[ui][frame]")
{
    auto data = handTrace();
    // 1000 px for [0, 1000) ns: a tick falls on the right edge (t = 1000), whose label has no room.
    const Viewport v { int(FrameLayout::kGutter) + 1000 + 4, 400, 1.0, { 0, 1000 } };
    const Frame f = frame(*data, v);
    const double right = f.axis.left + f.axis.width;
    size_t labels = 0;
    for (const FrameText& t : f.texts)
        if (t.role == FrameText::Ruler) {
            ++labels;
            INFO(t.text.toStdString() << " at " << t.pos.x());
            CHECK(t.pos.x() + 7.0 * double(t.text.size()) <= right);
        }
    CHECK(labels >= 2);
    bool tickAtRight = false; // the edge's tick is still drawn
    for (const QLineF& l : f.rulerTicks)
        tickAtRight = tickAtRight || std::abs(l.x1() - right) < 0.5;
    CHECK(tickAtRight);
}

TEST_CASE("a trace being written hatches the part of a row its engine has not written yet", "[ui][frame][follow]")
{
    // Engine 0's events are written to 600, engine 1's to the end: a hatch on engine 0's bar from
    // x(600) to the trace's end, none on engine 1's; hovering there says why, before 600 the span.
    auto data = handTrace();
    const Viewport v { int(FrameLayout::kGutter) + 1000 + 4, 400, 1.0, { 0, 1000 } };
    TimelineRows rows;
    rows.unwritten = std::make_shared<const std::vector<int64_t>>(std::vector<int64_t> { 600, INT64_MAX });
    const Frame f = frame(*data, v, nullptr, &rows);
    // The bar, then the CPUs curve from the first engine's stop (it counts engine 0 in its last state).
    REQUIRE(f.unwritten.size() == 2);
    CHECK(f.unwritten[1].left() == Approx(f.axis.xOf(600)));
    CHECK(f.unwritten[1].top() == Approx(f.layout.curveTop()));
    CHECK(f.unwritten[1].height() == Approx(f.layout.curveHeight));
    const double yc = f.layout.curveTop() + 2;
    CHECK(describeAt(*data, f, QPointF(f.axis.xOf(750), yc), nullptr, &rows)
              .contains(QStringLiteral("last known state")));
    CHECK_FALSE(
        describeAt(*data, f, QPointF(f.axis.xOf(200), yc), nullptr, &rows).contains(QStringLiteral("last known")));
    const QRectF r = f.unwritten.front();
    CHECK(r.left() == Approx(f.axis.xOf(600)));
    CHECK(r.right() == Approx(f.axis.xOf(1000)));
    CHECK(r.top() == Approx(f.layout.barTop(0)));
    CHECK(r.height() == Approx(f.layout.barHeight));
    const double y0 = f.layout.barTop(0) + 2, y1 = f.layout.barTop(1) + 2;
    CHECK(describeAt(*data, f, QPointF(f.axis.xOf(750), y0), nullptr, &rows)
              .contains(QStringLiteral("not written yet after")));
    CHECK(describeAt(*data, f, QPointF(f.axis.xOf(200), y0), nullptr, &rows)
              .contains(QStringLiteral("running context 1")));
    CHECK(describeAt(*data, f, QPointF(f.axis.xOf(750), y1), nullptr, &rows)
              .contains(QStringLiteral("running context 2")));
    // Zoomed into [0, 500): nothing of it is unwritten. Without the rows' data: no hatch.
    CHECK(frame(*data, Viewport { int(FrameLayout::kGutter) + 1000 + 4, 400, 1.0, { 0, 500 } }, nullptr, &rows)
              .unwritten.empty());
    CHECK(frame(*data, v).unwritten.empty());
    // With the utilisation row (the analysis of what was written): hatched from the first engine's stop.
    Viewport withRow = v;
    withRow.showUtilisation = true;
    rows.ledgerPending = true;
    const Frame g = frame(*data, withRow, nullptr, &rows);
    REQUIRE(g.layout.hasUtilisation());
    REQUIRE(g.unwritten.size() == 3);
    CHECK(g.unwritten[2].left() == Approx(g.axis.xOf(600)));
    CHECK(g.unwritten[2].top() == Approx(g.layout.utilisationTop()));
    CHECK(describeAt(*data, g, QPointF(g.axis.xOf(750), g.layout.utilisationTop() + 2), nullptr, &rows)
              .contains(QStringLiteral("Not every engine's events are written yet")));
    rows.ledgerPending = false;
    // The hatch is painted: a row of pixels across it holds the text colour's hatch, not just the background.
    QImage image(v.width, v.height, QImage::Format_ARGB32);
    QPainter painter(&image);
    const FramePalette palette = FramePalette::fromPalette(QPalette());
    paintFrame(painter, f, palette);
    painter.end();
    std::set<QRgb> inHatch, beforeIt;
    const int y = int(r.center().y());
    for (int x = int(r.left()) + 2; x < int(r.right()) - 2; ++x)
        inHatch.insert(image.pixel(x, y));
    for (int x = int(f.axis.xOf(610)) - 150; x < int(f.axis.xOf(610)) - 50; ++x)
        beforeIt.insert(image.pixel(x, y));
    CHECK(inHatch.size() >= 2); // the hatch's lines and what is between them
    CHECK(inHatch != beforeIt);
}

TEST_CASE("an engine is behind in a trace being written when its last event is over 1 % and 1 ms before the end",
    "[ui][follow]")
{
    // Engine 0's last event at `last`, engine 1's at 10 ms (the end), engine 2 has none: 1 % of the
    // 10 ms span is 100 µs, so the rule's 1 ms applies.
    for (const auto& [last, expected] : { std::pair<int64_t, int64_t>(2'000'000, 2'000'000),
             std::pair<int64_t, int64_t>(8'999'999, 8'999'999), std::pair<int64_t, int64_t>(9'000'000, INT64_MAX) }) {
        test::TraceBuilder b(3);
        b.runThread(0, 0, 1).stopThread(0, uint64_t(last), 1, core::kStopFinished);
        b.runThread(1, 0, 2).stopThread(1, 10'000'000, 2, core::kStopFinished);
        const auto data = buildTraceData(b.build());
        REQUIRE(data->engineCount() == 3);
        REQUIRE(data->endNs == 10'000'000);
        INFO("engine 0's last event at " << last);
        CHECK(unwrittenFrom(*data) == std::vector<int64_t> { expected, INT64_MAX, data->startNs });
    }
}

TEST_CASE(
    "an engine asleep at its last written event is not behind when its runtime writes wake-ups at once", "[ui][follow]")
{
    // Engine 0 runs to the end, 10 ms; engine 1 searches at 1 ms and sleeps at 2 ms, and has written
    // nothing since. Our runtime with a flush interval (its RTS_IDENTIFIER's flush-ms) writes a
    // wake-up at once: engine 1 is asleep still, so nothing is behind. Without it, and for an engine
    // whose last event leaves it running, the 1 % / 1 ms rule holds as before.
    auto unwritten = [](const std::optional<std::string>& ident, bool sleeps) {
        test::TraceBuilder b(2);
        if (ident) {
            std::vector<uint8_t> payload { 0, 0, 0, 0 }; // the capset, then the text
            payload.insert(payload.end(), ident->begin(), ident->end());
            b.event(core::kNoEngine, 0, core::ev::RtsIdentifier, payload);
        }
        b.runThread(0, 0, 1).stopThread(0, 10'000'000, 1, core::kStopFinished);
        if (sleeps)
            b.event(1, 1'000'000, core::ev::MerLookingForGlobalContext)
                .event(1, 2'000'000, core::ev::MerEngineSleeping);
        else
            b.runThread(1, 1'000'000, 2).event(1, 2'000'000, core::ev::UserMsg, { 'x' });
        const auto data = buildTraceData(b.roundTrip());
        REQUIRE(data->endNs == 10'000'000);
        return unwrittenFrom(*data);
    };
    const std::string flushes = "sparkscope-0.1.0 max-contexts=8 cpus=2 flush-ms=100";
    CHECK(unwritten(flushes, true) == std::vector<int64_t> { INT64_MAX, INT64_MAX });
    CHECK(unwritten("sparkscope-0.1.0 max-contexts=8 cpus=2", true) == std::vector<int64_t> { INT64_MAX, 2'000'000 });
    CHECK(unwritten(std::nullopt, true) == std::vector<int64_t> { INT64_MAX, 2'000'000 });
    CHECK(unwritten(flushes, false) == std::vector<int64_t> { INT64_MAX, 2'000'000 });
}

TEST_CASE("static-id colours stand apart from the states they are drawn beside, in both themes", "[ui][frame]")
{
    // Coloured by static id, an engine row shows running time in the sites' colours beside searching,
    // GC, sleeping and idle time (and sequential code): no site colour may pass for one of those, or
    // for another site (Euclidean RGB distance; the old first site colour was 49 from searching's).
    auto distance = [](const QColor& a, const QColor& b) {
        return std::hypot(a.red() - b.red(), a.green() - b.green(), a.blue() - b.blue());
    };
    QPalette darkTheme;
    darkTheme.setColor(QPalette::Base, QColor(30, 30, 32));
    darkTheme.setColor(QPalette::Text, QColor(230, 230, 230));
    for (const QPalette& theme : { QPalette(Qt::white), darkTheme }) {
        const FramePalette p = FramePalette::fromPalette(theme);
        INFO("background " << p.background.name().toStdString());
        const std::vector<Ink> sites { Ink::Site1, Ink::Site2, Ink::Site3, Ink::Site4, Ink::Site5, Ink::Site6,
            Ink::SiteOther };
        for (Ink site : sites) {
            INFO(inkName(site));
            for (Ink state : { Ink::Searching, Ink::Gc, Ink::Sleeping, Ink::Idle, Ink::SiteSequential }) {
                INFO("against " << inkName(state));
                CHECK(distance(p.ink[size_t(site)], p.ink[size_t(state)]) >= 70);
            }
            for (Ink other : sites)
                if (other != site) {
                    INFO("against " << inkName(other));
                    CHECK(distance(p.ink[size_t(site)], p.ink[size_t(other)]) >= 60);
                }
        }
    }
}

TEST_CASE("a highlight's spans are merged per engine row: overlaps do not darken, and one outline goes round them",
    "[ui][frame]")
{
    // One engine over [0, 1000) at one pixel per ns. Spans [100,300) and [200,400) overlap, [600,700)
    // stands alone; two ticks at 800 are one. Drawn alone on a transparent image, so a pixel's alpha
    // is what the highlight put there: the fill's 45 inside a run, 0 outside, the edges' 200 on a
    // run's border and the tick.
    test::TraceBuilder b(1);
    b.runThread(0, 0, 1).stopThread(0, 1000, 1, core::kStopFinished).endAt(1000);
    const auto data = buildTraceData(b.build());
    const Viewport v { int(FrameLayout::kGutter) + 1000 + 4, 400, 1.0, { 0, 1000 } };
    const Frame f = frame(*data, v);
    HighlightSet set;
    set.spans = { { 0, 100, 300 }, { 0, 200, 400 }, { 0, 600, 700 } };
    set.points = { { 0, 800 }, { 0, 800 } };
    QImage image(v.width, v.height, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::transparent);
    QPainter painter(&image);
    paintHighlight(painter, f, set, QColor(0, 150, 160));
    painter.end();
    const int y = int(f.layout.barTop(0) + f.layout.barHeight / 2);
    auto alphaAt = [&](int64_t t) { return qAlpha(image.pixel(int(f.axis.xOf(t)), y)); };
    CHECK(alphaAt(150) == 45);
    CHECK(alphaAt(250) == 45); // two spans there, one fill
    CHECK(alphaAt(299) == 45); // no edge where the first span ends inside the second
    CHECK(alphaAt(300) == 45);
    CHECK(alphaAt(350) == 45);
    CHECK(alphaAt(500) == 0);
    CHECK(alphaAt(650) == 45);
    CHECK(alphaAt(100) >= 200); // the run's left edge
    CHECK(alphaAt(800) == 200); // the tick, drawn once (two would blend to more)
    CHECK(alphaAt(805) == 0); // one tick, 2 px wide
}

TEST_CASE("the legend names its groups: the engine rows' states, then the events' ticks", "[ui][frame]")
{
    auto data = handTrace();
    const Viewport v { 1600, 900, 1.0, { 0, 1000 } };
    const Frame f = frame(*data, v);
    std::vector<QString> order; // the legend's texts in order, groups marked
    for (const FrameText& t : f.texts)
        if (t.role == FrameText::LegendGroup)
            order.push_back(QStringLiteral("[") + t.text + QStringLiteral("]"));
        else if (t.role == FrameText::Legend)
            order.push_back(t.text);
    auto at = [&](const QString& s) { return std::find(order.begin(), order.end(), s) - order.begin(); };
    REQUIRE(at(QStringLiteral("[Engines:]")) < ptrdiff_t(order.size()));
    REQUIRE(at(QStringLiteral("[Events:]")) < ptrdiff_t(order.size()));
    CHECK(at(QStringLiteral("[Engines:]")) < at(QStringLiteral("running")));
    CHECK(at(QStringLiteral("running")) < at(QStringLiteral("[Events:]")));
    CHECK(at(QStringLiteral("[Events:]")) < at(QStringLiteral("spark created")));
    // No utilisation row shown: no group for it.
    CHECK(at(QStringLiteral("[Utilisation:]")) == ptrdiff_t(order.size()));
}
