#include "ui/compare/time_alignment.h"

#include "sparkscope/core/conjunction_starts.h"

#include <algorithm>
#include <cmath>

namespace sparkscope::ui {

RunAnchors anchorsOf(const TraceData& data)
{
    RunAnchors r;
    r.startNs = data.startNs;
    r.endNs = data.endNs;
    for (const Marker& m : data.markers)
        r.markers[m.label].push_back(m.timeNs);
    // One pass over the events rather than the model (which the metrics build too): docs/performance.md,
    // "A comparison open". A streamed trace's were gathered by its streaming pass.
    auto add = [&](const core::ConjunctionStarts& bySite) {
        for (const auto& [site, starts] : bySite)
            r.conjunctions[site].assign(starts.begin(), starts.end());
    };
    if (data.isStreamed())
        add(data.streamedConjunctionStarts);
    else
        add(core::conjunctionStartsBySite(*data.trace));
    return r;
}

int64_t TimeMap::toB(int64_t aNs) const noexcept
{
    return bAnchorNs + std::llround(double(aNs - aAnchorNs) * scale);
}

int64_t TimeMap::toA(int64_t bNs) const noexcept
{
    return aAnchorNs + std::llround(double(bNs - bAnchorNs) / scale);
}

std::optional<TimeMap> alignRuns(const RunAnchors& a, const RunAnchors& b, const Alignment& alignment)
{
    TimeMap map;
    const int64_t lengthA = std::max<int64_t>(1, a.endNs - a.startNs);
    const int64_t lengthB = std::max<int64_t>(1, b.endNs - b.startNs);
    map.scale = alignment.normalise ? double(lengthB) / double(lengthA) : 1.0;
    if (alignment.at == Alignment::At::Start) {
        map.aAnchorNs = a.startNs;
        map.bAnchorNs = b.startNs;
        return map;
    }
    const auto& inA = alignment.at == Alignment::At::Marker ? a.markers : a.conjunctions;
    const auto& inB = alignment.at == Alignment::At::Marker ? b.markers : b.conjunctions;
    const auto ia = inA.find(alignment.name), ib = inB.find(alignment.name);
    if (ia == inA.end() || ib == inB.end() || alignment.occurrence >= ia->second.size()
        || alignment.occurrence >= ib->second.size())
        return std::nullopt;
    map.aAnchorNs = ia->second[alignment.occurrence];
    map.bAnchorNs = ib->second[alignment.occurrence];
    return map;
}

std::vector<std::pair<std::string, size_t>> commonAnchors(
    const std::map<std::string, std::vector<int64_t>>& a, const std::map<std::string, std::vector<int64_t>>& b)
{
    std::vector<std::pair<std::string, size_t>> out;
    for (const auto& [name, times] : a)
        if (auto it = b.find(name); it != b.end())
            out.emplace_back(name, std::min(times.size(), it->second.size()));
    return out;
}

} // namespace sparkscope::ui
