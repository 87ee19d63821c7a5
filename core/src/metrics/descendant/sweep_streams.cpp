// The descendant sweep's streams (descendant_sweep.cpp explains the algorithm; sweep_state.h says
// what a stream is). An open instance that sees changes through one position only subscribes to the
// stream below it and is passed in one step; it settles, its figures brought up to date from the
// stream's totals, when it leaves: when a change reaches it another way (split), or when its feeder
// closes (leaveStreams). An instance whose other positions have emptied takes the stream below it
// back in (absorb), which keeps a right-recursive loop's levels in one stream.
#include "metrics/descendant/sweep_slice.h"

#include <algorithm>

namespace sparkscope::core::detail::sweep {

uint32_t Slice::newStream(uint32_t feeder)
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

void Slice::freeStream(uint32_t s)
{
    m_pool[m_streams[s].feeder].feeds = kNoIndex;
    m_freeStreams.push_back(s);
}

// Subscribes x (settled, explicit) to stream s through via: its figures follow the stream's
// totals from now on. Where it sits among the subscribers is the caller's.
Stream& Slice::subscribe(uint32_t x, uint32_t s, const Link& via)
{
    Stream& st = m_streams[s];
    Open& o = m_pool[x];
    cut(st, m_now);
    o.stream = s, o.via = via, o.joinIndex = st.pushed, o.joinSum = st.sum, o.joinSumT = st.sumT;
    o.feeds = kNoIndex;
    return st;
}

// ... as the stream's new top subscriber.
void Slice::joinTop(uint32_t x, uint32_t s, const Link& via)
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
void Slice::joinBottom(uint32_t x, uint32_t s, const Link& via)
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
void Slice::subscribeParent(uint32_t x)
{
    Open& o = m_pool[x];
    if (!m_streaming || o.parent == kNoIndex)
        return;
    const uint32_t px = o.parent;
    Open& p = m_pool[px];
    if (p.branch || p.stream != kNoIndex || !p.isOpen || p.conjunction != o.parentLink.conjunction || m_now < p.last)
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
void Slice::settle(Open& o)
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
void Slice::applyTotals(Open& o, const Link& l, const std::array<int64_t, 5>& d, const std::array<uint64_t, 5>& dt)
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
void Slice::split(Open& o)
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
// instance feeding none), through position l.branch, and x's other positions are empty
// (absorbable): then x and the short stream below it join the stream x feeds (x at its bottom,
// the stream's subscribers below x, its feeder last), so later changes pass them in one step.
// This undoes a split once the other side has finished (the chunk of a "chunk & rest"
// loop), which keeps a right-recursive loop's levels in one stream.
void Slice::absorb(uint32_t x, uint32_t from, const Link& l)
{
    constexpr size_t kMaxMoved = 8;
    Open& o = m_pool[x];
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
void Slice::leaveStreams(Open& o)
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

// At the slice's end: every subscriber still open settles, so that its figures can be read.
void Slice::settleAll()
{
    for (uint32_t x : m_openList)
        if (Open& o = m_pool[x]; m_slot[o.conjunction] == x && o.stream != kNoIndex)
            settle(o);
}

} // namespace sparkscope::core::detail::sweep
