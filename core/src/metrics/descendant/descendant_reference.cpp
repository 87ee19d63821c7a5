// The segment-tree descendant pass: the reference the tests check the sweep against (the second,
// independent computation of every figure), and the computation of one instance alone from its
// subtree (the app's hover menu). descendantPass runs the sweep (descendant_sweep.cpp) instead; see
// descendant_pass.cpp for why.
//
// O(changes x log(times)) whatever the nesting depth. Time is compressed to the sorted distinct
// times of every change, CPUS_OVER_TIME step and instance start / end (X[0..T)). Each subtree's
// changes live in a sparse segment tree over [0, T): a node exists only where some change is, and
// holds, for runnable (R), running (N) and blocking-producer (B) deltas, their sum S and sum of delta
// x time (for integrals over any range: the integral over [a, b) of a curve whose changes are c is
// S(c < a)(b - a) + b S(a <= c < b) - sum(a <= c < b) of delta x c), and the maximum prefix of R, N
// and N - CPUS within the node. CPUS_OVER_TIME is a second sparse tree over the same coordinates,
// walked alongside: where a subtree's node is absent, N - CPUS is -CPUS there.
//
// Bottom-up (children before parents: conjunctions in reverse start order), each conjunct's tree is
// its child conjunctions' trees merged with a small tree of its own changes; a conjunction's tree is its
// conjuncts' trees merged left to right. Merging two sparse trees visits only the nodes both have and
// frees one of each pair, so all merges together cost at most the nodes ever created: O(changes x
// log T). While merging conjunct j into the accumulated G1..G(j-1), the same recursion integrates
// the pair counts over [start, end): where one side has no node its curve is constant there, so the
// product's integral is that constant times the other side's integral (from S and the delta x time
// sums), and only nodes present on both sides are visited:
//   out-of-order pairs      sum over i<j of w_i * r_j  (w = R - N)
//   blocking pairs          sum over i<j of bw_i * r_j
//   pairs where A or B runs sum over i<j of r_i n_j + r_j n_i - r_i r_j
// Maxima and integrals of J's curves over [start, end) are O(log T) range queries on its tree.
// Everything is exact int64 arithmetic, so the figures equal the definitions' (tested against a
// brute force in tests/core/metrics_desc_brute_test.cpp). Subtrees of at most 1/64 of the instances
// are independent tasks run in parallel, each with its own node storage; the rest follows.
#include "metrics/descendant/descendant_pass.h"

#include <algorithm>
#include <array>
#include <memory>
#include <unordered_map>

#include <tbb/parallel_for.h>
#include <tbb/parallel_sort.h>

namespace sparkscope::core::detail {

namespace {

    using I = int64_t;

    struct Delta {
        int64_t t;
        int32_t r, n, b, c; // runnable, running, blocked-waiting producer (direct, transitive)
    };

    // Own changes of conjunct k, appended to `out` unsorted: its spark phase and unbound start
    // (waiting), then its innermost pieces (waiting when Runnable, running when Running), cut at its
    // end; waiting time that overlaps a suspended wait on a future it produces is also "blocking".
    void ownDeltas(
        const ParModel& m, ConjunctIndex k, uint64_t endLimit, const Producers& producers, std::vector<Delta>& out)
    {
        forEachItemPiece(m, k, endLimit, [&](uint64_t from, uint64_t to, bool running, bool runnable) {
            if (to <= from || !runnable)
                return;
            out.push_back({ I(from), 1, int32_t(running), 0, 0 });
            out.push_back({ I(to), -1, -int32_t(running), 0, 0 });
            if (running)
                return;
            for (const auto& [a, b] : producers.direct.of(k))
                if (const uint64_t x = std::max(a, from), y = std::min(b, to); y > x) {
                    out.push_back({ I(x), 0, 0, 1, 0 });
                    out.push_back({ I(y), 0, 0, -1, 0 });
                }
            for (const auto& [a, b] : producers.transitive.of(k))
                if (const uint64_t x = std::max(a, from), y = std::min(b, to); y > x) {
                    out.push_back({ I(x), 0, 0, 0, 1 });
                    out.push_back({ I(y), 0, 0, 0, -1 });
                }
        });
    }

    struct CpuNode {
        CpuNode *l = nullptr, *r = nullptr;
        int64_t s = 0, m = 0; // sum and max prefix of the negated CPUS deltas
    };

    struct Node {
        Node *l = nullptr, *r = nullptr;
        int64_t sR = 0, sN = 0, sB = 0, sC = 0;
        int64_t tR = 0, tN = 0, tB = 0, tC = 0; // sum of delta x time
        int64_t mR = 0, mN = 0, mA = 0; // max prefix of R, N, N - CPUS
    };

    // Values of the R, N, B and C (transitive B) curves; for maxima, b holds N - CPUS.
    struct Triple {
        int64_t r = 0, n = 0, b = 0, c = 0;
    };

    // Node storage: chunks that never move, and a free list.
    template <class T> class Arena {
    public:
        T* make()
        {
            if (m_free) {
                T* x = m_free;
                m_free = x->l;
                *x = T {};
                return x;
            }
            if (m_chunks.empty() || m_used == kChunk) {
                m_chunks.emplace_back(new T[kChunk]);
                m_used = 0;
            }
            return &m_chunks.back()[m_used++];
        }
        void release(T* x)
        {
            x->l = m_free;
            m_free = x;
        }

    private:
        static constexpr size_t kChunk = 1 << 14;
        std::vector<std::unique_ptr<T[]>> m_chunks;
        size_t m_used = 0;
        T* m_free = nullptr;
    };

    class Trees {
    public:
        // CPUS_OVER_TIME is represented over [from, to) only (queries stay within it); `coords` must
        // hold from, to and every CPUS step time between.
        Trees(std::vector<int64_t> coords, const StepFunction& cpus, int64_t from, int64_t to)
            : m_coords(std::make_shared<std::vector<int64_t>>(std::move(coords)))
            , m_size(m_coords->size())
            , m_cpuNodes(std::make_shared<Arena<CpuNode>>())
        {
            m_coords->push_back(m_coords->empty() ? 0 : m_coords->back()); // sentinel: the last leaf has no length
            m_x = m_coords->data();
            // CPUS deltas, negated.
            int64_t previous = cpus.valueAt(from);
            addCpu(from, -previous);
            const auto& steps = cpus.steps();
            auto it = std::upper_bound(
                steps.begin(), steps.end(), from, [](int64_t t, const StepFunction::Step& x) { return t < x.timeNs; });
            for (; it != steps.end() && it->timeNs < to; ++it) {
                addCpu(it->timeNs, -(it->value - previous));
                previous = it->value;
            }
            const int64_t last = std::min(to, cpus.endNs());
            if (last > from)
                addCpu(last, previous);
        }

        // Another Trees over the same coordinates and CPUS tree with its own node storage, for
        // another thread. Trees may be merged across workers while every worker is alive.
        std::unique_ptr<Trees> worker() const { return std::unique_ptr<Trees>(new Trees(*this, 0)); }

        size_t size() const { return m_size; }
        size_t coord(int64_t t) const { return size_t(std::lower_bound(m_x, m_x + m_size, t) - m_x); }

        // A tree of the deltas (sorted by time in place first).
        Node* build(std::vector<Delta>& deltas)
        {
            if (deltas.empty() || !m_size)
                return nullptr;
            std::sort(deltas.begin(), deltas.end(), [](const Delta& a, const Delta& b) { return a.t < b.t; });
            m_pos.resize(deltas.size());
            for (size_t i = 0; i < deltas.size(); ++i)
                m_pos[i] = coord(deltas[i].t);
            return build(deltas.data(), m_pos.data(), deltas.size(), m_cpu, 0, m_size);
        }
        Node* merge(Node* x, Node* y) { return merge(x, y, m_cpu, 0, m_size); }

        // Merges y into x, adding to `cross` the integrals over [a, b) of w_x r_y, bw_x r_y, r_x r_y
        // and bt_x r_y.
        Node* mergeCounting(Node* x, Node* y, int64_t a, int64_t b, std::array<int64_t, 4>& cross)
        {
            m_a = a, m_b = b;
            m_cross = {};
            Node* out = mergeX(x, y, m_cpu, 0, m_size, {}, 0);
            cross = m_cross;
            return out;
        }

        // Integrals over [a, b) of the R, N, B curves of x.
        Triple integral(const Node* x, int64_t a, int64_t b)
        {
            m_a = a, m_b = b;
            return integralIn(x, 0, m_size, {});
        }

        // Maxima over [a, b) of the R, N and N - CPUS curves of x (a and b are coordinates).
        Triple max(const Node* x, int64_t a, int64_t b) const
        {
            Triple out { INT64_MIN, INT64_MIN, INT64_MIN };
            if (m_size)
                maxIn(x, m_cpu, 0, m_size, coord(a), coord(b), {}, out);
            return out;
        }

    private:
        static int64_t cpuS(const CpuNode* g) { return g ? g->s : 0; }
        static int64_t cpuM(const CpuNode* g) { return g ? g->m : 0; }
        static CpuNode* left(const CpuNode* g) { return g ? g->l : nullptr; }
        static CpuNode* right(const CpuNode* g) { return g ? g->r : nullptr; }
        int64_t len(size_t lo, size_t hi) const { return m_x[hi] - m_x[lo]; }
        // Length of [X[lo], X[hi]) within [m_a, m_b).
        int64_t clipped(size_t lo, size_t hi) const
        {
            return std::max<int64_t>(0, std::min(m_x[hi], m_b) - std::max(m_x[lo], m_a));
        }

        void addCpu(int64_t t, int64_t d)
        {
            if (!m_size || d == 0)
                return;
            m_cpu = addCpu(m_cpu, 0, m_size, coord(t), d);
        }
        CpuNode* addCpu(CpuNode* g, size_t lo, size_t hi, size_t pos, int64_t d)
        {
            if (!g)
                g = m_cpuNodes->make();
            if (hi - lo == 1) {
                g->s += d;
                g->m = g->s;
                return g;
            }
            const size_t mid = (lo + hi) / 2;
            if (pos < mid)
                g->l = addCpu(g->l, lo, mid, pos, d);
            else
                g->r = addCpu(g->r, mid, hi, pos, d);
            g->s = cpuS(g->l) + cpuS(g->r);
            g->m = std::max(cpuM(g->l), cpuS(g->l) + cpuM(g->r));
            return g;
        }

        void leafMax(Node* x, const CpuNode* g) { x->mR = x->sR, x->mN = x->sN, x->mA = x->sN + cpuS(g); }

        void pull(Node* x, const CpuNode* g)
        {
            const Node *l = x->l, *r = x->r;
            const CpuNode *gl = left(g), *gr = right(g);
            const int64_t lR = l ? l->sR : 0, lN = l ? l->sN : 0;
            x->sR = lR + (r ? r->sR : 0);
            x->sN = lN + (r ? r->sN : 0);
            x->sB = (l ? l->sB : 0) + (r ? r->sB : 0);
            x->sC = (l ? l->sC : 0) + (r ? r->sC : 0);
            x->tR = (l ? l->tR : 0) + (r ? r->tR : 0);
            x->tN = (l ? l->tN : 0) + (r ? r->tN : 0);
            x->tB = (l ? l->tB : 0) + (r ? r->tB : 0);
            x->tC = (l ? l->tC : 0) + (r ? r->tC : 0);
            x->mR = std::max(l ? l->mR : 0, lR + (r ? r->mR : 0));
            x->mN = std::max(l ? l->mN : 0, lN + (r ? r->mN : 0));
            const int64_t lA = lN + cpuS(gl);
            x->mA = std::max(l ? l->mA : cpuM(gl), lA + (r ? r->mA : cpuM(gr)));
        }

        Node* build(const Delta* d, const size_t* pos, size_t count, const CpuNode* g, size_t lo, size_t hi)
        {
            if (count == 0)
                return nullptr;
            Node* x = m_nodes.make();
            if (hi - lo == 1) {
                for (size_t i = 0; i < count; ++i) {
                    x->sR += d[i].r, x->sN += d[i].n, x->sB += d[i].b, x->sC += d[i].c;
                    x->tR += d[i].r * d[i].t, x->tN += d[i].n * d[i].t, x->tB += d[i].b * d[i].t;
                    x->tC += d[i].c * d[i].t;
                }
                leafMax(x, g);
                return x;
            }
            const size_t mid = (lo + hi) / 2;
            const size_t split = size_t(std::lower_bound(pos, pos + count, mid) - pos);
            x->l = build(d, pos, split, left(g), lo, mid);
            x->r = build(d + split, pos + split, count - split, right(g), mid, hi);
            pull(x, g);
            return x;
        }

        void absorbLeaf(Node* x, const Node* y, const CpuNode* g)
        {
            x->sR += y->sR, x->sN += y->sN, x->sB += y->sB, x->sC += y->sC;
            x->tR += y->tR, x->tN += y->tN, x->tB += y->tB, x->tC += y->tC;
            leafMax(x, g);
        }

        Node* merge(Node* x, Node* y, const CpuNode* g, size_t lo, size_t hi)
        {
            if (!x)
                return y;
            if (!y)
                return x;
            if (hi - lo == 1)
                absorbLeaf(x, y, g);
            else {
                const size_t mid = (lo + hi) / 2;
                x->l = merge(x->l, y->l, left(g), lo, mid);
                x->r = merge(x->r, y->r, right(g), mid, hi);
                pull(x, g);
            }
            m_nodes.release(y);
            return x;
        }

        // Integrals over [X[lo], X[hi]) within [m_a, m_b) of x's curves, which enter the range at p.
        Triple integralIn(const Node* x, size_t lo, size_t hi, Triple p) const
        {
            const int64_t from = m_x[lo], to = m_x[hi];
            if (to <= m_a || from >= m_b || hi <= lo)
                return {};
            if (!x) {
                const int64_t l = clipped(lo, hi);
                return { p.r * l, p.n * l, p.b * l, p.c * l };
            }
            if (from >= m_a && to <= m_b) // sum over changes c of delta x (to - c), plus the entry value
                return { p.r * (to - from) + to * x->sR - x->tR, p.n * (to - from) + to * x->sN - x->tN,
                    p.b * (to - from) + to * x->sB - x->tB, p.c * (to - from) + to * x->sC - x->tC };
            if (hi - lo == 1) { // a leaf cut by [a, b): its changes are at X[lo]
                const int64_t l = clipped(lo, hi);
                return { (p.r + x->sR) * l, (p.n + x->sN) * l, (p.b + x->sB) * l, (p.c + x->sC) * l };
            }
            const size_t mid = (lo + hi) / 2;
            const Triple a = integralIn(x->l, lo, mid, p);
            const Triple q = x->l ? Triple { p.r + x->l->sR, p.n + x->l->sN, p.b + x->l->sB, p.c + x->l->sC } : p;
            const Triple b = integralIn(x->r, mid, hi, q);
            return { a.r + b.r, a.n + b.n, a.b + b.b, a.c + b.c };
        }

        // Adds the pair integrals of x's curves (values, or their integrals) times y's running
        // (integral, or value): waiting x running, blocked-waiting x running, running x running.
        void count(const Triple& x, int64_t running)
        {
            m_cross[0] += (x.r - x.n) * running, m_cross[1] += x.b * running, m_cross[2] += x.n * running;
            m_cross[3] += x.c * running;
        }

        // Merge with pair integrals: x's curves enter at px, y's running curve at qn.
        Node* mergeX(Node* x, Node* y, const CpuNode* g, size_t lo, size_t hi, Triple px, int64_t qn)
        {
            if (m_x[hi] <= m_a || m_x[lo] >= m_b || hi <= lo)
                return merge(x, y, g, lo, hi);
            if (!x || !y) {
                if (!x && !y) {
                    const int64_t l = clipped(lo, hi);
                    count(px, qn * l);
                    return nullptr;
                }
                if (!x) { // x constant: integrate y's running curve
                    count(px, integralIn(y, lo, hi, { 0, qn, 0, 0 }).n);
                    return y;
                }
                count(integralIn(x, lo, hi, px), qn); // y constant
                return x;
            }
            if (hi - lo == 1) {
                const int64_t l = clipped(lo, hi);
                count({ px.r + x->sR, px.n + x->sN, px.b + x->sB, px.c + x->sC }, (qn + y->sN) * l);
                absorbLeaf(x, y, g);
                m_nodes.release(y);
                return x;
            }
            const size_t mid = (lo + hi) / 2;
            const Triple pr = x->l ? Triple { px.r + x->l->sR, px.n + x->l->sN, px.b + x->l->sB, px.c + x->l->sC } : px;
            const int64_t qr = qn + (y->l ? y->l->sN : 0);
            x->l = mergeX(x->l, y->l, left(g), lo, mid, px, qn);
            x->r = mergeX(x->r, y->r, right(g), mid, hi, pr, qr);
            pull(x, g);
            m_nodes.release(y);
            return x;
        }

        // Maxima over leaves [qa, qb) of the absolute R, N, N - CPUS values (entering at p).
        void maxIn(
            const Node* x, const CpuNode* g, size_t lo, size_t hi, size_t qa, size_t qb, Triple p, Triple& out) const
        {
            if (qb <= lo || hi <= qa)
                return;
            if (qa <= lo && hi <= qb) {
                out.r = std::max(out.r, p.r + (x ? x->mR : 0));
                out.n = std::max(out.n, p.n + (x ? x->mN : 0));
                out.b = std::max(out.b, p.b + (x ? x->mA : cpuM(g)));
                return;
            }
            // Partly inside: not a leaf. Without nodes on either side the values are constant.
            if (!x && !g) {
                out.r = std::max(out.r, p.r), out.n = std::max(out.n, p.n), out.b = std::max(out.b, p.b);
                return;
            }
            const size_t mid = (lo + hi) / 2;
            const Node* l = x ? x->l : nullptr;
            const CpuNode* gl = left(g);
            maxIn(l, gl, lo, mid, qa, qb, p, out);
            const Triple q { p.r + (l ? l->sR : 0), p.n + (l ? l->sN : 0), p.b + (l ? l->sN : 0) + cpuS(gl) };
            maxIn(x ? x->r : nullptr, right(g), mid, hi, qa, qb, q, out);
        }

        Trees(const Trees& shared, int)
            : m_coords(shared.m_coords)
            , m_x(shared.m_x)
            , m_size(shared.m_size)
            , m_cpuNodes(shared.m_cpuNodes)
            , m_cpu(shared.m_cpu)
        {
        }

        std::shared_ptr<std::vector<int64_t>> m_coords;
        const int64_t* m_x = nullptr;
        size_t m_size;
        Arena<Node> m_nodes;
        std::shared_ptr<Arena<CpuNode>> m_cpuNodes;
        CpuNode* m_cpu = nullptr;
        int64_t m_a = 0, m_b = 0;
        std::array<int64_t, 4> m_cross {};
        std::vector<size_t> m_pos;
    };

    struct ReferencePass {
        const ParModel& m;
        const StepFunction& cpus;
        size_t engines;
        Producers producers;

        ReferencePass(const ParModel& model, const StepFunction& c, size_t e)
            : m(model)
            , cpus(c)
            , engines(e)
            , producers(suspendedWaitsByProducer(model))
        {
        }

        uint64_t endLimitOf(const ConjunctionInstance& ci) const { return ci.ended ? ci.endNs : m.endNs; }

        // The coordinates: every own change time of the conjuncts of `conj`, every CPUS step and the
        // start and end of each measured instance.
        std::vector<int64_t> coordinates(const std::vector<uint32_t>& conj, int64_t cpuFrom, int64_t cpuTo) const
        {
            std::vector<std::vector<int64_t>> parts(conj.size());
            tbb::parallel_for(size_t(0), conj.size(), [&](size_t i) {
                const ConjunctionInstance& ci = m.conjunctions[conj[i]];
                std::vector<Delta> d;
                for (ConjunctIndex k : ci.conjuncts)
                    ownDeltas(m, k, endLimitOf(ci), producers, d);
                auto& out = parts[i];
                out.reserve(d.size() + 2);
                for (const Delta& x : d)
                    out.push_back(x.t);
                out.push_back(I(ci.startNs));
                if (ci.ended)
                    out.push_back(I(ci.endNs));
            });
            std::vector<int64_t> all;
            size_t total = cpus.steps().size() + 1;
            for (const auto& p : parts)
                total += p.size();
            all.reserve(total);
            for (auto& p : parts) {
                all.insert(all.end(), p.begin(), p.end());
                std::vector<int64_t>().swap(p);
            }
            all.push_back(cpuFrom);
            for (const auto& s : cpus.steps())
                if (s.timeNs > cpuFrom && s.timeNs < cpuTo)
                    all.push_back(s.timeNs);
            all.push_back(std::min(cpuTo, cpus.endNs()));
            tbb::parallel_sort(all.begin(), all.end());
            all.erase(std::unique(all.begin(), all.end()), all.end());
            return all;
        }

        // Processes the conjunctions `order` (children before parents): trees[slot(j)] receives j's
        // tree and items[slot(j)] the items under it, both taken by its parent's conjunct; measure(j)
        // says whether j's figures go to values(j). Conjunctions are raw positions here (the orders,
        // the slots), the model's typed indexes read as value().
        template <class Slot>
        void run(const std::vector<uint32_t>& order, Slot slot, std::vector<Node*>& trees, std::vector<int64_t>& items,
            Trees& t, auto measure, auto values) const
        {
            std::vector<Delta> own;
            std::vector<Node*> conjunctTrees;
            std::vector<int64_t> size;
            for (uint32_t j : order) {
                const ConjunctionInstance& ci = m.conjunctions[j];
                const size_t n = ci.conjuncts.size();
                conjunctTrees.assign(n, nullptr);
                size.assign(n, 1);
                int64_t total = 0;
                for (size_t i = 0; i < n; ++i) {
                    const ConjunctIndex k = ci.conjuncts[i];
                    Node* acc = nullptr;
                    for (ConjunctionIndex child : m.childConjunctions(k)) {
                        const uint32_t s = slot(child.value());
                        acc = t.merge(acc, trees[s]);
                        trees[s] = nullptr;
                        size[i] += items[s];
                    }
                    own.clear();
                    ownDeltas(m, k, endLimitOf(ci), producers, own);
                    acc = t.merge(acc, t.build(own));
                    conjunctTrees[i] = acc;
                    total += size[i];
                }
                items[slot(j)] = total;
                const bool meas = measure(j);
                const int64_t a = I(ci.startNs), b = I(ci.ended ? ci.endNs : ci.startNs);
                const bool sweep = meas && b > a;
                int64_t ooo = 0, block = 0, blockTc = 0, either = 0, before = 0;
                Triple in; // integrals over [a, b) of the merged conjuncts' curves (they add up)
                Node* acc = nullptr;
                for (size_t i = 0; i < n; ++i) {
                    if (sweep) {
                        const Triple ti = t.integral(conjunctTrees[i], a, b);
                        if (i > 0) {
                            // Pairs (A under G1..G(i-1), B under Gi): sum r_A n_i + r_B n_A - r_A r_B.
                            std::array<int64_t, 4> cross {};
                            acc = t.mergeCounting(acc, conjunctTrees[i], a, b, cross);
                            ooo += cross[0], block += cross[1], blockTc += cross[3];
                            either += in.n * size[i] + ti.n * before - cross[2];
                        } else
                            acc = conjunctTrees[i];
                        in.r += ti.r, in.n += ti.n;
                    } else
                        acc = t.merge(acc, conjunctTrees[i]);
                    before += size[i];
                }
                trees[slot(j)] = acc;
                DescValues& v = values(j);
                v.done = meas;
                if (!sweep)
                    continue;
                const Triple mx = t.max(acc, a, b);
                const double span = double(b - a);
                const int64_t avInt = int64_t(engines) * (b - a) - cpus.integral(a, b) + in.n;
                v.rdAvg = double(in.r) / span, v.ndAvg = double(in.n) / span, v.avAvg = double(avInt) / span;
                v.rdMax = double(std::max<int64_t>(0, mx.r)), v.ndMax = double(std::max<int64_t>(0, mx.n));
                v.avMax = double(int64_t(engines) + mx.b);
                v.outOfOrder = double(ooo), v.blocking = double(block), v.blockingTc = double(blockTc);
                v.eitherRunning = double(either);
            }
        }
    };

} // namespace

std::vector<DescValues> referenceDescendantPass(
    const ParModel& m, const StepFunction& cpus, size_t engines, uint64_t fromNs, uint64_t toNs)
{
    const size_t nConj = m.conjunctions.size();
    std::vector<DescValues> values(nConj);
    if (nConj == 0)
        return values;
    const ReferencePass pass(m, cpus, engines);
    std::vector<uint32_t> all(nConj);
    for (uint32_t j = 0; j < nConj; ++j)
        all[j] = j;
    const int64_t from = std::min(cpus.beginNs(), I(m.conjunctions.front().startNs));
    const int64_t to = std::max(cpus.endNs(), I(m.endNs)) + 1;
    const Trees shared(pass.coordinates(all, from, to), cpus, from, to);
    // Children start after their parents, so reverse start order is bottom-up. Subtrees of at most
    // 1/64 of the instances are independent tasks (run in parallel); the instances above them run last.
    auto parentOf = [&](uint32_t j) { // raw positions, as the task split below works on them
        const ConjunctIndex k = m.conjunctions[j].parentConjunct;
        return k.valid() ? m.conjunct(k).conjunction.value() : kNoIndex;
    };
    std::vector<uint32_t> subtreeSize(nConj, 1);
    for (uint32_t j = uint32_t(nConj); j-- > 0;)
        if (const uint32_t p = parentOf(j); p != kNoIndex && p < j)
            subtreeSize[p] += subtreeSize[j];
    const uint32_t limit = std::max<uint32_t>(64, uint32_t(nConj / 64));
    std::vector<uint32_t> task(nConj, kNoIndex); // the task root of each instance, or kNoIndex (top part)
    std::vector<uint32_t> roots;
    for (uint32_t j = 0; j < nConj; ++j) {
        const uint32_t p = parentOf(j);
        if (p != kNoIndex && p < j && task[p] != kNoIndex)
            task[j] = task[p];
        else if (subtreeSize[j] <= limit) {
            task[j] = uint32_t(roots.size());
            roots.push_back(j);
        }
    }
    std::vector<std::vector<uint32_t>> orders(roots.size() + 1);
    for (uint32_t j = uint32_t(nConj); j-- > 0;)
        orders[task[j] == kNoIndex ? roots.size() : task[j]].push_back(j);
    std::vector<Node*> trees(nConj, nullptr);
    std::vector<int64_t> items(nConj, 0);
    std::vector<std::unique_ptr<Trees>> workers(orders.size());
    auto runOrder = [&](size_t o) {
        workers[o] = shared.worker();
        pass.run(
            orders[o], [](uint32_t j) { return j; }, trees, items, *workers[o],
            [&](uint32_t j) {
                const ConjunctionInstance& ci = m.conjunctions[j];
                return ci.complete && ci.startNs >= fromNs && ci.startNs < toNs;
            },
            [&](uint32_t j) -> DescValues& { return values[j]; });
    };
    tbb::parallel_for(size_t(0), roots.size(), runOrder);
    runOrder(roots.size());
    return values;
}

DescValues referenceDescendantValues(const ParModel& m, const StepFunction& cpus, size_t engines, ConjunctionIndex root)
{
    DescValues out;
    if (!m.contains(root))
        return out;
    // The subtree's conjunctions, children after parents in start order, each mapped to a slot: raw
    // positions, as ReferencePass takes them.
    const uint32_t j = root.value();
    std::vector<uint32_t> subtree { j };
    for (size_t i = 0; i < subtree.size(); ++i)
        for (ConjunctIndex k : m.conjunctions[subtree[i]].conjuncts)
            for (ConjunctionIndex child : m.childConjunctions(k))
                subtree.push_back(child.value());
    std::sort(subtree.begin(), subtree.end());
    const ConjunctionInstance& ci = m.conjunction(root);
    const ReferencePass pass(m, cpus, engines);
    const int64_t from = I(ci.startNs), to = I(ci.ended ? ci.endNs : ci.startNs);
    Trees t(pass.coordinates(subtree, from, to), cpus, from, to);
    std::reverse(subtree.begin(), subtree.end());
    std::unordered_map<uint32_t, uint32_t> local;
    local.reserve(subtree.size());
    for (uint32_t i = 0; i < subtree.size(); ++i)
        local.emplace(subtree[i], i);
    std::vector<Node*> trees(subtree.size(), nullptr);
    std::vector<int64_t> items(subtree.size(), 0);
    DescValues scratch;
    pass.run(
        subtree, [&](uint32_t x) { return local.at(x); }, trees, items, t,
        [&](uint32_t x) { return x == j && m.conjunctions[x].complete; },
        [&](uint32_t x) -> DescValues& { return x == j ? out : scratch; });
    return out;
}

} // namespace sparkscope::core::detail
