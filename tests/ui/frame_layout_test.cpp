#include "ui/timeline/frame_layout.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

using namespace sparkscope::ui;

TEST_CASE("frame layout fits the curve and the engine rows into the height within their limits", "[ui][frame]")
{
    using L = FrameLayout;
    // Few engines in a tall window: rows and curve at their largest (the room left under them is all
    // that is left unused); the layout depends on its input only.
    const FrameLayout tall = L::fit(2000, { 2 });
    CHECK(tall.rowHeight == L::kMaxRowHeight);
    CHECK(tall.curveHeight == L::kMaxCurveHeight);
    CHECK(tall.barHeight == std::round(L::kMaxRowHeight * L::kBarShare));
    CHECK_FALSE(tall.hasExtras());
    CHECK(tall.rightMargin == L::kRightMargin);
    CHECK(L::fit(2000, { 2 }).rowHeight == tall.rowHeight);

    // Many engines in a short window: rows get lower (whole pixels), never below the minimum, and
    // all of them fit above the legend while they can.
    const FrameLayout crowded = L::fit(600, { 48 });
    CHECK(crowded.rowHeight < L::kPreferredMinRowHeight);
    CHECK(crowded.rowHeight == std::floor(crowded.rowHeight));
    CHECK(crowded.contentHeight(48) <= 600 - L::kLegendHeight);
    CHECK(crowded.curveHeight >= L::kMinCurveHeight);
    CHECK(crowded.curveHeight <= L::kMaxCurveHeight);
    CHECK(L::fit(300, { 500 }).rowHeight == L::kMinRowHeight);

    // Rows are found where they are placed.
    CHECK(crowded.engineAt(crowded.rowTop(7) + 0.5, 48) == 7);
    CHECK(crowded.engineAt(crowded.rowsTop() - 0.5, 48) == -1);
    CHECK(crowded.engineAt(crowded.rowTop(48) + 0.5, 48) == -1);
}

TEST_CASE("frame layout gives the optional rows the room the engine rows leave, scrolling the rest", "[ui][frame]")
{
    using L = FrameLayout;
    // 4 engines, 4 deque rows and 1000 lanes at 900 px: engine rows keep their preferred height, deque
    // rows and lanes their natural one, and the area scrolls (a scroll bar at the right).
    const FrameLayout f = L::fit(900, { 4, 4, 1000 }, 250);
    CHECK(f.rowHeight >= L::kPreferredMinRowHeight);
    CHECK(f.dequeRowHeight == L::kMinDequeRowHeight);
    CHECK(f.laneHeight == L::kMinLaneHeight);
    CHECK(f.laneBarHeight == 12);
    CHECK(f.hasExtras());
    CHECK(f.extrasTop == f.contentHeight(4) - L::kBottomPadding + L::kExtrasGap);
    CHECK(f.extrasBottom() <= 900 - L::kLegendHeight);
    CHECK(f.extrasContentHeight == 4 * L::kMinDequeRowHeight + L::kRowsGap + 1000 * L::kMinLaneHeight);
    CHECK(f.rightMargin == L::kRightMargin + L::kScrollBarWidth);
    CHECK(f.scrollY == 250);
    CHECK(L::fit(900, { 4, 4, 1000 }, 1'000'000).scrollY == f.maxScrollY());

    // Two lanes in a tall window: they grow to their largest and nothing scrolls.
    const FrameLayout roomy = L::fit(1500, { 2, 0, 2 }, 40);
    CHECK(roomy.laneHeight == L::kMaxLaneHeight);
    CHECK(roomy.laneBarHeight == std::round(L::kMaxLaneHeight * L::kLaneBarShare));
    CHECK(roomy.maxScrollY() == 0);
    CHECK(roomy.scrollY == 0);
    CHECK(roomy.rightMargin == L::kRightMargin);
    CHECK(roomy.laneAt(roomy.laneTop(1) + 1) == 1);
    CHECK(roomy.dequeRowAt(roomy.laneTop(1) + 1) == -1);
}

TEST_CASE("shareHeight shares room by weight, each part within its bounds", "[ui][frame]")
{
    using V = std::vector<double>;
    CHECK(shareHeight(300, { { 1, 0, 1000 }, { 2, 0, 1000 } }) == V { 100, 200 });
    // A part capped at its maximum gives the rest to the others.
    CHECK(shareHeight(300, { { 1, 0, 50 }, { 2, 0, 1000 } }) == V { 50, 250 });
    // A part under its minimum takes it from the others.
    CHECK(shareHeight(300, { { 1, 150, 1000 }, { 2, 0, 1000 } }) == V { 150, 150 });
    // Every part at its maximum: room is left.
    CHECK(shareHeight(300, { { 1, 0, 50 }, { 1, 0, 60 } }) == V { 50, 60 });
    // The minima do not fit: every part gets its minimum.
    CHECK(shareHeight(150, { { 1, 100, 200 }, { 1, 100, 200 } }) == V { 100, 100 });
    // A part of weight 0 gets its minimum.
    CHECK(shareHeight(300, { { 0, 0, 0 }, { 1, 0, 1000 } }) == V { 0, 300 });
}

TEST_CASE("frame layout fills the height with the curve, the utilisation row and the engine rows", "[ui][frame]")
{
    using L = FrameLayout;
    for (size_t engines : { 1, 2, 4, 8 })
        for (double height : { 600.0, 900.0, 1200.0 })
            for (bool utilisation : { false, true }) {
                INFO(engines << " engines at " << height << " px, utilisation " << utilisation);
                const FrameLayout f = L::fit(height, { .engines = engines, .utilisation = utilisation });
                CHECK(f.hasUtilisation() == utilisation);
                if (utilisation) {
                    CHECK(f.utilisationHeight >= L::kMinUtilisationHeight);
                    CHECK(f.utilisationHeight <= L::kMaxUtilisationHeight);
                    CHECK(f.rowsTop() == f.utilisationTop() + f.utilisationHeight + L::kRowsGap);
                } else {
                    CHECK(f.rowsTop() == f.utilisationTop());
                }
                CHECK(f.curveHeight >= L::kMinCurveHeight);
                CHECK(f.curveHeight <= L::kMaxCurveHeight);
                CHECK(f.rowHeight >= L::kPreferredMinRowHeight);
                CHECK(f.rowHeight <= L::kMaxRowHeight);
                // What is left under the legend: only rounding to whole pixels (a pixel per part and
                // per engine row), unless every part is at its largest.
                const double left = height - (f.bottom(engines) + L::kLegendGap + L::kLegendHeight);
                CHECK(left >= -L::kBottomPadding);
                const bool allLargest = f.rowHeight == L::kMaxRowHeight && f.curveHeight == L::kMaxCurveHeight
                    && (!utilisation || f.utilisationHeight == L::kMaxUtilisationHeight);
                if (!allLargest)
                    CHECK(left <= double(engines) + 3);
            }
    // Two engines in a 900 px window (the "half the area stays empty"): the rows, the curve
    // and the utilisation row reach their largest and leave a few pixels.
    const FrameLayout two = L::fit(900, { .engines = 2, .utilisation = true });
    CHECK(two.rowHeight == L::kMaxRowHeight);
    CHECK(two.bottom(2) >= 900 - L::kLegendGap - L::kLegendHeight - 12);

    // With optional rows the utilisation row keeps a small share, and the optional rows follow it.
    const FrameLayout extras = L::fit(900, { .engines = 4, .dequeRows = 4, .lanes = 1000, .utilisation = true });
    CHECK(extras.hasUtilisation());
    CHECK(extras.utilisationHeight >= L::kMinUtilisationHeight);
    CHECK(extras.extrasTop == extras.contentHeight(4) - L::kBottomPadding + L::kExtrasGap);
    CHECK(extras.extrasBottom() <= 900 - L::kLegendHeight);
}
