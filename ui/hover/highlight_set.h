#pragma once
// HighlightSet: what the timeline highlights while a conjunction or conjunct is hovered (or a static
// id is chosen in the conjunction list): the running pieces of its conjuncts on every engine, and
// points for its start/end, its sparks' creation and run/steal, its futures' waits and signals.
// Built from core::instanceMembers (no metric is derived here), drawn over a Frame with the frame's
// own time axis and row layout. Cost: O(members + their context segments in the instance's span);
// `limit` caps the conjuncts visited so a hover over a root conjunction of a huge trace stays
// within one frame (truncated is then set).
#include "sparkscope/core/metrics_query.h"
#include "ui/timeline/frame.h"

#include <QColor>

#include <cstdint>
#include <vector>

class QPainter;

namespace sparkscope::ui {

struct HighlightSet {
    struct Span {
        uint16_t engine;
        int64_t startNs, endNs;
    };
    struct Point {
        uint16_t engine;
        int64_t timeNs;
    };
    std::vector<Span> spans;
    std::vector<Point> points;
    int64_t startNs = 0, endNs = 0; // extent of everything in the set
    bool truncated = false; // the limit left some of what was asked for out
    size_t instances = 0; // highlightConjunctions: the conjunction instances in the set (the first ones asked for)
    bool empty() const { return spans.empty() && points.empty(); }
};

HighlightSet highlightFor(const core::ParModel& model, core::EventOwner owner, size_t limit = 20000);
// Several conjunction instances at once (the conjunction list's "highlight all"): the first of them, in
// the order given, whose conjuncts fit in `limit` (so one frame's worth is drawn); `truncated` says
// that some were left out, and `instances` how many are in.
HighlightSet highlightConjunctions(
    const core::ParModel& model, const std::vector<core::ConjunctionIndex>& conjunctions, size_t limit = 20000);

// Draws the set over `frame` (spans as outlined bands on the engine rows, points as tall ticks).
void paintHighlight(QPainter& painter, const Frame& frame, const HighlightSet& set, const QColor& colour);

// A per-instance curve (e.g. PARCONJ_RUNNING_SELF) drawn in the frame's CPUs band over its span, on
// the same 0..engines scale as CPUS_OVER_TIME, with its name.
void paintCurveOverlay(
    QPainter& painter, const Frame& frame, const core::StepFunction& curve, const QString& name, const QColor& colour);

} // namespace sparkscope::ui
