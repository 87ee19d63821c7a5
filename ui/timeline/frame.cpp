// The frame function (see frame.h): sets up the frame's layout, time axis and device-pixel columns,
// then hands the frame to one builder per part of the picture (frame_builders.h).
#include "ui/timeline/frame.h"

#include "ui/timeline/frame_builders.h"

#include <algorithm>
#include <cmath>

namespace sparkscope::ui {

FrameColumns::FrameColumns(const TimeAxis& axis, double devicePixelRatio)
    : dpr(std::max(1.0, devicePixelRatio))
    , count(std::max(1L, std::lround(axis.width * dpr)))
    , width(axis.width / double(count))
    , bounds(size_t(count) + 1)
    , m_startNs(axis.startNs)
    , m_spanNs(axis.spanNs())
{
    for (long i = 0; i <= count; ++i)
        bounds[size_t(i)] = axis.boundary(i, count);
}

size_t Frame::primitiveCount() const
{
    size_t n = curve.size() + curveLevels.size() + rulerTicks.size() + texts.size() + rowBackgrounds.size();
    for (size_t i = 0; i < kInkCount; ++i)
        n += rects[i].size() + lines[i].size() + extras.rects[i].size();
    n += pathOutlines.size() + pathWaits.size() + pathMoves.size() + unwritten.size();
    return n + extras.texts.size() + extras.rowBackgrounds.size() + extras.separators.size();
}

QString formatDuration(int64_t ns, int digits) { return formatDurationOf(double(ns), digits); }

QString formatDurationOf(double v, int digits)
{
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

QString formatEngines(size_t engines)
{
    return engines == 1 ? QStringLiteral("1 engine") : QStringLiteral("%1 engines").arg(engines);
}

size_t everyNth(double pitch, double minPx)
{
    for (size_t decade = 1;; decade *= 10)
        for (size_t m : { 1, 2, 5 })
            if (pitch * double(m * decade) >= minPx || decade > 1'000'000)
                return m * decade;
}

FrameLayout frameLayout(const TraceData& data, const Viewport& viewport, const TimelineRows* rows)
{
    FrameLayout::Content content;
    content.engines = data.engineCount();
    content.utilisation = viewport.showUtilisation && rows && (rows->ledger || rows->ledgerPending);
    if (viewport.showDeques && rows && (rows->deques || rows->dequesPending))
        content.dequeRows = rows->deques ? rows->deques->engines.size() : content.engines;
    if (viewport.showLanes && rows && (rows->lanes || rows->lanesPending))
        content.lanes = rows->lanes ? rows->lanes->size() : 2; // room for the "computing" note
    // The rows take the height down to the legend, which gets the lines it needs.
    content.legendHeight = legendHeight(viewport, rows);
    return FrameLayout::fit(double(viewport.height), content, viewport.scrollY);
}

Frame frame(
    const TraceData& data, const Viewport& viewport, const std::vector<Marker>* bookmarks, const TimelineRows* rows)
{
    Frame f;
    f.viewport = viewport;
    f.engines = data.engineCount();
    f.layout = frameLayout(data, viewport, rows);
    f.axis = { viewport.window.startNs, std::max(viewport.window.endNs, viewport.window.startNs + 1),
        FrameLayout::kGutter, std::max(1.0, double(viewport.width) - FrameLayout::kGutter - f.layout.rightMargin) };
    const FrameColumns columns(f.axis, viewport.devicePixelRatio);

    addRuler(f);
    addCpuCurve(f, data, columns);
    addUtilisationRow(f, rows, columns);
    addEngineRows(f, data, columns, rows);
    addUnwritten(f, data, rows);
    addCriticalPath(f, rows, columns);
    addMarkers(f, bookmarks ? *bookmarks : data.markers, columns);
    addOptionalRows(f, rows, columns);
    addLegend(f, rows);
    return f;
}

} // namespace sparkscope::ui
