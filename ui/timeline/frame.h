#pragma once
// The timeline's geometry as a pure function of (trace data, viewport): frame(). Painting only
// replays a Frame (paintFrame), so a paint never parses or walks events, and a Frame is cached
// per viewport by the widget and reused by the exporters.
//
// Cost: O(columns × engines × log n) — each engine row asks the level-of-detail index for the
// exact busy time per state of every device-pixel column (one running integral per column
// boundary), the CPUs curve asks the step function's prefix integral once per column, and ticks
// are drawn only when fewer than a third of the columns would hold one. Nothing depends on the
// number of events in the window.
#include "ui/loading/trace_data.h"
#include "ui/timeline/time_axis.h"

#include <QColor>
#include <QImage>
#include <QLineF>
#include <QPalette>
#include <QPolygonF>
#include <QRectF>
#include <QString>

#include <array>
#include <vector>

class QPainter;

namespace sparkscope::ui {

// Everything the frame draws in one colour. States first, in core::EngineState order.
enum class Ink : uint8_t {
    Idle,
    Running,
    Gc,
    Searching,
    Sleeping,
    TickSparkCreate,
    TickSparkRun,
    TickSparkSteal,
    TickConjunction,
    TickFuture,
    TickThread,
    TickMessage,
    TickOther,
    Marker,
    Count
};
inline constexpr size_t kInkCount = size_t(Ink::Count);
Ink inkOfTick(TickKind kind) noexcept;
const char* inkName(Ink ink) noexcept;

// Colours: state and tick colours fixed (distinct, colour-blind friendly where possible), the
// rest from the widget palette so light and dark themes both work.
struct FramePalette {
    QColor background, text, grid, rowBackground, curveFill, curveLine;
    std::array<QColor, kInkCount> ink;
    static FramePalette fromPalette(const QPalette& palette);
};

struct Viewport {
    int width = 800; // logical pixels
    int height = 600;
    double devicePixelRatio = 1.0;
    TimeWindow window;
    bool operator==(const Viewport&) const = default;
};

// Vertical layout of the rows, in logical pixels (shared by the frame, hit testing and the widget).
struct FrameLayout {
    static constexpr double kGutter = 86; // engine names
    static constexpr double kRulerHeight = 26;
    double kCurveHeight = 90; // the rest grow with the available height (see fitTo)
    double kRowHeight = 26;
    double kBarHeight = 18;
    static constexpr double kRowsGap = 8;

    double curveTop() const { return kRulerHeight + 4; }
    double rowsTop() const { return curveTop() + kCurveHeight + kRowsGap; }
    double rowTop(size_t engine) const { return rowsTop() + double(engine) * kRowHeight; }
    double barTop(size_t engine) const { return rowTop(engine) + (kRowHeight - kBarHeight) / 2; }
    // The engine row under y, or -1.
    long engineAt(double y, size_t engines) const;
    double contentHeight(size_t engines) const { return rowsTop() + double(engines) * kRowHeight + 4; }
    static constexpr double kLegendHeight = 40;
    // Grows the curve and the rows to use a viewport of `height` logical pixels (within limits).
    void fitTo(double height, size_t engines);
};

struct FrameText {
    QPointF pos; // baseline-left
    QString text;
    enum Role : uint8_t { Ruler, EngineName, Context, MarkerLabel, CurveLabel, Legend } role = Ruler;
};

struct Frame {
    Viewport viewport;
    TimeAxis axis;
    FrameLayout layout;
    size_t engines = 0;
    std::array<std::vector<QRectF>, kInkCount> rects; // grouped by colour
    std::array<std::vector<QLineF>, kInkCount> lines; // ticks and markers, grouped by colour
    std::vector<QRectF> rowBackgrounds;
    // The same state bars as `rects`, as one indexed-colour image per engine row (pixel = Ink index,
    // 255 = nothing): raster devices blit these instead of filling thousands of 1-px rectangles.
    struct Strip {
        QRectF target; // logical pixels
        QImage pixels; // Format_Indexed8, device pixels
    };
    std::vector<Strip> strips;
    Strip curveStrip; // the curve as an indexed image: 1 = area under it, 2 = its outline
    QPolygonF curve; // outline: baseline, the top edge of every column, baseline
    std::vector<QRectF> curveBars; // the area under the curve, one rect per run of equal columns
    std::vector<QLineF> curveLevels; // dashed, one per whole engine
    std::vector<QLineF> rulerTicks;
    std::vector<FrameText> texts;
    std::vector<std::pair<QRectF, Ink>> legend; // swatches; Ink::Count = the CPUs curve
    bool ticksShown = false;
    size_t primitiveCount() const;
};

// The pure frame function. `bookmarks` (labelled vertical lines) defaults to the trace's markers.
Frame frame(const TraceData& data, const Viewport& viewport, const std::vector<Marker>* bookmarks = nullptr);

// Replays a frame. Works for any paint device (widget, QImage, QSvgGenerator, QPdfWriter).
void paintFrame(QPainter& painter, const Frame& frame, const FramePalette& palette);

// What is under (x, y) — state span or tick — as tooltip text, or an empty string.
QString describeAt(
    const TraceData& data, const Frame& frame, QPointF pos, const std::vector<Marker>* bookmarks = nullptr);

// "1.234 s", "12.5 ms", "350 µs", "120 ns" with about `digits` significant digits.
QString formatDuration(int64_t ns, int digits = 4);

} // namespace sparkscope::ui
