#include "sparkscope/core/conjunction_starts.h"

#include "model/intern_string.h"

#include "sparkscope/core/event_types.h"

#include <algorithm>
#include <unordered_map>

namespace sparkscope::core {

void ConjunctionStartScanner::add(const Event& e, Payload payload, uint32_t stream, uint32_t index)
{
    if (e.type == ev::MerStartParConj) {
        m_starts.push_back({ { e.timeNs, stream, index }, payload.u32(8) });
    } else if (e.type == ev::InternString) {
        if (auto s = detail::internedString(payload))
            m_strings.push_back({ { e.timeNs, stream, index }, std::move(*s) });
    }
}

ConjunctionStarts ConjunctionStartScanner::finish()
{
    auto byPlace = [](const auto& x, const auto& y) { return x.first < y.first; };
    std::sort(m_starts.begin(), m_starts.end(), byPlace);
    std::sort(m_strings.begin(), m_strings.end(), byPlace); // places are unique
    // As the model reads INTERN_STRING; a later definition of an id wins.
    std::unordered_map<uint32_t, std::string> names;
    for (auto& [place, s] : m_strings)
        names[s.first] = std::move(s.second);
    ConjunctionStarts out;
    std::unordered_map<uint32_t, std::vector<uint64_t>*> site; // per static id, its list in `out`
    for (const auto& [place, staticId] : m_starts) {
        auto it = site.find(staticId);
        if (it == site.end()) {
            const auto name = names.find(staticId);
            it = site.emplace(staticId,
                         &out[name != names.end() ? name->second : "static#" + std::to_string(staticId)])
                     .first;
        }
        it->second->push_back(place.timeNs);
    }
    *this = {};
    return out;
}

ConjunctionStarts conjunctionStartsBySite(const Trace& trace)
{
    ConjunctionStartScanner scanner;
    auto scan = [&](const std::vector<Event>& events, uint32_t stream) {
        for (size_t i = 0; i < events.size(); ++i) {
            const Event& e = events[i];
            if (e.type == ev::MerStartParConj || e.type == ev::InternString)
                scanner.add(e, trace.payload(e), stream, uint32_t(i));
        }
    };
    scan(trace.global, 0);
    for (size_t engine = 0; engine < trace.engines.size(); ++engine)
        scan(trace.engines[engine], uint32_t(engine + 1));
    return scanner.finish();
}

} // namespace sparkscope::core
