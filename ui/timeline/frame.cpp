// The frame function (see frame.h). Geometry is produced in device-pixel columns so that a
// high-DPI screen gets its full resolution and every column's content is an exact aggregate.
#include "ui/timeline/frame.h"

#include "sparkscope/core/engine_states.h"
#include "sparkscope/core/event_fields.h"
#include "sparkscope/core/event_types.h"

#include <QPaintEngine>
#include <QPainter>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace sparkscope::ui {

using core::EngineState;

Ink inkOfTick(TickKind kind) noexcept { return Ink(size_t(Ink::TickSparkCreate) + size_t(kind)); }

const char* inkName(Ink ink) noexcept
{
    switch (ink) {
    case Ink::Idle:
        return "idle";
    case Ink::Running:
        return "running";
    case Ink::Gc:
        return "GC";
    case Ink::Searching:
        return "searching for work";
    case Ink::Sleeping:
        return "sleeping";
    case Ink::Marker:
        return "user marker";
    case Ink::Count:
        return "";
    default:
        return tickKindName(TickKind(size_t(ink) - size_t(Ink::TickSparkCreate)));
    }
}

FramePalette FramePalette::fromPalette(const QPalette& palette)
{
    FramePalette p;
    p.background = palette.color(QPalette::Base);
    p.text = palette.color(QPalette::Text);
    const bool dark = p.background.lightnessF() < 0.5;
    p.grid = dark ? QColor(255, 255, 255, 60) : QColor(0, 0, 0, 50);
    p.rowBackground = dark ? QColor(255, 255, 255, 14) : QColor(0, 0, 0, 10);
    p.curveFill = dark ? QColor(90, 200, 110, 150) : QColor(40, 150, 60, 130);
    p.curveLine = dark ? QColor(130, 230, 150) : QColor(20, 110, 40);
    auto set = [&](Ink ink, QColor light, QColor darkColour) { p.ink[size_t(ink)] = dark ? darkColour : light; };
    set(Ink::Idle, QColor(222, 222, 222), QColor(70, 70, 74));
    set(Ink::Running, QColor(46, 158, 68), QColor(70, 190, 90));
    set(Ink::Gc, QColor(236, 132, 22), QColor(245, 150, 50));
    set(Ink::Searching, QColor(66, 124, 214), QColor(100, 160, 240));
    set(Ink::Sleeping, QColor(166, 130, 200), QColor(150, 120, 190));
    set(Ink::TickSparkCreate, QColor(200, 30, 30), QColor(255, 90, 90));
    set(Ink::TickSparkRun, QColor(20, 20, 20), QColor(235, 235, 235));
    set(Ink::TickSparkSteal, QColor(170, 0, 170), QColor(240, 100, 240));
    set(Ink::TickConjunction, QColor(0, 120, 140), QColor(60, 200, 220));
    set(Ink::TickFuture, QColor(150, 110, 0), QColor(230, 200, 60));
    set(Ink::TickThread, QColor(90, 90, 90), QColor(170, 170, 170));
    set(Ink::TickMessage, QColor(0, 70, 200), QColor(120, 170, 255));
    set(Ink::TickOther, QColor(130, 130, 130), QColor(140, 140, 140));
    set(Ink::Marker, QColor(200, 0, 90), QColor(255, 90, 160));
    return p;
}

long FrameLayout::engineAt(double y, size_t engines) const
{
    if (y < rowsTop())
        return -1;
    const long row = long((y - rowsTop()) / kRowHeight);
    return row < long(engines) ? row : -1;
}

void FrameLayout::fitTo(double height, size_t engines)
{
    const double spare = height - kRulerHeight - 4 - kRowsGap - kLegendHeight - 8;
    kCurveHeight = std::clamp(spare * 0.3, 90.0, 220.0);
    kRowHeight = std::clamp((spare - kCurveHeight) / double(std::max<size_t>(1, engines)), 26.0, 56.0);
    kBarHeight = std::round(kRowHeight * 0.7);
}

size_t Frame::primitiveCount() const
{
    size_t n = curve.size() + curveLevels.size() + rulerTicks.size() + texts.size() + rowBackgrounds.size();
    for (size_t i = 0; i < kInkCount; ++i)
        n += rects[i].size() + lines[i].size();
    return n;
}

QString formatDuration(int64_t ns, int digits)
{
    const double v = double(ns);
    const double a = std::abs(v);
    auto fmt = [&](double x, const char* unit) { return QString::number(x, 'g', digits) + QString::fromUtf8(unit); };
    if (a >= 1e9)
        return fmt(v / 1e9, " s");
    if (a >= 1e6)
        return fmt(v / 1e6, " ms");
    if (a >= 1e3)
        return fmt(v / 1e3, " µs");
    return fmt(v, " ns");
}

namespace {

    // Ruler step: 1, 2 or 5 × 10^k ns, at least minPx apart.
    int64_t rulerStep(double nsPerPixel, double minPx)
    {
        const double want = std::max(1.0, nsPerPixel * minPx);
        double p = std::pow(10.0, std::floor(std::log10(want)));
        for (double m : { 1.0, 2.0, 5.0, 10.0 })
            if (p * m >= want)
                return int64_t(p * m);
        return int64_t(p * 10);
    }

    QString rulerLabel(int64_t ns, int64_t step)
    {
        // Enough digits to tell neighbouring ticks apart.
        const double unit = ns == 0 ? 1
                                    : (std::abs(ns) >= 1'000'000'000    ? 1e9
                                            : std::abs(ns) >= 1'000'000 ? 1e6
                                            : std::abs(ns) >= 1000      ? 1e3
                                                                        : 1);
        const char* name = unit == 1e9 ? " s" : unit == 1e6 ? " ms" : unit == 1e3 ? " µs" : " ns";
        int decimals = 0;
        while (decimals < 9 && double(step) / unit * std::pow(10.0, decimals) < 0.999)
            ++decimals;
        return QString::number(double(ns) / unit, 'f', decimals) + QString::fromUtf8(name);
    }

} // namespace

Frame frame(const TraceData& data, const Viewport& viewport, const std::vector<Marker>* bookmarks)
{
    const std::vector<Marker>& marks = bookmarks ? *bookmarks : data.markers;
    Frame f;
    f.viewport = viewport;
    f.engines = data.engineCount();
    f.layout.fitTo(double(viewport.height), f.engines);
    const FrameLayout& L = f.layout;
    const double dpr = std::max(1.0, viewport.devicePixelRatio);
    f.axis = { viewport.window.startNs, std::max(viewport.window.endNs, viewport.window.startNs + 1), L.kGutter,
        std::max(1.0, double(viewport.width) - L.kGutter - 4) };
    const TimeAxis& axis = f.axis;
    const long columns = std::max(1L, std::lround(axis.width * dpr));
    const double colW = axis.width / double(columns);
    const int64_t traceStart = data.startNs, traceEnd = data.endNs;
    const int64_t labelOrigin = 0; // labels show trace timestamps (GHC: since RTS start), as --range takes them
    const double xTraceStart = std::max(axis.left, axis.xOf(traceStart));
    const double xTraceEnd = std::min(axis.left + axis.width, axis.xOf(traceEnd));

    // Boundaries of the device-pixel columns, shared by every row.
    std::vector<int64_t> bounds(size_t(columns) + 1);
    for (long i = 0; i <= columns; ++i)
        bounds[size_t(i)] = axis.boundary(i, columns);

    auto columnMid = [&](long i) {
        return axis.startNs + int64_t(std::floor((double(i) + 0.5) * double(axis.spanNs()) / double(columns)));
    };

    // Ruler.
    const int64_t step = rulerStep(axis.nsPerPixel(), 110);
    const double bottom = L.contentHeight(f.engines);
    {
        const int64_t rel0 = axis.startNs - labelOrigin;
        int64_t first = (rel0 >= 0 ? (rel0 + step - 1) / step : -((-rel0) / step)) * step;
        for (int64_t rel = first; labelOrigin + rel <= axis.endNs; rel += step) {
            const double x = axis.xOf(labelOrigin + rel);
            f.rulerTicks.emplace_back(x, L.kRulerHeight - 8, x, L.kRulerHeight);
            f.rulerTicks.emplace_back(x, L.curveTop(), x, bottom); // faint grid
            f.texts.push_back({ QPointF(x + 3, L.kRulerHeight - 11), rulerLabel(rel, step), FrameText::Ruler });
        }
    }

    // CPUs-over-time curve: exact average per column from the prefix integral.
    const double engines = double(std::max<size_t>(1, f.engines));
    const double curveBottom = L.curveTop() + L.kCurveHeight;
    {
        const int curveDev = std::max(1, int(std::lround(L.kCurveHeight * dpr)));
        QImage curveImage(int(columns), curveDev, QImage::Format_Indexed8);
        curveImage.fill(255);
        uchar* curveBits = curveImage.bits();
        const qsizetype curveStride = curveImage.bytesPerLine();
        int prevTop = -1;
        bool open = false;
        double lastX = 0;
        for (long i = 0; i < columns; ++i) {
            int64_t a = std::max(bounds[size_t(i)], traceStart), b = std::min(bounds[size_t(i) + 1], traceEnd);
            if (a == b && bounds[size_t(i)] == bounds[size_t(i) + 1]) {
                a = columnMid(i); // below 1 ns per column: the nanosecond the column's middle falls in
                b = a + 1;
                if (a < traceStart || b > traceEnd)
                    a = b;
            }
            if (a >= b) {
                prevTop = -1;
                if (open) {
                    f.curve << QPointF(lastX, curveBottom);
                    open = false;
                }
                continue;
            }
            const double avg = double(data.cpus.integral(a, b)) / double(b - a);
            {
                const int topDev = std::clamp(int(std::lround((1.0 - avg / engines) * curveDev)), 0, curveDev - 1);
                for (int y = topDev; y < curveDev; ++y)
                    curveBits[y * curveStride + i] = 1;
                const int from = prevTop < 0 ? topDev : std::min(prevTop, topDev);
                const int to = prevTop < 0 ? topDev : std::max(prevTop, topDev);
                for (int y = from; y <= to; ++y)
                    curveBits[y * curveStride + i] = 2;
                prevTop = topDev;
            }
            const double x0 = axis.left + double(i) * colW;
            const double y = curveBottom - avg / engines * L.kCurveHeight;
            if (!open) {
                f.curve << QPointF(x0, curveBottom);
                open = true;
            }
            f.curve << QPointF(x0, y) << QPointF(x0 + colW, y);
            if (!f.curveBars.empty() && f.curveBars.back().top() == y
                && std::abs(f.curveBars.back().right() - x0) < 1e-6)
                f.curveBars.back().setRight(x0 + colW);
            else if (y < curveBottom)
                f.curveBars.emplace_back(x0, y, colW, curveBottom - y);
            lastX = x0 + colW;
        }
        if (open)
            f.curve << QPointF(lastX, curveBottom);
        f.curveStrip = { QRectF(axis.left, L.curveTop(), axis.width, double(curveDev) / dpr), std::move(curveImage) };
        for (size_t k = 1; k <= f.engines; ++k) {
            const double y = curveBottom - double(k) / engines * L.kCurveHeight;
            f.curveLevels.emplace_back(axis.left, y, axis.left + axis.width, y);
            f.texts.push_back({ QPointF(L.kGutter - 16, y + 4), QString::number(k), FrameText::CurveLabel });
        }
        f.texts.push_back(
            { QPointF(6, L.curveTop() + L.kCurveHeight / 2 + 4), QStringLiteral("CPUs"), FrameText::EngineName });
    }

    // Engine rows.
    const unsigned S = data.lod.stateCount();
    const int barDev = std::max(1, int(std::lround(L.kBarHeight * dpr)));
    std::array<uint64_t, core::LodIndex::kMaxStates> prev {}, cur {};
    for (size_t e = 0; e < f.engines; ++e) {
        const double top = L.barTop(e);
        f.rowBackgrounds.emplace_back(0, L.rowTop(e), double(viewport.width), L.kRowHeight);
        f.texts.push_back(
            { QPointF(6, top + L.kBarHeight - 4), QStringLiteral("Engine %1").arg(e), FrameText::EngineName });

        // Stacked state heights per column (device px), run-length merged.
        constexpr EngineState kStack[] = { EngineState::Running, EngineState::Gc, EngineState::Searching,
            EngineState::Sleeping, EngineState::Idle };
        using Heights = std::array<int, 5>;
        Heights runHeights {};
        long runStart = -1;
        QImage strip(int(columns), barDev, QImage::Format_Indexed8);
        strip.fill(255);
        uchar* stripBits = strip.bits();
        const qsizetype stride = strip.bytesPerLine();
        auto flush = [&](long endColumn) {
            if (runStart < 0)
                return;
            const double x = axis.left + double(runStart) * colW, w = double(endColumn - runStart) * colW;
            int below = 0;
            for (size_t k = 0; k < 5; ++k) {
                const int h = runHeights[k];
                if (h > 0)
                    f.rects[size_t(kStack[k])].emplace_back(
                        x, top + double(barDev - below - h) / dpr, w, double(h) / dpr);
                below += h;
            }
            runStart = -1;
        };
        data.lod.busyBefore(e, uint64_t(std::max<int64_t>(0, bounds[0])), std::span(prev).first(S));
        for (long i = 0; i < columns; ++i) {
            data.lod.busyBefore(e, uint64_t(std::max<int64_t>(0, bounds[size_t(i) + 1])), std::span(cur).first(S));
            uint64_t total = 0;
            std::array<uint64_t, core::LodIndex::kMaxStates> d {};
            for (unsigned s = 0; s < S; ++s) {
                d[s] = cur[s] - prev[s];
                total += d[s];
            }
            prev = cur;
            if (total == 0 && bounds[size_t(i)] == bounds[size_t(i) + 1] && columnMid(i) >= traceStart) {
                // Zoomed in below 1 ns per column: the column shows the nanosecond it falls in.
                const uint64_t t = uint64_t(columnMid(i));
                data.lod.busy(e, t, t + 1, std::span(d).first(S));
                for (unsigned s = 0; s < S; ++s)
                    total += d[s];
            }
            if (total == 0) {
                flush(i);
                continue;
            }
            // The fraction of the column's *covered* time in each state; tiny non-zero parts get at
            // least one device pixel so that rare activity stays visible.
            Heights h {};
            int used = 0;
            for (size_t k = 0; k < 4; ++k) {
                const uint64_t part = d[size_t(kStack[k])];
                if (part == 0)
                    continue;
                h[k] = std::min(barDev - used, std::max(1, int(std::lround(double(part) / double(total) * barDev))));
                used += h[k];
            }
            h[4] = barDev - used;
            {
                int below = 0;
                for (size_t k = 0; k < 5; ++k) {
                    for (int y = barDev - below - h[k]; y < barDev - below; ++y)
                        stripBits[y * stride + i] = uchar(kStack[k]);
                    below += h[k];
                }
            }
            if (runStart >= 0 && h == runHeights)
                continue;
            flush(i);
            runStart = i;
            runHeights = h;
        }
        flush(columns);
        f.strips.push_back({ QRectF(axis.left, top, axis.width, double(barDev) / dpr), std::move(strip) });

        // Context labels on running spans wide enough to hold them (only when few spans are visible).
        const auto spans = data.lod.spans(e);
        size_t i0 = data.lod.firstSpanEndingAfter(e, uint64_t(std::max<int64_t>(0, axis.startNs)));
        const size_t limit = size_t(columns) / 4;
        size_t visible = 0;
        for (size_t i = i0; i < spans.size() && int64_t(spans[i].startNs) < axis.endNs && visible <= limit; ++i)
            ++visible;
        if (visible <= limit) {
            for (size_t i = i0; i < spans.size() && int64_t(spans[i].startNs) < axis.endNs; ++i) {
                const core::LodSpan& s = spans[i];
                if (s.state != uint8_t(EngineState::Running) || s.label == core::kNoContext)
                    continue;
                const double x0 = std::max(axis.left, axis.xOf(int64_t(s.startNs)));
                const double x1 = std::min(axis.left + axis.width, axis.xOf(int64_t(s.endNs)));
                const QString text = QString::number(s.label);
                if (x1 - x0 >= 7.0 * text.size() + 6)
                    f.texts.push_back({ QPointF(x0 + 3, top + L.kBarHeight - 5), text, FrameText::Context });
            }
        }

        // Instant-event ticks once they can be told apart.
        const auto [a, b] = data.instantRange(e, axis.startNs, axis.endNs);
        if (b - a <= size_t(columns) / 3) {
            f.ticksShown = true;
            for (size_t i = a; i < b; ++i) {
                const core::Event& ev = data.instant(e, i);
                if (tickKindOf(ev.type) == TickKind::Count)
                    continue;
                const double x = axis.xOf(int64_t(ev.timeNs));
                f.lines[size_t(inkOfTick(tickKindOf(ev.type)))].emplace_back(x, top - 3, x, top + L.kBarHeight + 3);
            }
        }
    }

    // User markers: labelled vertical lines across the curve and the rows.
    {
        auto lo = std::lower_bound(
            marks.begin(), marks.end(), axis.startNs, [](const Marker& m, int64_t t) { return m.timeNs < t; });
        auto hi
            = std::lower_bound(lo, marks.end(), axis.endNs, [](const Marker& m, int64_t t) { return m.timeNs < t; });
        const bool labels = (hi - lo) <= columns / 40;
        double lastLabelEnd = -1e9;
        for (auto it = lo; it != hi; ++it) {
            const double x = axis.xOf(it->timeNs);
            f.lines[size_t(Ink::Marker)].emplace_back(x, L.curveTop(), x, bottom);
            if (labels && x > lastLabelEnd) {
                QString text = QString::fromStdString(it->label).left(40);
                f.texts.push_back({ QPointF(x + 3, L.curveTop() + 11), text, FrameText::MarkerLabel });
                lastLabelEnd = x + 7.0 * text.size() + 8;
            }
        }
    }

    // Legend: what each colour means.
    {
        double x = 6, y = bottom + 8;
        auto item = [&](Ink ink, const char* text) {
            const double w = 12 + 6 + 6.5 * double(std::strlen(text)) + 14;
            if (x + w > viewport.width) {
                x = 6;
                y += 16;
            }
            f.legend.emplace_back(QRectF(x, y, 12, 10), ink);
            f.texts.push_back({ QPointF(x + 16, y + 9.5), QString::fromUtf8(text), FrameText::Legend });
            x += w;
        };
        item(Ink::Count, "CPUs running");
        for (Ink ink : { Ink::Running, Ink::Gc, Ink::Searching, Ink::Sleeping, Ink::Idle, Ink::Marker })
            item(ink, inkName(ink));
        for (size_t k = 0; k < size_t(TickKind::Count); ++k)
            item(inkOfTick(TickKind(k)), tickKindName(TickKind(k)));
    }

    Q_UNUSED(xTraceStart);
    Q_UNUSED(xTraceEnd);
    return f;
}

void paintFrame(QPainter& painter, const Frame& f, const FramePalette& palette)
{
    const Viewport& v = f.viewport;
    painter.save();
    painter.fillRect(QRectF(0, 0, v.width, v.height), palette.background);
    painter.setPen(Qt::NoPen);
    painter.setBrush(palette.rowBackground);
    for (size_t i = 0; i < f.rowBackgrounds.size(); i += 2)
        painter.drawRect(f.rowBackgrounds[i]);

    // Grid and ruler.
    QPen gridPen(palette.grid, 0);
    painter.setPen(gridPen);
    for (size_t i = 0; i < f.rulerTicks.size(); i += 2)
        painter.drawLine(f.rulerTicks[i]);
    QColor faint = palette.grid;
    faint.setAlphaF(faint.alphaF() * 0.45);
    painter.setPen(QPen(faint, 0));
    for (size_t i = 1; i < f.rulerTicks.size(); i += 2)
        painter.drawLine(f.rulerTicks[i]);
    painter.setPen(QPen(palette.grid, 0));
    painter.drawLine(QLineF(0, f.layout.kRulerHeight, v.width, f.layout.kRulerHeight));

    // State bars: blit the strips on raster devices, else one brush per colour (vector output).
    painter.setPen(Qt::NoPen);
    const QPaintEngine* engine = painter.paintEngine();
    const bool raster = engine && (engine->type() == QPaintEngine::Raster);
    if (raster) {
        QList<QRgb> table(256, qRgba(0, 0, 0, 0));
        for (size_t ink = 0; ink <= size_t(Ink::Sleeping); ++ink)
            table[qsizetype(ink)] = palette.ink[ink].rgba();
        for (const Frame::Strip& s : f.strips) {
            QImage image = s.pixels; // shares the pixels; the colour table detaches only the header
            image.setColorTable(table);
            painter.drawImage(s.target, image);
        }
    }
    for (size_t ink = 0; ink <= size_t(Ink::Sleeping) && !raster; ++ink) {
        if (f.rects[ink].empty())
            continue;
        painter.setBrush(palette.ink[ink]);
        painter.drawRects(f.rects[ink].data(), int(f.rects[ink].size()));
    }

    // CPUs curve.
    painter.setRenderHint(QPainter::Antialiasing, false);
    // Filling with rectangles is several times faster than filling a 3000-point polygon.
    if (raster && !f.curveStrip.pixels.isNull()) {
        QList<QRgb> table(256, qRgba(0, 0, 0, 0));
        table[1] = palette.curveFill.rgba();
        table[2] = palette.curveLine.rgba();
        QImage image = f.curveStrip.pixels;
        image.setColorTable(table);
        painter.drawImage(f.curveStrip.target, image);
    } else if (!f.curveBars.empty()) {
        painter.setPen(Qt::NoPen);
        painter.setBrush(palette.curveFill);
        painter.drawRects(f.curveBars.data(), int(f.curveBars.size()));
    }
    if (!f.curve.isEmpty() && !raster) {
        painter.setPen(QPen(palette.curveLine, 0));
        painter.drawPolyline(f.curve);
    }
    QPen dashed(palette.grid, 0, Qt::DashLine);
    painter.setPen(dashed);
    painter.setBrush(Qt::NoBrush);
    for (const QLineF& l : f.curveLevels)
        painter.drawLine(l);

    // Ticks and markers.
    for (size_t ink = size_t(Ink::TickSparkCreate); ink < kInkCount; ++ink) {
        if (f.lines[ink].empty())
            continue;
        painter.setPen(QPen(palette.ink[ink], ink == size_t(Ink::Marker) ? 1.5 : 1.0));
        painter.drawLines(f.lines[ink].data(), int(f.lines[ink].size()));
    }

    // Legend swatches.
    for (const auto& [rect, ink] : f.legend) {
        painter.setPen(Qt::NoPen);
        if (ink == Ink::Count) {
            painter.setBrush(palette.curveFill);
            painter.setPen(QPen(palette.curveLine, 0));
            painter.drawRect(rect);
        } else if (ink >= Ink::TickSparkCreate) {
            painter.setPen(QPen(palette.ink[size_t(ink)], 2));
            painter.drawLine(QLineF(rect.center().x(), rect.top() - 1, rect.center().x(), rect.bottom() + 1));
        } else {
            painter.setBrush(palette.ink[size_t(ink)]);
            painter.drawRect(rect);
        }
    }

    // Text.
    QFont font = painter.font();
    font.setPixelSize(11);
    painter.setFont(font);
    painter.setRenderHint(QPainter::TextAntialiasing, true);
    painter.setPen(palette.text);
    for (const FrameText& t : f.texts) {
        if (t.role == FrameText::Context)
            painter.setPen(QColor(255, 255, 255));
        else if (t.role == FrameText::MarkerLabel)
            painter.setPen(palette.ink[size_t(Ink::Marker)]);
        else
            painter.setPen(palette.text);
        painter.drawText(t.pos, t.text);
    }
    painter.restore();
}

QString describeAt(const TraceData& data, const Frame& f, QPointF pos, const std::vector<Marker>* bookmarks)
{
    const std::vector<Marker>& marks = bookmarks ? *bookmarks : data.markers;
    const TimeAxis& axis = f.axis;
    if (pos.x() < axis.left || pos.x() > axis.left + axis.width)
        return {};
    const double pixelNs = axis.nsPerPixel();
    const int64_t t = axis.timeAt(pos.x());
    const int64_t a = axis.timeAt(pos.x() - 0.5), b = std::max(a + 1, axis.timeAt(pos.x() + 0.5));
    auto at = [&](int64_t ns) { return formatDuration(ns, 9); };

    // Markers within 3 px.
    for (const Marker& m : marks) {
        if (std::abs(axis.xOf(m.timeNs) - pos.x()) <= 3 && pos.y() >= f.layout.curveTop())
            return QStringLiteral("Bookmark \"%1\"\nat %2").arg(QString::fromStdString(m.label), at(m.timeNs));
        if (m.timeNs > t + int64_t(4 * pixelNs))
            break;
    }

    if (pos.y() >= f.layout.curveTop() && pos.y() < f.layout.curveTop() + f.layout.kCurveHeight) {
        const int64_t lo = std::max(a, data.startNs), hi = std::min(b, data.endNs);
        if (lo >= hi)
            return {};
        return QStringLiteral("CPUs running: %1 on average\nover [%2, %3)")
            .arg(double(data.cpus.integral(lo, hi)) / double(hi - lo), 0, 'f', 2)
            .arg(at(lo), at(hi));
    }

    const long engine = f.layout.engineAt(pos.y(), f.engines);
    if (engine < 0)
        return {};
    const size_t e = size_t(engine);

    if (f.ticksShown) {
        const auto [i0, i1] = data.instantRange(e, axis.timeAt(pos.x() - 3), axis.timeAt(pos.x() + 3) + 1);
        size_t best = i1;
        double bestDist = 4;
        for (size_t i = i0; i < i1; ++i) {
            if (tickKindOf(data.instant(e, i).type) == TickKind::Count)
                continue;
            const double dist = std::abs(axis.xOf(int64_t(data.instant(e, i).timeNs)) - pos.x());
            if (dist < bestDist) {
                bestDist = dist;
                best = i;
            }
        }
        if (best < i1) {
            const core::Event& ev = data.instant(e, best);
            return QStringLiteral("%1 on engine %2\nat %3\n%4")
                .arg(QString::fromUtf8(
                    core::eventTypeName(ev.type).data(), qsizetype(core::eventTypeName(ev.type).size())))
                .arg(e)
                .arg(at(int64_t(ev.timeNs)))
                .arg(QString::fromStdString(core::formatFields(*data.trace, ev)));
        }
    }

    // A pixel that holds one span describes it; a pixel that holds many shows its exact mix.
    std::array<uint64_t, core::LodIndex::kMaxStates> busy {};
    data.lod.busy(e, uint64_t(std::max<int64_t>(0, a)), uint64_t(std::max<int64_t>(0, b)), busy);
    const core::LodSpan* span = data.lod.spanAt(e, uint64_t(std::max<int64_t>(0, t)));
    if (!span)
        return {};
    const auto stateName = [](uint8_t s) { return QString::fromUtf8(inkName(Ink(s))); };
    uint64_t total = 0;
    for (unsigned s = 0; s < data.lod.stateCount(); ++s)
        total += busy[s];
    const bool onePart = total == 0 || busy[span->state] == total;
    if (onePart || double(span->endNs - span->startNs) >= pixelNs) {
        QString what = stateName(span->state);
        if (span->state == uint8_t(EngineState::Running) && span->label != core::kNoContext)
            what += QStringLiteral(" context %1").arg(span->label);
        return QStringLiteral("%1 on engine %2\nfrom %3 for %4")
            .arg(what)
            .arg(e)
            .arg(at(int64_t(span->startNs)))
            .arg(formatDuration(int64_t(span->endNs - span->startNs)));
    }
    QString text = QStringLiteral("Engine %1, %2 from %3:").arg(e).arg(formatDuration(b - a)).arg(at(a));
    for (unsigned s = 0; s < data.lod.stateCount(); ++s)
        if (busy[s])
            text += QStringLiteral("\n  %1 %2%")
                        .arg(stateName(uint8_t(s)))
                        .arg(100.0 * double(busy[s]) / double(total), 0, 'f', 1);
    return text;
}

} // namespace sparkscope::ui
