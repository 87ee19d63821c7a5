#pragma once
// Implementation of Trace::forEachInTimeOrder: a k-way merge over the per-engine sorted vectors.
// Included by trace.h; not meant to be included alone.
//
// The merge hands out runs: the first source is drained while it stays ahead of every other
// source, so the per-event cost is one time comparison. Traces usually have few engines whose
// events interleave finely (runs of a handful of events), so for up to kLinearMergeSources sources
// the next run's source and its limit are found by a linear scan of the cursors, which costs much
// less per run than a binary heap's push and pop. Two sources, the common case, get a loop of their
// own that alternates runs without scanning cursors. More sources use the heap, O(log k) per run.
// (What each of these saved on the model pass: docs/performance.md, "Model and reader".)
#include <algorithm>
#include <array>
#include <queue>
#include <tuple>

namespace sparkscope::core {

namespace detail {
    inline constexpr size_t kLinearMergeSources = 8;
}

template <class F> void Trace::forEachInTimeOrder(F&& f) const
{
    struct Cursor {
        const Event* it;
        const Event* end;
        uint32_t rank; // 0 = global, 1 + engine
    };
    const size_t sources = engines.size() + 1;
    if (sources <= detail::kLinearMergeSources) {
        // Non-empty sources in rank order, so among equal times the first one found wins.
        std::array<Cursor, detail::kLinearMergeSources> cursors;
        size_t n = 0;
        if (!global.empty())
            cursors[n++] = { global.data(), global.data() + global.size(), 0 };
        for (size_t i = 0; i < engines.size(); ++i)
            if (!engines[i].empty())
                cursors[n++]
                    = { engines[i].data(), engines[i].data() + engines[i].size(), static_cast<uint32_t>(i + 1) };
        while (n > 2) {
            size_t best = 0;
            for (size_t i = 1; i < n; ++i)
                if (cursors[i].it->timeNs < cursors[best].it->timeNs)
                    best = i;
            // The run of `best` lasts while its events come before the earliest head of the others:
            // strictly before a lower-ranked source's head, at or before a higher-ranked one's.
            uint64_t limit = UINT64_MAX; // events at times < limit belong to the run
            for (size_t i = 0; i < n; ++i)
                if (i != best)
                    limit = std::min(limit, cursors[i].it->timeNs + (i > best ? 1 : 0));
            Cursor& c = cursors[best];
            do {
                f(*c.it);
                ++c.it;
            } while (c.it != c.end && c.it->timeNs < limit);
            if (c.it == c.end) {
                for (size_t i = best; i + 1 < n; ++i)
                    cursors[i] = cursors[i + 1];
                --n;
            }
        }
        if (n == 2) {
            // Two sources (a two-engine trace once its few global events are done): alternate runs
            // with one comparison per event. The lower-ranked source wins ties, so its run lasts
            // while its events are at or before the other's head, the other's while strictly before.
            const Event *a = cursors[0].it, *b = cursors[1].it;
            const Event *aEnd = cursors[0].end, *bEnd = cursors[1].end;
            for (;;) {
                if (a->timeNs <= b->timeNs) { // false at most on entry: a b run ends at a's head
                    const uint64_t bHead = b->timeNs;
                    do {
                        f(*a);
                        ++a;
                    } while (a != aEnd && a->timeNs <= bHead);
                    if (a == aEnd)
                        break;
                }
                const uint64_t aHead = a->timeNs;
                do {
                    f(*b);
                    ++b;
                } while (b != bEnd && b->timeNs < aHead);
                if (b == bEnd)
                    break;
            }
            const uint32_t aRank = cursors[0].rank, bRank = cursors[1].rank;
            n = 0;
            if (a != aEnd)
                cursors[n++] = { a, aEnd, aRank };
            if (b != bEnd)
                cursors[n++] = { b, bEnd, bRank };
        }
        if (n == 1)
            for (const Event* it = cursors[0].it; it != cursors[0].end; ++it)
                f(*it);
        return;
    }
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
