#include "ui/analysis/site_running.h"

#include <algorithm>
#include <map>

namespace sparkscope::ui {

namespace {
    // Calls f(engine, from, to, staticId) for each running stretch of each context, in the model's order.
    template <class F> void forEachRunning(const core::ParModel& model, F&& f)
    {
        for (const core::ContextTimeline& c : model.contexts)
            for (size_t i = 0; i < c.segments.size(); ++i) {
                const core::ContextSegment& s = c.segments[i];
                if (s.state != core::ContextState::Running || s.engine == core::kNoEngine)
                    continue;
                const uint64_t end = i + 1 < c.segments.size() ? c.segments[i + 1].startNs : model.endNs;
                if (end <= s.startNs)
                    continue;
                uint32_t staticId = 0;
                if (model.contains(s.top)) {
                    const core::ConjunctionIndex j = model.conjunct(s.top).conjunction;
                    if (model.contains(j))
                        staticId = model.conjunction(j).staticId;
                }
                f(s.engine, s.startNs, end, staticId);
            }
    }

    std::vector<SiteTime> sorted(const core::ParModel& model, const std::map<uint32_t, uint64_t>& byId)
    {
        std::vector<SiteTime> out;
        for (const auto& [id, ns] : byId)
            if (ns > 0)
                out.push_back({ id, id == 0 ? std::string("outside every conjunct") : model.staticName(id), ns });
        std::sort(out.begin(), out.end(),
            [](const SiteTime& a, const SiteTime& b) { return a.ns != b.ns ? a.ns > b.ns : a.staticId < b.staticId; });
        return out;
    }
} // namespace

std::vector<SiteTime> runningBySite(const core::ParModel& model, uint64_t fromNs, uint64_t toNs)
{
    std::map<uint32_t, uint64_t> byId;
    forEachRunning(model, [&](uint16_t, uint64_t a, uint64_t b, uint32_t id) {
        a = std::max(a, fromNs);
        b = std::min(b, toNs);
        if (b > a)
            byId[id] += b - a;
    });
    return sorted(model, byId);
}

std::shared_ptr<const SiteRows> computeSiteRows(
    const core::ParModel& model, size_t engines, uint64_t originNs, uint64_t endNs)
{
    auto rows = std::make_shared<SiteRows>();
    std::vector<SiteTime> all = sorted(model, [&] {
        std::map<uint32_t, uint64_t> byId;
        forEachRunning(model, [&](uint16_t, uint64_t a, uint64_t b, uint32_t id) { byId[id] += b - a; });
        return byId;
    }());
    std::map<uint32_t, uint8_t> slotOf; // static id -> colour slot
    for (const SiteTime& s : all)
        if (s.staticId != 0 && rows->slots.size() < kSiteSlots) {
            rows->slots.push_back(s);
            slotOf[s.staticId] = uint8_t(rows->slots.size());
        }
    std::vector<std::vector<core::LodSpan>> spans(engines);
    forEachRunning(model, [&](uint16_t e, uint64_t a, uint64_t b, uint32_t id) {
        if (e >= engines)
            return;
        const auto it = slotOf.find(id);
        const uint8_t slot = id == 0 ? 0 : it != slotOf.end() ? it->second : uint8_t(kSiteSlots + 1);
        spans[e].push_back({ a, b, id, slot });
    });
    rows->lod = core::LodIndex::build(std::move(spans), kSiteSlots + 2, originNs, endNs);
    return rows;
}

} // namespace sparkscope::ui
