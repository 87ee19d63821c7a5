#pragma once
// Internal to the descendant sweep (descendant_sweep.cpp explains it): what a slice keeps while it
// sweeps. The open instances' counts and lazy integrals (Open), the streams that carry changes past
// chains of ancestors in one step (Stream), and the read-only inputs every slice shares (Sweep).
#include "metrics/descendant/sweep_changes.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <utility>
#include <vector>

namespace sparkscope::core::detail::sweep {

// Where a change climbs to: the conjunction, the conjunct position in it, and the items under
// that position.
struct Link {
    uint32_t conjunction = kNoIndex;
    uint32_t branch = 0;
    int64_t items = 0;
};

// Prefix sums over conjunct positions (1-based inside).
inline void fenwickAdd(int32_t* f, uint32_t n, uint32_t i, int32_t d)
{
    for (++i; i <= n; i += i & (0u - i))
        f[i] += d;
}
inline int64_t fenwickPrefix(const int32_t* f, uint32_t i) // sum over positions [0, i)
{
    int64_t s = 0;
    for (; i > 0; i -= i & (0u - i))
        s += f[i];
    return s;
}

// Integrals and maxima of one instance over the part of its life a slice saw.
struct Raw {
    int64_t rd = 0, nd = 0, outOfOrder = 0, blocking = 0, blockingTc = 0, either = 0;
    int64_t rdMax = 0, ndMax = 0, avLow = INT64_MIN; // avLow: max of RUNNING_SELF_AND_DESC - CPUS
    void combine(const Raw& o)
    {
        rd += o.rd, nd += o.nd, outOfOrder += o.outOfOrder, blocking += o.blocking;
        blockingTc += o.blockingTc, either += o.either;
        rdMax = std::max(rdMax, o.rdMax), ndMax = std::max(ndMax, o.ndMax), avLow = std::max(avLow, o.avLow);
    }
};

// An open instance's state in a slice.
//
// Integrals are kept lazily: for each curve Q, its value and off = sum of dQ x t over its
// changes, so that its integral up to T is Q x T - off (exact in wrapping 64-bit arithmetic as
// long as the integral itself fits). An ancestor visit then costs a few additions and
// multiplications and no integration step. Maxima need the values held for some time, so they
// are taken when a visit comes later than the previous one (`last`).
//
// Most conjunctions have a few conjuncts (parfib: 2). Up to kSmall, the counts per position sit
// in fixed arrays padded with zeros and the pair changes are sums over the positions before and
// after the changed one, with no branch on the data: a sweep makes so many ancestor visits that
// mispredicted branches would cost more than the arithmetic (docs/performance.md, "Descendant pass:
// figures behind the code's choices"). Wider conjunctions keep Fenwick trees over positions:
// O(log n) per change. What a visit touches sits in the first two cache
// lines; the blocking pairs, rarely non-zero, are touched only while some producer is blocking.
inline constexpr uint32_t kSmall = 4;
struct alignas(64) Open {
    int64_t last = 0; // values are held since here
    int32_t rd = 0, nd = 0, rdMax = 0, ndMax = 0;
    int32_t avLow = INT32_MIN; // max of RUNNING_SELF_AND_DESC - CPUS
    int32_t total = 0; // N, items in its subtree
    uint32_t conjunction = 0, n = 0;
    int32_t blocked = 0; // blocking producers under it (direct + transitive)
    bool isOpen = false;
    std::array<int32_t, kSmall> w {}, r {}; // n <= kSmall
    int64_t pairs = 0, either = 0; // out-of-order pairs P and either-running pairs E
    std::array<uint64_t, 4> off {}; // rd, nd, P, E
    // (second cache line ends here)
    std::array<int32_t, kSmall> bw {}, bt {}; // n <= kSmall
    int64_t blockPairs = 0, blockTcPairs = 0;
    uint64_t offBlock = 0, offBlockTc = 0;
    int64_t end = 0; // the instance's end: nothing is integrated past it
    bool straddles = false; // opened at the slice's start: its figures are partial
    std::vector<int32_t> fenwick; // n > kSmall: trees w, r, bw, bt (n + 1 each), then r_i (n)
    // The nearest measured ancestor open when this one opened (its Open, and the link into it,
    // whose conjunction tells whether that Open still holds it).
    uint32_t parent = kNoIndex;
    Link parentLink;
    // Streams (see Stream): the one this instance subscribes to (then its figures lag behind it
    // until settled), through which position; the one it feeds; its neighbours among the
    // subscribers of its stream (`below` may be the feeder).
    uint32_t stream = kNoIndex, feeds = kNoIndex, above = kNoIndex, below = kNoIndex;
    Link via;
    uint64_t joinIndex = 0;
    std::array<int64_t, 5> joinSum {};
    std::array<uint64_t, 5> joinSumT {};
    // Has had changes from two sides at once: it no longer subscribes when a child opens (absorb
    // still takes it in once its other positions are empty).
    bool branch = false;

    // The curves' figures up to time t (at most the end).
    Raw figures(int64_t t) const
    {
        auto integral = [t](int64_t value, uint64_t off) { return int64_t(uint64_t(value) * uint64_t(t) - off); };
        return { integral(rd, off[0]), integral(nd, off[1]), integral(pairs, off[2]), integral(blockPairs, offBlock),
            integral(blockTcPairs, offBlockTc), integral(either, off[3]), rdMax, ndMax,
            avLow == INT32_MIN ? INT64_MIN : avLow };
    }
};

// Suffix maxima of a growing sequence: entries (index, value) with decreasing values.
class SuffixMax {
public:
    void clear() { m_v.clear(); }
    void push(uint64_t index, int64_t value)
    {
        while (!m_v.empty() && m_v.back().second <= value)
            m_v.pop_back();
        m_v.push_back({ index, value });
    }
    // The maximum over the entries from `index` on (there must be one).
    int64_t since(uint64_t index) const
    {
        return std::lower_bound(m_v.begin(), m_v.end(), index, [](const auto& e, uint64_t i) {
            return e.first < i;
        })->second;
    }

private:
    std::vector<std::pair<uint64_t, int64_t>> m_v;
};

// A stream: the changes that leave one open instance (its feeder) and climb through a chain of
// ancestors above it (its subscribers), each through a single position, while nothing else
// changes them. Such an ancestor's figures follow from the stream alone: its counts at the
// other positions are constant, so each change's effect on it is linear in the change, and its
// maxima are its value at joining plus the maximum of the stream's running totals since. So a
// change climbs past all subscribers at once, and a subscriber is brought up to date (settled)
// only when it leaves: when a change reaches it by another way, or its feeder closes.
//
// On parfib most of the tree is one such chain per engine: a change visits its own instance,
// its stream, and the few instances where two engines' work meet, instead of every ancestor (the
// counts: docs/performance.md).
struct Stream {
    std::array<int64_t, 5> sum {}; // running totals of dR, dN, dw, dB, dT
    std::array<uint64_t, 5> sumT {}; // and of each times t (wrapping)
    int64_t lastT = 0; // the totals are held since here
    uint64_t pushed = 0; // held totals recorded
    SuffixMax rd, nd, av; // held sum[0], sum[1], and sum[1] - the minimum of CPUS while held
    uint32_t feeder = kNoIndex, low = kNoIndex, top = kNoIndex; // Opens: lowest and highest subscriber
};

// What every slice reads and none writes: the model, the chains, which instances are measured, and
// CPUS_OVER_TIME.
struct Sweep {
    const ParModel& m;
    const std::vector<Link>& items; // per conjunct: its conjunction and position
    const std::vector<Link>& up; // per conjunction: its parent conjunction and position there
    const std::vector<uint8_t>& measured;
    std::vector<int64_t> cpuT; // CPUS_OVER_TIME as steps, with 0 before its start and after its end
    std::vector<int32_t> cpuV;

    // The index of the step holding t.
    uint32_t cpuIndex(int64_t t) const
    {
        return uint32_t(std::upper_bound(cpuT.begin(), cpuT.end(), t) - cpuT.begin() - 1);
    }
};

} // namespace sparkscope::core::detail::sweep
