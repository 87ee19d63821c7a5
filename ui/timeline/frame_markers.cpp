// User markers and bookmarks: labelled vertical lines across the curve and the rows.
#include "ui/timeline/frame_builders.h"

#include <algorithm>

namespace sparkscope::ui {

namespace {

    // Labels only while there is at most one marker per this many columns in the window: denser
    // labels would overlap (each is skipped anyway where the previous one has not ended).
    constexpr long kColumnsPerLabel = 40;
    constexpr qsizetype kMaxLabelLength = 40; // characters of a label drawn (the tooltip has it whole)

} // namespace

void addMarkers(Frame& f, const std::vector<Marker>& marks, const FrameColumns& c)
{
    const FrameLayout& L = f.layout;
    const TimeAxis& axis = f.axis;
    const double bottom = L.bottom(f.engines);
    auto lo = std::lower_bound(
        marks.begin(), marks.end(), axis.startNs, [](const Marker& m, int64_t t) { return m.timeNs < t; });
    auto hi = std::lower_bound(lo, marks.end(), axis.endNs, [](const Marker& m, int64_t t) { return m.timeNs < t; });
    const bool labels = (hi - lo) <= c.count / kColumnsPerLabel;
    double lastLabelEnd = -1e9;
    for (auto it = lo; it != hi; ++it) {
        const double x = axis.xOf(it->timeNs);
        f.lines[size_t(Ink::Marker)].emplace_back(x, L.curveTop(), x, bottom);
        if (labels && x > lastLabelEnd) {
            QString text = QString::fromStdString(it->label).left(kMaxLabelLength);
            f.texts.push_back({ QPointF(x + 3, L.curveTop() + 11), text, FrameText::MarkerLabel });
            lastLabelEnd = x + kCharWidth * double(text.size()) + 8;
        }
    }
}

} // namespace sparkscope::ui
