#pragma once
// Internal to the descendant sweep (descendant_sweep.cpp explains it): one slice of the time axis,
// swept by one thread. sweep_slice.cpp walks each change up the open instances; sweep_streams.cpp
// keeps the streams that carry changes past chains of them in one step. What both files run on
// every change (hold, a stream's cut and append, the test before absorb) and an instance's final
// values are defined here, so that each file inlines them.
//
// The per-change path must inline as it would in one class body: the members marked inline below
// are defined in the one .cpp file that calls them (no other file may), and handover and append are
// forced inline; without that the pass is measurably slower (docs/performance.md, "Descendant pass:
// figures behind the code's choices").
#include "metrics/descendant/sweep_state.h"

#include <array>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace sparkscope::core::detail::sweep {

// One slice: [begin, end) of the sorted entries, covering times [fromT, toT).
class Slice {
public:
    Slice(const Sweep& s, std::vector<uint32_t>& slot);

    // Opens every measured instance alive at `fromT` with the counts of the items' states there. The
    // instances are looked for among `candidates` (in instance order): the round's conjunctions.
    void openAt(int64_t fromT, std::span<const uint32_t> candidates,
        const std::vector<std::pair<uint32_t, Delta4>>& liveItems);

    // Sweeps the entries [e, end): the instances that close in the slice go to `sink` (or, when they
    // straddle its start, to `partial`), and those still open at toT to `partial`.
    void run(const Entry* e, const Entry* end, int64_t toT, DescSink& sink,
        std::vector<std::pair<uint32_t, Raw>>& partial, const StepFunction& cpus, size_t engines);

    // Sets every slot the slice wrote back to kNoIndex, for the next slice to use the array.
    void clearSlots()
    {
        for (const uint32_t j : m_touched)
            m_slot[j] = kNoIndex;
        m_touched.clear();
    }

    // An instance's values from its figures over its whole life.
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

private:
    static constexpr uint32_t kClosed = kNoIndex - 1;

    // ---- the walk (sweep_slice.cpp; each is explained where it is defined) ------------------------
    template <class F> void climb(uint32_t k, F f);
    inline Open* innermost(Link& l);
    inline Open* parentOf(const Open& o, Link& l);
    inline void change(uint32_t k, int32_t dR, int32_t dN, int32_t dB, int32_t dT);
    [[gnu::always_inline]] inline bool handover(const Entry& a, const Entry& b);
    inline Open* find(uint32_t j, bool create);
    Open& open(uint32_t j, bool straddles);
    inline void close(Open& o, DescSink& sink, std::vector<std::pair<uint32_t, Raw>>& partial,
        const StepFunction& cpus, size_t engines);
    inline void advance(int64_t t);
    [[gnu::always_inline]] inline void apply(Open& o, const Link& l, int32_t dR, int32_t dN, int32_t dB, int32_t dT);
    static inline void addBlocking(Open& o, int64_t t, int64_t dB, int64_t dT);

    // ---- streams (sweep_streams.cpp) --------------------------------------------------------------
    // What the walk calls, then (inline) what only sweep_streams.cpp calls.
    void subscribeParent(uint32_t x);
    void split(Open& o);
    void absorb(uint32_t x, uint32_t from, const Link& l);
    void leaveStreams(Open& o);
    void settleAll();
    inline uint32_t newStream(uint32_t feeder);
    inline void freeStream(uint32_t s);
    inline Stream& subscribe(uint32_t x, uint32_t s, const Link& via);
    inline void joinTop(uint32_t x, uint32_t s, const Link& via);
    inline void joinBottom(uint32_t x, uint32_t s, const Link& via);
    inline void settle(Open& o);
    inline void applyTotals(Open& o, const Link& l, const std::array<int64_t, 5>& d, const std::array<uint64_t, 5>& dt);

    // ---- on every change, or called from both files -----------------------------------------------

    // Whether explicit instance o, reached through position l.branch, may take the stream below it
    // in (absorb, which requires this): o is narrow, explicit and up to date, and its other positions
    // are empty. Asked on every explicit visit; most answers are no.
    bool absorbable(const Open& o, const Link& l) const
    {
        if (o.n > kSmall || o.stream != kNoIndex || m_now < o.last)
            return false;
        for (uint32_t j = 0; j < kSmall; ++j)
            if (j != l.branch && (o.w[j] | o.r[j] | o.bw[j] | o.bt[j]) != 0)
                return false;
        return true;
    }

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

    [[gnu::always_inline]] void append(Stream& s, int32_t dR, int32_t dN, int32_t dB, int32_t dT)
    {
        cut(s, m_now);
        const std::array<int64_t, 5> d { dR, dN, dR - dN, dB, dT };
        for (int i = 0; i < 5; ++i) {
            s.sum[i] += d[i];
            s.sumT[i] += uint64_t(d[i]) * uint64_t(m_now);
        }
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

    const Sweep& m_s;
    std::vector<uint32_t>& m_slot; // per conjunction: its Open in m_pool, kNoIndex, or kClosed
    std::vector<uint32_t> m_touched; // the conjunctions whose slots were written
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
};

} // namespace sparkscope::core::detail::sweep
