// The legend under the rows: a swatch and a name per colour the frame can draw (the optional rows'
// colours only while they are shown), in groups named by what draws them — the engine rows' states,
// the events' ticks, the utilisation row's categories... — since two rows can name alike colours in
// their own words (the engine rows' "running" is the utilisation row's "running in a conjunct" or
// "running outside conjuncts"); wrapped into lines at the viewport's width.
#include "ui/timeline/frame_builders.h"

#include <algorithm>
#include <array>
#include <span>

namespace sparkscope::ui {

namespace {

    constexpr double kLineHeight = 16; // one line of swatches and 11 px names
    constexpr double kSwatchWidth = 12, kSwatchHeight = 10;
    constexpr double kTextX = 16; // a name's left edge right of its swatch's
    constexpr double kTextBaseline = 9.5; // a name's baseline below its swatch's top
    constexpr double kItemSpacing = 14; // after a name, before the next swatch
    // Under the last line: its text's descent, and a margin to the window's bottom edge.
    constexpr double kBottomMargin = 8;

    struct LegendItem {
        Ink ink; // Ink::Count: the CPUs curve
        QString text;
        bool group = false; // a group's name: no swatch, in bold
    };
    LegendItem group(const char* name) { return { Ink::Count, QString::fromUtf8(name), true }; }

    QString nameOf(Ink ink) { return QString::fromUtf8(inkName(ink)); }

    std::vector<LegendItem> legendItems(const Viewport& v, const TimelineRows* rows)
    {
        std::vector<LegendItem> items { { Ink::Count, QStringLiteral("CPUs running") } };
        items.push_back(group("Engines:"));
        for (Ink ink : { Ink::Running, Ink::Gc, Ink::Searching, Ink::Sleeping, Ink::Idle })
            items.push_back({ ink, nameOf(ink) });
        items.push_back(group("Events:"));
        items.push_back({ Ink::Marker, nameOf(Ink::Marker) });
        for (size_t k = 0; k < size_t(TickKind::Count); ++k)
            items.push_back({ inkOfTick(TickKind(k)), QString::fromUtf8(tickKindName(TickKind(k))) });
        if (v.showLanes || v.showDeques)
            items.push_back(group("Optional rows:"));
        if (v.showLanes)
            for (Ink ink : { Ink::LaneRunnable, Ink::LaneBlocked })
                items.push_back({ ink, nameOf(ink) });
        if (v.showDeques)
            items.push_back({ Ink::Deque, nameOf(Ink::Deque) });
        // The engine rows by static id: the sites that ran in the window (sites on screen).
        if (v.colourBySite && rows && rows->sites) {
            const SiteRows& sites = *rows->sites;
            std::array<uint64_t, core::LodIndex::kMaxStates> busy {}, sum {};
            const uint64_t a = uint64_t(std::max<int64_t>(0, v.window.startNs));
            const uint64_t b = uint64_t(std::max<int64_t>(0, v.window.endNs));
            for (size_t e = 0; e < sites.lod.engineCount(); ++e) {
                sites.lod.busy(e, a, b, std::span(busy).first(sites.lod.stateCount()));
                for (unsigned k = 0; k < sites.lod.stateCount(); ++k)
                    sum[k] += busy[k];
            }
            items.push_back(group("Static ids:"));
            for (unsigned k = 0; k < sites.lod.stateCount(); ++k) {
                if (sum[k] == 0)
                    continue;
                const Ink ink = Ink(size_t(Ink::SiteSequential) + k);
                items.push_back({ ink, k >= 1 && k <= sites.slots.size() ? QString::fromStdString(sites.slots[k - 1].site)
                                                                           : nameOf(ink) });
            }
        }
        // The utilisation row: the categories the trace has at all (a GHC eventlog has no conjuncts).
        if (v.showUtilisation && rows && rows->ledger) {
            items.push_back(group("Utilisation:"));
            for (size_t k = 0; k < core::kLossCategoryCount; ++k) {
                const core::StepFunction& curve = rows->ledger->curves[k];
                if (curve.max(curve.beginNs(), curve.endNs()) > 0) {
                    const Ink ink = inkOfLedger(core::LossCategory(k));
                    items.push_back({ ink, nameOf(ink) });
                }
            }
        }
        if (v.showCriticalPath && rows && rows->criticalPath) {
            items.push_back(group("Critical path:"));
            for (Ink ink : { Ink::PathRunning, Ink::PathWaiting })
                items.push_back({ ink, nameOf(ink) });
        }
        // A group without items (no static id ran in the window) is left out.
        std::erase_if(items, [&](const LegendItem& item) {
            const size_t i = size_t(&item - items.data());
            return item.group && (i + 1 == items.size() || items[i + 1].group);
        });
        return items;
    }

    // Lays the legend out from (kNameX, y) in lines of kLineHeight; calls place(x, y, item) for each
    // item and returns the number of lines.
    double itemWidth(const LegendItem& item)
    {
        const double text = kAverageCharWidth * double(item.text.size());
        return item.group ? text + 4 : kSwatchWidth + 6 + text + kItemSpacing;
    }

    template <class F> int layOutLegend(const std::vector<LegendItem>& items, double width, double y, F&& place)
    {
        double x = kNameX;
        int lines = 1;
        for (size_t i = 0; i < items.size(); ++i) {
            const LegendItem& item = items[i];
            const double w = itemWidth(item);
            // A group's name goes to the next line with its first item rather than end a line alone.
            const double needed = item.group && i + 1 < items.size() ? w + itemWidth(items[i + 1]) : w;
            if (x + needed > width && x > kNameX) {
                x = kNameX;
                y += kLineHeight;
                ++lines;
            }
            place(x, y, item);
            x += w;
        }
        return lines;
    }

} // namespace

double legendHeight(const Viewport& viewport, const TimelineRows* rows)
{
    const int lines = layOutLegend(
        legendItems(viewport, rows), double(viewport.width), 0, [](double, double, const LegendItem&) {});
    return std::max(FrameLayout::kLegendHeight, kLineHeight * lines + kBottomMargin);
}

void addLegend(Frame& f, const TimelineRows* rows)
{
    const double top = f.layout.bottom(f.engines) + FrameLayout::kLegendGap;
    layOutLegend(
        legendItems(f.viewport, rows), double(f.viewport.width), top, [&](double x, double y, const LegendItem& item) {
            if (item.group) {
                f.texts.push_back({ QPointF(x, y + kTextBaseline), item.text, FrameText::LegendGroup });
                return;
            }
            f.legend.emplace_back(QRectF(x, y, kSwatchWidth, kSwatchHeight), item.ink);
            f.texts.push_back({ QPointF(x + kTextX, y + kTextBaseline), item.text, FrameText::Legend });
        });
}

} // namespace sparkscope::ui
