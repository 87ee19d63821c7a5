#pragma once
// Internal to the descendant sweep (descendant_sweep.cpp explains it): what it sweeps. Every item's
// changes and every measured instance's start and end are 16-byte entries, generated from the items'
// pieces, sorted by (time, kind), and summed at the slices' cuts into the items' states there.
#include "metrics/descendant/descendant_pass.h"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <memory>
#include <span>
#include <utility>
#include <vector>

namespace sparkscope::core::detail::sweep {

using I = int64_t;

// One entry of the sweep: an item's change, or the start or end of a measured instance. The
// kind is in the top two bits of `what`, ordered so that at equal times instances open and
// close before items change: a change at an instance's start counts for it; one at its end
// would be held for no time, so it need not (and passing it by keeps the instance's parent
// in a stream when a conjunct ends in the same nanosecond as the conjunction it started).
struct Entry {
    int64_t t;
    uint32_t what;
    int8_t runnable, running, blocked, blockedTc;
};
static_assert(sizeof(Entry) == 16);
inline constexpr uint32_t kStart = 0u << 30, kEnd = 1u << 30, kChange = 2u << 30, kIndexMask = (1u << 30) - 1;

struct Before {
    bool operator()(const Entry& a, const Entry& b) const
    {
        return a.t < b.t || (a.t == b.t && (a.what >> 30) < (b.what >> 30));
    }
};

// Entries in an array that is never zero-filled: each is written before it is read (zeroing
// hundreds of megabytes first costs a pass over them and most of their page faults).
struct Entries {
    std::unique_ptr<Entry[]> data;
    size_t size = 0;
    const Entry* begin() const { return data.get(); }
    const Entry* end() const { return data.get() + size; }
};

// Sorts the entries of `parts` by (time, kind), freeing the parts.
Entries sortEntries(const std::vector<std::deque<Entry>*>& parts);

struct Delta4 {
    int64_t t;
    int32_t runnable, running, blocked, blockedTc;
};

// Appends `from`..`to` of `spans` (sorted, disjoint) that overlap [from, to) as +1/-1 on one count.
template <class Set>
void overlaps(std::span<const Interval> spans, uint64_t from, uint64_t to, std::vector<Delta4>& out, Set set)
{
    auto it = std::upper_bound(
        spans.begin(), spans.end(), from, [](uint64_t t, const Interval& s) { return t < s.second; });
    for (; it != spans.end() && it->first < to; ++it) {
        Delta4 up { I(std::max(it->first, from)), 0, 0, 0, 0 }, down { I(std::min(it->second, to)), 0, 0, 0, 0 };
        set(up, 1);
        set(down, -1);
        out.push_back(up);
        out.push_back(down);
    }
}

// Item k's own changes, coalesced per time, passed to emit as entries (which pack k's value).
// [fromNs, toNs): the window the caller keeps (forEachItemPiece); changes outside it may come too.
template <class Emit>
void itemEntries(const ParModel& m, ConjunctIndex k, uint64_t endLimit, std::span<const Interval> direct,
    std::span<const Interval> transitive, std::vector<Delta4>& scratch, Emit emit, uint64_t fromNs = 0,
    uint64_t toNs = UINT64_MAX)
{
    if (direct.empty() && transitive.empty()) {
        // (Most items: no producer blocking. Their pieces come in time order and only touch
        // where one ends as the next begins, so each change merges with the one before it at
        // most: no scratch list, no sort.)
        Entry pending { INT64_MIN, kChange | k.value(), 0, 0, 0, 0 };
        auto add = [&](int64_t t, int8_t dR, int8_t dN) {
            if (t != pending.t) {
                if (pending.runnable || pending.running)
                    emit(pending);
                pending.t = t, pending.runnable = 0, pending.running = 0;
            }
            pending.runnable = int8_t(pending.runnable + dR), pending.running = int8_t(pending.running + dN);
        };
        forEachItemPiece(
            m, k, endLimit,
            [&](uint64_t from, uint64_t to, bool running, bool runnable) {
                if (to <= from || !runnable)
                    return;
                add(I(from), 1, int8_t(running));
                add(I(to), -1, int8_t(-int(running)));
            },
            fromNs, toNs);
        if (pending.runnable || pending.running)
            emit(pending);
        return;
    }
    scratch.clear();
    forEachItemPiece(
        m, k, endLimit,
        [&](uint64_t from, uint64_t to, bool running, bool runnable) {
            if (to <= from || !runnable)
                return;
            scratch.push_back({ I(from), 1, int32_t(running), 0, 0 });
            scratch.push_back({ I(to), -1, -int32_t(running), 0, 0 });
            if (!running) {
                overlaps(direct, from, to, scratch, [](Delta4& d, int v) { d.blocked = v; });
                overlaps(transitive, from, to, scratch, [](Delta4& d, int v) { d.blockedTc = v; });
            }
        },
        fromNs, toNs);
    auto earlier = [](const Delta4& a, const Delta4& b) { return a.t < b.t; };
    if (!std::is_sorted(scratch.begin(), scratch.end(), earlier)) // (pieces come in order; spans may not)
        std::sort(scratch.begin(), scratch.end(), earlier);
    for (size_t i = 0; i < scratch.size();) {
        Delta4 c = scratch[i++];
        for (; i < scratch.size() && scratch[i].t == c.t; ++i) {
            c.runnable += scratch[i].runnable, c.running += scratch[i].running;
            c.blocked += scratch[i].blocked, c.blockedTc += scratch[i].blockedTc;
        }
        // Coalesced deltas beyond int8 (many waits at one instant) go out in several entries.
        while (c.runnable || c.running || c.blocked || c.blockedTc) {
            auto take = [](int32_t& v) {
                const int32_t x = std::clamp(v, -127, 127);
                v -= x;
                return int8_t(x);
            };
            Entry e { c.t, kChange | k.value(), 0, 0, 0, 0 };
            e.runnable = take(c.runnable), e.running = take(c.running);
            e.blocked = take(c.blocked), e.blockedTc = take(c.blockedTc);
            emit(e);
        }
    }
}

// The slice whose times hold t: cut[s] <= t < cut[s + 1] (cut[0] and the last cut are the ends of
// time, so every t has one).
inline size_t sliceOf(const std::vector<int64_t>& cut, int64_t t)
{
    return size_t(std::upper_bound(cut.begin() + 1, cut.end() - 1, t) - cut.begin() - 1);
}

// The items' states at the slices' cuts: for each cut after the first (cut[s], s >= 1), the items
// with something under way there and the sum of their changes before it, in item order.
std::vector<std::vector<std::pair<uint32_t, Delta4>>> statesAtCuts(
    const ParModel& m, const std::vector<int64_t>& cut, const Producers& producers);

} // namespace sparkscope::core::detail::sweep
