// The engine rows coloured by static id (View ▸ Colour by Static Id): each column's bar stacked as on
// the plain engine rows — running at the bottom, then GC, searching, sleeping, idle on top — with the
// running part split by the static id of the conjunct the engine was running (sequential code in one
// neutral colour, the six static ids that ran longest in colours of their own, the rest together).
// Both splits are exact per column: the states from the engine states' index, the sites from the
// sites' index (ui/analysis/site_running.h), one running integral per column boundary each.
#include "ui/timeline/frame_builders.h"
#include "ui/timeline/frame_strips.h"

#include "sparkscope/core/engine_states.h"

#include <algorithm>
#include <array>
#include <span>

namespace sparkscope::ui {

using core::EngineState;

namespace {
    constexpr size_t kSlots = kSiteSlots + 2;
    constexpr size_t kParts = kSlots + 4; // the site slots, then GC, searching, sleeping, idle
    constexpr EngineState kAbove[] = { EngineState::Gc, EngineState::Searching, EngineState::Sleeping };

    std::array<uchar, kParts> inks()
    {
        std::array<uchar, kParts> out {};
        for (size_t k = 0; k < kSlots; ++k)
            out[k] = uchar(size_t(Ink::SiteSequential) + k);
        out[kSlots] = uchar(Ink::Gc);
        out[kSlots + 1] = uchar(Ink::Searching);
        out[kSlots + 2] = uchar(Ink::Sleeping);
        out[kSlots + 3] = uchar(Ink::Idle);
        return out;
    }
} // namespace

void addSiteBar(Frame& f, const TraceData& data, const SiteRows& sites, size_t e, const FrameColumns& c)
{
    const TimeAxis& axis = f.axis;
    const double top = f.layout.barTop(e);
    const unsigned S = data.lod.stateCount();
    const int barDev = std::max(1, int(std::lround(f.layout.barHeight * c.dpr)));
    std::array<uint64_t, core::LodIndex::kMaxStates> prev {}, cur {}, sitePrev {}, siteCur {};
    StackedStrip<kParts, decltype(f.rects)> strip(c.count, barDev, inks(), f.rects, axis.left, c.width, top, c.dpr);
    const auto at = [&](int64_t t) { return uint64_t(std::max<int64_t>(0, t)); };
    data.lod.busyBefore(e, at(c.bounds[0]), std::span(prev).first(S));
    sites.lod.busyBefore(e, at(c.bounds[0]), std::span(sitePrev).first(kSlots));
    for (long i = 0; i < c.count; ++i) {
        const uint64_t b = at(c.bounds[size_t(i) + 1]);
        data.lod.busyBefore(e, b, std::span(cur).first(S));
        sites.lod.busyBefore(e, b, std::span(siteCur).first(kSlots));
        std::array<uint64_t, core::LodIndex::kMaxStates> d {}, sd {};
        uint64_t total = 0, siteTotal = 0;
        for (unsigned s = 0; s < S; ++s)
            total += d[s] = cur[s] - prev[s];
        for (size_t k = 0; k < kSlots; ++k)
            siteTotal += sd[k] = siteCur[k] - sitePrev[k];
        prev = cur;
        sitePrev = siteCur;
        if (total == 0 && c.bounds[size_t(i)] == c.bounds[size_t(i) + 1] && c.mid(i) >= data.startNs) {
            const uint64_t t = uint64_t(c.mid(i)); // below 1 ns per column: the nanosecond it falls in
            data.lod.busy(e, t, t + 1, std::span(d).first(S));
            sites.lod.busy(e, t, t + 1, std::span(sd).first(kSlots));
            total = siteTotal = 0;
            for (unsigned s = 0; s < S; ++s)
                total += d[s];
            for (size_t k = 0; k < kSlots; ++k)
                siteTotal += sd[k];
        }
        if (total == 0) {
            strip.empty(i);
            continue;
        }
        std::array<int, kParts> h {};
        const int running = strip.heightOf(d[size_t(EngineState::Running)], total, 0);
        int used = running;
        for (size_t k = 0; k < 3; ++k) {
            h[kSlots + k] = strip.heightOf(d[size_t(kAbove[k])], total, used);
            used += h[kSlots + k];
        }
        h[kSlots + 3] = barDev - used; // idle on top takes what is left, as on the plain rows
        // The running part split by site; the largest site takes what rounding leaves (all of it to
        // sequential code when the model saw nothing run here).
        if (siteTotal == 0) {
            h[0] = running;
        } else {
            const size_t largest = size_t(std::max_element(sd.begin(), sd.begin() + kSlots) - sd.begin());
            int given = 0;
            for (size_t k = 0; k < kSlots; ++k)
                if (k != largest && sd[k] > 0) {
                    h[k] = std::min(running - given,
                        std::max(1, int(std::lround(double(sd[k]) / double(siteTotal) * running))));
                    given += h[k];
                }
            h[largest] = running - given;
        }
        strip.column(i, h);
    }
    f.strips.push_back({ QRectF(axis.left, top, axis.width, double(barDev) / c.dpr), strip.finish(c.count) });
}

} // namespace sparkscope::ui
