#include "ui/timeline/time_axis.h"

#include <catch2/catch.hpp>

using namespace sparkscope::ui;

TEST_CASE("time axis maps times to pixels and back", "[ui][axis]")
{
    // 1000 ns over 500 px starting at x = 100: 2 ns per pixel.
    const TimeAxis axis { 1000, 2000, 100, 500 };
    CHECK(axis.nsPerPixel() == 2.0);
    CHECK(axis.xOf(1000) == 100.0);
    CHECK(axis.xOf(2000) == 600.0);
    CHECK(axis.xOf(1500) == 350.0);
    CHECK(axis.timeAt(350.0) == 1500);
    CHECK(axis.timeAt(100.25) == 1001); // 0.5 ns rounds to nearest (away from zero)
    for (int64_t t = 1000; t <= 2000; t += 7)
        CHECK(axis.timeAt(axis.xOf(t)) == t);
}

TEST_CASE("time axis column boundaries are shared integers that cover the window exactly", "[ui][axis]")
{
    const TimeAxis axis { 17, 17 + 1'000'003, 0, 333 };
    const long n = 777;
    CHECK(axis.boundary(0, n) == 17);
    CHECK(axis.boundary(n, n) == 17 + 1'000'003);
    for (long i = 0; i < n; ++i)
        CHECK(axis.boundary(i, n) <= axis.boundary(i + 1, n));
}

TEST_CASE("zooming keeps the anchor time at the same screen position", "[ui][axis]")
{
    const TimeWindow w { 0, 1000 };
    // Anchor at 250 (a quarter in): zooming in 2x gives span 500 with 250 still a quarter in.
    const TimeWindow z = zoomWindow(w, 2.0, 250);
    CHECK(z == TimeWindow { 125, 625 });
    CHECK(zoomWindow(z, 0.5, 250) == w);
    // Never below the minimum span.
    CHECK(zoomWindow(w, 1e9, 500, 10).spanNs() == 10);
}

TEST_CASE("clamping a window keeps it inside the trace when it fits", "[ui][axis]")
{
    CHECK(clampWindow({ -50, 50 }, 0, 1000) == TimeWindow { 0, 100 });
    CHECK(clampWindow({ 950, 1050 }, 0, 1000) == TimeWindow { 900, 1000 });
    CHECK(clampWindow({ -10, 5000 }, 0, 1000) == TimeWindow { 0, 1000 });
}
