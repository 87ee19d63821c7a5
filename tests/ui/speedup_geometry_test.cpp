// The speed-up chart's geometry (speedup_geometry.h), worked out by hand: P on a log₂ axis from 1 to
// 64 across the plot, speed-up on a linear axis from 0 to a round value above everything drawn.
#include "ui/analysis/speedup_geometry.h"

#include <catch2/catch.hpp>

#include <cmath>

using namespace sparkscope::ui;

TEST_CASE("the speed-up chart puts engine counts on a log axis and speed-ups on a linear one", "[ui][chart]")
{
    SpeedupChartData d;
    d.predicted = { { 1, 1 }, { 2, 1.9 }, { 4, 3.5 }, { 8, 5.5 }, { 64, 7.2 } };
    d.upper = { { 1, 1 }, { 64, 8 } };
    d.lower = { { 1, 0.5 }, { 64, 6 } };
    d.measured = SpeedupPoint { 4, 3.2 };
    // 448 × 242 px: the plot is [48, 48 + 392] × [8, 8 + 200] (the left margin 48, the bottom 34).
    const SpeedupGeometry g = speedupGeometry(d, QSizeF(kChartLeft + 392 + kChartPad, kChartPad + 200 + kChartBottom));
    CHECK(g.plot == QRectF(48, 8, 392, 200));
    // The largest value is 8 (the upper bound at 64): 8 × 1.05 = 8.4 rounds up to 10.
    CHECK(g.maxSpeedup == 10);
    // P = 1 at the left edge, 64 at the right, 8 half-way (log₂ 8 = 3 of 6).
    REQUIRE(g.predicted.size() == 5);
    CHECK(g.predicted[0].x() == Approx(48));
    CHECK(g.predicted[3].x() == Approx(48 + 196));
    CHECK(g.predicted[4].x() == Approx(48 + 392));
    CHECK(g.predicted[2].x() == Approx(48 + 392.0 / 3)); // P = 4: 2 of 6
    // Speed-up 5.5 of 10: 110 px above the bottom (208).
    CHECK(g.predicted[3].y() == Approx(208 - 110));
    CHECK(g.upper[1].y() == Approx(208 - 160));
    CHECK(g.lower[0].y() == Approx(208 - 10));
    REQUIRE(g.measured);
    CHECK(g.measured->x() == Approx(48 + 392.0 / 3));
    CHECK(g.measured->y() == Approx(208 - 64));
    // Ticks: 1, 2, 4, …, 64 along x; 0, 2, …, 10 along y.
    REQUIRE(g.xTicks.size() == 7);
    CHECK(g.xTicks[6].second == QStringLiteral("64"));
    CHECK(g.xTicks[6].first == Approx(48 + 392));
    REQUIRE(g.yTicks.size() == 6);
    CHECK(g.yTicks[5].second == QStringLiteral("10"));
    CHECK(g.yTicks[5].first == Approx(8));
    CHECK(g.whatIf.empty());
}

TEST_CASE("the speed-up chart's scale is a round number above its largest value", "[ui][chart]")
{
    auto top = [](double value) {
        SpeedupChartData d;
        d.predicted = { { 1, value } };
        return speedupGeometry(d, QSizeF(300, 200)).maxSpeedup;
    };
    CHECK(top(0) == 1);
    CHECK(top(0.9) == 1);
    CHECK(top(1.5) == 2);
    CHECK(top(3) == 5);
    CHECK(top(19.5) == 50); // 19.5 × 1.05 = 20.5
    CHECK(top(40) == 50);
    // Out-of-range engine counts are clamped onto the axis.
    SpeedupChartData d;
    d.predicted = { { 0.5, 1 }, { 128, 1 } };
    const SpeedupGeometry g = speedupGeometry(d, QSizeF(300, 200));
    CHECK(g.predicted[0].x() == Approx(g.plot.left()));
    CHECK(g.predicted[1].x() == Approx(g.plot.right()));
}
