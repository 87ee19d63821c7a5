// One slice of the descendant sweep: each change walks up the open instances it reaches, past the
// streams' subscribers (descendant_sweep.cpp explains the algorithm; sweep_streams.cpp keeps the
// streams). Instances open when the sweep first reaches them and close at their end entry, where
// their figures are made; a slice's first instances are rebuilt from the items' states at its start.
#include "metrics/descendant/sweep_slice.h"

#include <algorithm>
#include <limits>

namespace sparkscope::core::detail::sweep {

Slice::Slice(const Sweep& s, std::vector<uint32_t>& slot)
    : m_s(s)
    , m_slot(slot)
{
    m_maxCpus = *std::max_element(s.cpuV.begin(), s.cpuV.end());
    m_endAt.assign(size_t(m_maxCpus) + 1, std::numeric_limits<int64_t>::min());
}

void Slice::openAt(
    int64_t fromT, std::span<const uint32_t> candidates, const std::vector<std::pair<uint32_t, Delta4>>& liveItems)
{
    m_next = m_s.cpuIndex(fromT);
    advance(fromT);
    std::vector<uint32_t> straddling;
    m_streaming = false; // (until the counts are rebuilt: streams need settled instances)
    for (const uint32_t j : candidates) {
        const ConjunctionInstance& ci = m_s.m.conjunctions[j];
        if (m_s.measured[j] && I(ci.startNs) < fromT && I(ci.endNs) > fromT) {
            open(j, true);
            straddling.push_back(m_slot[j]);
        }
    }
    for (const auto& item : liveItems) {
        const auto& d = item.second; // (a named reference: clang 14 cannot capture structured bindings)
        climb(item.first, [&](Open& o, const Link& l) {
            o.straddles = true; // (when an item changed before its conjunction started)
            apply(o, l, d.runnable, d.running, d.blocked, d.blockedTc);
        });
    }
    m_streaming = true;
    for (uint32_t x : straddling) // (parents first: instances are numbered in start order)
        subscribeParent(x);
}

void Slice::run(const Entry* e, const Entry* end, int64_t toT, DescSink& sink,
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
                close(*o, sink, partial, cpus, engines);
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
    settleAll();
    for (uint32_t x : m_openList)
        if (Open& o = m_pool[x]; m_slot[o.conjunction] == x) {
            const int64_t t = std::min(toT, o.end);
            hold(o, t);
            partial.push_back({ o.conjunction, o.figures(t) });
            o.isOpen = false;
            m_slot[o.conjunction] = kNoIndex;
        }
}

// Calls f(open state, link into it) for item k's measured open ancestors, innermost first.
template <class F> void Slice::climb(uint32_t k, F f)
{
    Link l = m_s.items[k];
    for (Open* o = innermost(l); o; o = parentOf(*o, l))
        f(*o, l);
}

// The open instance of link l's conjunction, or of the nearest measured ancestor that is (l
// then links into it).
Open* Slice::innermost(Link& l)
{
    for (; l.conjunction != kNoIndex; l = m_s.up[l.conjunction])
        if (Open* o = find(l.conjunction, true))
            return o;
    return nullptr;
}

// The open instance above o (l then links o into it), or null at the top.
Open* Slice::parentOf(const Open& o, Link& l)
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
void Slice::change(uint32_t k, int32_t dR, int32_t dN, int32_t dB, int32_t dT)
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
        if (below != kNoIndex && absorbable(m_pool[x], l))
            absorb(x, below, l);
        below = from;
        o = parentOf(m_pool[from], l);
    }
}

// A conjunct whose context starts a nested conjunction hands its state to the nested first
// conjunct at that instant, and takes it back from the last one at the end: two changes at
// one time, opposite, of an item and a conjunct of a conjunction started inside it. Above
// the nested conjunction they cancel exactly (same counts at the same position), so only
// the nested conjunction sees the child's change. Applies it and returns true for such a
// pair; many changes are handovers (docs/performance.md), and each would climb the tree.
bool Slice::handover(const Entry& a, const Entry& b)
{
    if (a.t != b.t || (b.what & ~kIndexMask) != kChange || a.runnable != -b.runnable || a.running != -b.running
        || a.blocked != -b.blocked || a.blockedTc != -b.blockedTc)
        return false;
    // Raw item positions, packed in the entries: compared with the parents' index values.
    const uint32_t x = a.what & kIndexMask, y = b.what & kIndexMask;
    const Entry* child = nullptr;
    if (m_s.m.conjunctions[m_s.items[y].conjunction].parentConjunct.value() == x)
        child = &b;
    else if (m_s.m.conjunctions[m_s.items[x].conjunction].parentConjunct.value() == y)
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
Open* Slice::find(uint32_t j, bool create)
{
    const uint32_t x = m_slot[j];
    if (x < kClosed)
        return &m_pool[x];
    if (!create || x == kClosed || !m_s.measured[j] || I(m_s.m.conjunctions[j].endNs) <= m_now)
        return nullptr;
    return &open(j, false);
}

Open& Slice::open(uint32_t j, bool straddles)
{
    const size_t pooled = m_pool.size();
    const uint32_t x = takeSlot(m_free, m_pool);
    if (m_pool.size() > pooled)
        m_openList.push_back(x);
    m_slot[j] = x;
    m_touched.push_back(j);
    const ConjunctionInstance& ci = m_s.m.conjunctions[j];
    Open& o = m_pool[x];
    o.conjunction = j;
    o.n = uint32_t(ci.conjuncts.size());
    o.last = std::max(I(ci.startNs), m_now);
    o.end = I(ci.endNs);
    o.straddles = straddles;
    int64_t total = 0;
    for (ConjunctIndex k : ci.conjuncts)
        total += m_s.items[k.value()].items;
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

void Slice::close(Open& o, DescSink& sink, std::vector<std::pair<uint32_t, Raw>>& partial,
    const StepFunction& cpus, size_t engines)
{
    const uint32_t j = o.conjunction;
    if (o.straddles)
        partial.push_back({ j, o.figures(o.end) });
    else
        sink.put(j, finish(m_s.m.conjunctions[j], o.figures(o.end), cpus, engines));
    o.isOpen = false;
    m_free.push_back(m_slot[j]);
    m_slot[j] = kClosed;
}

// Moves the sweep to time t: every CPUS step that starts before t is recorded in m_endAt.
void Slice::advance(int64_t t)
{
    for (; m_next < m_s.cpuT.size() && m_s.cpuT[m_next] < t; ++m_next)
        m_endAt[size_t(m_s.cpuV[m_next])]
            = m_next + 1 < m_s.cpuT.size() ? m_s.cpuT[m_next + 1] : std::numeric_limits<int64_t>::max();
    m_now = t;
}

// One change of an item under position l.branch of o, now (or at o's start, if before).
void Slice::apply(Open& o, const Link& l, int32_t dR, int32_t dN, int32_t dB, int32_t dT)
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
        addBlocking(o, t, dB * runningAfter + dN * fenwickPrefix(bf, i), dT * runningAfter + dN * fenwickPrefix(tf, i));
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

void Slice::addBlocking(Open& o, int64_t t, int64_t dB, int64_t dT)
{
    o.blockPairs += dB, o.blockTcPairs += dT;
    o.offBlock += uint64_t(dB) * uint64_t(t), o.offBlockTc += uint64_t(dT) * uint64_t(t);
}

} // namespace sparkscope::core::detail::sweep
