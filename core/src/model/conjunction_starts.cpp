#include "sparkscope/core/conjunction_starts.h"

#include "model/intern_string.h"

#include "sparkscope/core/event_types.h"

#include <algorithm>
#include <unordered_map>

namespace sparkscope::core {

void ConjunctionStartScanner::add(const Event& e, Payload payload, uint32_t stream, uint32_t index)
{
    if (e.type == ev::MerStartParConj) {
        auto& streams = m_starts[payload.u32(8)];
        if (stream >= streams.size())
            streams.resize(size_t(stream) + 1);
        streams[stream].push_back(e.timeNs);
    } else if (e.type == ev::InternString) {
        if (auto s = detail::internedString(payload))
            m_strings.push_back({ { e.timeNs, stream, index }, std::move(*s) });
    }
}

namespace {

    // The times of several lists, each sorted, as one sorted list: merged pairwise in rounds, so
    // O(n log k) for k lists. A list that came unsorted (events later than a stream's hold-back) is
    // sorted first.
    std::vector<uint64_t> mergedTimes(const std::vector<const std::vector<uint64_t>*>& lists)
    {
        std::vector<uint64_t> out;
        std::vector<size_t> bounds { 0 };
        for (const auto* list : lists) {
            if (list->empty())
                continue;
            out.insert(out.end(), list->begin(), list->end());
            if (!std::is_sorted(out.begin() + long(bounds.back()), out.end()))
                std::sort(out.begin() + long(bounds.back()), out.end());
            bounds.push_back(out.size());
        }
        while (bounds.size() > 2) {
            std::vector<size_t> next { 0 };
            for (size_t i = 0; i + 1 < bounds.size(); i += 2) {
                const size_t end = i + 2 < bounds.size() ? bounds[i + 2] : bounds[i + 1];
                if (i + 2 < bounds.size())
                    std::inplace_merge(out.begin() + long(bounds[i]), out.begin() + long(bounds[i + 1]),
                        out.begin() + long(end));
                next.push_back(end);
            }
            bounds = std::move(next);
        }
        return out;
    }

} // namespace

ConjunctionStarts ConjunctionStartScanner::finish() const
{
    // As the model reads INTERN_STRING; a later definition of an id wins.
    std::vector<const std::pair<Place, std::pair<uint32_t, std::string>>*> strings;
    for (const auto& s : m_strings)
        strings.push_back(&s);
    std::sort(strings.begin(), strings.end(), [](auto* x, auto* y) { return x->first < y->first; }); // unique places
    std::unordered_map<uint32_t, const std::string*> names;
    for (const auto* s : strings)
        names[s->second.first] = &s->second.second;
    // A site's instants are its start times in the trace's time order, whichever static ids name it:
    // the lists of all its ids and streams, merged.
    std::map<std::string, std::vector<const std::vector<uint64_t>*>> bySite;
    for (const auto& [staticId, streams] : m_starts) {
        const auto name = names.find(staticId);
        auto& lists = bySite[name != names.end() ? *name->second : "static#" + std::to_string(staticId)];
        for (const auto& list : streams)
            lists.push_back(&list);
    }
    ConjunctionStarts out;
    for (const auto& [site, lists] : bySite)
        out.emplace(site, mergedTimes(lists));
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
