// The descendant pass by merged sorted lists (the variant descendantPass picks when nesting is
// shallow; descendant_pass.cpp has the segment-tree variant and the choice). Exact, like it.
//
// Items are conjuncts, each in its innermost-only state (a conjunct whose context runs a nested
// conjunct is represented by that nested conjunct) plus its spark phase and unbound start (waiting).
// An item's own changes are +1/-1 on runnable and running, and on blockedWaiting while it waits and
// produces a future some context is suspended on (from its FUT_WAIT_SUSPENDED to the signal).
//
// Why bottom-up merged lists: a conjunction's curves are sums over its whole subtree. Every
// conjunction J gets the list L_J of its subtree's changes sorted by time: the own changes of each of
// its conjuncts, merged with the lists of the conjunctions started inside them, then the n conjuncts'
// lists merged (each change tagged with its conjunct's position). Conjunctions are processed deepest
// first (each depth in parallel); a child's list is freed once merged. One linear sweep over L_J and
// the CPUS_OVER_TIME steps in [start, end) gives J's figures, keeping per conjunct i the counts
// w_i (waiting), r_i (running), bw_i (blocked-waiting producers) and n_i (items in its subtree):
//   out-of-order pairs      P = sum over i<j of w_i * r_j
//   blocking pairs          B = sum over i<j of bw_i * r_j
//   pairs where A or B runs E = sum over i<j of r_i n_j + r_j n_i - r_i r_j
//                             = sum_i r_i (N - n_i) - ((sum_i r_i)^2 - sum_i r_i^2) / 2
// P and B are updated per change in O(log n) with Fenwick trees over the positions (dP = dw_i *
// sum_{j>i} r_j, then dr_j * sum_{i<j} w_i), E in O(1); so a change costs O(log n) per level, not
// O(n). Every integral is exact int64 arithmetic, converted to double once.
//
// Cost: each change is merged and swept once per ancestor conjunction, O(changes x nesting depth):
// two sequential passes per level, about 3x cheaper per level than the segment trees' O(log T) node
// visits, so it wins while the average nesting depth stays below ~48 (parfib: 23).
#include "descendant_pass.h"

#include <algorithm>
#include <tbb/parallel_for.h>
#include <unordered_map>

namespace sparkscope::core::detail {

namespace {

    using I = int64_t;
    using Interval = std::pair<uint64_t, uint64_t>;

    struct Change {
        int64_t t;
        int8_t runnable, running, blockedWaiting; // deltas of one item (conjunct)
        uint32_t branch; // the position (0-based) of the conjunct of the conjunction being swept
    };
    static_assert(sizeof(Change) == 16);

    // The item's own changes, sorted and coalesced per time, into `out` (cleared first).
    void ownChanges(const ParModel& m, uint32_t k, uint64_t endLimit, const std::vector<Interval>& producing,
        std::vector<Change>& out)
    {
        out.clear();
        const ConjunctInstance& g = m.conjuncts[k];
        const uint64_t end = g.ended ? g.endNs : endLimit;
        auto piece = [&](uint64_t from, uint64_t to, bool running, bool runnable) {
            if (to <= from || !runnable)
                return;
            out.push_back({ I(from), 1, int8_t(running), 0, 0 });
            out.push_back({ I(to), -1, int8_t(-int(running)), 0, 0 });
            if (!running)
                for (const auto& [a, b] : producing) {
                    const uint64_t x = std::max(a, from), y = std::min(b, to);
                    if (y > x) {
                        out.push_back({ I(x), 0, 0, 1, 0 });
                        out.push_back({ I(y), 0, 0, -1, 0 });
                    }
                }
        };
        if (g.fromSpark)
            piece(g.sparkCreateNs, g.started ? std::min(g.startNs, end) : end, false, true);
        if (g.started) {
            const uint64_t bound = std::min(bindTime(m, g, k), end);
            piece(g.startNs, bound, false, true);
            if (g.context != kNoIndex)
                for (const auto& p : m.topPieces(k))
                    piece(std::max(bound, p.startNs), std::min(end, p.endNs), p.state == ContextState::Running,
                        p.state != ContextState::Blocked);
        }
        std::sort(out.begin(), out.end(), [](const Change& a, const Change& b) { return a.t < b.t; });
        size_t w = 0;
        for (size_t i = 0; i < out.size();) {
            Change c = out[i++];
            while (i < out.size() && out[i].t == c.t) {
                c.runnable = int8_t(c.runnable + out[i].runnable);
                c.running = int8_t(c.running + out[i].running);
                c.blockedWaiting = int8_t(c.blockedWaiting + out[i].blockedWaiting);
                ++i;
            }
            if (c.runnable || c.running || c.blockedWaiting)
                out[w++] = c;
        }
        out.resize(w);
    }

    // Prefix sums over conjunct positions, on caller-provided storage (n + 1 zeros).
    class Fenwick {
    public:
        explicit Fenwick(int64_t* tree, size_t n)
            : m_tree(tree)
            , m_size(n + 1)
        {
        }
        void add(size_t i, int64_t d)
        {
            for (++i; i < m_size; i += i & -i)
                m_tree[i] += d;
        }
        int64_t prefix(size_t i) const // sum over [0, i)
        {
            int64_t s = 0;
            for (; i > 0; i -= i & -i)
                s += m_tree[i];
            return s;
        }

    private:
        int64_t* m_tree;
        size_t m_size;
    };

    // Shared state of a pass: the model, the CPUS curve and which conjuncts produce futures waited on.
    struct Pass {
        const ParModel& m;
        const StepFunction& cpus;
        size_t engines;
        std::unordered_map<uint32_t, std::vector<Interval>> producing; // conjunct -> suspended waits on its futures
        const std::vector<Interval> none;

        Pass(const ParModel& model, const StepFunction& c, size_t e)
            : m(model)
            , cpus(c)
            , engines(e)
            , producing(suspendedWaitsByProducer(model))
        {
        }

        // Conjunction j: merges its conjuncts' own changes and its children's lists (taken from
        // `merged` via `slot`, then freed) into its own list in one k-way merge that tags each change
        // with its conjunct's position, and sweeps it when `measure`.
        template <class Slot>
        void process(uint32_t j, bool measure, Slot slot, std::vector<std::vector<Change>>& merged,
            std::vector<int64_t>& items, DescValues& v) const
        {
            struct Source {
                const Change* p;
                const Change* end;
                uint32_t branch;
            };
            struct Scratch {
                std::vector<std::vector<Change>> own;
                std::vector<Source> sources;
                std::vector<int64_t> size;
                std::vector<uint32_t> children;
            };
            thread_local Scratch s;
            const ConjunctionInstance& ci = m.conjunctions[j];
            const uint64_t endLimit = ci.ended ? ci.endNs : m.endNs;
            const size_t n = ci.conjuncts.size();
            if (s.own.size() < n)
                s.own.resize(n);
            s.sources.clear();
            s.children.clear();
            s.size.assign(n, 1);
            int64_t total = 0;
            size_t count = 0;
            for (size_t i = 0; i < n; ++i) {
                const uint32_t k = ci.conjuncts[i];
                const auto p = producing.find(k);
                ownChanges(m, k, endLimit, p == producing.end() ? none : p->second, s.own[i]);
                if (!s.own[i].empty())
                    s.sources.push_back({ s.own[i].data(), s.own[i].data() + s.own[i].size(), uint32_t(i) });
                count += s.own[i].size();
                for (uint32_t child : m.childConjunctions(k)) {
                    const uint32_t c = slot(child);
                    s.children.push_back(c);
                    s.size[i] += items[c];
                    const auto& list = merged[c];
                    if (!list.empty())
                        s.sources.push_back({ list.data(), list.data() + list.size(), uint32_t(i) });
                    count += list.size();
                }
                total += s.size[i];
            }
            const uint32_t self = slot(j);
            items[self] = total;
            std::vector<Change> out(count);
            Change* w = out.data();
            auto& src = s.sources;
            if (src.size() == 1) {
                for (const Change* q = src[0].p; q != src[0].end; ++q, ++w)
                    *w = { q->t, q->runnable, q->running, q->blockedWaiting, src[0].branch };
            } else if (src.size() <= 8) {
                // Few sources (parfib: two own lists and two children): scan the heads.
                while (!src.empty()) {
                    size_t best = 0;
                    for (size_t x = 1; x < src.size(); ++x)
                        if (src[x].p->t < src[best].p->t)
                            best = x;
                    Source& b = src[best];
                    *w++ = { b.p->t, b.p->runnable, b.p->running, b.p->blockedWaiting, b.branch };
                    if (++b.p == b.end) {
                        b = src.back();
                        src.pop_back();
                    }
                }
            } else {
                auto later = [&](size_t x, size_t y) { return src[x].p->t > src[y].p->t; };
                std::vector<size_t> heap(src.size());
                for (size_t x = 0; x < heap.size(); ++x)
                    heap[x] = x;
                std::make_heap(heap.begin(), heap.end(), later);
                while (!heap.empty()) {
                    std::pop_heap(heap.begin(), heap.end(), later);
                    Source& b = src[heap.back()];
                    *w++ = { b.p->t, b.p->runnable, b.p->running, b.p->blockedWaiting, b.branch };
                    if (++b.p == b.end)
                        heap.pop_back();
                    else
                        std::push_heap(heap.begin(), heap.end(), later);
                }
            }
            for (uint32_t c : s.children)
                std::vector<Change>().swap(merged[c]);
            v.done = measure;
            const int64_t a = I(ci.startNs), b = I(ci.ended ? ci.endNs : ci.startNs);
            if (measure && b > a)
                sweep(out, s.size, total, a, b, v);
            merged[self] = std::move(out);
        }

        void sweep(const std::vector<Change>& list, const std::vector<int64_t>& size, int64_t total, int64_t a,
            int64_t b, DescValues& v) const
        {
            const size_t n = size.size();
            thread_local std::vector<int64_t> storage;
            storage.assign(4 * (n + 1), 0);
            Fenwick wf(storage.data(), n), rf(storage.data() + (n + 1), n), bf(storage.data() + 2 * (n + 1), n);
            int64_t* r = storage.data() + 3 * (n + 1);
            int64_t rd = 0, nd = 0, pairs = 0, blockPairs = 0, s1 = 0, sq = 0;
            const auto& cpuSteps = cpus.steps();
            auto cpuIt = std::upper_bound(cpuSteps.begin(), cpuSteps.end(), a,
                [](int64_t t, const StepFunction::Step& s) { return t < s.timeNs; });
            int64_t cpuValue = cpus.valueAt(a);
            const int64_t engines64 = int64_t(engines);
            int64_t rdInt = 0, ndInt = 0, avInt = 0, oooInt = 0, blockInt = 0, eitherInt = 0;
            int64_t rdMax = 0, ndMax = 0, avMax = INT64_MIN;
            int64_t t = a;
            auto integrate = [&](int64_t until) {
                until = std::min(until, b);
                if (until <= t)
                    return;
                const int64_t dt = until - t;
                const int64_t av = engines64 - cpuValue + nd;
                const int64_t either = s1 - (nd * nd - sq) / 2;
                rdInt += rd * dt, ndInt += nd * dt, avInt += av * dt;
                oooInt += pairs * dt, blockInt += blockPairs * dt, eitherInt += either * dt;
                rdMax = std::max(rdMax, rd), ndMax = std::max(ndMax, nd), avMax = std::max(avMax, av);
                t = until;
            };
            size_t idx = 0;
            while (true) {
                int64_t next = INT64_MAX;
                if (idx < list.size())
                    next = list[idx].t;
                if (cpuIt != cpuSteps.end() && cpuIt->timeNs < b)
                    next = std::min(next, cpuIt->timeNs);
                if (next == INT64_MAX || next >= b)
                    break;
                integrate(next);
                for (; idx < list.size() && list[idx].t == next; ++idx) {
                    const Change& c = list[idx];
                    const size_t i = c.branch;
                    const int64_t dw = int64_t(c.runnable) - c.running;
                    if (dw != 0 || c.blockedWaiting != 0) {
                        const int64_t runningAfter = nd - rf.prefix(i + 1); // sum over j > i of r_j
                        if (dw != 0) {
                            pairs += dw * runningAfter;
                            wf.add(i, dw);
                        }
                        if (c.blockedWaiting != 0) {
                            blockPairs += c.blockedWaiting * runningAfter;
                            bf.add(i, c.blockedWaiting);
                        }
                    }
                    if (c.running != 0) {
                        const int64_t dr = c.running;
                        pairs += dr * wf.prefix(i);
                        blockPairs += dr * bf.prefix(i);
                        s1 += dr * (total - size[i]);
                        sq += (r[i] + dr) * (r[i] + dr) - r[i] * r[i];
                        r[i] += dr;
                        nd += dr;
                        rf.add(i, dr);
                    }
                    rd += c.runnable;
                }
                while (cpuIt != cpuSteps.end() && cpuIt->timeNs == next) {
                    cpuValue = cpuIt->value;
                    ++cpuIt;
                }
            }
            integrate(b);
            const double span = double(b - a);
            v.rdAvg = double(rdInt) / span, v.ndAvg = double(ndInt) / span, v.avAvg = double(avInt) / span;
            v.rdMax = double(rdMax), v.ndMax = double(ndMax), v.avMax = double(avMax);
            v.outOfOrder = double(oooInt), v.blocking = double(blockInt), v.eitherRunning = double(eitherInt);
        }
    };

} // namespace

std::vector<DescValues> descendantPassLists(
    const ParModel& m, const StepFunction& cpus, size_t engines, uint64_t fromNs, uint64_t toNs)
{
    const size_t nConj = m.conjunctions.size();
    std::vector<DescValues> values(nConj);
    const Pass pass(m, cpus, engines);
    std::vector<std::vector<Change>> merged(nConj);
    std::vector<int64_t> items(nConj, 0);
    uint32_t maxDepth = 0;
    for (const auto& ci : m.conjunctions)
        maxDepth = std::max(maxDepth, ci.depth);
    std::vector<std::vector<uint32_t>> byDepth(nConj == 0 ? 0 : maxDepth + 1);
    for (uint32_t j = 0; j < nConj; ++j)
        byDepth[m.conjunctions[j].depth].push_back(j);
    auto identity = [](uint32_t j) { return j; };
    for (size_t d = byDepth.size(); d-- > 0;)
        tbb::parallel_for(size_t(0), byDepth[d].size(), [&](size_t idx) {
            const uint32_t j = byDepth[d][idx];
            const ConjunctionInstance& ci = m.conjunctions[j];
            const bool measure = ci.complete && ci.startNs >= fromNs && ci.startNs < toNs;
            pass.process(j, measure, identity, merged, items, values[j]);
        });
    return values;
}

} // namespace sparkscope::core::detail
