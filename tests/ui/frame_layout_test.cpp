#include "ui/timeline/frame_layout.h"

#include <catch2/catch.hpp>

#include <cmath>

using namespace sparkscope::ui;

TEST_CASE("frame layout fits the curve and the engine rows into the height within their limits", "[ui][frame]")
{
    using L = FrameLayout;
    // Few engines in a tall window: rows and curve at their largest; the layout depends on its input only.
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
