#include "ui/hover/highlight_set.h"
#include "ui/timeline/direct_paint.h"

#include <QPainter>

#include <algorithm>
#include <cmath>
#include <vector>

namespace sparkscope::ui {

namespace {
    // The engine a context was running on at t, or kNoEngine.
    uint16_t engineAt(const core::ParModel& m, core::ContextIndex context, uint64_t t)
    {
        if (!context.valid())
            return core::kNoEngine;
        const auto& segs = m.context(context).segments;
        auto it = std::upper_bound(
            segs.begin(), segs.end(), t, [](uint64_t x, const core::ContextSegment& s) { return x < s.startNs; });
        if (it == segs.begin())
            return core::kNoEngine;
        --it;
        return it->state == core::ContextState::Running ? it->engine : core::kNoEngine;
    }

    // Adds conjunct k's points and running pieces; `budget` bounds the context segments visited (a
    // root conjunct's context may run the whole program in millions of segments). False when the
    // budget ran out before the conjunct's end.
    bool addConjunct(const core::ParModel& m, core::ConjunctIndex k, HighlightSet& out, size_t& budget)
    {
        const core::ConjunctInstance& g = m.conjunct(k);
        if (g.fromSpark)
            out.points.push_back({ g.sparkEngine, int64_t(g.sparkCreateNs) });
        if (!g.started)
            return true;
        if (g.fromSpark)
            out.points.push_back({ g.startEngine, int64_t(g.startNs) });
        const uint64_t end = g.ended ? g.endNs : m.endNs;
        if (g.ended)
            out.points.push_back({ g.endEngine, int64_t(g.endNs) });
        if (!g.context.valid())
            return true;
        const auto& segs = m.context(g.context).segments;
        auto it = std::upper_bound(segs.begin(), segs.end(), g.startNs,
            [](uint64_t x, const core::ContextSegment& s) { return x < s.startNs; });
        if (it != segs.begin())
            --it;
        for (; it != segs.end() && it->startNs < end; ++it) {
            if (budget == 0) {
                out.truncated = true;
                return false;
            }
            --budget;
            if (it->state != core::ContextState::Running)
                continue;
            const uint64_t next = (it + 1 != segs.end()) ? (it + 1)->startNs : end;
            const uint64_t a = std::max(it->startNs, g.startNs), b = std::min(next, end);
            if (b > a)
                out.spans.push_back({ it->engine, int64_t(a), int64_t(b) });
        }
        return true;
    }

    // Returns how many of members.conjuncts, from the first, are drawn whole.
    size_t addMembers(const core::ParModel& m, const core::InstanceMembers& members, HighlightSet& out, size_t limit)
    {
        for (core::ConjunctionIndex j : members.conjunctions) {
            const core::ConjunctionInstance& c = m.conjunction(j);
            out.points.push_back({ c.startEngine, int64_t(c.startNs) });
            if (c.ended)
                out.points.push_back({ c.endEngine, int64_t(c.endNs) });
        }
        size_t n = 0, whole = 0, budget = 16 * limit;
        out.truncated = out.truncated || members.truncated;
        for (core::ConjunctIndex k : members.conjuncts) {
            if (++n > limit) {
                out.truncated = true;
                break;
            }
            if (addConjunct(m, k, out, budget) && whole + 1 == n)
                whole = n;
        }
        for (core::FutureIndex f : members.futures) {
            const core::FutureInstance& fi = m.future(f);
            if (fi.signalled && fi.signalConjunct.valid())
                out.points.push_back(
                    { engineAt(m, m.conjunct(fi.signalConjunct).context, fi.signalNs), int64_t(fi.signalNs) });
            for (const core::FutureWait& w : fi.waits)
                out.points.push_back({ w.engine, int64_t(w.timeNs) });
        }
        std::erase_if(out.points, [](const HighlightSet::Point& p) { return p.engine == core::kNoEngine; });
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        for (const auto& s : out.spans)
            lo = std::min(lo, s.startNs), hi = std::max(hi, s.endNs);
        for (const auto& p : out.points)
            lo = std::min(lo, p.timeNs), hi = std::max(hi, p.timeNs);
        if (lo <= hi)
            out.startNs = lo, out.endNs = hi;
        return whole;
    }
} // namespace

HighlightSet highlightFor(const core::ParModel& m, core::EventOwner owner, size_t limit)
{
    HighlightSet out;
    addMembers(m, core::instanceMembers(m, owner, { limit }), out, limit);
    return out;
}

HighlightSet highlightConjunctions(
    const core::ParModel& m, const std::vector<core::ConjunctionIndex>& conjunctions, size_t limit)
{
    core::InstanceMembers members;
    for (core::ConjunctionIndex j : conjunctions) {
        const core::ConjunctionInstance& c = m.conjunction(j);
        // Whole instances only: one cut inside would be drawn as if it had fewer conjuncts.
        if (members.conjuncts.size() + c.conjuncts.size() > limit && !members.conjunctions.empty())
            break;
        members.conjunctions.push_back(j);
        members.conjuncts.insert(members.conjuncts.end(), c.conjuncts.begin(), c.conjuncts.end());
        const auto futures = m.futuresOf(j);
        members.futures.insert(members.futures.end(), futures.begin(), futures.end());
    }
    HighlightSet out;
    // An instance counts as shown when every conjunct of it is drawn whole (the segment budget can
    // stop inside one: the ticks of the ones after it are drawn, their running pieces not).
    size_t whole = addMembers(m, members, out, limit);
    for (core::ConjunctionIndex j : members.conjunctions) {
        const size_t k = m.conjunction(j).conjuncts.size();
        if (k > whole)
            break;
        whole -= k;
        ++out.instances;
    }
    out.truncated = out.truncated || members.conjunctions.size() < conjunctions.size();
    return out;
}

void paintHighlight(QPainter& painter, const Frame& f, const HighlightSet& set, const QColor& colour)
{
    const TimeAxis& ax = f.axis;
    const double left = ax.left, right = ax.left + ax.width;
    painter.save();
    painter.setClipRect(QRectF(left, 0, ax.width, f.layout.contentHeight(f.engines)));
    QColor fill = colour;
    fill.setAlpha(45);
    QColor edge = colour;
    edge.setAlpha(200);
    // The spans are merged per engine at whole pixels before anything is drawn, and the ticks kept one
    // per engine and pixel: a "Highlight all" of thousands of instances holds ~160,000 spans, which as
    // rectangles cost a frame seconds (docs/performance.md), while the merged runs are bounded by the
    // plot's pixels. Columns run from 4 px left of the plot, so a span's 2 px minimum and its edges
    // stay whole at the plot's borders. A span covers the columns from its start's, rounded down, to
    // its end's, rounded up.
    const double origin = left - 4;
    const size_t columns = size_t(std::ceil(ax.width)) + 9;
    auto column = [&](double x) { return size_t(std::clamp(x - origin, 0.0, double(columns))); };
    std::vector<int32_t> depth; // per engine and column + 1: spans starting minus spans ending there
    std::vector<uint8_t> ticked; // per engine and column
    for (const auto& s : set.spans) {
        if (s.engine >= f.engines || s.endNs < ax.startNs || s.startNs > ax.endNs)
            continue;
        if (depth.empty())
            depth.assign(size_t(f.engines) * (columns + 1), 0);
        const double x0 = std::max(left - 2, ax.xOf(s.startNs)), x1 = std::min(right + 2, ax.xOf(s.endNs));
        const size_t c0 = column(std::floor(x0)), c1 = std::max(c0 + 2, column(std::ceil(std::max(x0, x1))));
        int32_t* row = depth.data() + size_t(s.engine) * (columns + 1);
        ++row[c0];
        --row[std::min(c1, columns)];
    }
    for (const auto& p : set.points) {
        if (p.engine >= f.engines || p.timeNs < ax.startNs || p.timeNs > ax.endNs)
            continue;
        if (ticked.empty())
            ticked.assign(size_t(f.engines) * columns, 0);
        ticked[size_t(p.engine) * columns + std::min(columns - 1, column(std::round(ax.xOf(p.timeNs))))] = 1;
    }
    // A fill and four 1.5 px edges per merged run (the edges centred on its border, as a 1.5 px pen
    // draws them, and over all the fills); a tick is a 2 px line across its row.
    const double w = 1.5, h = w / 2;
    std::vector<QRectF> fills, edges, ticks;
    for (size_t e = 0; e < f.engines && !depth.empty(); ++e) {
        const int32_t* row = depth.data() + e * (columns + 1);
        int32_t open = 0;
        size_t runStart = 0;
        for (size_t c = 0; c <= columns; ++c) {
            const int32_t before = open;
            open += row[c];
            if (before == 0 && open > 0)
                runStart = c;
            else if (before > 0 && open == 0) {
                const QRectF r(origin + double(runStart), f.layout.barTop(e) - 2, double(c - runStart),
                    f.layout.barHeight + 4);
                fills.push_back(r);
                edges.emplace_back(r.left() - h, r.top() - h, r.width() + w, w);
                edges.emplace_back(r.left() - h, r.bottom() - h, r.width() + w, w);
                edges.emplace_back(r.left() - h, r.top() + h, w, r.height() - w);
                edges.emplace_back(r.right() - h, r.top() + h, w, r.height() - w);
            }
        }
    }
    for (size_t e = 0; e < f.engines && !ticked.empty(); ++e)
        for (size_t c = 0; c < columns; ++c)
            if (ticked[e * columns + c])
                ticks.emplace_back(origin + double(c) - 1, f.layout.barTop(e) - 3, 2.0, f.layout.barHeight + 6);
    fillRects(painter, fills, fill);
    fillRects(painter, edges, edge);
    fillRects(painter, ticks, edge);
    painter.restore();
}

void paintCurveOverlay(
    QPainter& painter, const Frame& f, const core::StepFunction& curve, const QString& name, const QColor& colour)
{
    if (curve.empty() || f.engines == 0)
        return;
    const TimeAxis& ax = f.axis;
    const double bottom = f.layout.curveTop() + f.layout.curveHeight;
    const double scale = f.layout.curveHeight / double(f.engines);
    auto yOf = [&](int64_t v) { return bottom - double(std::clamp<int64_t>(v, 0, int64_t(f.engines) + 1)) * scale; };
    QPolygonF line;
    const auto& steps = curve.steps();
    // Steps narrower than a pixel are merged by taking each pixel's maximum, so spikes stay visible.
    for (size_t i = 0; i < steps.size(); ++i) {
        const int64_t a = steps[i].timeNs, b = i + 1 < steps.size() ? steps[i + 1].timeNs : curve.endNs();
        if (b < ax.startNs || a > ax.endNs)
            continue;
        const double x0 = std::clamp(ax.xOf(a), ax.left, ax.left + ax.width);
        const double x1 = std::clamp(ax.xOf(b), ax.left, ax.left + ax.width);
        const double y = yOf(steps[i].value);
        if (!line.isEmpty() && std::abs(line.back().x() - x0) < 0.5 && x1 - x0 < 0.5) {
            if (y < line.back().y())
                line.back().setY(y);
            continue;
        }
        if (!line.isEmpty())
            line << QPointF(x0, line.back().y());
        line << QPointF(x0, y) << QPointF(x1, y);
    }
    if (line.isEmpty())
        return;
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing, false);
    QColor band = colour;
    band.setAlpha(18);
    const double xs = std::clamp(ax.xOf(curve.beginNs()), ax.left, ax.left + ax.width);
    const double xe = std::clamp(ax.xOf(curve.endNs()), ax.left, ax.left + ax.width);
    fillRect(painter, QRectF(xs, f.layout.curveTop(), std::max(1.0, xe - xs), f.layout.curveHeight), band);
    painter.setPen(QPen(colour, 2));
    painter.drawPolyline(line);
    QFont font = painter.font();
    font.setPixelSize(11);
    font.setBold(true);
    painter.setFont(font);
    const QRectF label(
        std::max(ax.left, xs) + 4, f.layout.curveTop() + 2, QFontMetricsF(font).horizontalAdvance(name) + 8, 15);
    QColor back = Qt::white;
    back.setAlpha(200);
    painter.fillRect(label, back);
    painter.drawText(label, Qt::AlignCenter, name);
    painter.restore();
}

} // namespace sparkscope::ui
