// FrameLayout::fit and the row lookups of hit testing (see frame_layout.h).
#include "ui/timeline/frame_layout.h"

#include <cmath>

namespace sparkscope::ui {

namespace {

    // Engine rows and the curve share the height; engine rows are kPreferredMinRowHeight to
    // kMaxRowHeight high, and with more engines than fit at kPreferredMinRowHeight (a 48-core run)
    // they get lower, down to kMinRowHeight, so that every engine stays on screen (names then thin out).
    void fitEngineRows(FrameLayout& L, double spare, double engines)
    {
        using F = FrameLayout;
        L.curveHeight = std::clamp(spare * F::kCurveShare, F::kMinCurveHeight, F::kMaxCurveHeight);
        const double fit = (spare - L.curveHeight) / engines;
        L.rowHeight = fit < F::kPreferredMinRowHeight ? std::max(F::kMinRowHeight, std::floor(fit))
                                                      : std::min(fit, F::kMaxRowHeight);
        L.barHeight = std::round(L.rowHeight * F::kBarShare);
    }

    // Optional rows: a smaller curve; engine rows as tall as leaves the optional rows their natural
    // size, within kPreferredMinRowHeight to kMaxRowHeight, but never so tall that less than
    // kMinExtrasHeight (or all they need, if less) remains for the optional rows (engine rows then
    // go down to kMinRowHeightWithExtras). Spare room then makes deque rows and lanes taller.
    void fitWithExtras(FrameLayout& L, double spare, size_t engineCount, int scroll)
    {
        using F = FrameLayout;
        const double n = double(std::max<size_t>(1, engineCount));
        L.curveHeight
            = std::clamp(spare * F::kCurveShareWithExtras, F::kMinCurveHeightWithExtras, F::kMaxCurveHeightWithExtras);
        const double gap = L.dequeRows && L.lanes ? F::kRowsGap : 0;
        const double natural = double(L.dequeRows) * F::kMinDequeRowHeight + double(L.lanes) * F::kMinLaneHeight + gap;
        const double forRows = spare - L.curveHeight - F::kExtrasGap;
        L.rowHeight = std::clamp((forRows - natural) / n, F::kPreferredMinRowHeight, F::kMaxRowHeight);
        const double keep = std::min(natural, F::kMinExtrasHeight);
        if (forRows - L.rowHeight * n < keep)
            L.rowHeight = std::max(F::kMinRowHeightWithExtras, (forRows - keep) / n);
        if (L.rowHeight * n > forRows) // so many engines that even kMinRowHeightWithExtras leaves no room
            L.rowHeight = std::max(F::kMinRowHeight, std::floor(forRows * F::kCrowdedRowsShare / n));
        L.barHeight = std::round(L.rowHeight * F::kBarShare);
        L.extrasTop = L.contentHeight(engineCount) - F::kBottomPadding + F::kExtrasGap;
        const double available = std::max(0.0, forRows - L.rowHeight * n);
        if (available > natural) {
            const double grow = available - natural;
            if (L.dequeRows)
                L.dequeRowHeight = std::min(F::kMaxDequeRowHeight,
                    F::kMinDequeRowHeight + grow * (L.lanes ? F::kDequeGrowShareWithLanes : 1.0) / double(L.dequeRows));
            if (L.lanes)
                L.laneHeight = std::min(F::kMaxLaneHeight,
                    F::kMinLaneHeight
                        + (grow - (L.dequeRowHeight - F::kMinDequeRowHeight) * double(L.dequeRows)) / double(L.lanes));
        }
        L.dequeRowHeight = std::floor(L.dequeRowHeight);
        L.laneHeight = std::floor(L.laneHeight);
        L.laneBarHeight = std::round(L.laneHeight * F::kLaneBarShare);
        L.extrasContentHeight = double(L.dequeRows) * L.dequeRowHeight + gap + double(L.lanes) * L.laneHeight;
        // Whole pixels, so that maxScrollY() is whole too.
        L.extrasHeight = std::max(1.0, std::floor(std::min(available, L.extrasContentHeight)));
        L.rightMargin = L.extrasContentHeight > L.extrasHeight ? F::kRightMargin + F::kScrollBarWidth : F::kRightMargin;
        L.scrollY = std::clamp(double(scroll), 0.0, L.maxScrollY());
    }

} // namespace

FrameLayout FrameLayout::fit(double height, const Content& content, int scrollY)
{
    FrameLayout L;
    L.dequeRows = content.dequeRows;
    L.lanes = content.lanes;
    const double spare
        = height - kRulerHeight - kRulerGap - kRowsGap - std::max(kLegendHeight, content.legendHeight) - kLegendGap;
    if (L.dequeRows == 0 && L.lanes == 0)
        fitEngineRows(L, spare, double(std::max<size_t>(1, content.engines)));
    else
        fitWithExtras(L, spare, content.engines, scrollY);
    return L;
}

long FrameLayout::engineAt(double y, size_t engines) const
{
    if (y < rowsTop())
        return -1;
    const long row = long((y - rowsTop()) / rowHeight);
    return row < long(engines) ? row : -1;
}

long FrameLayout::dequeRowAt(double y) const
{
    if (!hasExtras() || y < extrasTop || y >= extrasBottom() || dequeRows == 0)
        return -1;
    const double k = std::floor((y - dequeRowTop(0)) / dequeRowHeight);
    return k >= 0 && k < double(dequeRows) ? long(k) : -1;
}

long FrameLayout::laneAt(double y) const
{
    if (!hasExtras() || y < extrasTop || y >= extrasBottom() || lanes == 0)
        return -1;
    const double k = std::floor((y - lanesTop()) / laneHeight);
    return k >= 0 && k < double(lanes) ? long(k) : -1;
}

std::pair<size_t, size_t> FrameLayout::visibleLanes() const
{
    if (!hasExtras() || lanes == 0)
        return { 0, 0 };
    const double first = std::floor((extrasTop - lanesTop()) / laneHeight);
    const double last = std::ceil((extrasBottom() - lanesTop()) / laneHeight);
    const size_t a = size_t(std::clamp(first, 0.0, double(lanes)));
    const size_t b = size_t(std::clamp(last, 0.0, double(lanes)));
    return { a, std::max(a, b) };
}

} // namespace sparkscope::ui
