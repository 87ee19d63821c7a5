// The engine rows: per row a background, the engine's name, its state bar (the exact time in each
// state within every column, from the level-of-detail index: one running integral per column
// boundary), the running contexts' numbers where spans are wide enough, and instant-event ticks once
// they can be told apart.
#include "ui/timeline/frame_builders.h"
#include "ui/timeline/frame_strips.h"

#include "sparkscope/core/engine_states.h"

#include <algorithm>
#include <array>
#include <span>

namespace sparkscope::ui {

using core::EngineState;

namespace {

    constexpr double kMinNamePitch = 14; // px: names on every row while rows are this high, else on every k-th
    constexpr double kTickOverhang = 3; // ticks reach this far over and under the bar: seen on a full bar
    // Ticks are drawn only while fewer than one per this many columns are in the window: denser
    // ticks cannot be told apart (and nothing then depends on the number of events in the window).
    constexpr size_t kColumnsPerTick = 3;

    // Stacked from the bottom of the bar: running first, idle on top.
    constexpr EngineState kStack[]
        = { EngineState::Running, EngineState::Gc, EngineState::Searching, EngineState::Sleeping, EngineState::Idle };
    constexpr std::array<uchar, 5> kInks { uchar(kStack[0]), uchar(kStack[1]), uchar(kStack[2]), uchar(kStack[3]),
        uchar(kStack[4]) };

    // Engine e's bar: stacked state heights per column (device px), run-length merged.
    void addStateBar(Frame& f, const TraceData& data, size_t e, const FrameColumns& c)
    {
        const TimeAxis& axis = f.axis;
        const double top = f.layout.barTop(e);
        const unsigned S = data.lod.stateCount();
        const int barDev = std::max(1, int(std::lround(f.layout.barHeight * c.dpr)));
        std::array<uint64_t, core::LodIndex::kMaxStates> prev {}, cur {};
        StackedStrip<5, decltype(f.rects)> strip(c.count, barDev, kInks, f.rects, axis.left, c.width, top, c.dpr);
        data.lod.busyBefore(e, uint64_t(std::max<int64_t>(0, c.bounds[0])), std::span(prev).first(S));
        for (long i = 0; i < c.count; ++i) {
            data.lod.busyBefore(e, uint64_t(std::max<int64_t>(0, c.bounds[size_t(i) + 1])), std::span(cur).first(S));
            uint64_t total = 0;
            std::array<uint64_t, core::LodIndex::kMaxStates> d {};
            for (unsigned s = 0; s < S; ++s) {
                d[s] = cur[s] - prev[s];
                total += d[s];
            }
            prev = cur;
            if (total == 0 && c.bounds[size_t(i)] == c.bounds[size_t(i) + 1] && c.mid(i) >= data.startNs) {
                // Zoomed in below 1 ns per column: the column shows the nanosecond it falls in.
                const uint64_t t = uint64_t(c.mid(i));
                data.lod.busy(e, t, t + 1, std::span(d).first(S));
                for (unsigned s = 0; s < S; ++s)
                    total += d[s];
            }
            if (total == 0) {
                strip.empty(i);
                continue;
            }
            // The fraction of the column's *covered* time in each state; tiny non-zero parts get at
            // least one device pixel so that rare activity stays visible.
            std::array<int, 5> h {};
            int used = 0;
            for (size_t k = 0; k < 4; ++k) {
                h[k] = strip.heightOf(d[size_t(kStack[k])], total, used);
                used += h[k];
            }
            h[4] = barDev - used;
            strip.column(i, h);
        }
        f.strips.push_back({ QRectF(axis.left, top, axis.width, double(barDev) / c.dpr), strip.finish(c.count) });
    }

    // Engine e's instant events as ticks across its bar, once they can be told apart.
    void addTicks(Frame& f, const TraceData& data, size_t e, long columns)
    {
        const TimeAxis& axis = f.axis;
        const auto window = data.events(e, axis.startNs, axis.endNs, size_t(columns) / kColumnsPerTick);
        if (!window)
            return;
        f.ticksShown = true;
        const double top = f.layout.barTop(e);
        for (const core::Event& ev : window->events) {
            if (tickKindOf(ev.type) == TickKind::Count)
                continue;
            const double x = axis.xOf(int64_t(ev.timeNs));
            f.lines[size_t(inkOfTick(tickKindOf(ev.type)))].emplace_back(
                x, top - kTickOverhang, x, top + f.layout.barHeight + kTickOverhang);
        }
    }

} // namespace

void addRunningSpanLabels(std::vector<FrameText>& out, const core::LodIndex& lod, size_t row, uint8_t running,
    const TimeAxis& axis, long columns, double baseline, const std::function<QString(uint32_t)>& labelOf)
{
    const auto spans = lod.spans(row);
    const size_t i0 = lod.firstSpanEndingAfter(row, uint64_t(std::max<int64_t>(0, axis.startNs)));
    const size_t limit = size_t(columns) / 4;
    size_t visible = 0;
    for (size_t i = i0; i < spans.size() && int64_t(spans[i].startNs) < axis.endNs && visible <= limit; ++i)
        ++visible;
    if (visible > limit)
        return;
    for (size_t i = i0; i < spans.size() && int64_t(spans[i].startNs) < axis.endNs; ++i) {
        const core::LodSpan& s = spans[i];
        if (s.state != running)
            continue;
        const QString text = labelOf(s.label);
        if (text.isEmpty())
            continue;
        const double x0 = std::max(axis.left, axis.xOf(int64_t(s.startNs)));
        const double x1 = std::min(axis.left + axis.width, axis.xOf(int64_t(s.endNs)));
        if (x1 - x0 >= kCharWidth * double(text.size()) + 6)
            out.push_back({ QPointF(x0 + 3, baseline), text, FrameText::Context });
    }
}

void addEngineRows(Frame& f, const TraceData& data, const FrameColumns& c, const TimelineRows* rows)
{
    const SiteRows* sites = f.viewport.colourBySite && rows && rows->sites ? rows->sites.get() : nullptr;
    const FrameLayout& L = f.layout;
    // Names on every row while rows are at least kMinNamePitch high, else on every k-th (1, 2, 5, 10, ...).
    const size_t nameStep = everyNth(L.rowHeight, kMinNamePitch);
    for (size_t e = 0; e < f.engines; ++e) {
        const double top = L.barTop(e);
        f.rowBackgrounds.emplace_back(0, L.rowTop(e), double(f.viewport.width), L.rowHeight);
        if (e % nameStep == 0)
            f.texts.push_back({ QPointF(kNameX, std::max(top + L.barHeight - 4, top + 9)),
                nameStep == 1 ? QStringLiteral("Engine %1").arg(e) : QStringLiteral("E%1").arg(e),
                FrameText::EngineName });
        if (sites && e < sites->lod.engineCount())
            addSiteBar(f, data, *sites, e, c);
        else
            addStateBar(f, data, e, c);
        addRunningSpanLabels(f.texts, data.lod, e, uint8_t(EngineState::Running), f.axis, c.count,
            top + L.barHeight - 5,
            [](uint32_t context) { return context == core::kNoContext ? QString() : QString::number(context); });
        addTicks(f, data, e, c.count);
    }
}

} // namespace sparkscope::ui
