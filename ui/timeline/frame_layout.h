#pragma once
// FrameLayout: where the timeline's parts go, top to bottom, in logical pixels — the ruler, the CPUs
// curve, the utilisation row (the engines split into the loss ledger's categories; when shown), one
// row per engine, the optional rows' scrolling area (a spark-deque curve per engine, then
// one lane per context) and the legend under everything.
//
// One value per viewport, built by FrameLayout::fit and never changed afterwards: the frame function
// draws by it, and hit testing (describeAt, the widget's scroll bar and wheel, the hover overlay)
// reads the same value from the Frame, so a row is found where it was drawn. A new size is a new
// layout.
//
// The fixed sizes are the named constants, each with its reason; the heights that follow the window
// (the curve, engine rows, deque rows, lanes and the bars inside them) are the fields fit() chooses.
#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

namespace sparkscope::ui {

// Shares `room` among parts in proportion to their weights, each within [min, max]: a part whose
// share falls outside its bounds gets the bound, and the rest is shared again among the others. When
// even the minima do not fit, every part gets its minimum; when every part is at its maximum, some
// room is left. Returns each part's size (same order). Pure; O(parts²).
struct SharePart {
    double weight = 1, min = 0, max = 0;
};
std::vector<double> shareHeight(double room, const std::vector<SharePart>& parts);

struct FrameLayout {
    // ---- Fixed sizes.
    static constexpr double kGutter = 86; // left of the plot: "Engine 12" and the curve's scale in 11 px text
    static constexpr double kRulerHeight = 26; // time labels over their tick marks
    static constexpr double kRulerGap = 4; // under the ruler's line, so a full curve does not touch it
    // Between the curve and the engine rows, and between deque rows and lanes: groups of rows read apart.
    static constexpr double kRowsGap = 8;
    static constexpr double kBottomPadding = 4; // under the last engine row, before the legend or the optional rows
    static constexpr double kLegendGap = 8; // between the last row and the legend's first line
    // The least room kept for the legend: two lines of swatches (a wide window needs no more), with
    // room to spare for kBottomPadding, which fit() does not count apart.
    static constexpr double kLegendHeight = 40;
    static constexpr double kRightMargin = 4; // between the plot and the right edge: the last column is not on it
    static constexpr double kExtrasGap = 10; // between the engine rows and the optional rows' area
    static constexpr double kScrollBarWidth = 12; // reserved at the right when the optional rows scroll

    // ---- Without optional rows, the curve, the utilisation row and the engine rows share the whole
    // height in proportion to these weights (each engine row weighs kRowWeight), each within its own
    // bounds; what one cannot take goes to the others (shareHeight), so the window is filled up to the
    // legend unless every part is at its largest.
    static constexpr double kCurveWeight = 3;
    static constexpr double kUtilisationWeight = 2;
    static constexpr double kRowWeight = 2;
    static constexpr double kMinCurveHeight = 90; // the curve's shape and its scale stay readable in a short window
    static constexpr double kMaxCurveHeight = 300; // higher shows no more detail; the rest is left to the rows
    // The utilisation row: nine categories stacked, a thin one still a pixel or two high.
    static constexpr double kMinUtilisationHeight = 48;
    static constexpr double kMaxUtilisationHeight = 180;
    // With optional rows shown, the curve gives up room to them.
    static constexpr double kCurveShareWithExtras = 0.2;
    static constexpr double kMinCurveHeightWithExtras = 70;
    static constexpr double kMaxCurveHeightWithExtras = 160;
    static constexpr double kUtilisationShareWithExtras = 0.1;

    // ---- Engine rows.
    // Rows go lower only when the engines would not fit otherwise: at 26 px the bar (18 px) holds a
    // context number in 11 px text.
    static constexpr double kPreferredMinRowHeight = 26;
    // Higher rows only stretch the bars: past this the room goes to the curve and the utilisation row,
    // and when those are at their largest too (a trace of one or two engines in a tall window), under
    // the rows.
    static constexpr double kMaxRowHeight = 160;
    static constexpr double kMinRowHeight = 4; // engine rows never get lower (a 150-engine run at 1000 px)
    // The bar's share of its row: the rest separates neighbouring bars and holds the ticks' overhang.
    static constexpr double kBarShare = 0.7;
    // With optional rows: engine rows give room to them down to this height (every engine still named)...
    static constexpr double kMinRowHeightWithExtras = 16;
    // ... as long as the optional rows keep at least this much (or all they need, if less): a few
    // lanes and their scroll bar stay usable.
    static constexpr double kMinExtrasHeight = 120;
    // When even kMinRowHeightWithExtras is too high for every engine, the engine rows take this share
    // of the room and the optional rows scroll in the rest.
    static constexpr double kCrowdedRowsShare = 0.6;

    // ---- Optional rows: their natural height (the least they get), and how far spare room grows them.
    static constexpr double kMinDequeRowHeight = 30; // a curve and its scale label, 11 px text
    static constexpr double kMaxDequeRowHeight = 44; // higher would only stretch the curve
    // With lanes shown too, deque rows take this share of the spare room: there are usually far more lanes.
    static constexpr double kDequeGrowShareWithLanes = 0.3;
    static constexpr double kMinLaneHeight = 16; // one line of 11 px text ("Ctx 1234")
    static constexpr double kMaxLaneHeight = 24; // lanes stay thinner than engine rows, which they detail
    static constexpr double kLaneBarShare = 0.75; // the lane's bar within its lane, like kBarShare

    // ---- What fit() chose for this viewport (the defaults: no height given yet).
    double curveHeight = kMinCurveHeight;
    double utilisationHeight = 0; // 0 = the utilisation row is not shown
    double rowHeight = kPreferredMinRowHeight; // engine rows
    double barHeight = 18; // round(rowHeight × kBarShare)
    size_t dequeRows = 0; // optional rows shown (0: none)
    size_t lanes = 0;
    double dequeRowHeight = kMinDequeRowHeight;
    double laneHeight = kMinLaneHeight;
    double laneBarHeight = 12; // round(laneHeight × kLaneBarShare)
    double extrasTop = 0; // top of the optional rows' visible area
    double extrasHeight = 0; // its visible height (0 = no optional rows)
    double extrasContentHeight = 0; // everything in the area (> extrasHeight: it scrolls)
    double scrollY = 0; // clamped to [0, maxScrollY()]
    double rightMargin = kRightMargin; // between the plot and the right edge (+ the scroll bar when it scrolls)

    // What fit() makes room for.
    struct Content {
        size_t engines = 0;
        size_t dequeRows = 0; // spark-deque curves under the engine rows (0: not shown)
        size_t lanes = 0; // context lanes under those (0: not shown)
        double legendHeight = kLegendHeight; // what the legend needs at the viewport's width
        bool utilisation = false; // the utilisation row under the curve
    };
    // The layout for a viewport `height` logical pixels high: the curve, the utilisation row and the
    // engine rows grow to use it (within the limits above). With optional rows the engine rows keep at least
    // kPreferredMinRowHeight (kMinRowHeightWithExtras with very many engines) and the optional rows
    // get the rest, scrolled by `scrollY` when they need more.
    static FrameLayout fit(double height, const Content& content, int scrollY = 0);

    // ---- Engine rows and the curve.
    double curveTop() const { return kRulerHeight + kRulerGap; }
    bool hasUtilisation() const { return utilisationHeight > 0; }
    double utilisationTop() const { return curveTop() + curveHeight + kRowsGap; }
    double rowsTop() const { return utilisationTop() + (hasUtilisation() ? utilisationHeight + kRowsGap : 0); }
    double rowTop(size_t engine) const { return rowsTop() + double(engine) * rowHeight; }
    double barTop(size_t engine) const { return rowTop(engine) + (rowHeight - barHeight) / 2; }
    // The engine row under y, or -1.
    long engineAt(double y, size_t engines) const;
    double contentHeight(size_t engines) const { return rowsTop() + double(engines) * rowHeight + kBottomPadding; }

    // ---- Optional rows: one scrolling area under the engine rows (empty when none is shown).
    bool hasExtras() const { return extrasHeight > 0; }
    double maxScrollY() const { return std::max(0.0, extrasContentHeight - extrasHeight); }
    double extrasBottom() const { return extrasTop + extrasHeight; }
    double dequeRowTop(size_t engine) const { return extrasTop - scrollY + double(engine) * dequeRowHeight; }
    double lanesTop() const
    {
        return extrasTop - scrollY + double(dequeRows) * dequeRowHeight + (dequeRows && lanes ? kRowsGap : 0);
    }
    double laneTop(size_t lane) const { return lanesTop() + double(lane) * laneHeight; }
    // The deque row / lane under y (only inside the visible area), or -1.
    long dequeRowAt(double y) const;
    long laneAt(double y) const;
    // Lanes [first, last) at least partly inside the visible area.
    std::pair<size_t, size_t> visibleLanes() const;
    // Bottom of everything drawn above the legend (engine rows, or the optional rows' area).
    double bottom(size_t engines) const { return hasExtras() ? extrasBottom() : contentHeight(engines); }
};

} // namespace sparkscope::ui
