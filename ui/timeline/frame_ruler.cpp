// The ruler: ticks at 1, 2 or 5 × 10^k ns with time labels, and a faint grid line under each tick
// down to the bottom of the rows.
#include "ui/timeline/frame_builders.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace sparkscope::ui {

namespace {

    constexpr double kMinTickSpacing = 110; // px between labelled ticks: room for the longest label ("12.345678 s")
    constexpr double kTickLength = 8; // up from the ruler's bottom edge
    constexpr double kLabelRise = 11; // a label's baseline above the ruler's bottom edge: over its tick
    constexpr double kLabelOffset = 3; // a label's left edge right of its tick
    constexpr double kLabelCharWidth = 7; // px per character of a label, a little over the ruler font's

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

void addRuler(Frame& f)
{
    const FrameLayout& L = f.layout;
    const TimeAxis& axis = f.axis;
    const int64_t labelOrigin = 0; // labels show trace timestamps (GHC: since RTS start), as --range takes them
    const int64_t step = rulerStep(axis.nsPerPixel(), kMinTickSpacing);
    const double bottom = L.bottom(f.engines);
    const int64_t rel0 = axis.startNs - labelOrigin;
    const int64_t first = (rel0 >= 0 ? (rel0 + step - 1) / step : -((-rel0) / step)) * step;
    for (int64_t rel = first; labelOrigin + rel <= axis.endNs; rel += step) {
        const double x = axis.xOf(labelOrigin + rel);
        f.rulerTicks.emplace_back(x, L.kRulerHeight - kTickLength, x, L.kRulerHeight);
        f.rulerTicks.emplace_back(x, L.curveTop(), x, bottom); // faint grid
        QString label = rulerLabel(rel, step);
        // A label that would run past the plot's right edge is left off (its tick stays): cut there, it
        // read "90 m" for 90 ms.
        if (x + kLabelOffset + kLabelCharWidth * double(label.size()) > axis.left + axis.width)
            continue;
        f.texts.push_back(
            { QPointF(x + kLabelOffset, L.kRulerHeight - kLabelRise), std::move(label), FrameText::Ruler });
    }
}

} // namespace sparkscope::ui
