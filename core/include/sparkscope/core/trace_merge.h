#pragma once
// Implementation of Trace::forEachInTimeOrder: a k-way merge over the per-engine sorted vectors.
// Included by trace.h; not meant to be included alone.
#include <queue>
#include <tuple>

namespace sparkscope::core {

template <class F>
void Trace::forEachInTimeOrder(F&& f) const
{
    struct Cursor {
        const Event* it;
        const Event* end;
        uint32_t rank; // 0 = global, 1 + engine
    };
    auto later = [](const Cursor& a, const Cursor& b) {
        return std::tie(a.it->timeNs, a.rank) > std::tie(b.it->timeNs, b.rank);
    };
    std::priority_queue<Cursor, std::vector<Cursor>, decltype(later)> heap(later);
    if (!global.empty())
        heap.push({ global.data(), global.data() + global.size(), 0 });
    for (size_t i = 0; i < engines.size(); ++i)
        if (!engines[i].empty())
            heap.push({ engines[i].data(), engines[i].data() + engines[i].size(), static_cast<uint32_t>(i + 1) });
    while (!heap.empty()) {
        Cursor c = heap.top();
        heap.pop();
        // Drain this cursor while it stays first: cheap when one engine has a long run of events.
        const uint64_t limit = heap.empty() ? UINT64_MAX : heap.top().it->timeNs;
        const uint32_t limitRank = heap.empty() ? UINT32_MAX : heap.top().rank;
        do {
            f(*c.it);
            ++c.it;
        } while (c.it != c.end && (c.it->timeNs < limit || (c.it->timeNs == limit && c.rank < limitRank)));
        if (c.it != c.end)
            heap.push(c);
    }
}

} // namespace sparkscope::core
