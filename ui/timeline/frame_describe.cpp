// describeAt: the tooltip text for what lies under a point of a frame — a marker, the curve, a tick,
// an engine's state span (or the exact mix of states under the pixel), a deque row or a context
// lane. It finds rows with the frame's own layout and axis, so it describes what was drawn there.
#include "ui/timeline/frame.h"

#include "sparkscope/core/engine_states.h"
#include "sparkscope/core/event_fields.h"
#include "sparkscope/core/event_types.h"

#include <algorithm>
#include <cmath>

namespace sparkscope::ui {

using core::EngineState;

namespace {

    constexpr double kMarkerReach = 3; // px either side of a marker's line that name it
    constexpr double kTickReach = 3; // px either side of the pointer searched for ticks (the nearest under 4 px wins)
    // Ticks are shown, so the few pixels around the pointer hold few events; a bound all the same.
    constexpr size_t kMaxEventsNearTick = 4096;

    QString at(int64_t ns) { return formatDuration(ns, 9); }

    // The hatched part of the rows is lost with a truncated file's tail, not still to be written.
    bool lostTail(const TraceData& data) { return data.trace && data.trace->truncated; }

    // The time range under the pixel at x: [a, b), at least 1 ns.
    std::pair<int64_t, int64_t> pixelRange(const TimeAxis& axis, double x)
    {
        const int64_t a = axis.timeAt(x - 0.5);
        return { a, std::max(a + 1, axis.timeAt(x + 0.5)) };
    }

    QString describeDequeRow(const Frame& f, QPointF pos, long e, const TimelineRows* rows)
    {
        if (!rows || !rows->deques || size_t(e) >= rows->deques->engines.size())
            return QStringLiteral("Spark deque of engine %1: being computed").arg(e);
        const int64_t t = f.axis.timeAt(pos.x());
        const auto [a, b] = pixelRange(f.axis, pos.x());
        const core::StepFunction& curve = rows->deques->engines[size_t(e)];
        return QStringLiteral("Spark deque of engine %1\nat %2: %3 sparks\nmax %4 over [%5, %6)")
            .arg(e)
            .arg(at(t))
            .arg(curve.valueAt(t))
            .arg(curve.max(a, b))
            .arg(at(a), at(b));
    }

    QString describeLane(const Frame& f, QPointF pos, long k, const TimelineRows* rows)
    {
        if (!rows || !rows->lanes || size_t(k) >= rows->lanes->size())
            return QStringLiteral("Context lanes are being computed");
        const TimeAxis& axis = f.axis;
        const int64_t t = axis.timeAt(pos.x());
        const auto [a, b] = pixelRange(axis, pos.x());
        const uint32_t id = rows->lanes->ids[size_t(k)];
        QString name = QString::number(id);
        if (const std::string& label = rows->lanes->labels[size_t(k)]; !label.empty())
            name += QStringLiteral(" \"%1\"").arg(QString::fromStdString(label).left(60));
        const core::LodIndex& lod = rows->lanes->lanes[size_t(k)];
        auto stateName = [](uint8_t s) {
            return s == uint8_t(core::ContextLaneState::Running) ? QStringLiteral("running")
                : s == uint8_t(core::ContextLaneState::Blocked)  ? QStringLiteral("blocked")
                                                                 : QStringLiteral("runnable");
        };
        std::array<uint64_t, core::kContextLaneStateCount> busy {};
        lod.busy(0, uint64_t(std::max<int64_t>(0, a)), uint64_t(std::max<int64_t>(0, b)), busy);
        const core::LodSpan* span = lod.spanAt(0, uint64_t(std::max<int64_t>(0, t)));
        uint64_t total = 0;
        for (uint64_t v : busy)
            total += v;
        if (span && (busy[span->state] == total || double(span->endNs - span->startNs) >= axis.nsPerPixel())) {
            QString what = stateName(span->state);
            if (span->state == uint8_t(core::ContextLaneState::Running))
                what += QStringLiteral(" on engine %1").arg(span->label);
            // One multi-argument arg(): a "%1" inside a thread's label stays text.
            return QStringLiteral("Context %1: %2\nfrom %3 for %4")
                .arg(name, what, at(int64_t(span->startNs)), formatDuration(int64_t(span->endNs - span->startNs)));
        }
        if (total == 0)
            return QStringLiteral("Context %1: does not exist at %2").arg(name, at(t));
        QString text = QStringLiteral("Context %1, %2 from %3:").arg(name, formatDuration(b - a), at(a));
        for (uint8_t s = 0; s < core::kContextLaneStateCount; ++s)
            if (busy[s])
                text += QStringLiteral("\n  %1 %2%")
                            .arg(stateName(s))
                            .arg(100.0 * double(busy[s]) / double(b - a), 0, 'f', 1);
        return text;
    }

    // Tooltip text for the optional rows (deque rows and context lanes) at pos, or "".
    QString describeOptionalRow(const Frame& f, QPointF pos, const TimelineRows* rows)
    {
        if (const long e = f.layout.dequeRowAt(pos.y()); e >= 0)
            return describeDequeRow(f, pos, e, rows);
        if (const long k = f.layout.laneAt(pos.y()); k >= 0)
            return describeLane(f, pos, k, rows);
        return {};
    }

    // The tick of engine e nearest to pos (within 4 px), or "".
    QString describeTick(const TraceData& data, const TimeAxis& axis, size_t e, QPointF pos)
    {
        const auto window = data.events(
            e, axis.timeAt(pos.x() - kTickReach), axis.timeAt(pos.x() + kTickReach) + 1, kMaxEventsNearTick);
        if (!window)
            return {};
        const core::Event* best = nullptr;
        double bestDist = kTickReach + 1;
        for (const core::Event& ev : window->events) {
            if (tickKindOf(ev.type) == TickKind::Count)
                continue;
            const double dist = std::abs(axis.xOf(int64_t(ev.timeNs)) - pos.x());
            if (dist < bestDist) {
                bestDist = dist;
                best = &ev;
            }
        }
        if (!best)
            return {};
        const core::Event& ev = *best;
        return QStringLiteral("%1 on engine %2\nat %3\n%4")
            .arg(QString::fromUtf8(core::eventTypeName(ev.type).data(), qsizetype(core::eventTypeName(ev.type).size())))
            .arg(e)
            .arg(at(int64_t(ev.timeNs)))
            .arg(QString::fromStdString(core::formatFields(*window->trace, ev)));
    }

    // A pixel of engine e's row that holds one span describes it; a pixel that holds many shows its
    // exact mix of states.
    QString describeEngineSpan(const TraceData& data, const TimeAxis& axis, size_t e, QPointF pos)
    {
        const int64_t t = axis.timeAt(pos.x());
        const auto [a, b] = pixelRange(axis, pos.x());
        std::array<uint64_t, core::LodIndex::kMaxStates> busy {};
        data.lod.busy(e, uint64_t(std::max<int64_t>(0, a)), uint64_t(std::max<int64_t>(0, b)), busy);
        const core::LodSpan* span = data.lod.spanAt(e, uint64_t(std::max<int64_t>(0, t)));
        if (!span)
            return {};
        const auto stateName = [](uint8_t s) { return QString::fromUtf8(inkName(Ink(s))); };
        uint64_t total = 0;
        for (unsigned s = 0; s < data.lod.stateCount(); ++s)
            total += busy[s];
        const bool onePart = total == 0 || busy[span->state] == total;
        if (onePart || double(span->endNs - span->startNs) >= axis.nsPerPixel()) {
            QString what = stateName(span->state);
            if (span->state == uint8_t(EngineState::Running) && span->label != core::kNoContext)
                what += QStringLiteral(" context %1").arg(span->label);
            return QStringLiteral("%1 on engine %2\nfrom %3 for %4")
                .arg(what)
                .arg(e)
                .arg(at(int64_t(span->startNs)))
                .arg(formatDuration(int64_t(span->endNs - span->startNs)));
        }
        QString text = QStringLiteral("Engine %1, %2 from %3:").arg(e).arg(formatDuration(b - a)).arg(at(a));
        for (unsigned s = 0; s < data.lod.stateCount(); ++s)
            if (busy[s])
                text += QStringLiteral("\n  %1 %2%")
                            .arg(stateName(uint8_t(s)))
                            .arg(100.0 * double(busy[s]) / double(total), 0, 'f', 1);
        return text;
    }

    // The utilisation row's pixel: its ledger, in engines on average and shares.
    QString describeUtilisation(const TimeAxis& axis, const core::LedgerCurves& curves, QPointF pos)
    {
        const auto [a, b] = pixelRange(axis, pos.x());
        const core::LossLedger l = curves.ledger(a, b);
        const uint64_t total = l.totalNs();
        if (total == 0)
            return {};
        const double span = double(std::min(b, curves.endNs) - std::max(a, curves.beginNs));
        QString text = QStringLiteral("Engines over [%1, %2):")
                           .arg(at(std::max(a, curves.beginNs)), at(std::min(b, curves.endNs)));
        for (size_t k = 0; k < core::kLossCategoryCount; ++k)
            if (l.ns[k])
                text += QStringLiteral("\n  %1: %2 engines (%3%)")
                            .arg(QString::fromUtf8(inkName(inkOfLedger(core::LossCategory(k)))))
                            .arg(double(l.ns[k]) / span, 0, 'g', 3) // three figures: 0.002, not 0.00
                            .arg(100.0 * double(l.ns[k]) / double(total), 0, 'f', 1);
        return text;
    }

    // The critical path's segment at pos: a running one on the engine row under pos, or a waiting one
    // on the line above the engine rows.
    QString describePathSegment(const Frame& f, const CriticalPathRows& path, QPointF pos, long engine)
    {
        const TimeAxis& axis = f.axis;
        const int64_t t = axis.timeAt(pos.x());
        const auto& segments = path.segments;
        auto it = std::partition_point(
            segments.begin(), segments.end(), [&](const core::PathSegment& s) { return int64_t(s.toNs) <= t; });
        if (it == segments.end() || int64_t(it->fromNs) > t)
            return {};
        const bool waiting = engine < 0;
        if (waiting
                == (it->kind == core::PathKind::Running || it->kind == core::PathKind::Gc
                    || it->kind == core::PathKind::Searching)
            || (!waiting && it->engine != engine))
            return {};
        const QString kind
            = QString::fromUtf8(core::pathKindKey(it->kind).data()).replace(QLatin1Char('_'), QLatin1Char(' '));
        const QString where = it->staticId == 0
            ? QStringLiteral("outside every conjunct")
            : QStringLiteral("%1, conjunct %2").arg(path.siteName(it->staticId)).arg(it->position);
        return QStringLiteral("Critical path: %1, context %2, %3\nfrom %4 for %5")
            .arg(kind)
            .arg(it->context)
            .arg(where, at(int64_t(it->fromNs)), formatDuration(int64_t(it->toNs - it->fromNs)));
    }

} // namespace

QString describeAt(
    const TraceData& data, const Frame& f, QPointF pos, const std::vector<Marker>* bookmarks, const TimelineRows* rows)
{
    const std::vector<Marker>& marks = bookmarks ? *bookmarks : data.markers;
    const TimeAxis& axis = f.axis;
    const FrameLayout& L = f.layout;
    if (pos.x() < axis.left || pos.x() > axis.left + axis.width)
        return {};
    const int64_t t = axis.timeAt(pos.x());

    for (const Marker& m : marks) {
        if (std::abs(axis.xOf(m.timeNs) - pos.x()) <= kMarkerReach && pos.y() >= L.curveTop())
            return QStringLiteral("Bookmark \"%1\"\nat %2").arg(QString::fromStdString(m.label), at(m.timeNs));
        if (m.timeNs > t + int64_t(4 * axis.nsPerPixel()))
            break;
    }

    if (L.hasExtras() && pos.y() >= L.extrasTop)
        return pos.y() < L.extrasBottom() ? describeOptionalRow(f, pos, rows) : QString();

    if (pos.y() >= L.curveTop() && pos.y() < L.curveTop() + L.curveHeight) {
        const auto [a, b] = pixelRange(axis, pos.x());
        const int64_t lo = std::max(a, data.startNs), hi = std::min(b, data.endNs);
        if (lo >= hi)
            return {};
        QString text = QStringLiteral("CPUs running: %1 on average\nover [%2, %3)")
                           .arg(double(data.cpus.integral(lo, hi)) / double(hi - lo), 0, 'f', 2)
                           .arg(at(lo), at(hi));
        if (rows && rows->unwritten && hi > writtenByAllUntil(*rows->unwritten))
            text += lostTail(data) ? QStringLiteral("\nNot every engine's events are in the file here (the trace is "
                                                    "truncated): an engine whose events were lost counts in its "
                                                    "last known state.")
                                   : QStringLiteral("\nNot every engine's events are written yet here: an engine "
                                                    "behind counts in its last known state.");
        return text;
    }

    if (L.hasUtilisation() && pos.y() >= L.utilisationTop() && pos.y() < L.utilisationTop() + L.utilisationHeight) {
        if (rows && rows->unwritten && t < data.endNs && t >= writtenByAllUntil(*rows->unwritten))
            return lostTail(data)
                ? QStringLiteral("Not every engine's events are in the file here: the trace is truncated, and "
                                 "the categories count an engine whose events were lost as idle.")
                : QStringLiteral("Not every engine's events are written yet here: the trace is still being "
                                 "written, and the categories count an engine whose events are not written "
                                 "yet as idle.");
        return rows && rows->ledger ? describeUtilisation(axis, *rows->ledger, pos) : QString();
    }

    const long engine = L.engineAt(pos.y(), f.engines);
    const bool pathShown = f.viewport.showCriticalPath && rows && rows->criticalPath;
    if (pathShown && engine < 0 && pos.y() >= L.rowsTop() - 6 && pos.y() < L.rowsTop())
        return describePathSegment(f, *rows->criticalPath, pos, -1);
    if (engine < 0)
        return {};
    if (rows && rows->unwritten && size_t(engine) < rows->unwritten->size() && t >= (*rows->unwritten)[size_t(engine)]
        && t < data.endNs) {
        const int64_t from = (*rows->unwritten)[size_t(engine)];
        if (lostTail(data))
            return QStringLiteral("Engine %1: no events after %2\nThe trace is truncated, and an engine's events "
                                  "reach the file when its buffer fills: what it did after %2 was in the part that "
                                  "is lost (it may have been running all along).")
                .arg(engine)
                .arg(at(from));
        return QStringLiteral("Engine %1: not written yet after %2\nThe trace is still being written, and an "
                              "engine's events reach the file when its buffer fills: what it did after %2 is not "
                              "known yet (it may have been running all along).")
            .arg(engine)
            .arg(at(from));
    }
    if (pathShown)
        if (QString seg = describePathSegment(f, *rows->criticalPath, pos, engine); !seg.isEmpty()) {
            const QString span = describeEngineSpan(data, axis, size_t(engine), pos);
            return span.isEmpty() ? seg : seg + QStringLiteral("\n\n") + span;
        }
    if (f.ticksShown)
        if (QString tick = describeTick(data, axis, size_t(engine), pos); !tick.isEmpty())
            return tick;
    QString text = describeEngineSpan(data, axis, size_t(engine), pos);
    // Coloured by static id: which code that running stretch was.
    if (f.viewport.colourBySite && rows && rows->sites && size_t(engine) < rows->sites->lod.engineCount())
        if (const core::LodSpan* s = rows->sites->lod.spanAt(size_t(engine), uint64_t(std::max<int64_t>(0, t)))) {
            QString site = QStringLiteral("outside every conjunct");
            if (s->label != 0) {
                site = QStringLiteral("static id %1").arg(s->label);
                for (const SiteTime& slot : rows->sites->slots)
                    if (slot.staticId == s->label)
                        site = QString::fromStdString(slot.site);
            }
            text += QStringLiteral("\nrunning %1").arg(site);
        }
    return text;
}

} // namespace sparkscope::ui
