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
#include <functional>

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
    case Ink::LaneRunnable:
        return "context runnable";
    case Ink::LaneBlocked:
        return "context blocked";
    case Ink::Deque:
        return "spark deque size";
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
    set(Ink::LaneRunnable, QColor(232, 200, 70), QColor(200, 175, 60));
    set(Ink::LaneBlocked, QColor(200, 60, 60), QColor(220, 85, 85));
    set(Ink::Deque, QColor(60, 110, 170), QColor(110, 160, 225));
    return p;
}

size_t Frame::primitiveCount() const
{
    size_t n = curve.size() + curveLevels.size() + rulerTicks.size() + texts.size() + rowBackgrounds.size();
    for (size_t i = 0; i < kInkCount; ++i)
        n += rects[i].size() + lines[i].size() + extras.rects[i].size();
    return n + extras.texts.size() + extras.rowBackgrounds.size() + extras.separators.size();
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

    // For labels on things `pitch` px apart that need `minPx`: label every 1st, 2nd, 5th, 10th, 20th...
    size_t everyNth(double pitch, double minPx)
    {
        for (size_t decade = 1;; decade *= 10)
            for (size_t m : { 1, 2, 5 })
                if (pitch * double(m * decade) >= minPx || decade > 1'000'000)
                    return m * decade;
    }

    // One row of stacked state bars (engine rows, context lanes): an indexed-colour strip with one
    // column per device pixel, each filled from the bottom with heights[k] device pixels of inks[k],
    // and the same bars as rectangles for vector export, equal neighbouring columns merged into one
    // rectangle per ink (rects[ink]).
    template <size_t N, class Rects> class StackedStrip {
    public:
        using Heights = std::array<int, N>;
        StackedStrip(long columns, int barDev, const std::array<uchar, N>& inks, Rects& rects, double left, double colW,
            double barTop, double dpr)
            : m_image(int(columns), barDev, QImage::Format_Indexed8)
            , m_barDev(barDev)
            , m_inks(inks)
            , m_rects(rects)
            , m_left(left)
            , m_colW(colW)
            , m_barTop(barTop)
            , m_dpr(dpr)
        {
            m_image.fill(255);
        }
        int barDev() const { return m_barDev; }
        // A part of `whole` as a height of the bar, at least one pixel when not zero, within what
        // `used` pixels leave.
        int heightOf(uint64_t part, uint64_t whole, int used) const
        {
            if (part == 0)
                return 0;
            return std::min(m_barDev - used, std::max(1, int(std::lround(double(part) / double(whole) * m_barDev))));
        }
        void column(long i, const Heights& h)
        {
            uchar* bits = m_image.bits();
            const qsizetype stride = m_image.bytesPerLine();
            int below = 0;
            for (size_t k = 0; k < N; ++k) {
                for (int y = m_barDev - below - h[k]; y < m_barDev - below; ++y)
                    bits[y * stride + i] = m_inks[k];
                below += h[k];
            }
            if (m_runStart >= 0 && h == m_runHeights)
                return;
            endRun(i);
            m_runStart = i;
            m_runHeights = h;
        }
        void empty(long i) { endRun(i); } // column i draws nothing
        QImage finish(long columns)
        {
            endRun(columns);
            return std::move(m_image);
        }

    private:
        void endRun(long end)
        {
            if (m_runStart < 0)
                return;
            const double x = m_left + double(m_runStart) * m_colW, w = double(end - m_runStart) * m_colW;
            int below = 0;
            for (size_t k = 0; k < N; ++k) {
                const int h = m_runHeights[k];
                if (h > 0)
                    m_rects[m_inks[k]].emplace_back(
                        x, m_barTop + double(m_barDev - below - h) / m_dpr, w, double(h) / m_dpr);
                below += h;
            }
            m_runStart = -1;
        }

        QImage m_image;
        int m_barDev;
        std::array<uchar, N> m_inks;
        Rects& m_rects;
        double m_left, m_colW, m_barTop, m_dpr;
        long m_runStart = -1;
        Heights m_runHeights {};
    };

} // namespace

namespace {

    struct LegendItem {
        Ink ink;
        const char* text;
    };

    std::vector<LegendItem> legendItems(const Viewport& v)
    {
        std::vector<LegendItem> items { { Ink::Count, "CPUs running" } };
        for (Ink ink : { Ink::Running, Ink::Gc, Ink::Searching, Ink::Sleeping, Ink::Idle, Ink::Marker })
            items.push_back({ ink, inkName(ink) });
        for (size_t k = 0; k < size_t(TickKind::Count); ++k)
            items.push_back({ inkOfTick(TickKind(k)), tickKindName(TickKind(k)) });
        if (v.showLanes)
            for (Ink ink : { Ink::LaneRunnable, Ink::LaneBlocked })
                items.push_back({ ink, inkName(ink) });
        if (v.showDeques)
            items.push_back({ Ink::Deque, inkName(Ink::Deque) });
        return items;
    }

    // Lays the legend out from (6, y) in rows of 16 px; calls place(x, y, item) for each item and
    // returns the number of rows.
    template <class F> int layOutLegend(const std::vector<LegendItem>& items, double width, double y, F&& place)
    {
        double x = 6;
        int rows = 1;
        for (const LegendItem& item : items) {
            const double w = 12 + 6 + 6.5 * double(std::strlen(item.text)) + 14;
            if (x + w > width && x > 6) {
                x = 6;
                y += 16;
                ++rows;
            }
            place(x, y, item);
            x += w;
        }
        return rows;
    }

    // Status note drawn in the optional rows' area while a row's data is being computed.
    void addStatus(Frame::Extras& x, double y, const char* text)
    {
        x.texts.push_back({ QPointF(FrameLayout::kGutter + 8, y), QString::fromUtf8(text), FrameText::Status });
    }

    // One deque row per engine: the largest size within each column (exact: the step function's
    // maximum over the column's time range, not a sample), filled from 0, with a shared scale.
    void buildDequeRows(Frame& f, const TimelineRows& rows, const std::vector<int64_t>& bounds, long columns,
        double dpr, const std::function<int64_t(long)>& columnMid)
    {
        const FrameLayout& L = f.layout;
        Frame::Extras& x = f.extras;
        if (!rows.deques) {
            addStatus(x, L.dequeRowTop(0) + 18, "Computing spark deque sizes…");
            return;
        }
        const auto& curves = rows.deques->engines;
        auto visible = [&](size_t e) {
            const double top = L.dequeRowTop(e);
            return top + L.dequeRowHeight > L.extrasTop && top < L.extrasBottom();
        };
        std::vector<std::vector<int64_t>> maxima(curves.size());
        int64_t scale = 1;
        for (size_t e = 0; e < curves.size(); ++e) {
            if (!visible(e) || curves[e].empty())
                continue;
            maxima[e].resize(size_t(columns));
            for (long i = 0; i < columns; ++i) {
                const int64_t a = bounds[size_t(i)], b = bounds[size_t(i) + 1];
                const int64_t m = a < b ? curves[e].max(a, b) : curves[e].valueAt(columnMid(i));
                maxima[e][size_t(i)] = m;
                scale = std::max(scale, m);
            }
        }
        x.dequeScale = scale;
        const TimeAxis& axis = f.axis;
        const double colW = axis.width / double(columns);
        for (size_t e = 0; e < curves.size(); ++e) {
            if (!visible(e))
                continue;
            const double top = L.dequeRowTop(e);
            if (e % 2 == 0)
                x.rowBackgrounds.emplace_back(0, top, double(f.viewport.width), L.dequeRowHeight);
            x.texts.push_back({ QPointF(6, top + L.dequeRowHeight / 2 + 4), QStringLiteral("Deque %1").arg(e),
                FrameText::EngineName });
            const QString scaleText = QString::number(scale);
            x.texts.push_back({ QPointF(L.kGutter - 6 - 6.5 * double(scaleText.size()), top + 12), scaleText,
                FrameText::CurveLabel });
            const double plotTop = top + 3, plotHeight = L.dequeRowHeight - 5;
            const int heightDev = std::max(2, int(std::lround(plotHeight * dpr)));
            QImage image(int(columns), heightDev, QImage::Format_Indexed8);
            image.fill(255);
            uchar* bits = image.bits();
            const qsizetype stride = image.bytesPerLine();
            int prevTop = -1;
            long runStart = -1;
            int runTop = 0;
            auto flush = [&](long end) {
                if (runStart >= 0)
                    x.rects[size_t(Ink::Deque)].emplace_back(axis.left + double(runStart) * colW,
                        plotTop + double(runTop) / dpr, double(end - runStart) * colW,
                        double(heightDev - runTop) / dpr);
                runStart = -1;
            };
            for (long i = 0; i < columns && !maxima[e].empty(); ++i) {
                const int64_t m = maxima[e][size_t(i)];
                if (m <= 0) {
                    prevTop = -1;
                    flush(i);
                    continue;
                }
                // At least one device pixel for any non-empty deque, so a single spark shows.
                const int topDev
                    = std::clamp(int(std::lround((1.0 - double(m) / double(scale)) * heightDev)), 0, heightDev - 1);
                for (int y = topDev; y < heightDev; ++y)
                    bits[y * stride + i] = 1;
                const int from = prevTop < 0 ? topDev : std::min(prevTop, topDev);
                const int to = prevTop < 0 ? topDev : std::max(prevTop, topDev);
                for (int y = from; y <= to; ++y)
                    bits[y * stride + i] = 2;
                prevTop = topDev;
                if (runStart >= 0 && runTop == topDev)
                    continue;
                flush(i);
                runStart = i;
                runTop = topDev;
            }
            flush(columns);
            x.dequeStrips.push_back(
                { QRectF(axis.left, plotTop, axis.width, double(heightDev) / dpr), std::move(image) });
        }
    }

    // The visible context lanes. Per column: when one span covers the whole column it is drawn
    // without a query; otherwise the lane's level-of-detail index gives the exact time in each state
    // (a fraction of the column's duration: a context that exists for part of a column fills part
    // of the bar, and any non-zero part gets at least one device pixel).
    void buildLanes(Frame& f, const TimelineRows& rows, const std::vector<int64_t>& bounds, long columns, double dpr,
        const std::function<int64_t(long)>& columnMid)
    {
        const FrameLayout& L = f.layout;
        Frame::Extras& x = f.extras;
        if (!rows.lanes) {
            addStatus(x, L.lanesTop() + 20, "Computing context lanes…");
            return;
        }
        const core::ContextLanes& lanes = *rows.lanes;
        const TimeAxis& axis = f.axis;
        const double colW = axis.width / double(columns);
        const int barDev = std::max(1, int(std::lround(L.laneBarHeight * dpr)));
        // Stacked from the bottom: running, runnable, blocked.
        constexpr std::array<Ink, 3> kInkOfState { Ink::LaneRunnable, Ink::Running, Ink::LaneBlocked };
        constexpr std::array<uint8_t, 3> kStack { 1, 0, 2 };
        constexpr std::array<uchar, 3> kLaneInks { uchar(kInkOfState[kStack[0]]), uchar(kInkOfState[kStack[1]]),
            uchar(kInkOfState[kStack[2]]) };
        using Heights = std::array<int, 3>;
        const auto [first, last] = L.visibleLanes();
        for (size_t k = first; k < last; ++k) {
            const double top = L.laneTop(k);
            const double barTop = top + (L.laneHeight - L.laneBarHeight) / 2;
            if (k % 2 == 0)
                x.rowBackgrounds.emplace_back(0, top, double(f.viewport.width), L.laneHeight);
            x.texts.push_back({ QPointF(6, barTop + L.laneBarHeight - 2), QStringLiteral("Ctx %1").arg(lanes.ids[k]),
                FrameText::EngineName });
            const core::LodIndex& lod = lanes.lanes[k];
            const auto spans = lod.spans(0);
            StackedStrip<3, decltype(x.rects)> strip(columns, barDev, kLaneInks, x.rects, axis.left, colW, barTop, dpr);
            size_t j = lod.firstSpanEndingAfter(0, uint64_t(std::max<int64_t>(0, bounds[0])));
            std::array<uint64_t, core::kContextLaneStateCount> before {};
            uint64_t beforeAt = UINT64_MAX; // the time `before` holds the running integral at
            for (long i = 0; i < columns; ++i) {
                int64_t a = bounds[size_t(i)], b = bounds[size_t(i) + 1];
                if (a == b) {
                    a = columnMid(i); // below 1 ns per column: the nanosecond it falls in
                    b = a + 1;
                }
                if (b <= 0) {
                    strip.empty(i);
                    continue;
                }
                const uint64_t ua = uint64_t(std::max<int64_t>(0, a)), ub = uint64_t(b);
                if (j < spans.size() && spans[j].endNs <= ua)
                    j = lod.firstSpanEndingAfter(0, ua);
                if (j >= spans.size() || spans[j].startNs >= ub) {
                    strip.empty(i);
                    if (j >= spans.size())
                        break;
                    continue;
                }
                Heights h {};
                if (spans[j].startNs <= ua && spans[j].endNs >= ub) {
                    for (size_t s = 0; s < 3; ++s)
                        h[s] = kStack[s] == spans[j].state ? barDev : 0;
                } else {
                    // The running integral at the column's end; its start is the previous
                    // column's end when that one was mixed too (runs of mixed columns cost one
                    // query each, as the engine rows do).
                    std::array<uint64_t, core::kContextLaneStateCount> d {}, after {};
                    if (beforeAt != ua)
                        lod.busyBefore(0, ua, before);
                    lod.busyBefore(0, ub, after);
                    for (size_t s = 0; s < d.size(); ++s)
                        d[s] = after[s] - before[s];
                    before = after;
                    beforeAt = ub;
                    int used = 0;
                    for (size_t s = 0; s < 3; ++s) {
                        h[s] = strip.heightOf(d[kStack[s]], ub - ua, used);
                        used += h[s];
                    }
                }
                strip.column(i, h);
            }
            x.laneStrips.push_back(
                { QRectF(axis.left, barTop, axis.width, double(barDev) / dpr), strip.finish(columns) });
            ++x.lanesDrawn;

            // The engine of each running span wide enough for its label (only when few are visible).
            size_t i0 = lod.firstSpanEndingAfter(0, uint64_t(std::max<int64_t>(0, axis.startNs)));
            const size_t limit = size_t(columns) / 4;
            size_t n = 0;
            for (size_t i = i0; i < spans.size() && int64_t(spans[i].startNs) < axis.endNs && n <= limit; ++i)
                ++n;
            if (n > limit || L.laneBarHeight < 10)
                continue;
            for (size_t i = i0; i < spans.size() && int64_t(spans[i].startNs) < axis.endNs; ++i) {
                const core::LodSpan& s = spans[i];
                if (s.state != uint8_t(core::ContextLaneState::Running))
                    continue;
                const double x0 = std::max(axis.left, axis.xOf(int64_t(s.startNs)));
                const double x1 = std::min(axis.left + axis.width, axis.xOf(int64_t(s.endNs)));
                const QString text = QStringLiteral("e%1").arg(s.label);
                if (x1 - x0 >= 7.0 * double(text.size()) + 6)
                    x.texts.push_back({ QPointF(x0 + 3, barTop + L.laneBarHeight - 2), text, FrameText::Context });
            }
        }
    }

    void drawOptionalRows(Frame& f, const TimelineRows* rows, const std::vector<int64_t>& bounds, long columns,
        double dpr, const std::function<int64_t(long)>& columnMid)
    {
        const FrameLayout& L = f.layout;
        if (!L.hasExtras() || !rows)
            return;
        f.extras.clip = QRectF(0, L.extrasTop, double(f.viewport.width), L.extrasHeight);
        if (L.dequeRows)
            buildDequeRows(f, *rows, bounds, columns, dpr, columnMid);
        if (L.dequeRows && L.lanes)
            f.extras.separators.emplace_back(
                0, L.lanesTop() - L.kRowsGap / 2, f.viewport.width, L.lanesTop() - L.kRowsGap / 2);
        if (L.lanes)
            buildLanes(f, *rows, bounds, columns, dpr, columnMid);
    }

} // namespace

FrameLayout frameLayout(const TraceData& data, const Viewport& viewport, const TimelineRows* rows)
{
    const size_t engines = data.engineCount();
    size_t dequeRows = 0, lanes = 0;
    if (viewport.showDeques && rows && (rows->deques || rows->dequesPending))
        dequeRows = rows->deques ? rows->deques->engines.size() : engines;
    if (viewport.showLanes && rows && (rows->lanes || rows->lanesPending))
        lanes = rows->lanes ? rows->lanes->size() : 2; // room for the "computing" note
    double legend = FrameLayout::kLegendHeight;
    if (dequeRows || lanes) {
        const int legendRows
            = layOutLegend(legendItems(viewport), double(viewport.width), 0, [](double, double, const LegendItem&) {});
        legend = std::max(legend, 16.0 * legendRows + 8);
    }
    return FrameLayout::fit(double(viewport.height), { engines, dequeRows, lanes, legend }, viewport.scrollY);
}

Frame frame(
    const TraceData& data, const Viewport& viewport, const std::vector<Marker>* bookmarks, const TimelineRows* rows)
{
    const std::vector<Marker>& marks = bookmarks ? *bookmarks : data.markers;
    Frame f;
    f.viewport = viewport;
    f.engines = data.engineCount();
    f.layout = frameLayout(data, viewport, rows);
    const FrameLayout& L = f.layout;
    const double dpr = std::max(1.0, viewport.devicePixelRatio);
    f.axis = { viewport.window.startNs, std::max(viewport.window.endNs, viewport.window.startNs + 1), L.kGutter,
        std::max(1.0, double(viewport.width) - L.kGutter - L.rightMargin) };
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
    const double bottom = L.bottom(f.engines);
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
    const double curveBottom = L.curveTop() + L.curveHeight;
    {
        const int curveDev = std::max(1, int(std::lround(L.curveHeight * dpr)));
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
            const double y = curveBottom - avg / engines * L.curveHeight;
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
        // A line per whole engine, a label where labels stay 12 px apart (1, 2, 5, 10, ... engines).
        const double perEngine = L.curveHeight / engines;
        const size_t labelStep = everyNth(perEngine, 12);
        const size_t lineStep = perEngine >= 3 ? 1 : labelStep;
        for (size_t k = 1; k <= f.engines; ++k) {
            const double y = curveBottom - double(k) / engines * L.curveHeight;
            if (k % lineStep == 0 || k == f.engines)
                f.curveLevels.emplace_back(axis.left, y, axis.left + axis.width, y);
            if (k % labelStep == 0 || (k == f.engines && perEngine * double(k % labelStep) >= 12))
                f.texts.push_back({ QPointF(L.kGutter - 16, y + 4), QString::number(k), FrameText::CurveLabel });
        }
        f.texts.push_back(
            { QPointF(6, L.curveTop() + L.curveHeight / 2 + 4), QStringLiteral("CPUs"), FrameText::EngineName });
    }

    // Engine rows.
    const unsigned S = data.lod.stateCount();
    const int barDev = std::max(1, int(std::lround(L.barHeight * dpr)));
    std::array<uint64_t, core::LodIndex::kMaxStates> prev {}, cur {};
    // Names on every row while rows are at least 14 px high, else on every k-th (1, 2, 5, 10, ...).
    const size_t nameStep = everyNth(L.rowHeight, 14);
    for (size_t e = 0; e < f.engines; ++e) {
        const double top = L.barTop(e);
        f.rowBackgrounds.emplace_back(0, L.rowTop(e), double(viewport.width), L.rowHeight);
        if (e % nameStep == 0)
            f.texts.push_back({ QPointF(6, std::max(top + L.barHeight - 4, top + 9)),
                nameStep == 1 ? QStringLiteral("Engine %1").arg(e) : QStringLiteral("E%1").arg(e),
                FrameText::EngineName });

        // Stacked state heights per column (device px), run-length merged.
        constexpr EngineState kStack[] = { EngineState::Running, EngineState::Gc, EngineState::Searching,
            EngineState::Sleeping, EngineState::Idle };
        constexpr std::array<uchar, 5> kInks { uchar(kStack[0]), uchar(kStack[1]), uchar(kStack[2]), uchar(kStack[3]),
            uchar(kStack[4]) };
        StackedStrip<5, decltype(f.rects)> strip(columns, barDev, kInks, f.rects, axis.left, colW, top, dpr);
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
                strip.empty(i);
                continue;
            }
            // The fraction of the column's *covered* time in each state; tiny non-zero parts get at
            // least one device pixel so that rare activity stays visible.
            std::array<int, 5> h {};
            int used = 0;
            for (size_t k = 0; k < 4; ++k) {
                h[k] = strip.heightOf(d[size_t(kStack[k])], total, used);
                used += h[k];
            }
            h[4] = barDev - used;
            strip.column(i, h);
        }
        f.strips.push_back({ QRectF(axis.left, top, axis.width, double(barDev) / dpr), strip.finish(columns) });

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
                    f.texts.push_back({ QPointF(x0 + 3, top + L.barHeight - 5), text, FrameText::Context });
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
                f.lines[size_t(inkOfTick(tickKindOf(ev.type)))].emplace_back(x, top - 3, x, top + L.barHeight + 3);
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

    drawOptionalRows(f, rows, bounds, columns, dpr, columnMid);

    // Legend: what each colour means.
    layOutLegend(
        legendItems(viewport), double(viewport.width), bottom + 8, [&](double x, double y, const LegendItem& item) {
            f.legend.emplace_back(QRectF(x, y, 12, 10), item.ink);
            f.texts.push_back({ QPointF(x + 16, y + 9.5), QString::fromUtf8(item.text), FrameText::Legend });
        });

    Q_UNUSED(xTraceStart);
    Q_UNUSED(xTraceEnd);
    return f;
}

namespace {

    void paintText(QPainter& painter, const FrameText& t, const FramePalette& palette)
    {
        if (t.role == FrameText::Context)
            painter.setPen(QColor(255, 255, 255));
        else if (t.role == FrameText::MarkerLabel)
            painter.setPen(palette.ink[size_t(Ink::Marker)]);
        else
            painter.setPen(palette.text);
        painter.drawText(t.pos, t.text);
    }

    // The optional rows, clipped to their scrolling area.
    void paintOptionalRows(QPainter& painter, const Frame& f, const FramePalette& palette, bool raster)
    {
        const Frame::Extras& x = f.extras;
        if (x.clip.isEmpty())
            return;
        painter.save();
        painter.setClipRect(x.clip);
        painter.setPen(Qt::NoPen);
        painter.setBrush(palette.rowBackground);
        for (const QRectF& r : x.rowBackgrounds)
            painter.drawRect(r);
        QColor dequeFill = palette.ink[size_t(Ink::Deque)];
        dequeFill.setAlpha(120);
        const QColor dequeLine = palette.ink[size_t(Ink::Deque)];
        if (raster) {
            QList<QRgb> table(256, qRgba(0, 0, 0, 0));
            for (size_t ink = 0; ink < kInkCount; ++ink)
                table[qsizetype(ink)] = palette.ink[ink].rgba();
            for (const Frame::Strip& s : x.laneStrips) {
                QImage image = s.pixels;
                image.setColorTable(table);
                painter.drawImage(s.target, image);
            }
            QList<QRgb> curveTable(256, qRgba(0, 0, 0, 0));
            curveTable[1] = dequeFill.rgba();
            curveTable[2] = dequeLine.rgba();
            for (const Frame::Strip& s : x.dequeStrips) {
                QImage image = s.pixels;
                image.setColorTable(curveTable);
                painter.drawImage(s.target, image);
            }
        } else {
            for (size_t ink = 0; ink < kInkCount; ++ink) {
                if (x.rects[ink].empty())
                    continue;
                painter.setBrush(ink == size_t(Ink::Deque) ? dequeFill : palette.ink[ink]);
                painter.drawRects(x.rects[ink].data(), int(x.rects[ink].size()));
            }
        }
        painter.setPen(QPen(palette.grid, 0));
        for (const QLineF& l : x.separators)
            painter.drawLine(l);
        QFont font = painter.font();
        font.setPixelSize(11);
        painter.setFont(font);
        painter.setRenderHint(QPainter::TextAntialiasing, true);
        for (const FrameText& t : x.texts) {
            if (t.role == FrameText::Status) {
                font.setItalic(true);
                painter.setFont(font);
                paintText(painter, t, palette);
                font.setItalic(false);
                painter.setFont(font);
            } else {
                paintText(painter, t, palette);
            }
        }
        painter.restore();
    }

} // namespace

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
        for (size_t ink = 0; ink < kInkCount; ++ink)
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

    paintOptionalRows(painter, f, palette, raster);

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
        } else if (ink >= Ink::TickSparkCreate && ink <= Ink::Marker) {
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
    for (const FrameText& t : f.texts)
        paintText(painter, t, palette);
    painter.restore();
}

namespace {

    // Tooltip text for the optional rows (deque rows and context lanes) at pos, or "".
    QString describeOptionalRow(const Frame& f, QPointF pos, const TimelineRows* rows)
    {
        const FrameLayout& L = f.layout;
        const TimeAxis& axis = f.axis;
        auto at = [&](int64_t ns) { return formatDuration(ns, 9); };
        const int64_t t = axis.timeAt(pos.x());
        const int64_t a = axis.timeAt(pos.x() - 0.5), b = std::max(a + 1, axis.timeAt(pos.x() + 0.5));
        if (const long e = L.dequeRowAt(pos.y()); e >= 0) {
            if (!rows || !rows->deques || size_t(e) >= rows->deques->engines.size())
                return QStringLiteral("Spark deque of engine %1: being computed").arg(e);
            const core::StepFunction& curve = rows->deques->engines[size_t(e)];
            return QStringLiteral("Spark deque of engine %1\nat %2: %3 sparks\nmax %4 over [%5, %6)")
                .arg(e)
                .arg(at(t))
                .arg(curve.valueAt(t))
                .arg(curve.max(a, b))
                .arg(at(a), at(b));
        }
        const long k = L.laneAt(pos.y());
        if (k < 0)
            return {};
        if (!rows || !rows->lanes || size_t(k) >= rows->lanes->size())
            return QStringLiteral("Context lanes are being computed");
        const uint32_t id = rows->lanes->ids[size_t(k)];
        QString name = QString::number(id);
        if (const std::string& label = rows->lanes->labels[size_t(k)]; !label.empty())
            name += QStringLiteral(" \"%1\"").arg(QString::fromStdString(label).left(60));
        const core::LodIndex& lod = rows->lanes->lanes[size_t(k)];
        auto stateName = [](uint8_t s) {
            return s == uint8_t(core::ContextLaneState::Running) ? QStringLiteral("running")
                : s == uint8_t(core::ContextLaneState::Blocked)  ? QStringLiteral("blocked")
                                                                 : QStringLiteral("runnable");
        };
        std::array<uint64_t, core::kContextLaneStateCount> busy {};
        lod.busy(0, uint64_t(std::max<int64_t>(0, a)), uint64_t(std::max<int64_t>(0, b)), busy);
        const core::LodSpan* span = lod.spanAt(0, uint64_t(std::max<int64_t>(0, t)));
        uint64_t total = 0;
        for (uint64_t v : busy)
            total += v;
        if (span && (busy[span->state] == total || double(span->endNs - span->startNs) >= axis.nsPerPixel())) {
            QString what = stateName(span->state);
            if (span->state == uint8_t(core::ContextLaneState::Running))
                what += QStringLiteral(" on engine %1").arg(span->label);
            // One multi-argument arg(): a "%1" inside a thread's label stays text.
            return QStringLiteral("Context %1: %2\nfrom %3 for %4")
                .arg(name, what, at(int64_t(span->startNs)), formatDuration(int64_t(span->endNs - span->startNs)));
        }
        if (total == 0)
            return QStringLiteral("Context %1: does not exist at %2").arg(name, at(t));
        QString text = QStringLiteral("Context %1, %2 from %3:").arg(name, formatDuration(b - a), at(a));
        for (uint8_t s = 0; s < core::kContextLaneStateCount; ++s)
            if (busy[s])
                text += QStringLiteral("\n  %1 %2%")
                            .arg(stateName(s))
                            .arg(100.0 * double(busy[s]) / double(b - a), 0, 'f', 1);
        return text;
    }

} // namespace

QString describeAt(
    const TraceData& data, const Frame& f, QPointF pos, const std::vector<Marker>* bookmarks, const TimelineRows* rows)
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

    if (f.layout.hasExtras() && pos.y() >= f.layout.extrasTop)
        return pos.y() < f.layout.extrasBottom() ? describeOptionalRow(f, pos, rows) : QString();

    if (pos.y() >= f.layout.curveTop() && pos.y() < f.layout.curveTop() + f.layout.curveHeight) {
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
