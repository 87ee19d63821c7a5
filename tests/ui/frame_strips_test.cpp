#include "ui/timeline/frame_strips.h"

#include <catch2/catch.hpp>

#include <QRectF>
#include <vector>

using namespace sparkscope::ui;

TEST_CASE("curve strip fills under each column's top and joins neighbouring tops with the outline", "[ui][frame]")
{
    CurveStrip strip(4, 10);
    CHECK(strip.column(0, 0.5) == 5);
    CHECK(strip.column(1, 1.0) == 0);
    strip.gap(); // column 2 draws nothing
    CHECK(strip.column(3, 0.0) == 9); // an empty column still gets its outline pixel
    CHECK(strip.height() == 10);
    const QImage image = strip.finish();
    REQUIRE(image.format() == QImage::Format_Indexed8);
    REQUIRE(image.size() == QSize(4, 10));
    auto px = [&](int x, int y) { return int(image.pixelIndex(x, y)); };
    for (int y = 0; y < 10; ++y) {
        CHECK(px(0, y) == (y < 5 ? 255 : y == 5 ? CurveStrip::kOutline : CurveStrip::kArea));
        // From its top (row 0) down to the previous column's top (row 5): the outline.
        CHECK(px(1, y) == (y <= 5 ? CurveStrip::kOutline : CurveStrip::kArea));
        CHECK(px(2, y) == 255);
        // After a gap the outline starts again: no join with column 1.
        CHECK(px(3, y) == (y < 9 ? 255 : CurveStrip::kOutline));
    }
}

TEST_CASE("stacked strip stacks the parts from the bottom and merges equal columns into rectangles", "[ui][frame]")
{
    std::array<std::vector<QRectF>, 8> rects;
    // 4 device columns of 0.5 logical px from x = 100, a bar 10 device px high at y = 20, 2 device px per px.
    StackedStrip<2, decltype(rects)> strip(4, 10, { 3, 7 }, rects, 100, 0.5, 20, 2.0);
    CHECK(strip.heightOf(0, 1000, 0) == 0);
    CHECK(strip.heightOf(1, 1000, 0) == 1); // tiny but not zero: one pixel
    CHECK(strip.heightOf(999, 1000, 9) == 1); // never more than what is left
    CHECK(strip.heightOf(500, 1000, 0) == 5);
    strip.column(0, { 4, 6 });
    strip.column(1, { 4, 6 });
    strip.empty(2);
    strip.column(3, { 10, 0 });
    const QImage image = strip.finish(4);
    REQUIRE(image.size() == QSize(4, 10));
    for (int y = 0; y < 10; ++y) {
        CHECK(int(image.pixelIndex(0, y)) == (y >= 6 ? 3 : 7));
        CHECK(int(image.pixelIndex(1, y)) == (y >= 6 ? 3 : 7));
        CHECK(int(image.pixelIndex(2, y)) == 255);
        CHECK(int(image.pixelIndex(3, y)) == 3);
    }
    // Ink 3: columns 0-1 merged (bottom 4 device px), then column 3 (the whole bar).
    REQUIRE(rects[3].size() == 2);
    CHECK(rects[3][0] == QRectF(100, 23, 1, 2));
    CHECK(rects[3][1] == QRectF(101.5, 20, 0.5, 5));
    // Ink 7: columns 0-1 only (column 3 has none of it).
    REQUIRE(rects[7].size() == 1);
    CHECK(rects[7][0] == QRectF(100, 20, 1, 3));
}
