#include "sparkscope/core/conjunction_starts.h"

#include "model/intern_string.h"

#include "sparkscope/core/event_types.h"

#include <algorithm>
#include <tuple>
#include <unordered_map>

namespace sparkscope::core {

namespace {
    // An event's place in Trace::forEachInTimeOrder: time, then the global stream before the engines'
    // (by number), then file order within its stream.
    struct Place {
        uint64_t timeNs;
        uint32_t stream; // 0: global; e + 1: engine e
        uint32_t index;
        bool operator<(const Place& o) const noexcept
        {
            return std::tie(timeNs, stream, index) < std::tie(o.timeNs, o.stream, o.index);
        }
    };
} // namespace

std::map<std::string, std::vector<uint64_t>> conjunctionStartsBySite(const Trace& trace)
{
    std::vector<std::pair<Place, uint32_t>> starts; // static id
    std::vector<std::pair<Place, const Event*>> strings;
    auto scan = [&](const std::vector<Event>& events, uint32_t stream) {
        for (size_t i = 0; i < events.size(); ++i) {
            const Event& e = events[i];
            if (e.type == ev::MerStartParConj)
                starts.push_back({ { e.timeNs, stream, uint32_t(i) }, trace.payload(e).u32(8) });
            else if (e.type == ev::InternString)
                strings.push_back({ { e.timeNs, stream, uint32_t(i) }, &e });
        }
    };
    scan(trace.global, 0);
    for (size_t engine = 0; engine < trace.engines.size(); ++engine)
        scan(trace.engines[engine], uint32_t(engine + 1));
    auto byPlace = [](const auto& x, const auto& y) { return x.first < y.first; };
    std::sort(starts.begin(), starts.end(), byPlace);
    std::sort(strings.begin(), strings.end(), byPlace);
    // As the model reads INTERN_STRING; a later definition of an id wins.
    std::unordered_map<uint32_t, std::string> names;
    for (const auto& [place, e] : strings)
        if (auto s = detail::internedString(trace.payload(*e)))
            names[s->first] = std::move(s->second);
    std::map<std::string, std::vector<uint64_t>> out;
    std::unordered_map<uint32_t, std::vector<uint64_t>*> site; // per static id, its list in `out`
    for (const auto& [place, staticId] : starts) {
        auto it = site.find(staticId);
        if (it == site.end()) {
            const auto name = names.find(staticId);
            it = site.emplace(staticId,
                         &out[name != names.end() ? name->second : "static#" + std::to_string(staticId)])
                     .first;
        }
        it->second->push_back(place.timeNs);
    }
    return out;
}

} // namespace sparkscope::core
