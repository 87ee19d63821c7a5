// FrameLayout::fit and the row lookups of hit testing (see frame_layout.h).
#include "ui/timeline/frame_layout.h"

#include <cmath>

namespace sparkscope::ui {

namespace {

    // The curve, the utilisation row (when shown) and the engine rows share the height by weight
    // (shareHeight); engine rows are kPreferredMinRowHeight to kMaxRowHeight high, and with more
    // engines than fit at kPreferredMinRowHeight (a 48-core run) they get lower, down to
    // kMinRowHeight in whole pixels, so that every engine stays on screen (names then thin out).
    void fitEngineRows(FrameLayout& L, double spare, double engines, bool utilisation)
    {
        using F = FrameLayout;
        const double gap = utilisation ? F::kRowsGap : 0; // between the utilisation row and the engine rows
        const std::vector<double> h = shareHeight(spare - gap,
            { { F::kCurveWeight, F::kMinCurveHeight, F::kMaxCurveHeight },
                { utilisation ? F::kUtilisationWeight : 0, utilisation ? F::kMinUtilisationHeight : 0,
                    utilisation ? F::kMaxUtilisationHeight : 0 },
                { F::kRowWeight * engines, F::kPreferredMinRowHeight * engines, F::kMaxRowHeight * engines } });
        L.curveHeight = std::floor(h[0]);
        L.utilisationHeight = std::floor(h[1]);
        const double fit = (spare - gap - L.curveHeight - L.utilisationHeight) / engines;
        L.rowHeight = fit < F::kPreferredMinRowHeight ? std::max(F::kMinRowHeight, std::floor(fit))
                                                      : std::min(std::floor(h[2] / engines), F::kMaxRowHeight);
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
        if (L.utilisationHeight > 0) { // set by fit(): the row is shown; it gets a small share here
            L.utilisationHeight = std::floor(std::clamp(
                spare * F::kUtilisationShareWithExtras, F::kMinUtilisationHeight, F::kMaxUtilisationHeight));
            spare -= L.utilisationHeight + F::kRowsGap;
        }
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

std::vector<double> shareHeight(double room, const std::vector<SharePart>& parts)
{
    std::vector<double> out(parts.size(), 0);
    std::vector<bool> fixed(parts.size(), false);
    double left = room;
    for (size_t round = 0; round <= parts.size(); ++round) {
        double weights = 0;
        for (size_t i = 0; i < parts.size(); ++i)
            if (!fixed[i])
                weights += parts[i].weight;
        const double unit = weights > 0 ? std::max(0.0, left) / weights : 0;
        // Fix the parts whose share is under their minimum first (they take room from the others),
        // else those over their maximum (they give room back); once none is out of bounds, share.
        bool under = false, over = false;
        for (size_t i = 0; i < parts.size(); ++i)
            if (!fixed[i]) {
                under |= parts[i].weight * unit < parts[i].min;
                over |= parts[i].weight * unit > parts[i].max;
            }
        if (!under && !over) {
            for (size_t i = 0; i < parts.size(); ++i)
                if (!fixed[i])
                    out[i] = parts[i].weight * unit;
            return out;
        }
        for (size_t i = 0; i < parts.size(); ++i) {
            if (fixed[i])
                continue;
            const double share = parts[i].weight * unit;
            if (under ? share < parts[i].min : share > parts[i].max) {
                out[i] = under ? parts[i].min : parts[i].max;
                fixed[i] = true;
                left -= out[i];
            }
        }
    }
    return out; // every part fixed at a bound
}

FrameLayout FrameLayout::fit(double height, const Content& content, int scrollY)
{
    FrameLayout L;
    L.dequeRows = content.dequeRows;
    L.lanes = content.lanes;
    const double spare
        = height - kRulerHeight - kRulerGap - kRowsGap - std::max(kLegendHeight, content.legendHeight) - kLegendGap;
    if (L.dequeRows == 0 && L.lanes == 0) {
        fitEngineRows(L, spare, double(std::max<size_t>(1, content.engines)), content.utilisation);
    } else {
        L.utilisationHeight = content.utilisation ? 1 : 0; // its height is chosen by fitWithExtras
        fitWithExtras(L, spare, content.engines, scrollY);
    }
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
