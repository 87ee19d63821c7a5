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
//
// Optional rows (TimelineRows, off by default) sit under the engine rows in one vertically
// scrolling area: a spark-deque curve per engine (the maximum size within each column, from the
// step function's block maxima: O(columns × engines × log n)), then one lane per context — only the
// lanes inside the visible part of the area are built, each from its own level-of-detail index, so
// a trace with thousands of threads costs the same as one with forty.
//
// Where the parts are: the layout (sizes of everything, row lookups) in frame_layout.h; frame()
// in frame.cpp, which runs one builder per part of the picture (frame_builders.h: frame_ruler.cpp,
// frame_curve.cpp, frame_rows.cpp, frame_markers.cpp, frame_optional_rows.cpp, frame_legend.cpp);
// the indexed-colour strips in frame_strips.h; paintFrame in frame_paint.cpp; describeAt in
// frame_describe.cpp; inks and colours in frame_palette.cpp.
#include "ui/loading/trace_data.h"
#include "ui/timeline/frame_layout.h"
#include "ui/timeline/time_axis.h"
#include "ui/timeline/timeline_rows.h"

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
    LaneRunnable, // context lanes: a runnable context (running and blocked have their own inks)
    LaneBlocked,
    Deque, // spark deque size rows
    // The utilisation row: the loss ledger's categories, in core::LossCategory order.
    LedgerRunningInConjunct,
    LedgerRunningOutsideConjunct,
    LedgerGc,
    LedgerSearching,
    LedgerIdleWorkAvailable,
    LedgerIdleBlockedFuture,
    LedgerIdleBlockedBarrier,
    LedgerIdleBlockedOther,
    LedgerIdleNoWork,
    LedgerFaded, // the other categories while one is highlighted
    PathRunning, // the critical path's running segments (outlines)
    PathWaiting, // its waiting segments and its moves between engines
    // Engine rows coloured by static id (View ▸ Colour by Static Id): sequential code, the six static
    // ids that ran longest (slots 1 … 6 of ui/analysis/site_running.h), every other one.
    SiteSequential,
    Site1,
    Site2,
    Site3,
    Site4,
    Site5,
    Site6,
    SiteOther,
    Count
};
inline constexpr size_t kInkCount = size_t(Ink::Count);
Ink inkOfTick(TickKind kind) noexcept;
Ink inkOfLedger(core::LossCategory category) noexcept;
const char* inkName(Ink ink) noexcept;

// Colours: state and tick colours fixed (distinct, colour-blind friendly where possible), the
// rest from the widget palette so light and dark themes both work.
struct FramePalette {
    QColor background, text, grid, rowBackground, curveFill, curveLine;
    std::array<QColor, kInkCount> ink;
    static FramePalette fromPalette(const QPalette& palette);
    // `top` drawn over the opaque `under`, as one opaque colour.
    static QColor over(const QColor& top, const QColor& under);
    // The grid under the rows (fainter than the ruler's ticks it continues) on `under`.
    QColor faintGridOver(const QColor& under) const;
};

struct Viewport {
    int width = 800; // logical pixels
    int height = 600;
    double devicePixelRatio = 1.0;
    TimeWindow window;
    bool showDeques = false; // optional rows: spark deque size per engine
    bool showLanes = false; // optional rows: one lane per context
    int scrollY = 0; // logical pixels the optional rows are scrolled by (clamped by the frame)
    bool showUtilisation = false; // the utilisation row under the CPUs curve (TimelineRows::ledger)
    bool showCriticalPath = false; // the critical path over the engine rows (TimelineRows::criticalPath)
    int ledgerHighlight = -1; // a core::LossCategory drawn alone in the utilisation row (-1: all)
    bool colourBySite = false; // running time on the engine rows coloured by static id (TimelineRows::sites)
    bool operator==(const Viewport&) const = default;
};

struct FrameText {
    QPointF pos; // baseline-left
    QString text;
    // LegendGroup: the name of a group of legend items (the engine rows', the events', the utilisation row's...).
    enum Role : uint8_t { Ruler, EngineName, Context, MarkerLabel, CurveLabel, Legend, LegendGroup, Status } role = Ruler;
};

struct Frame {
    Viewport viewport;
    TimeAxis axis;
    FrameLayout layout;
    size_t engines = 0;
    std::array<std::vector<QRectF>, kInkCount> rects; // filled areas (state bars, static ids, utilisation), by colour
    std::array<std::vector<QLineF>, kInkCount> lines; // ticks and markers, grouped by colour
    std::vector<QRectF> rowBackgrounds;
    // The same state bars as `rects`, as one indexed-colour image per engine row (pixel = Ink index,
    // 255 = nothing): raster devices blit these instead of filling thousands of 1-px rectangles
    // (why: docs/performance.md, "Timeline frame: figures behind the code's choices").
    struct Strip {
        QRectF target; // logical pixels
        QImage pixels; // Format_Indexed8, device pixels
    };
    std::vector<Strip> strips;
    Strip curveStrip; // the curve as an indexed image: 1 = area under it, 2 = its outline
    Strip utilisationStrip; // the utilisation row (pixel = Ink index, 255 = nothing); its rects are in `rects`
    // The critical path: outlines of its running segments on the engine rows, and lines for its
    // waiting segments (over the engine rows) and its moves between engines.
    std::vector<QRectF> pathOutlines;
    std::vector<QLineF> pathWaits;
    std::vector<QLineF> pathMoves;
    // A trace being written: the part of engine rows its events do not cover yet, hatched.
    std::vector<QRectF> unwritten;
    QPolygonF curve; // outline: baseline, the top edge of every column, baseline
    std::vector<QRectF> curveBars; // the area under the curve, one rect per run of equal columns
    std::vector<QLineF> curveLevels; // dashed, one per whole engine
    std::vector<QLineF> rulerTicks;
    std::vector<FrameText> texts;
    std::vector<std::pair<QRectF, Ink>> legend; // swatches; Ink::Count = the CPUs curve
    bool ticksShown = false;
    // The optional rows, painted clipped to `clip` (the visible part of their scrolling area).
    struct Extras {
        QRectF clip;
        std::vector<QRectF> rowBackgrounds;
        std::vector<Strip> laneStrips; // pixel = Ink index, 255 = nothing
        std::vector<Strip> dequeStrips; // pixel 1 = area under the curve, 2 = its outline
        std::array<std::vector<QRectF>, kInkCount> rects; // the same, for vector devices
        std::vector<FrameText> texts;
        std::vector<QLineF> separators;
        size_t lanesDrawn = 0; // lanes built for this frame (the visible ones)
        int64_t dequeScale = 0; // deque size at the top of a deque row
    } extras;
    size_t primitiveCount() const;
};

// The pure frame function. `bookmarks` (labelled vertical lines) defaults to the trace's markers;
// `rows` holds the optional rows' data (drawn when the viewport shows them and they are computed).
Frame frame(const TraceData& data, const Viewport& viewport, const std::vector<Marker>* bookmarks = nullptr,
    const TimelineRows* rows = nullptr);
// Only the layout of that frame (cheap: no rows are built). The widget places its scroll bar with it.
FrameLayout frameLayout(const TraceData& data, const Viewport& viewport, const TimelineRows* rows = nullptr);

// Replays a frame. Works for any paint device (widget, QImage, QSvgGenerator, QPdfWriter).
void paintFrame(QPainter& painter, const Frame& frame, const FramePalette& palette);

// What is under (x, y) — state span or tick — as tooltip text, or an empty string.
QString describeAt(const TraceData& data, const Frame& frame, QPointF pos,
    const std::vector<Marker>* bookmarks = nullptr, const TimelineRows* rows = nullptr);

// "1.234 s", "12.5 ms", "350 µs", "120 ns" with about `digits` significant digits.
QString formatDuration(int64_t ns, int digits = 4);
// The same of a duration in nanoseconds that need not be whole (a mean, a difference of means).
QString formatDurationOf(double ns, int digits = 4);
// "1 engine", "4 engines".
QString formatEngines(size_t engines);

} // namespace sparkscope::ui
