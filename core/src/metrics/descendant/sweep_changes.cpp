// The sweep's entries sorted, and the items' states at the slices' cuts (see sweep_changes.h).
#include "metrics/descendant/sweep_changes.h"

#include <limits>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

namespace sparkscope::core::detail::sweep {

namespace {

    // Hands the entries of `part` to `put` front to back, popping each: a deque frees each block as
    // it empties, so the entries are moved, not copied — the parts shrink while the sorted array
    // fills. glibc keeps freed blocks in its heaps (they are small, and not at a heap's top), so every
    // kTrimEvery entries malloc_trim hands their pages back to the system; without that, the peak
    // would hold every entry twice (docs/performance.md, "Big traces").
    template <class Put> void drain(std::deque<Entry>& part, Put put)
    {
        constexpr size_t kTrimEvery = size_t(1) << 20; // 16 MB of entries
        const bool large = part.size() >= kTrimEvery / 16; // (a small part's blocks are not worth a trim)
        size_t sinceTrim = 0;
        while (!part.empty()) {
            put(part.front());
            part.pop_front();
            if (++sinceTrim == kTrimEvery) {
                sinceTrim = 0;
#if defined(__GLIBC__)
                malloc_trim(0);
#endif
            }
        }
        std::deque<Entry>().swap(part);
#if defined(__GLIBC__)
        if (large)
            malloc_trim(0);
#endif
    }

} // namespace

// Radix sort on the key (t - first) << 2 | kind: one pass scatters the parts into 4096 buckets by
// the key's top bits (draining the parts as it goes), then each bucket — a few thousand entries,
// in cache — is sorted on the rest of the key by least-significant-digit passes through a small
// buffer. One array of the entries' size instead of two, and every pass but the first stays in
// cache; a comparison sort would cost log2(n) ~ 20 passes' worth.
Entries sortEntries(const std::vector<std::deque<Entry>*>& parts)
{
    size_t n = 0;
    int64_t lo = std::numeric_limits<int64_t>::max(), hi = std::numeric_limits<int64_t>::min();
    for (const auto* p : parts) {
        n += p->size();
        for (const Entry& e : *p)
            lo = std::min(lo, e.t), hi = std::max(hi, e.t);
    }
    Entries v { std::make_unique_for_overwrite<Entry[]>(n), n };
    Entry* const out = v.data.get();
    if (n < 4096 || uint64_t(hi - lo) >= (uint64_t(1) << 61)) {
        Entry* to = out;
        for (auto* p : parts)
            drain(*p, [&](const Entry& e) { *to++ = e; });
        std::sort(out, out + n, Before {});
        return v;
    }
    auto key = [lo](const Entry& e) { return (uint64_t(e.t - lo) << 2) | (e.what >> 30); };
    const int bits = 64 - __builtin_clzll((uint64_t(hi - lo) << 2) | 3);
    constexpr int kTopBits = 12;
    const int low = std::max(0, bits - kTopBits); // bits left below the buckets' digit
    std::vector<size_t> at((size_t(1) << kTopBits) + 1, 0);
    for (const auto* p : parts)
        for (const Entry& e : *p)
            ++at[(key(e) >> low) + 1];
    for (size_t b = 1; b < at.size(); ++b)
        at[b] += at[b - 1];
    std::vector<size_t> next(at.begin(), at.end() - 1);
    for (auto* p : parts)
        drain(*p, [&](const Entry& e) { out[next[key(e) >> low]++] = e; });
    if (low == 0)
        return v;
    const int passes = (low + 10) / 11, digit = (low + passes - 1) / passes;
    const uint64_t mask = (uint64_t(1) << digit) - 1;
    std::vector<Entry> buffer;
    std::vector<uint32_t> count(size_t(1) << digit);
    for (size_t b = 0; b + 1 < at.size(); ++b) {
        Entry *from = out + at[b], *to;
        const size_t m = at[b + 1] - at[b];
        if (m < 2)
            continue;
        if (m < 32) { // (few: a comparison sort, which is an insertion sort at this size)
            std::sort(from, from + m, Before {});
            continue;
        }
        buffer.resize(std::max(buffer.size(), m));
        to = buffer.data();
        for (int pass = 0; pass < passes; ++pass) {
            const int shift = pass * digit;
            std::fill(count.begin(), count.end(), 0);
            for (size_t i = 0; i < m; ++i)
                ++count[(key(from[i]) >> shift) & mask];
            uint32_t sum = 0;
            for (uint32_t& c : count)
                sum += std::exchange(c, sum);
            for (size_t i = 0; i < m; ++i)
                to[count[(key(from[i]) >> shift) & mask]++] = from[i];
            std::swap(from, to);
        }
        if (from != out + at[b])
            std::copy(from, from + m, out + at[b]);
    }
    return v;
}

// Only an item whose changes straddle a cut has a state there; it regenerates its changes (the same
// pieces, so the same changes as the sweep's) and sums those before the cut. Parallel over items.
std::vector<std::vector<std::pair<uint32_t, Delta4>>> statesAtCuts(
    const ParModel& m, const std::vector<int64_t>& cut, const Producers& producers)
{
    using Found = std::vector<std::vector<std::pair<uint32_t, Delta4>>>;
    const size_t nSlices = cut.size() - 1;
    struct Local {
        Found found;
        std::vector<Entry> changes;
        std::vector<Delta4> scratch;
    };
    tbb::enumerable_thread_specific<Local> locals([&] { return Local { Found(nSlices), {}, {} }; });
    tbb::parallel_for(tbb::blocked_range<uint32_t>(0, uint32_t(m.conjuncts.size())), [&](const auto& range) {
        Local& local = locals.local();
        for (uint32_t i = range.begin(); i != range.end(); ++i) {
            const ConjunctIndex k(i);
            const ConjunctInstance& g = m.conjunct(k);
            if (!g.fromSpark && !g.started)
                continue;
            const ConjunctionInstance& ci = m.conjunction(g.conjunction);
            const uint64_t endLimit = ci.ended ? ci.endNs : m.endNs;
            // (Changes begin at the spark or the start, whichever is earlier: forEachItemPiece.)
            const int64_t first
                = std::min(g.fromSpark ? I(g.sparkCreateNs) : INT64_MAX, g.started ? I(g.startNs) : INT64_MAX);
            const int64_t last = I(g.ended ? g.endNs : endLimit);
            // The cuts it straddles, first < cut[s] <= last: those after first's slice up to last's
            // (a big trace has many cuts, and most items straddle none).
            size_t s = sliceOf(cut, first) + 1;
            const size_t stop = sliceOf(cut, last) + 1;
            if (s >= stop)
                continue;
            local.changes.clear();
            itemEntries(m, k, endLimit, producers.direct.of(k), producers.transitive.of(k), local.scratch,
                [&](const Entry& e) { local.changes.push_back(e); });
            auto earlier = [](const Entry& a, const Entry& b) { return a.t < b.t; };
            if (!std::is_sorted(local.changes.begin(), local.changes.end(), earlier)) // (damaged input)
                std::stable_sort(local.changes.begin(), local.changes.end(), earlier);
            // One walk through the changes and the cuts together, summing those before each cut.
            Delta4 d {};
            auto e = local.changes.begin();
            for (; s < stop; ++s) {
                for (; e != local.changes.end() && e->t < cut[s]; ++e)
                    d.runnable += e->runnable, d.running += e->running, d.blocked += e->blocked,
                        d.blockedTc += e->blockedTc;
                if (d.runnable || d.running || d.blocked || d.blockedTc)
                    local.found[s].push_back({ i, d });
            }
        }
    });
    Found found(nSlices);
    for (Local& local : locals)
        for (size_t s = 1; s < nSlices; ++s)
            found[s].insert(found[s].end(), local.found[s].begin(), local.found[s].end());
    for (auto& list : found)
        std::sort(list.begin(), list.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    return found;
}

} // namespace sparkscope::core::detail::sweep
