// The descendant pass by one sweep over time (what descendantPass runs; descendant_reference.cpp has
// the segment-tree reference, which gives the same figures). Exact, like it.
//
// Items are conjuncts, each in its innermost-only state (a conjunct whose context runs a nested
// conjunct is represented by that nested conjunct) plus its spark phase and unbound start (waiting).
// An item's own changes are +1/-1 on runnable and running, and on the two blocked-waiting counts
// while it waits and some context is suspended on a future it produces (directly, or through the
// transitive closure: see suspendedWaitsByProducer).
//
// Why a sweep: a change of an item at time t changes the curves of exactly its ancestor
// conjunctions, which are constant between their subtree's changes. So the sweep takes every item's
// changes in time order and carries each up its chain of ancestors, updating each ancestor J's
// counts. Only open instances hold state (taken at START_PAR_CONJ, turned into figures at
// END_PAR_CONJ), so the working set is the instances open at one time — a few dozen on parfib —
// and stays in L1. Per J the sweep keeps, per conjunct position i, the counts w_i (waiting), r_i
// (running), bw_i / bt_i (blocked-waiting producers, direct / transitive) and n_i (items under
// position i):
//   out-of-order pairs      P = sum over i<j of w_i * r_j
//   blocking pairs          B = sum over i<j of bw_i * r_j   (and the same with bt)
//   pairs where A or B runs E = sum over i<j of r_i n_j + r_j n_i - r_i r_j
//                             = sum_i r_i (N - n_i) - ((sum_i r_i)^2 - sum_i r_i^2) / 2
// Every curve Q is integrated lazily (Q x T - sum of dQ x t, see Open), so a visit only adds the
// change's effect: dP = dw_i * sum_{j>i} r_j + dr_i * sum_{j<i} w_j (Fenwick prefixes for wide
// conjunctions), dE = dr_i (N - n_i - sum_j r_j + r_i). Maxima are taken from the values held since
// the previous visit. AVAIL_CPUS needs the minimum of CPUS_OVER_TIME since then: per level of
// CPUS, the end of its latest step (few levels: one per engine). Integrals are exact int64.
//
// Visiting every ancestor would cost changes x depth (parfib: 21 visits per change). But most
// ancestors, most of the time, see changes through one position only: the chain above the
// conjunction an engine is working in. Those ancestors subscribe to a stream (see Stream) and are
// passed in one step; a change visits its own instance, its stream, and the few instances where
// work from two sides meets (parfib: 3 visits and 2 streams per change).
//
// Half the changes are handovers: a conjunct's context starting a nested conjunction passes its
// state to the nested first conjunct at that instant, and takes it back from the last one. They
// cancel above the nested conjunction, so the pair is applied there alone (see Slice::handover).
//
// Parallel: the time axis is cut into slices with about equal numbers of changes (at quantiles of
// the instances' starts), sorted and swept at once. A slice starts with the instances open at its
// start, their counts rebuilt from the items' states there; a straddling instance's integrals add
// up and its maxima combine across slices.
//
// Cost: O(changes x (instances where two sides meet on the way up)), plus a settlement per
// instance leaving a stream (O(log) for its maxima), plus one sort of the changes. A split moves
// the shorter side of a stream, and an instance whose other side has finished absorbs the stream
// below it again, so a right-recursive loop 20,000 deep stays in one stream. Not bounded by
// O(changes x log) as the segment trees are: where many levels keep work on two sides at once,
// each change visits each of them.
#include "metrics/descendant/descendant_pass.h"

#include <algorithm>
#include <array>
#include <deque>
#include <limits>
#include <memory>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_invoke.h>
#include <tbb/task_arena.h>
#include <tbb/task_group.h>
#include <utility>

namespace sparkscope::core::detail {

namespace {
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
    constexpr uint32_t kStart = 0u << 30, kEnd = 1u << 30, kChange = 2u << 30, kIndexMask = (1u << 30) - 1;

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

    // Sorts the entries of `parts` by (time, kind), freeing the parts. Radix sort on the key
    // (t - first) << 2 | kind: one pass scatters the parts into 4096 buckets by the key's top bits
    // (reading the parts where they are), then each bucket — a few thousand entries, in cache — is
    // sorted on the rest of the key by least-significant-digit passes through a small buffer. One
    // array of the entries' size instead of two, and every pass but the first stays in cache; a
    // comparison sort would cost log2(n) ~ 20 passes' worth.
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
            for (auto* p : parts) {
                to = std::copy(p->begin(), p->end(), to);
                std::deque<Entry>().swap(*p);
            }
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
        for (auto* p : parts) {
            for (const Entry& e : *p)
                out[next[key(e) >> low]++] = e;
            std::deque<Entry>().swap(*p);
        }
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

    // Item k's own changes, coalesced per time, passed to emit as entries.
    template <class Emit>
    void itemEntries(const ParModel& m, uint32_t k, uint64_t endLimit, std::span<const Interval> direct,
        std::span<const Interval> transitive, std::vector<Delta4>& scratch, Emit emit)
    {
        if (direct.empty() && transitive.empty()) {
            // (Most items: no producer blocking. Their pieces come in time order and only touch
            // where one ends as the next begins, so each change merges with the one before it at
            // most: no scratch list, no sort.)
            Entry pending { INT64_MIN, kChange | k, 0, 0, 0, 0 };
            auto add = [&](int64_t t, int8_t dR, int8_t dN) {
                if (t != pending.t) {
                    if (pending.runnable || pending.running)
                        emit(pending);
                    pending.t = t, pending.runnable = 0, pending.running = 0;
                }
                pending.runnable = int8_t(pending.runnable + dR), pending.running = int8_t(pending.running + dN);
            };
            forEachItemPiece(m, k, endLimit, [&](uint64_t from, uint64_t to, bool running, bool runnable) {
                if (to <= from || !runnable)
                    return;
                add(I(from), 1, int8_t(running));
                add(I(to), -1, int8_t(-int(running)));
            });
            if (pending.runnable || pending.running)
                emit(pending);
            return;
        }
        scratch.clear();
        forEachItemPiece(m, k, endLimit, [&](uint64_t from, uint64_t to, bool running, bool runnable) {
            if (to <= from || !runnable)
                return;
            scratch.push_back({ I(from), 1, int32_t(running), 0, 0 });
            scratch.push_back({ I(to), -1, -int32_t(running), 0, 0 });
            if (!running) {
                overlaps(direct, from, to, scratch, [](Delta4& d, int v) { d.blocked = v; });
                overlaps(transitive, from, to, scratch, [](Delta4& d, int v) { d.blockedTc = v; });
            }
        });
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
                Entry e { c.t, kChange | k, 0, 0, 0, 0 };
                e.runnable = take(c.runnable), e.running = take(c.running);
                e.blocked = take(c.blocked), e.blockedTc = take(c.blockedTc);
                emit(e);
            }
        }
    }

    // Where a change climbs to: the conjunction, the conjunct position in it, and the items under
    // that position.
    struct Link {
        uint32_t conjunction = kNoIndex;
        uint32_t branch = 0;
        int64_t items = 0;
    };

    // Prefix sums over conjunct positions (1-based inside).
    void fenwickAdd(int32_t* f, uint32_t n, uint32_t i, int32_t d)
    {
        for (++i; i <= n; i += i & (0u - i))
            f[i] += d;
    }
    int64_t fenwickPrefix(const int32_t* f, uint32_t i) // sum over positions [0, i)
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
    // after the changed one, with no branch on the data: a sweep makes ~10^8 ancestor visits, and
    // mispredicted branches would cost more than the arithmetic. Wider conjunctions keep Fenwick
    // trees over positions: O(log n) per change. What a visit touches sits in the first two cache
    // lines; the blocking pairs, rarely non-zero, are touched only while some producer is blocking.
    static constexpr uint32_t kSmall = 4;
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
            return { integral(rd, off[0]), integral(nd, off[1]), integral(pairs, off[2]),
                integral(blockPairs, offBlock), integral(blockTcPairs, offBlockTc), integral(either, off[3]), rdMax,
                ndMax, avLow == INT32_MIN ? INT64_MIN : avLow };
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
    // its stream, and the few instances where two engines' work meet, instead of ~20 ancestors.
    struct Stream {
        std::array<int64_t, 5> sum {}; // running totals of dR, dN, dw, dB, dT
        std::array<uint64_t, 5> sumT {}; // and of each times t (wrapping)
        int64_t lastT = 0; // the totals are held since here
        uint64_t pushed = 0; // held totals recorded
        SuffixMax rd, nd, av; // held sum[0], sum[1], and sum[1] - the minimum of CPUS while held
        uint32_t feeder = kNoIndex, low = kNoIndex, top = kNoIndex; // Opens: lowest and highest subscriber
    };

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

    // One slice: [begin, end) of the sorted entries, covering times [fromT, toT).
    class Slice {
    public:
        Slice(const Sweep& s, std::vector<uint32_t>& slot)
            : m_s(s)
            , m_slot(slot)
        {
            m_maxCpus = *std::max_element(s.cpuV.begin(), s.cpuV.end());
            m_endAt.assign(size_t(m_maxCpus) + 1, std::numeric_limits<int64_t>::min());
        }

        // Opens every measured instance alive at `fromT` with the counts of the items' states there.
        void openAt(int64_t fromT, const std::vector<std::pair<uint32_t, Delta4>>& liveItems)
        {
            m_next = m_s.cpuIndex(fromT);
            advance(fromT);
            std::vector<uint32_t> straddling;
            m_streaming = false; // (until the counts are rebuilt: streams need settled instances)
            for (uint32_t j = 0; j < m_s.m.conjunctions.size(); ++j) {
                const ConjunctionInstance& ci = m_s.m.conjunctions[j];
                if (m_s.measured[j] && I(ci.startNs) < fromT && I(ci.endNs) > fromT) {
                    open(j, true);
                    straddling.push_back(m_slot[j]);
                }
            }
            for (const auto& [k, d] : liveItems)
                climb(k, [&](Open& o, const Link& l) {
                    o.straddles = true; // (when an item changed before its conjunction started)
                    apply(o, l, d.runnable, d.running, d.blocked, d.blockedTc);
                });
            m_streaming = true;
            for (uint32_t x : straddling) // (parents first: instances are numbered in start order)
                subscribeParent(x);
        }

        void run(const Entry* e, const Entry* end, int64_t toT, std::vector<DescValues>& values,
            std::vector<std::pair<uint32_t, Raw>>& partial, const StepFunction& cpus, size_t engines)
        {
            for (; e != end; ++e) {
                if (e->t != m_now)
                    advance(e->t);
                const uint32_t index = e->what & kIndexMask;
                switch (e->what & ~kIndexMask) {
                case kStart:
                    find(index, true);
                    break;
                case kEnd:
                    if (Open* o = find(index, false)) {
                        leaveStreams(*o);
                        hold(*o, m_now);
                        close(*o, values, partial, cpus, engines);
                    }
                    break;
                default:
                    if (e + 1 != end && handover(*e, e[1])) {
                        ++e;
                        break;
                    }
                    change(index, e->runnable, e->running, e->blocked, e->blockedTc);
                }
            }
            // Instances still open at the slice's end: their partial figures.
            advance(toT);
            for (uint32_t x : m_openList)
                if (Open& o = m_pool[x]; m_slot[o.conjunction] == x && o.stream != kNoIndex)
                    settle(o);
            for (uint32_t x : m_openList)
                if (Open& o = m_pool[x]; m_slot[o.conjunction] == x) {
                    const int64_t t = std::min(toT, o.end);
                    hold(o, t);
                    partial.push_back({ o.conjunction, o.figures(t) });
                    o.isOpen = false;
                    m_slot[o.conjunction] = kNoIndex;
                }
        }

    private:
        static constexpr uint32_t kClosed = kNoIndex - 1;

        // Calls f(open state, link into it) for item k's measured open ancestors, innermost first.
        template <class F> void climb(uint32_t k, F f)
        {
            Link l = m_s.items[k];
            for (Open* o = innermost(l); o; o = parentOf(*o, l))
                f(*o, l);
        }

        // The open instance of link l's conjunction, or of the nearest measured ancestor that is (l
        // then links into it).
        Open* innermost(Link& l)
        {
            for (; l.conjunction != kNoIndex; l = m_s.up[l.conjunction])
                if (Open* o = find(l.conjunction, true))
                    return o;
            return nullptr;
        }

        // The open instance above o (l then links o into it), or null at the top.
        Open* parentOf(const Open& o, Link& l)
        {
            const uint32_t j = o.conjunction;
            if (o.parent != kNoIndex) {
                Open& p = m_pool[o.parent];
                if (p.isOpen && p.conjunction == o.parentLink.conjunction) {
                    l = o.parentLink;
                    return &p;
                }
            }
            l = m_s.up[j]; // (its parent closed first, or opened after it: the slow way)
            return innermost(l);
        }

        // One change of item k: applied to each instance it reaches, past streams' subscribers.
        void change(uint32_t k, int32_t dR, int32_t dN, int32_t dB, int32_t dT)
        {
            Link l = m_s.items[k];
            uint32_t below = kNoIndex; // what the change came from: an explicit instance or a stream's top
            for (Open* o = innermost(l); o;) {
                const uint32_t x = uint32_t(o - m_pool.data());
                if (o->stream != kNoIndex) { // reached by another way than its stream
                    Stream& s = m_streams[o->stream];
                    if (l.branch == o->via.branch && o->below == s.feeder) {
                        // Through the stream's position into its lowest subscriber (the conjunct
                        // itself, between its nested conjunctions): the stream carries it from here.
                        append(s, dR, dN, dB, dT);
                        below = s.top;
                        o = parentOf(m_pool[below], l);
                        continue;
                    }
                    split(*o);
                }
                apply(*o, l, dR, dN, dB, dT);
                uint32_t from = x;
                if (o->feeds != kNoIndex) {
                    Stream& s = m_streams[o->feeds];
                    append(s, dR, dN, dB, dT);
                    from = s.top;
                }
                if (below != kNoIndex)
                    absorb(x, below, l);
                below = from;
                o = parentOf(m_pool[from], l);
            }
        }

        // ---- streams ----------------------------------------------------------------------------

        // A free slot of v from its free list, or a new one at its end.
        template <class T> static uint32_t takeSlot(std::vector<uint32_t>& free, std::vector<T>& v)
        {
            if (free.empty()) {
                v.emplace_back();
                return uint32_t(v.size() - 1);
            }
            const uint32_t x = free.back();
            free.pop_back();
            return x;
        }

        uint32_t newStream(uint32_t feeder)
        {
            const uint32_t s = takeSlot(m_freeStreams, m_streams);
            Stream& st = m_streams[s];
            st.sum = {};
            st.sumT = {};
            st.lastT = m_now;
            st.pushed = 0;
            st.rd.clear(), st.nd.clear(), st.av.clear();
            st.feeder = feeder;
            st.low = st.top = kNoIndex;
            m_pool[feeder].feeds = s;
            return s;
        }

        void freeStream(uint32_t s)
        {
            m_pool[m_streams[s].feeder].feeds = kNoIndex;
            m_freeStreams.push_back(s);
        }

        // Records the totals held since lastT, if that was before t.
        void cut(Stream& s, int64_t t)
        {
            if (t <= s.lastT)
                return;
            int64_t low = 0; // the minimum of CPUS over [lastT, t): the lowest level reached there
            while (low < m_maxCpus && m_endAt[size_t(low)] <= s.lastT)
                ++low;
            s.rd.push(s.pushed, s.sum[0]);
            s.nd.push(s.pushed, s.sum[1]);
            s.av.push(s.pushed, s.sum[1] - low);
            ++s.pushed;
            s.lastT = t;
        }

        void append(Stream& s, int32_t dR, int32_t dN, int32_t dB, int32_t dT)
        {
            cut(s, m_now);
            const std::array<int64_t, 5> d { dR, dN, dR - dN, dB, dT };
            for (int i = 0; i < 5; ++i) {
                s.sum[i] += d[i];
                s.sumT[i] += uint64_t(d[i]) * uint64_t(m_now);
            }
        }

        // Subscribes x (settled, explicit) to stream s through via: its figures follow the stream's
        // totals from now on. Where it sits among the subscribers is the caller's.
        Stream& subscribe(uint32_t x, uint32_t s, const Link& via)
        {
            Stream& st = m_streams[s];
            Open& o = m_pool[x];
            cut(st, m_now);
            o.stream = s, o.via = via, o.joinIndex = st.pushed, o.joinSum = st.sum, o.joinSumT = st.sumT;
            o.feeds = kNoIndex;
            return st;
        }

        // ... as the stream's new top subscriber.
        void joinTop(uint32_t x, uint32_t s, const Link& via)
        {
            Stream& st = subscribe(x, s, via);
            Open& o = m_pool[x];
            o.above = kNoIndex;
            o.below = st.top == kNoIndex ? st.feeder : st.top;
            if (st.top != kNoIndex)
                m_pool[st.top].above = x;
            else
                st.low = x;
            st.top = x;
        }

        // ... as its new lowest subscriber (the caller then names who feeds it from below).
        void joinBottom(uint32_t x, uint32_t s, const Link& via)
        {
            Stream& st = subscribe(x, s, via);
            Open& o = m_pool[x];
            o.above = st.low;
            if (st.low != kNoIndex)
                m_pool[st.low].below = x;
            else
                st.top = x;
            st.low = x;
        }

        // When instance x opens under an explicit parent that has no other reason to stay explicit,
        // the parent subscribes to x's stream, taking its own subscribers along: x feeds them all.
        void subscribeParent(uint32_t x)
        {
            Open& o = m_pool[x];
            if (!m_streaming || o.parent == kNoIndex)
                return;
            const uint32_t px = o.parent;
            Open& p = m_pool[px];
            if (p.branch || p.stream != kNoIndex || !p.isOpen || p.conjunction != o.parentLink.conjunction
                || m_now < p.last)
                return;
            hold(p, m_now);
            uint32_t s = p.feeds;
            if (s == kNoIndex) {
                s = newStream(px);
                joinTop(px, s, o.parentLink);
            } else
                joinBottom(px, s, o.parentLink);
            Stream& st = m_streams[s];
            m_pool[px].below = x;
            m_pool[px].feeds = kNoIndex;
            st.feeder = x;
            m_pool[x].feeds = s;
        }

        // Brings subscriber o up to date from its stream, now, and makes it explicit (its links in
        // the stream are left to the caller).
        void settle(Open& o)
        {
            Stream& s = m_streams[o.stream];
            cut(s, m_now);
            if (s.pushed > o.joinIndex) {
                o.rdMax = int32_t(std::max<int64_t>(o.rdMax, o.rd + s.rd.since(o.joinIndex) - o.joinSum[0]));
                o.ndMax = int32_t(std::max<int64_t>(o.ndMax, o.nd + s.nd.since(o.joinIndex) - o.joinSum[1]));
                o.avLow = int32_t(std::max<int64_t>(o.avLow, o.nd + s.av.since(o.joinIndex) - o.joinSum[1]));
            }
            std::array<int64_t, 5> d;
            std::array<uint64_t, 5> dt;
            for (int i = 0; i < 5; ++i)
                d[i] = s.sum[i] - o.joinSum[i], dt[i] = s.sumT[i] - o.joinSumT[i];
            o.stream = kNoIndex;
            o.last = m_now;
            applyTotals(o, o.via, d, dt);
        }

        // Applies many changes through one position at once: d = totals of dR, dN, dw, dB, dT and dt
        // = the same times t. Exact because the pair counts change linearly while the other
        // positions hold still. (Maxima are the caller's.)
        void applyTotals(Open& o, const Link& l, const std::array<int64_t, 5>& d, const std::array<uint64_t, 5>& dt)
        {
            const uint32_t i = l.branch;
            int64_t runningAfter = 0, waitingBefore = 0, blockedBefore = 0, blockedTcBefore = 0, ri;
            if (o.n <= kSmall) {
                for (uint32_t j = 0; j < kSmall; ++j) {
                    runningAfter += j > i ? o.r[j] : 0;
                    waitingBefore += j < i ? o.w[j] : 0;
                    blockedBefore += j < i ? o.bw[j] : 0;
                    blockedTcBefore += j < i ? o.bt[j] : 0;
                }
                ri = o.r[i];
                o.w[i] += int32_t(d[2]), o.r[i] += int32_t(d[1]), o.bw[i] += int32_t(d[3]), o.bt[i] += int32_t(d[4]);
            } else {
                int32_t *wf = o.fenwick.data(), *rf = wf + (o.n + 1), *bf = rf + (o.n + 1), *tf = bf + (o.n + 1),
                        *r = tf + (o.n + 1);
                runningAfter = o.nd - fenwickPrefix(rf, i + 1);
                waitingBefore = fenwickPrefix(wf, i), blockedBefore = fenwickPrefix(bf, i);
                blockedTcBefore = fenwickPrefix(tf, i);
                ri = r[i];
                fenwickAdd(wf, o.n, i, int32_t(d[2]));
                fenwickAdd(rf, o.n, i, int32_t(d[1]));
                fenwickAdd(bf, o.n, i, int32_t(d[3]));
                fenwickAdd(tf, o.n, i, int32_t(d[4]));
                r[i] += int32_t(d[1]);
            }
            o.blocked += int32_t(d[3] + d[4]);
            const int64_t either = o.total - l.items - o.nd + ri;
            auto lin = [](int64_t a, int64_t x, int64_t b, int64_t y) { return a * x + b * y; };
            auto linT = [](int64_t a, uint64_t x, int64_t b, uint64_t y) { return uint64_t(a) * x + uint64_t(b) * y; };
            o.rd += int32_t(d[0]), o.nd += int32_t(d[1]);
            o.off[0] += dt[0], o.off[1] += dt[1];
            o.pairs += lin(runningAfter, d[2], waitingBefore, d[1]);
            o.off[2] += linT(runningAfter, dt[2], waitingBefore, dt[1]);
            o.either += either * d[1];
            o.off[3] += uint64_t(either) * dt[1];
            o.blockPairs += lin(runningAfter, d[3], blockedBefore, d[1]);
            o.offBlock += linT(runningAfter, dt[3], blockedBefore, dt[1]);
            o.blockTcPairs += lin(runningAfter, d[4], blockedTcBefore, d[1]);
            o.offBlockTc += linT(runningAfter, dt[4], blockedTcBefore, dt[1]);
        }

        // Subscriber o was reached by another way than its stream, so it turns explicit for good.
        // The subscribers on the shorter side of it settle and move to a stream of their own: those
        // above it then subscribe to one that o feeds, or those below it to one that the old feeder
        // feeds while o feeds the old one. (The two sides are walked in step: the cost is the
        // shorter one, which on a right-recursive loop is the few levels below the frontier.)
        void split(Open& o)
        {
            const uint32_t x = uint32_t(&o - m_pool.data()), s = o.stream, feeder = m_streams[s].feeder;
            uint32_t up = o.above, down = o.below;
            while (up != kNoIndex && down != feeder)
                up = m_pool[up].above, down = m_pool[down].below;
            std::vector<uint32_t>& chain = m_scratch;
            chain.clear();
            if (up == kNoIndex) { // o and those above it: a new stream that o feeds
                for (uint32_t y = x; y != kNoIndex; y = m_pool[y].above)
                    chain.push_back(y);
                for (uint32_t y : chain)
                    settle(m_pool[y]);
                Stream& st = m_streams[s];
                if (const uint32_t below = m_pool[x].below; below == st.feeder) {
                    st.low = st.top = kNoIndex;
                    freeStream(s);
                } else {
                    st.top = below;
                    m_pool[below].above = kNoIndex;
                }
                if (chain.size() > 1) {
                    const uint32_t fresh = newStream(x);
                    for (size_t i = 1; i < chain.size(); ++i)
                        joinTop(chain[i], fresh, m_pool[chain[i]].via);
                }
            } else { // those below o: a new stream that the old feeder feeds; o feeds the old one
                for (uint32_t y = o.below; y != feeder; y = m_pool[y].below)
                    chain.push_back(y);
                for (uint32_t y : chain)
                    settle(m_pool[y]);
                const uint32_t above = o.above;
                settle(o);
                Stream& st = m_streams[s];
                m_pool[feeder].feeds = kNoIndex;
                st.feeder = x, m_pool[x].feeds = s, st.low = above, m_pool[above].below = x;
                if (!chain.empty()) {
                    const uint32_t fresh = newStream(feeder);
                    for (size_t i = chain.size(); i-- > 0;)
                        joinTop(chain[i], fresh, m_pool[chain[i]].via);
                }
            }
            m_pool[x].branch = true;
        }

        // A change reached explicit instance x from `from` below it (a stream's top, or an explicit
        // instance feeding none), through position l.branch, and x's other positions are empty:
        // then x and the short stream below it join the stream x feeds (x at its bottom, the
        // stream's subscribers below x, its feeder last), so later changes pass them in one step.
        // This undoes a split once the other side has finished (the chunk of a "chunk & rest"
        // loop), which keeps a right-recursive loop's levels in one stream.
        void absorb(uint32_t x, uint32_t from, const Link& l)
        {
            constexpr size_t kMaxMoved = 8;
            Open& o = m_pool[x];
            if (o.n > kSmall || o.stream != kNoIndex || m_now < o.last)
                return;
            for (uint32_t j = 0; j < kSmall; ++j)
                if (j != l.branch && (o.w[j] | o.r[j] | o.bw[j] | o.bt[j]) != 0)
                    return;
            std::vector<uint32_t>& chain = m_scratch; // subscribers below x, top down
            chain.clear();
            uint32_t feeder = from;
            if (const uint32_t low = m_pool[from].stream; low != kNoIndex) {
                feeder = m_streams[low].feeder;
                for (uint32_t y = from; y != feeder && chain.size() <= kMaxMoved; y = m_pool[y].below)
                    chain.push_back(y);
                if (chain.size() > kMaxMoved)
                    return;
                for (uint32_t y : chain)
                    settle(m_pool[y]);
                m_streams[low].low = m_streams[low].top = kNoIndex;
                freeStream(low);
            } else if (m_pool[from].feeds != kNoIndex)
                return;
            hold(o, m_now);
            uint32_t s = o.feeds;
            if (s == kNoIndex)
                s = newStream(x);
            joinBottom(x, s, l);
            for (uint32_t y : chain)
                joinBottom(y, s, m_pool[y].via);
            Stream& st = m_streams[s];
            m_pool[st.low].below = feeder;
            st.feeder = feeder;
            m_pool[feeder].feeds = s;
        }

        // Before instance o closes: it leaves the stream it subscribes to (a damaged trace closes
        // an instance before its descendants), and the lowest subscriber of the stream it feeds
        // settles and feeds it in its place.
        void leaveStreams(Open& o)
        {
            if (o.stream != kNoIndex) {
                const uint32_t s = o.stream;
                const uint32_t above = o.above, below = o.below;
                settle(o);
                Stream& st = m_streams[s];
                const bool lowest = below == st.feeder;
                if (above != kNoIndex)
                    m_pool[above].below = below;
                else
                    st.top = lowest ? kNoIndex : below;
                if (!lowest)
                    m_pool[below].above = above;
                else
                    st.low = above;
                if (st.top == kNoIndex)
                    freeStream(s);
            }
            if (o.feeds != kNoIndex) {
                const uint32_t s = o.feeds;
                Stream& st = m_streams[s];
                const uint32_t y = st.low;
                Open& next = m_pool[y];
                settle(next);
                st.low = next.above;
                o.feeds = kNoIndex;
                st.feeder = y;
                next.feeds = s;
                if (st.low == kNoIndex) {
                    st.top = kNoIndex;
                    freeStream(s);
                } else
                    m_pool[st.low].below = y;
            }
        }

        // A conjunct whose context starts a nested conjunction hands its state to the nested first
        // conjunct at that instant, and takes it back from the last one at the end: two changes at
        // one time, opposite, of an item and a conjunct of a conjunction started inside it. Above
        // the nested conjunction they cancel exactly (same counts at the same position), so only
        // the nested conjunction sees the child's change. Applies it and returns true for such a
        // pair; about half of all changes on parfib are handovers, and each would climb the tree.
        bool handover(const Entry& a, const Entry& b)
        {
            if (a.t != b.t || (b.what & ~kIndexMask) != kChange || a.runnable != -b.runnable || a.running != -b.running
                || a.blocked != -b.blocked || a.blockedTc != -b.blockedTc)
                return false;
            const uint32_t x = a.what & kIndexMask, y = b.what & kIndexMask;
            const Entry* child = nullptr;
            if (m_s.m.conjunctions[m_s.items[y].conjunction].parentConjunct == x)
                child = &b;
            else if (m_s.m.conjunctions[m_s.items[x].conjunction].parentConjunct == y)
                child = &a;
            else
                return false;
            const Link& l = m_s.items[child->what & kIndexMask];
            if (Open* o = find(l.conjunction, true)) {
                if (o->stream != kNoIndex)
                    split(*o);
                apply(*o, l, child->runnable, child->running, child->blocked, child->blockedTc);
            }
            return true;
        }

        // The open state of measured instance j, opening it when `create` and j is alive after now.
        Open* find(uint32_t j, bool create)
        {
            const uint32_t x = m_slot[j];
            if (x < kClosed)
                return &m_pool[x];
            if (!create || x == kClosed || !m_s.measured[j] || I(m_s.m.conjunctions[j].endNs) <= m_now)
                return nullptr;
            return &open(j, false);
        }

        Open& open(uint32_t j, bool straddles)
        {
            const size_t pooled = m_pool.size();
            const uint32_t x = takeSlot(m_free, m_pool);
            if (m_pool.size() > pooled)
                m_openList.push_back(x);
            m_slot[j] = x;
            const ConjunctionInstance& ci = m_s.m.conjunctions[j];
            Open& o = m_pool[x];
            o.conjunction = j;
            o.n = uint32_t(ci.conjuncts.size());
            o.last = std::max(I(ci.startNs), m_now);
            o.end = I(ci.endNs);
            o.straddles = straddles;
            int64_t total = 0;
            for (uint32_t k : ci.conjuncts)
                total += m_s.items[k].items;
            o.total = int32_t(total);
            o.rd = o.nd = o.rdMax = o.ndMax = o.blocked = 0;
            o.avLow = INT32_MIN;
            o.pairs = o.either = o.blockPairs = o.blockTcPairs = 0;
            o.off = {};
            o.offBlock = o.offBlockTc = 0;
            o.w = o.r = o.bw = o.bt = {};
            if (o.n > kSmall)
                o.fenwick.assign(5 * size_t(o.n) + 4, 0);
            o.isOpen = true;
            o.parent = kNoIndex;
            o.stream = o.feeds = o.above = o.below = kNoIndex;
            o.branch = false;
            for (Link l = m_s.up[j]; l.conjunction != kNoIndex; l = m_s.up[l.conjunction])
                if (const uint32_t y = m_slot[l.conjunction]; y < kClosed) {
                    o.parent = y, o.parentLink = l;
                    break;
                } else if (m_s.measured[l.conjunction])
                    break; // not open (yet, or any more): the walk finds it the slow way
            if (!straddles)
                subscribeParent(x);
            return m_pool[x];
        }

        void close(Open& o, std::vector<DescValues>& values, std::vector<std::pair<uint32_t, Raw>>& partial,
            const StepFunction& cpus, size_t engines)
        {
            const uint32_t j = o.conjunction;
            if (o.straddles)
                partial.push_back({ j, o.figures(o.end) });
            else
                values[j] = finish(m_s.m.conjunctions[j], o.figures(o.end), cpus, engines);
            o.isOpen = false;
            m_free.push_back(m_slot[j]);
            m_slot[j] = kClosed;
        }

        // Moves the sweep to time t: every CPUS step that starts before t is recorded in m_endAt.
        void advance(int64_t t)
        {
            for (; m_next < m_s.cpuT.size() && m_s.cpuT[m_next] < t; ++m_next)
                m_endAt[size_t(m_s.cpuV[m_next])]
                    = m_next + 1 < m_s.cpuT.size() ? m_s.cpuT[m_next + 1] : std::numeric_limits<int64_t>::max();
            m_now = t;
        }

        // Takes the maxima of the values o has held since its last visit, up to t.
        [[gnu::always_inline]] void hold(Open& o, int64_t t)
        {
            if (t <= o.last)
                return;
            const int64_t nd = o.nd;
            o.rdMax = std::max(o.rdMax, o.rd), o.ndMax = std::max(o.ndMax, o.nd);
            // AVAIL_CPUS: nd - CPUS grows past avLow only if CPUS fell to nd - avLow - 1 or below
            // since `last`. The lowest such level is the minimum of CPUS there; a level was
            // reached there when its latest step ends after `last`.
            const int64_t below = nd - std::max(int64_t(o.avLow), nd - m_maxCpus - 1);
            for (int64_t c = 0; c < below; ++c)
                if (m_endAt[size_t(c)] > o.last) {
                    o.avLow = int32_t(nd - c);
                    break;
                }
            o.last = t;
        }

        // One change of an item under position l.branch of o, now (or at o's start, if before).
        [[gnu::always_inline]] void apply(Open& o, const Link& l, int32_t dR, int32_t dN, int32_t dB, int32_t dT)
        {
            const int64_t t = std::max(m_now, o.last);
            hold(o, t);
            const uint32_t i = l.branch;
            const int32_t dw = dR - dN;
            int64_t runningAfter = 0, waitingBefore = 0, ri;
            if (o.n == 2 && (dB | dT | o.blocked) == 0) { // (the common case, in fewer instructions)
                runningAfter = i == 0 ? o.r[1] : 0;
                waitingBefore = i == 1 ? o.w[0] : 0;
                ri = o.r[i];
                o.w[i] += dw, o.r[i] += dN;
            } else if (o.n <= kSmall) {
                for (uint32_t j = 0; j < kSmall; ++j) {
                    runningAfter += j > i ? o.r[j] : 0;
                    waitingBefore += j < i ? o.w[j] : 0;
                }
                if ((dB | dT | o.blocked) != 0) {
                    int64_t blockedBefore = 0, blockedTcBefore = 0;
                    for (uint32_t j = 0; j < i; ++j)
                        blockedBefore += o.bw[j], blockedTcBefore += o.bt[j];
                    addBlocking(o, t, dB * runningAfter + dN * blockedBefore, dT * runningAfter + dN * blockedTcBefore);
                    o.bw[i] += dB, o.bt[i] += dT, o.blocked += dB + dT;
                }
                ri = o.r[i];
                o.w[i] += dw, o.r[i] += dN;
            } else {
                int32_t *wf = o.fenwick.data(), *rf = wf + (o.n + 1), *bf = rf + (o.n + 1), *tf = bf + (o.n + 1),
                        *r = tf + (o.n + 1);
                runningAfter = o.nd - fenwickPrefix(rf, i + 1);
                waitingBefore = fenwickPrefix(wf, i);
                addBlocking(
                    o, t, dB * runningAfter + dN * fenwickPrefix(bf, i), dT * runningAfter + dN * fenwickPrefix(tf, i));
                ri = r[i];
                if (dw != 0)
                    fenwickAdd(wf, o.n, i, dw);
                if (dB != 0)
                    fenwickAdd(bf, o.n, i, dB);
                if (dT != 0)
                    fenwickAdd(tf, o.n, i, dT);
                if (dN != 0) {
                    fenwickAdd(rf, o.n, i, dN);
                    r[i] += dN;
                }
            }
            // Pairs (a before b) gain the changed position's new waiting items against the running
            // ones after it, and its new running items against the waiting ones before it. Either-
            // running pairs: r_i (N - n_i) - (nd^2 - sum r_j^2) / 2 changes by dN (N - n_i - nd + r_i).
            const int64_t dP = dw * runningAfter + dN * waitingBefore, dE = dN * (o.total - l.items - o.nd + ri);
            o.rd += dR, o.nd += dN, o.pairs += dP, o.either += dE;
            const uint64_t ut = uint64_t(t);
            o.off[0] += uint64_t(int64_t(dR)) * ut, o.off[1] += uint64_t(int64_t(dN)) * ut;
            o.off[2] += uint64_t(dP) * ut, o.off[3] += uint64_t(dE) * ut;
        }

        static void addBlocking(Open& o, int64_t t, int64_t dB, int64_t dT)
        {
            o.blockPairs += dB, o.blockTcPairs += dT;
            o.offBlock += uint64_t(dB) * uint64_t(t), o.offBlockTc += uint64_t(dT) * uint64_t(t);
        }

        const Sweep& m_s;
        std::vector<uint32_t>& m_slot; // per conjunction: its Open in m_pool, kNoIndex, or kClosed
        std::vector<Open> m_pool;
        std::vector<uint32_t> m_free, m_openList;
        std::vector<Stream> m_streams;
        std::vector<uint32_t> m_freeStreams, m_scratch;
        bool m_streaming = true;
        // Per level of CPUS: when its latest step seen so far ends (INT64_MIN: none yet).
        std::vector<int64_t> m_endAt;
        int64_t m_maxCpus = 0;
        uint32_t m_next = 0; // the first CPUS step not in m_endAt
        int64_t m_now = INT64_MIN;

    public:
        static DescValues finish(const ConjunctionInstance& ci, const Raw& a, const StepFunction& cpus, size_t engines)
        {
            DescValues v;
            v.done = true;
            const int64_t from = I(ci.startNs), to = I(ci.endNs);
            if (to <= from)
                return v;
            const double span = double(to - from);
            const int64_t avInt = int64_t(engines) * (to - from) - cpus.integral(from, to) + a.nd;
            v.rdAvg = double(a.rd) / span, v.ndAvg = double(a.nd) / span, v.avAvg = double(avInt) / span;
            v.rdMax = double(a.rdMax), v.ndMax = double(a.ndMax), v.avMax = double(int64_t(engines) + a.avLow);
            v.outOfOrder = double(a.outOfOrder), v.blocking = double(a.blocking), v.blockingTc = double(a.blockingTc);
            v.eitherRunning = double(a.either);
            return v;
        }
    };

} // namespace

namespace {

    // For each cut (slice start) after the first: the items with something under way there and
    // their state, i.e. the sum of their changes before it, in item order. Only an item whose
    // changes straddle the cut has one; it regenerates its changes (the same pieces, so the same
    // changes as the sweep's) and sums those before the cut. Parallel over items.
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
            for (uint32_t k = range.begin(); k != range.end(); ++k) {
                const ConjunctInstance& g = m.conjuncts[k];
                if (!g.fromSpark && !g.started)
                    continue;
                const ConjunctionInstance& ci = m.conjunctions[g.conjunction];
                const uint64_t endLimit = ci.ended ? ci.endNs : m.endNs;
                const int64_t first = I(g.fromSpark ? g.sparkCreateNs : g.startNs);
                const int64_t last = I(g.ended ? g.endNs : endLimit);
                auto straddled = [&](size_t s) { return first < cut[s] && last >= cut[s]; };
                size_t s = 1;
                while (s < nSlices && !straddled(s))
                    ++s;
                if (s == nSlices)
                    continue;
                local.changes.clear();
                itemEntries(m, k, endLimit, producers.direct.of(k), producers.transitive.of(k), local.scratch,
                    [&](const Entry& e) { local.changes.push_back(e); });
                for (; s < nSlices; ++s) {
                    if (!straddled(s))
                        continue;
                    Delta4 d {};
                    for (const Entry& e : local.changes)
                        if (e.t < cut[s])
                            d.runnable += e.runnable, d.running += e.running, d.blocked += e.blocked,
                                d.blockedTc += e.blockedTc;
                    if (d.runnable || d.running || d.blocked || d.blockedTc)
                        local.found[s].push_back({ k, d });
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

} // namespace

std::vector<DescValues> descendantPassSweep(
    const ParModel& m, const StepFunction& cpus, size_t engines, uint64_t fromNs, uint64_t toNs, size_t slices)
{
    const size_t nConj = m.conjunctions.size(), nItems = m.conjuncts.size();
    std::vector<DescValues> values(nConj);
    if (nConj == 0)
        return values;
    std::vector<uint8_t> measured(nConj);
    tbb::parallel_for(size_t(0), nConj, [&](size_t j) {
        const ConjunctionInstance& ci = m.conjunctions[j];
        measured[j] = ci.complete && ci.startNs >= fromNs && ci.startNs < toNs;
    });
    // The chains: each conjunct's conjunction and position, each conjunction's parent and position,
    // and the items under every conjunct (children start after their parents, so reverse start
    // order sums subtrees bottom-up). Sequential, so built while the changes are generated.
    std::vector<Link> items(nItems), up(nConj);
    tbb::task_group chains;
    chains.run([&] {
        std::vector<int64_t> under(nConj, 0);
        for (uint32_t j = uint32_t(nConj); j-- > 0;) {
            const ConjunctionInstance& ci = m.conjunctions[j];
            for (size_t i = 0; i < ci.conjuncts.size(); ++i) {
                const uint32_t k = ci.conjuncts[i];
                int64_t n = 1;
                for (uint32_t child : m.childConjunctions(k))
                    n += under[child];
                items[k] = { j, uint32_t(i), n };
                under[j] += n;
            }
        }
        for (uint32_t j = 0; j < nConj; ++j)
            if (const uint32_t p = m.conjunctions[j].parentConjunct; p != kNoIndex)
                up[j] = items[p];
    });

    // Every change, start and end, sorted.
    const Producers producers = suspendedWaitsByProducer(m);
    // Slices: cut at the start times of every (n / slices)th conjunction (instances are numbered in
    // start order, and the changes follow them closely enough to balance the work).
    // cut[s] <= t < cut[s + 1] for the entries of slice s.
    if (slices == 0)
        slices = m.conjuncts.size() < 20000 ? 1 : size_t(std::max(1, tbb::this_task_arena::max_concurrency()));
    std::vector<int64_t> cut { std::numeric_limits<int64_t>::min() };
    for (size_t s = 1; s < slices; ++s)
        if (const int64_t t = I(m.conjunctions[nConj * s / slices].startNs); t > cut.back())
            cut.push_back(t);
    cut.push_back(std::numeric_limits<int64_t>::max());
    const size_t nSlices = cut.size() - 1;

    // Every change, start and end, generated in parallel over conjunctions into per-thread parts
    // per slice; then each slice's parts sorted into one array, the slices in parallel. The parts
    // are deques: growing one never copies what it holds (a vector's doublings moved ~400 MB
    // here and faulted in fresh pages for each copy: 5 % of the end-to-end time).
    struct Parts {
        std::vector<std::deque<Entry>> slice;
        std::vector<Delta4> scratch;
    };
    tbb::enumerable_thread_specific<Parts> parts([&] { return Parts { std::vector<std::deque<Entry>>(nSlices), {} }; });
    tbb::parallel_for(tbb::blocked_range<uint32_t>(0, uint32_t(nConj)), [&](const auto& range) {
        Parts& out = parts.local();
        auto emit = [&](const Entry& e) {
            const size_t s
                = nSlices == 1 ? 0 : size_t(std::upper_bound(cut.begin() + 1, cut.end() - 1, e.t) - cut.begin() - 1);
            out.slice[s].push_back(e);
        };
        for (uint32_t j = range.begin(); j != range.end(); ++j) {
            const ConjunctionInstance& ci = m.conjunctions[j];
            const uint64_t endLimit = ci.ended ? ci.endNs : m.endNs;
            for (uint32_t k : ci.conjuncts)
                itemEntries(m, k, endLimit, producers.direct.of(k), producers.transitive.of(k), out.scratch, emit);
            if (measured[j]) {
                emit({ I(ci.startNs), kStart | j, 0, 0, 0, 0 });
                emit({ I(ci.endNs), kEnd | j, 0, 0, 0, 0 });
            }
        }
    });
    chains.wait();
    std::vector<Entries> bucket(nSlices);
    std::vector<std::vector<std::pair<uint32_t, Delta4>>> liveAt(nSlices);
    tbb::parallel_invoke(
        [&] {
            tbb::parallel_for(size_t(0), nSlices, [&](size_t s) {
                std::vector<std::deque<Entry>*> sources;
                for (Parts& p : parts)
                    sources.push_back(&p.slice[s]);
                bucket[s] = sortEntries(sources);
            });
        },
        [&] {
            if (nSlices > 1)
                liveAt = statesAtCuts(m, cut, producers);
        });

    Sweep sweep { m, items, up, measured, {}, {} };
    sweep.cpuT.reserve(cpus.steps().size() + 2);
    sweep.cpuT.push_back(INT64_MIN);
    sweep.cpuV.push_back(0);
    for (const auto& s : cpus.steps()) {
        sweep.cpuT.push_back(s.timeNs);
        sweep.cpuV.push_back(int32_t(s.value));
    }
    if (!cpus.empty()) {
        sweep.cpuT.push_back(cpus.endNs());
        sweep.cpuV.push_back(0);
    }

    std::vector<std::vector<std::pair<uint32_t, Raw>>> partial(nSlices);
    std::vector<std::vector<uint32_t>> slots(nSlices);
    tbb::parallel_for(size_t(0), nSlices, [&](size_t s) {
        slots[s].assign(nConj, kNoIndex);
        Slice slice(sweep, slots[s]);
        slice.openAt(cut[s], liveAt[s]);
        slice.run(bucket[s].begin(), bucket[s].end(), cut[s + 1], values, partial[s], cpus, engines);
    });
    for (uint32_t j = 0; j < nConj; ++j)
        values[j].done = measured[j]; // (instances of no length have no figures to sweep)
    // Instances seen by several slices: their parts combined.
    std::vector<std::pair<uint32_t, Raw>> all;
    for (auto& p : partial)
        all.insert(all.end(), p.begin(), p.end());
    std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (size_t i = 0; i < all.size();) {
        Raw acc = all[i].second;
        const uint32_t j = all[i].first;
        for (++i; i < all.size() && all[i].first == j; ++i)
            acc.combine(all[i].second);
        values[j] = Slice::finish(m.conjunctions[j], acc, cpus, engines);
    }
    return values;
}

} // namespace sparkscope::core::detail
