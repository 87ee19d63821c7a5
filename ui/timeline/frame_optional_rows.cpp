// The optional rows, in one scrolling area under the engine rows: a spark-deque curve per engine,
// then one lane per context. Only what lies inside the area's visible part is built (each lane from
// its own level-of-detail index), so thousands of contexts cost what a screenful does. While a
// row's data is being computed in the background the area shows a note instead.
#include "ui/timeline/frame_builders.h"
#include "ui/timeline/frame_strips.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace sparkscope::ui {

namespace {

    // A lane's running spans are labelled with their engine only when its bar can hold 11 px text.
    constexpr double kMinLabelledLaneBar = 10;

    // Status note drawn in the optional rows' area while a row's data is being computed.
    void addStatus(Frame::Extras& x, double y, const char* text)
    {
        x.texts.push_back({ QPointF(FrameLayout::kGutter + 8, y), QString::fromUtf8(text), FrameText::Status });
    }

    bool dequeRowVisible(const FrameLayout& L, size_t e)
    {
        const double top = L.dequeRowTop(e);
        return top + L.dequeRowHeight > L.extrasTop && top < L.extrasBottom();
    }

    // Per visible deque row, the largest size within each column (exact: the step function's maximum
    // over the column's time range, not a sample), and the largest of those: the rows' shared scale
    // (at least 1). Rows outside the visible area stay empty.
    std::vector<std::vector<int64_t>> dequeMaxima(
        const FrameLayout& L, const std::vector<core::StepFunction>& curves, const FrameColumns& c, int64_t& scale)
    {
        std::vector<std::vector<int64_t>> maxima(curves.size());
        scale = 1;
        for (size_t e = 0; e < curves.size(); ++e) {
            if (!dequeRowVisible(L, e) || curves[e].empty())
                continue;
            maxima[e].resize(size_t(c.count));
            for (long i = 0; i < c.count; ++i) {
                const int64_t a = c.bounds[size_t(i)], b = c.bounds[size_t(i) + 1];
                const int64_t m = a < b ? curves[e].max(a, b) : curves[e].valueAt(c.mid(i));
                maxima[e][size_t(i)] = m;
                scale = std::max(scale, m);
            }
        }
        return maxima;
    }

    // Deque row e: background, name, scale, and its curve, filled from 0 (one strip for raster
    // devices; rectangles, equal neighbouring columns merged, for vector ones).
    void addDequeRow(Frame& f, size_t e, const std::vector<int64_t>& maxima, int64_t scale, const FrameColumns& c)
    {
        const FrameLayout& L = f.layout;
        const TimeAxis& axis = f.axis;
        Frame::Extras& x = f.extras;
        const double top = L.dequeRowTop(e);
        if (e % 2 == 0)
            x.rowBackgrounds.emplace_back(0, top, double(f.viewport.width), L.dequeRowHeight);
        x.texts.push_back({ QPointF(kNameX, top + L.dequeRowHeight / 2 + 4), QStringLiteral("Deque %1").arg(e),
            FrameText::EngineName });
        const QString scaleText = QString::number(scale);
        x.texts.push_back({ QPointF(L.kGutter - 6 - kAverageCharWidth * double(scaleText.size()), top + 12), scaleText,
            FrameText::CurveLabel });
        const double plotTop = top + 3, plotHeight = L.dequeRowHeight - 5;
        CurveStrip strip(c.count, std::max(2, int(std::lround(plotHeight * c.dpr))));
        const int heightDev = strip.height();
        long runStart = -1;
        int runTop = 0;
        auto flush = [&](long end) {
            if (runStart >= 0)
                x.rects[size_t(Ink::Deque)].emplace_back(axis.left + double(runStart) * c.width,
                    plotTop + double(runTop) / c.dpr, double(end - runStart) * c.width,
                    double(heightDev - runTop) / c.dpr);
            runStart = -1;
        };
        for (long i = 0; i < c.count && !maxima.empty(); ++i) {
            const int64_t m = maxima[size_t(i)];
            if (m <= 0) {
                strip.gap();
                flush(i);
                continue;
            }
            // At least one device pixel for any non-empty deque, so a single spark shows.
            const int topDev = strip.column(i, double(m) / double(scale));
            if (runStart >= 0 && runTop == topDev)
                continue;
            flush(i);
            runStart = i;
            runTop = topDev;
        }
        flush(c.count);
        x.dequeStrips.push_back({ QRectF(axis.left, plotTop, axis.width, double(heightDev) / c.dpr), strip.finish() });
    }

    // One deque row per engine with a shared scale (only the visible ones are built).
    void addDequeRows(Frame& f, const TimelineRows& rows, const FrameColumns& c)
    {
        const FrameLayout& L = f.layout;
        if (!rows.deques) {
            addStatus(f.extras, L.dequeRowTop(0) + 18, "Computing spark deque sizes…");
            return;
        }
        const auto& curves = rows.deques->engines;
        int64_t scale = 1;
        const std::vector<std::vector<int64_t>> maxima = dequeMaxima(L, curves, c, scale);
        f.extras.dequeScale = scale;
        for (size_t e = 0; e < curves.size(); ++e)
            if (dequeRowVisible(L, e))
                addDequeRow(f, e, maxima[e], scale, c);
    }

    // Lane k's bar. Per column: when one span covers the whole column it is drawn without a query;
    // otherwise the lane's level-of-detail index gives the exact time in each state (a fraction of
    // the column's duration: a context that exists for part of a column fills part of the bar, and
    // any non-zero part gets at least one device pixel).
    void addLaneBar(Frame& f, const core::LodIndex& lod, double barTop, const FrameColumns& c)
    {
        const TimeAxis& axis = f.axis;
        Frame::Extras& x = f.extras;
        const int barDev = std::max(1, int(std::lround(f.layout.laneBarHeight * c.dpr)));
        // Stacked from the bottom: running, runnable, blocked.
        constexpr std::array<Ink, 3> kInkOfState { Ink::LaneRunnable, Ink::Running, Ink::LaneBlocked };
        constexpr std::array<uint8_t, 3> kStack { 1, 0, 2 };
        constexpr std::array<uchar, 3> kLaneInks { uchar(kInkOfState[kStack[0]]), uchar(kInkOfState[kStack[1]]),
            uchar(kInkOfState[kStack[2]]) };
        using Heights = std::array<int, 3>;
        const auto spans = lod.spans(0);
        StackedStrip<3, decltype(x.rects)> strip(
            c.count, barDev, kLaneInks, x.rects, axis.left, c.width, barTop, c.dpr);
        size_t j = lod.firstSpanEndingAfter(0, uint64_t(std::max<int64_t>(0, c.bounds[0])));
        std::array<uint64_t, core::kContextLaneStateCount> before {};
        uint64_t beforeAt = UINT64_MAX; // the time `before` holds the running integral at
        for (long i = 0; i < c.count; ++i) {
            int64_t a = c.bounds[size_t(i)], b = c.bounds[size_t(i) + 1];
            if (a == b) {
                a = c.mid(i); // below 1 ns per column: the nanosecond it falls in
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
                // The running integral at the column's end; its start is the previous column's end
                // when that one was mixed too (runs of mixed columns cost one query each, as the
                // engine rows do).
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
            { QRectF(axis.left, barTop, axis.width, double(barDev) / c.dpr), strip.finish(c.count) });
        ++x.lanesDrawn;
    }

    // The visible context lanes: background, name, bar, and the engine of each running span wide
    // enough for its label.
    void addLanes(Frame& f, const TimelineRows& rows, const FrameColumns& c)
    {
        const FrameLayout& L = f.layout;
        Frame::Extras& x = f.extras;
        if (!rows.lanes) {
            addStatus(x, L.lanesTop() + 20, "Computing context lanes…");
            return;
        }
        const core::ContextLanes& lanes = *rows.lanes;
        const auto [first, last] = L.visibleLanes();
        for (size_t k = first; k < last; ++k) {
            const double top = L.laneTop(k);
            const double barTop = top + (L.laneHeight - L.laneBarHeight) / 2;
            if (k % 2 == 0)
                x.rowBackgrounds.emplace_back(0, top, double(f.viewport.width), L.laneHeight);
            x.texts.push_back({ QPointF(kNameX, barTop + L.laneBarHeight - 2),
                QStringLiteral("Ctx %1").arg(lanes.ids[k]), FrameText::EngineName });
            addLaneBar(f, lanes.lanes[k], barTop, c);
            if (L.laneBarHeight >= kMinLabelledLaneBar)
                addRunningSpanLabels(x.texts, lanes.lanes[k], 0, uint8_t(core::ContextLaneState::Running), f.axis,
                    c.count, barTop + L.laneBarHeight - 2,
                    [](uint32_t engine) { return QStringLiteral("e%1").arg(engine); });
        }
    }

} // namespace

void addOptionalRows(Frame& f, const TimelineRows* rows, const FrameColumns& c)
{
    const FrameLayout& L = f.layout;
    if (!L.hasExtras() || !rows)
        return;
    f.extras.clip = QRectF(0, L.extrasTop, double(f.viewport.width), L.extrasHeight);
    if (L.dequeRows)
        addDequeRows(f, *rows, c);
    if (L.dequeRows && L.lanes)
        f.extras.separators.emplace_back(
            0, L.lanesTop() - L.kRowsGap / 2, f.viewport.width, L.lanesTop() - L.kRowsGap / 2);
    if (L.lanes)
        addLanes(f, *rows, c);
}

} // namespace sparkscope::ui
