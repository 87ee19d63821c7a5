#pragma once
// The parts frame() assembles a Frame from, one builder per part of the picture, each in the file
// named after it: frame_ruler.cpp, frame_curve.cpp, frame_rows.cpp (engine rows),
// frame_markers.cpp, frame_optional_rows.cpp (spark-deque rows and context lanes),
// frame_utilisation.cpp (the ledger's categories under the curve), frame_unwritten.cpp,
// frame_critical_path.cpp and frame_legend.cpp. frame() (frame.cpp) sets the frame's viewport, layout and axis, then runs them
// in that order, which is the order their texts are painted in. Private to ui/timeline.
#include "ui/timeline/frame.h"

#include "sparkscope/core/lod_index.h"

#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

namespace sparkscope::ui {

// Text placement shared by the builders (paintFrame draws text 11 px high).
inline constexpr double kNameX = 6; // row names ("CPUs", "Engine 3", "Ctx 12") and the legend start here
// Width per character, generous: a label is drawn only where this much room is free, so it is never
// clipped or overlapped.
inline constexpr double kCharWidth = 7.0;
// Width per character, average: to place texts after one another (legend items) or right-align one.
inline constexpr double kAverageCharWidth = 6.5;

// The plot cut into device-pixel columns, shared by every row of one frame: a high-DPI screen gets
// its full resolution, and every column's content is an exact aggregate over its time range
// [bounds[i], bounds[i + 1]), the boundaries being exact integers shared by neighbours.
struct FrameColumns {
    FrameColumns(const TimeAxis& axis, double devicePixelRatio);
    double dpr; // device pixels per logical pixel, at least 1
    long count; // at least 1
    double width; // of one column, in logical pixels
    std::vector<int64_t> bounds; // count + 1 boundaries
    // The nanosecond the middle of column i falls in: what a column shows when it is narrower than
    // a nanosecond (its bounds are then equal).
    int64_t mid(long i) const
    {
        return m_startNs + int64_t(std::floor((double(i) + 0.5) * double(m_spanNs) / double(count)));
    }

private:
    int64_t m_startNs, m_spanNs;
};

// Each builder reads f.viewport, f.layout, f.axis and f.engines and appends to the rest of f.
void addRuler(Frame& f);
void addCpuCurve(Frame& f, const TraceData& data, const FrameColumns& columns);
void addEngineRows(Frame& f, const TraceData& data, const FrameColumns& columns, const TimelineRows* rows = nullptr);
// Engine e's bar with its running time split by static id (frame_sites.cpp).
void addSiteBar(Frame& f, const TraceData& data, const SiteRows& sites, size_t e, const FrameColumns& columns);
void addUtilisationRow(Frame& f, const TimelineRows* rows, const FrameColumns& columns);
void addCriticalPath(Frame& f, const TimelineRows* rows, const FrameColumns& columns);
// The part of each engine row a trace being written does not cover yet (frame_unwritten.cpp).
void addUnwritten(Frame& f, const TraceData& data, const TimelineRows* rows);
void addMarkers(Frame& f, const std::vector<Marker>& marks, const FrameColumns& columns);
void addOptionalRows(Frame& f, const TimelineRows* rows, const FrameColumns& columns);
void addLegend(Frame& f, const TimelineRows* rows = nullptr);

// The utilisation row's content: for each column, the engine-ns of each ledger category over the
// column's time range [bounds[i], bounds[i + 1]) (a column narrower than a nanosecond: the nanosecond
// its middle falls in), from the curves' prefix integrals. Exact at any zoom. Pure.
std::vector<core::LossLedger> utilisationColumns(const core::LedgerCurves& curves, const FrameColumns& columns);

// The height the legend needs at the viewport's width (at least FrameLayout::kLegendHeight).
double legendHeight(const Viewport& viewport, const TimelineRows* rows = nullptr);

// For labels on things `pitch` px apart that need `minPx`: label every 1st, 2nd, 5th, 10th, 20th...
size_t everyNth(double pitch, double minPx);

// A label inside each span of `lod`'s row in state `running` that is wide enough to hold it,
// baseline at y = `baseline`; labelOf(span label) gives the text (empty: none). Only while at most a
// quarter as many spans as columns are visible: in a busier window hardly any span could hold one.
void addRunningSpanLabels(std::vector<FrameText>& out, const core::LodIndex& lod, size_t row, uint8_t running,
    const TimeAxis& axis, long columns, double baseline, const std::function<QString(uint32_t)>& labelOf);

} // namespace sparkscope::ui
