#pragma once
// TimeAxis: the mapping between trace time (ns) and horizontal position (logical pixels) of the
// timeline's plot area. Pure value type; every view and the frame function use it, so the mapping
// is defined (and tested) in one place.
#include <algorithm>
#include <cmath>
#include <cstdint>

namespace sparkscope::ui {

struct TimeAxis {
    int64_t startNs = 0; // time at x = left
    int64_t endNs = 1; // time at x = left + width
    double left = 0; // x of startNs
    double width = 1; // plot width in logical pixels (> 0)

    int64_t spanNs() const noexcept { return std::max<int64_t>(1, endNs - startNs); }
    double nsPerPixel() const noexcept { return double(spanNs()) / std::max(width, 1e-9); }
    double xOf(int64_t timeNs) const noexcept { return left + double(timeNs - startNs) / nsPerPixel(); }
    // The time under x, rounded to the nearest nanosecond.
    int64_t timeAt(double x) const noexcept { return startNs + std::llround((x - left) * nsPerPixel()); }
    // Boundary i of n equal columns over the axis: exact integers shared by neighbours, so column
    // sums telescope (column i spans [boundary(i), boundary(i + 1))).
    int64_t boundary(long i, long n) const noexcept
    {
        return startNs + int64_t(std::llround(double(spanNs()) * double(i) / double(std::max(1L, n))));
    }
};

// A window [startNs, endNs) zoomed by `factor` (> 1 zooms in) keeping the time `anchorNs` at the same
// screen position; the result has at least minSpanNs.
struct TimeWindow {
    int64_t startNs = 0;
    int64_t endNs = 1;
    bool operator==(const TimeWindow&) const = default;
    int64_t spanNs() const noexcept { return endNs - startNs; }
};

inline TimeWindow zoomWindow(TimeWindow w, double factor, int64_t anchorNs, int64_t minSpanNs = 10)
{
    const double span = std::max(double(minSpanNs), double(w.spanNs()) / factor);
    const double anchorFraction = w.spanNs() > 0 ? double(anchorNs - w.startNs) / double(w.spanNs()) : 0.5;
    const int64_t start = anchorNs - std::llround(span * anchorFraction);
    return { start, start + std::llround(span) };
}

// Moves w so it lies inside [lo, hi) when it fits, else centres it; keeps its span when possible.
inline TimeWindow clampWindow(TimeWindow w, int64_t lo, int64_t hi)
{
    const int64_t span = std::min(w.spanNs(), hi - lo);
    if (span <= 0)
        return { lo, lo + 1 };
    int64_t start = std::clamp(w.startNs, lo, hi - span);
    return { start, start + span };
}

} // namespace sparkscope::ui
