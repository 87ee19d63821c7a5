#include "ui/analysis/speedup_geometry.h"

#include <algorithm>
#include <cmath>

namespace sparkscope::ui {

namespace {
    // The y axis' top: 1, 2 or 5 × a power of ten at or above `v` (at least 1).
    double roundUp(double v)
    {
        v = std::max(1.0, v);
        const double decade = std::pow(10.0, std::floor(std::log10(v)));
        for (double m : { 1.0, 2.0, 5.0, 10.0 })
            if (m * decade >= v - 1e-9)
                return m * decade;
        return 10 * decade;
    }
} // namespace

SpeedupGeometry speedupGeometry(const SpeedupChartData& data, QSizeF size)
{
    SpeedupGeometry g;
    g.plot = QRectF(kChartLeft, kChartPad, std::max(1.0, size.width() - kChartLeft - kChartPad),
        std::max(1.0, size.height() - kChartPad - kChartBottom));
    double top = 0;
    for (const auto* series : { &data.predicted, &data.whatIf, &data.upper, &data.lower })
        for (const SpeedupPoint& p : *series)
            top = std::max(top, p.speedup);
    if (data.measured)
        top = std::max(top, data.measured->speedup);
    g.maxSpeedup = roundUp(top * 1.05);
    const QRectF& r = g.plot;
    auto x = [&](double engines) {
        return r.left()
            + std::log2(std::clamp(engines, 1.0, kChartMaxEngines)) / std::log2(kChartMaxEngines) * r.width();
    };
    auto y = [&](double speedup) {
        return r.bottom() - std::clamp(speedup, 0.0, g.maxSpeedup) / g.maxSpeedup * r.height();
    };
    auto line = [&](const std::vector<SpeedupPoint>& in, std::vector<QPointF>& out) {
        for (const SpeedupPoint& p : in)
            out.emplace_back(x(p.engines), y(p.speedup));
    };
    line(data.predicted, g.predicted);
    line(data.whatIf, g.whatIf);
    line(data.upper, g.upper);
    line(data.lower, g.lower);
    if (data.measured)
        g.measured = QPointF(x(data.measured->engines), y(data.measured->speedup));
    for (double p = 1; p <= kChartMaxEngines; p *= 2)
        g.xTicks.emplace_back(x(p), QString::number(p));
    // Five steps up the y axis.
    for (int k = 0; k <= 5; ++k) {
        const double v = g.maxSpeedup * k / 5;
        g.yTicks.emplace_back(y(v), QString::number(v, 'g', 3));
    }
    return g;
}

} // namespace sparkscope::ui
