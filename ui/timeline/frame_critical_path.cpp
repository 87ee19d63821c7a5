// The critical path over the engine rows (View ▸ Critical Path): each running segment outlined on the
// row of the engine it ran on, each waiting segment (a spark queued, a context runnable, a resume) as
// a thick line just above the engine rows, and a thin line where the path moves from one engine to
// another. Outlines on one engine that touch within a pixel are merged, so a frame holds at most a
// few primitives per column however long the path is; the segments are found by binary search (they
// are sorted and contiguous), so a frame costs O(log n + segments in the window).
#include "ui/timeline/frame_builders.h"

#include <algorithm>

namespace sparkscope::ui {

namespace {
    constexpr double kOutlineOverhang = 1.5; // the outline sits just outside the bar: the bar stays readable
    constexpr double kWaitLineOffset = 3; // the waiting line, above the first engine row (in kRowsGap)
    constexpr double kMergePx = 1; // outlines (and waiting lines) closer than this are one
} // namespace

void addCriticalPath(Frame& f, const TimelineRows* rows, const FrameColumns& c)
{
    if (!f.viewport.showCriticalPath || !rows || !rows->criticalPath)
        return;
    const std::vector<core::PathSegment>& segments = rows->criticalPath->segments;
    const TimeAxis& axis = f.axis;
    const FrameLayout& L = f.layout;
    auto first = std::partition_point(segments.begin(), segments.end(),
        [&](const core::PathSegment& s) { return int64_t(s.toNs) <= axis.startNs; });
    const double waitY = L.rowsTop() - kWaitLineOffset;
    const double right = axis.left + axis.width;
    size_t visible = 0;
    uint16_t lastEngine = core::kNoEngine;
    for (auto it = first; it != segments.end() && int64_t(it->fromNs) < axis.endNs; ++it) {
        ++visible;
        const double x0 = std::clamp(axis.xOf(int64_t(it->fromNs)), axis.left, right);
        const double x1 = std::clamp(axis.xOf(int64_t(it->toNs)), axis.left, right);
        const bool onEngine = it->kind == core::PathKind::Running || it->kind == core::PathKind::Gc
            || it->kind == core::PathKind::Searching;
        if (onEngine && it->engine < f.engines) {
            const QRectF r(x0, L.barTop(it->engine) - kOutlineOverhang, std::max(1.0, x1 - x0),
                L.barHeight + 2 * kOutlineOverhang);
            QRectF* merge = nullptr;
            for (auto o = f.pathOutlines.rbegin(); o != f.pathOutlines.rend() && o - f.pathOutlines.rbegin() < 4; ++o)
                if (o->top() == r.top() && r.left() <= o->right() + kMergePx) {
                    merge = &*o;
                    break;
                }
            if (merge)
                merge->setRight(std::max(merge->right(), r.right()));
            else
                f.pathOutlines.push_back(r);
            if (lastEngine != core::kNoEngine && lastEngine != it->engine)
                f.pathMoves.emplace_back(x0, L.barTop(lastEngine) + L.barHeight / 2, x0, L.barTop(it->engine) + L.barHeight / 2);
            lastEngine = it->engine;
        } else if (!onEngine) {
            if (!f.pathWaits.empty() && x0 <= f.pathWaits.back().x2() + kMergePx)
                f.pathWaits.back().setP2(QPointF(std::max(x1, f.pathWaits.back().x2()), waitY));
            else
                f.pathWaits.emplace_back(x0, waitY, std::max(x1, x0 + 1), waitY);
        }
    }
    // The moves between engines only while they can be told apart.
    if (visible > size_t(c.count) / 3)
        f.pathMoves.clear();
}

} // namespace sparkscope::ui
