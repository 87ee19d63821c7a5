#include "ui/timeline/zoom_state.h"

#include <QSignalSpy>
#include <catch2/catch.hpp>

using namespace sparkscope::ui;

TEST_CASE("zoom history goes back and forward through zoomed windows", "[ui][zoom]")
{
    ZoomState zoom;
    zoom.reset(0, 10'000);
    QSignalSpy windows(&zoom, &ZoomState::windowChanged);
    CHECK_FALSE(zoom.canGoBack());
    zoom.zoomTo({ 1000, 2000 });
    zoom.zoomTo({ 1500, 1600 });
    CHECK(windows.count() == 2);
    REQUIRE(zoom.canGoBack());
    zoom.goBack();
    CHECK(zoom.window() == TimeWindow { 1000, 2000 });
    zoom.goBack();
    CHECK(zoom.window() == TimeWindow { 0, 10'000 });
    CHECK_FALSE(zoom.canGoBack());
    zoom.goForward();
    CHECK(zoom.window() == TimeWindow { 1000, 2000 });
    // A new zoom drops the forward history.
    zoom.zoomTo({ 3000, 4000 });
    CHECK_FALSE(zoom.canGoForward());
    zoom.goBack();
    CHECK(zoom.window() == TimeWindow { 1000, 2000 });
}

TEST_CASE("panning moves the window without adding history and stays near the trace", "[ui][zoom]")
{
    ZoomState zoom;
    zoom.reset(0, 10'000);
    zoom.zoomTo({ 0, 1000 });
    zoom.moveTo({ 500, 1500 });
    CHECK(zoom.window() == TimeWindow { 500, 1500 });
    zoom.goBack();
    CHECK(zoom.window() == TimeWindow { 0, 10'000 });
    // Far past the end: clamped to the extent plus its 5% margin (10'500).
    zoom.moveTo({ 50'000, 51'000 });
    CHECK(zoom.window() == TimeWindow { 9'500, 10'500 });
}

TEST_CASE("zooming to the selection and centring on a time", "[ui][zoom]")
{
    ZoomState zoom;
    zoom.reset(0, 10'000);
    QSignalSpy selections(&zoom, &ZoomState::selectionChanged);
    zoom.setSelection(TimeWindow { 4000, 3000 }); // reversed: normalised
    CHECK(selections.count() == 1);
    REQUIRE(zoom.selection());
    CHECK(*zoom.selection() == TimeWindow { 3000, 4000 });
    zoom.zoomToSelection();
    CHECK(zoom.window() == TimeWindow { 3000, 4000 });
    zoom.centreOn(8000);
    CHECK(zoom.window() == TimeWindow { 7500, 8500 });
    zoom.zoomToFit();
    CHECK(zoom.window() == TimeWindow { 0, 10'000 });
    CHECK(zoom.canGoBack());
}
