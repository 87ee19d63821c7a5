// The CPUs-over-time curve: the exact average number of running engines over each column, from the
// step function's prefix integral (one lookup per column), with a dashed level per whole engine.
// It is built three ways from the same columns: an indexed-colour strip for raster devices, and
// rectangles plus an outline polygon for vector export.
#include "ui/timeline/frame_builders.h"
#include "ui/timeline/frame_strips.h"

#include <algorithm>
#include <cmath>

namespace sparkscope::ui {

namespace {

    constexpr double kMinLevelLineSpacing = 3; // px: closer dashed lines would grey the curve out
    constexpr double kMinLevelLabelSpacing = 12; // px between the scale's numbers (11 px text)
    constexpr double kLevelLabelX = FrameLayout::kGutter - 16; // the scale's numbers, left of the plot

    // A dashed line per whole engine (every k-th when they would crowd) and the scale's numbers
    // where they stay kMinLevelLabelSpacing apart (1, 2, 5, 10, ... engines), then the curve's name.
    void addLevels(Frame& f)
    {
        const FrameLayout& L = f.layout;
        const TimeAxis& axis = f.axis;
        const double engines = double(std::max<size_t>(1, f.engines));
        const double curveBottom = L.curveTop() + L.curveHeight;
        const double perEngine = L.curveHeight / engines;
        const size_t labelStep = everyNth(perEngine, kMinLevelLabelSpacing);
        const size_t lineStep = perEngine >= kMinLevelLineSpacing ? 1 : labelStep;
        for (size_t k = 1; k <= f.engines; ++k) {
            const double y = curveBottom - double(k) / engines * L.curveHeight;
            if (k % lineStep == 0 || k == f.engines)
                f.curveLevels.emplace_back(axis.left, y, axis.left + axis.width, y);
            if (k % labelStep == 0 || (k == f.engines && perEngine * double(k % labelStep) >= kMinLevelLabelSpacing))
                f.texts.push_back({ QPointF(kLevelLabelX, y + 4), QString::number(k), FrameText::CurveLabel });
        }
        f.texts.push_back(
            { QPointF(kNameX, L.curveTop() + L.curveHeight / 2 + 4), QStringLiteral("CPUs"), FrameText::EngineName });
    }

} // namespace

void addCpuCurve(Frame& f, const TraceData& data, const FrameColumns& c)
{
    const FrameLayout& L = f.layout;
    const TimeAxis& axis = f.axis;
    const int64_t traceStart = data.startNs, traceEnd = data.endNs;
    const double engines = double(std::max<size_t>(1, f.engines));
    const double curveBottom = L.curveTop() + L.curveHeight;
    CurveStrip strip(c.count, std::max(1, int(std::lround(L.curveHeight * c.dpr))));
    bool open = false;
    double lastX = 0;
    for (long i = 0; i < c.count; ++i) {
        int64_t a = std::max(c.bounds[size_t(i)], traceStart), b = std::min(c.bounds[size_t(i) + 1], traceEnd);
        if (a == b && c.bounds[size_t(i)] == c.bounds[size_t(i) + 1]) {
            a = c.mid(i); // below 1 ns per column: the nanosecond the column's middle falls in
            b = a + 1;
            if (a < traceStart || b > traceEnd)
                a = b;
        }
        if (a >= b) { // outside the trace: the curve is cut
            strip.gap();
            if (open) {
                f.curve << QPointF(lastX, curveBottom);
                open = false;
            }
            continue;
        }
        const double avg = double(data.cpus.integral(a, b)) / double(b - a);
        strip.column(i, avg / engines);
        const double x0 = axis.left + double(i) * c.width;
        const double y = curveBottom - avg / engines * L.curveHeight;
        if (!open) {
            f.curve << QPointF(x0, curveBottom);
            open = true;
        }
        f.curve << QPointF(x0, y) << QPointF(x0 + c.width, y);
        if (!f.curveBars.empty() && f.curveBars.back().top() == y && std::abs(f.curveBars.back().right() - x0) < 1e-6)
            f.curveBars.back().setRight(x0 + c.width);
        else if (y < curveBottom)
            f.curveBars.emplace_back(x0, y, c.width, curveBottom - y);
        lastX = x0 + c.width;
    }
    if (open)
        f.curve << QPointF(lastX, curveBottom);
    f.curveStrip = { QRectF(axis.left, L.curveTop(), axis.width, double(strip.height()) / c.dpr), strip.finish() };
    addLevels(f);
}

} // namespace sparkscope::ui
