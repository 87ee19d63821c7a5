// The what-if simulation (rules and cost in simulate.h).
#include "analysis/simulate.h"
#include "analysis/sim_machine.h"
#include "analysis/sim_queues.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <tbb/task_group.h>

namespace sparkscope::core::detail {

namespace {

    using namespace sim; // the queues and the machine's records (sim_queues.h, sim_machine.h)
    constexpr uint64_t kNever = UINT64_MAX;

    // t + d, saturated just below kNever: every time the simulation makes, so that a damaged trace's
    // times near 2^64 neither wrap nor become "never" (which leaves an engine with no event).
    constexpr uint64_t saturatedAdd(uint64_t t, uint64_t d) noexcept { return d > kNever - 1 - t ? kNever - 1 : t + d; }

    class Simulator {
    public:
        Simulator(const SimGraph& graph, const SimNodes& nodes, uint32_t engines, const CostModel& costs, bool curve,
            double recordedRate, SoloRuns* learn, const SoloRuns* use, ShortcutStats* stats)
            : m_g(graph)
            , m_n(nodes)
            , m_p(engines)
            , m_costs(costs)
            , m_curve(curve)
            , m_remaining(graph.crossPreds())
            , m_bigRemaining(graph.bigPreds())
            , m_done(graph.doneAtStart())
            , m_spinners(engines)
            , m_sleepers(engines)
            , m_nonEmpty(engines)
            , m_timers(engines)
            , m_runs(engines)
            , m_stats(stats)
        {
            // Time per unit of recorded running time with k engines running (simulate.h, contention).
            m_stretch.assign(engines + 1, 1.0);
            m_contended = costs.contention > 0;
            if (m_contended)
                for (uint32_t k = 1; k <= engines; ++k)
                    m_stretch[k] = (1.0 + costs.contention * double(k - 1)) * recordedRate;
            m_contextOf.assign(m_g.strandCount(), kNone);
            m_engines.resize(engines);
            for (uint32_t e = 0; e < engines; ++e) {
                m_engines[e].rng = 0x9E3779B97F4A7C15ull * (e + 1);
                m_engines[e].next.reserve(16);
            }
            m_count[kIdle] = engines;
            m_left = graph.nodeCount();
            if (!m_contended && engines == 1 && learn) {
                m_learn = learn;
                m_learn->work.assign(graph.strandCount(), 0);
            }
            if (!m_contended && engines > 1 && use && use->work.size() == graph.strandCount())
                m_use = use;
        }

        Prediction run()
        {
            start();
            while (m_left > 0) {
                const uint64_t tt = m_timers.nextTime(), tr = runEnd();
                if (tt == kNever && tr == kNever) {
                    if (!breakStall())
                        break;
                    continue;
                }
                // The earlier event; at one instant, the lower engine (as in one tree).
                if (tr < tt || (tr == tt && m_runs.next() < m_timers.next())) {
                    const uint32_t e = m_runs.next();
                    advance(tr);
                    m_work = std::max(m_work, m_runs.nextTime());
                    m_runs.consume(e);
                    onEvent(e);
                    m_runs.settle(e);
                } else {
                    const uint32_t e = m_timers.next();
                    advance(tt);
                    m_timers.consume(e);
                    onEvent(e);
                    m_timers.settle(e);
                }
            }
            Prediction p;
            p.engines = m_p;
            p.wallNs = m_now;
            p.ledger = m_ledger;
            p.steals = m_steals;
            p.contexts = m_contexts;
            p.switches = m_switches;
            p.wakeups = m_wakeups;
            p.brokenDependencies = m_broken;
            if (m_curve)
                p.cpus = StepFunction(std::move(m_steps), int64_t(m_now));
            return p;
        }

    private:
        bool carrier(uint32_t node) const noexcept { return m_n.nodes[node].flags & SimNode::kCarrier; }
        bool done(uint32_t node) const noexcept { return m_done[node / 64] >> (node % 64) & 1; }
        // The node's strand has come to it: its predecessor (or, for a first node, the End cut before it) is done.
        bool reached(uint32_t node) const noexcept { return node == 0 || done(node - 1); }

        // One of the node's cross dependencies is met; true when it was the last. (A count already at 0
        // is a node breakStall let through: its late dependencies change nothing.)
        bool meet(uint32_t node)
        {
            uint8_t& r = m_remaining[node];
            if (r == 0)
                return false;
            if (r != 255)
                return --r == 0;
            auto it = std::lower_bound(
                m_bigRemaining.begin(), m_bigRemaining.end(), std::pair<uint32_t, uint32_t>(node, 0));
            if (it == m_bigRemaining.end() || it->first != node || --it->second > 0)
                return false;
            r = 0;
            return true;
        }

        // ---- clock, ledger and curve ----------------------------------------------------------------
        Slot slotOf(const SimEngine& en) const noexcept
        {
            switch (en.state) {
            case State::Running:
                return en.inConjunct ? kIn : kOut;
            case State::Starting:
            case State::Notified:
            case State::Spinning:
                return kSearch;
            default:
                return kIdle;
            }
        }

        void setState(uint32_t e, State state, bool inConjunct = false)
        {
            SimEngine& en = m_engines[e];
            --m_count[slotOf(en)];
            en.state = state;
            en.inConjunct = inConjunct;
            ++m_count[slotOf(en)];
        }

        LossCategory idleClass() const noexcept
        {
            if (m_sparks > 0 || m_runHead < m_runnable.size())
                return LossCategory::IdleWorkAvailable;
            if (m_parkedFuture > 0)
                return LossCategory::IdleBlockedFuture;
            if (m_parkedBarrier > 0)
                return LossCategory::IdleBlockedBarrier;
            return LossCategory::IdleNoWork;
        }

        // When the running node that ends first ends: the work clock (m_work, in recorded ns) runs at
        // 1 / m_stretch[k] while k engines run nodes, the same for all of them, so the node first to end
        // in work is the first in time. kNever when no node runs.
        uint64_t runEnd() const noexcept
        {
            const double end = m_runs.nextTime();
            if (end == EventTree<double>::kNever)
                return kNever;
            if (!m_contended) // the work clock is whole ns, one per ns
                return later(std::max(0.0, end - m_work));
            return later(std::ceil(std::max(0.0, end - m_work) * m_stretch[m_count[kIn] + m_count[kOut]]));
        }

        // m_now + ns, saturated just below kNever: a damaged trace's node can hold more work than 64
        // bits of nanoseconds reach, and converting such a double to uint64_t is undefined (the
        // analysis fuzzer found one at 1.8e19).
        uint64_t later(double ns) const noexcept
        {
            if (!(ns < 0x1p63))
                return kNever - 1;
            const uint64_t d = uint64_t(ns);
            return saturatedAdd(m_now, d);
        }

        void advance(uint64_t t)
        {
            if (t <= m_now)
                return;
            const uint64_t dt = t - m_now;
            if (const uint32_t k = m_count[kIn] + m_count[kOut]; k > 0)
                m_work += m_contended ? double(dt) / m_stretch[k] : double(dt);
            if (m_curve) {
                const int64_t running = int64_t(m_count[kIn] + m_count[kOut]);
                if (m_steps.empty() || m_steps.back().value != running)
                    m_steps.push_back({ int64_t(m_now), running });
            }
            m_ledger.addTimes(LossCategory::RunningInConjunct, m_count[kIn], dt); // (saturated near 2^64)
            m_ledger.addTimes(LossCategory::RunningOutsideConjunct, m_count[kOut], dt);
            m_ledger.addTimes(LossCategory::Searching, m_count[kSearch], dt);
            if (m_count[kIdle] > 0)
                m_ledger.addTimes(idleClass(), m_count[kIdle], dt);
            m_now = t;
        }

        // Engine e's next event, ns from now (saturated: the analysis fuzzer found a run stalled for good).
        void scheduleIn(uint32_t e, uint64_t ns) { m_timers.set(e, saturatedAdd(m_now, ns)); }

        // ---- the DAG --------------------------------------------------------------------------------
        // Node `node` of `strand` finished on engine e, now: what it releases (sim_graph.h) goes on e's
        // stack, its own strand's next node first (so it runs after what it released), or to a deque or
        // the runnable queue.
        void complete(uint32_t e, uint32_t strand, uint32_t node)
        {
            --m_left;
            m_done[node / 64] |= uint64_t(1) << (node % 64);
            const SimNode& n = m_n.nodes[node];
            if (n.release == CutKind::End) {
                if (!m_probes.empty() && m_probes.back().strand == strand)
                    learnt(e, strand);
                endOfStrand(e, strand, n.flags);
                return;
            }
            reach(e, strand, node + 1);
            // A forked or sparked first node has this one dependency only: it is run (or queued) as it
            // is; its count is left as it was (nothing else reads it).
            if (n.release == CutKind::Fork) {
                m_contextOf[n.ref] = m_contextOf[strand];
                m_engines[e].next.push_back({ m_g.conjunct(n.ref).first, n.ref });
            } else if (n.release == CutKind::Create) {
                pushSpark(e, n.ref);
            } else if (n.release == CutKind::Signal) {
                for (const NodeRef& w : m_g.waits(n.ref))
                    if (meet(w.node) && reached(w.node))
                        pushRunnable(w);
            }
        }

        // `strand` has come to `node`: on e's stack when nothing else holds it, else the engine notes why
        // the strand stopped.
        void reach(uint32_t e, uint32_t strand, uint32_t node)
        {
            const uint8_t flags = m_n.nodes[node].flags;
            if (!(flags & SimNode::kWaits) || m_remaining[node] == 0)
                m_engines[e].next.push_back({ node, strand });
            else if (!(flags & SimNode::kCarrier))
                m_engines[e].stop = flags & SimNode::kAtWait ? Stop::Future : Stop::Barrier;
        }

        void release(uint32_t e, NodeRef r)
        {
            if (meet(r.node) && reached(r.node))
                m_engines[e].next.push_back({ r.node, r.strand });
        }

        // A conjunct's end releases its conjunction's join and its return; the join goes under the
        // return, so the context that ran the conjunct does its own release work first and then the
        // engine resumes the parent — as the runtime's last conjunct does.
        void endOfStrand(uint32_t e, uint32_t strand, uint8_t flags)
        {
            SimEngine& en = m_engines[e];
            if (!(flags & SimNode::kCarrier))
                en.stop = Stop::None;
            if (!(flags & SimNode::kInConjunct))
                return;
            const SimConjunct& k = m_g.conjunct(strand);
            bool last = false;
            if (k.join.node != kNone) {
                last = meet(k.join.node);
                if (last && reached(k.join.node))
                    en.next.push_back({ k.join.node, k.join.strand });
            }
            if (k.ret.node != kNone)
                release(e, k.ret);
            en.ended = last ? kNone : strand;
        }

        // ---- engines --------------------------------------------------------------------------------
        void onEvent(uint32_t e)
        {
            SimEngine& en = m_engines[e];
            Pick p;
            switch (en.state) {
            case State::Running:
                if (en.solo != kNone)
                    finishSolo(e);
                complete(e, en.strand, en.node);
                if (pickNext(e, p))
                    go(e, p);
                break;
            case State::Starting:
                go(e, { en.node, en.strand, 0 });
                break;
            case State::Notified:
            case State::Waking:
                if (search(
                        e, false, en.state == State::Notified ? m_costs[CostKind::Spark] : m_costs[CostKind::Steal], p))
                    go(e, p);
                break;
            case State::Spinning:
                m_spinners.erase(e);
                setState(e, State::Sleeping);
                m_sleepers.insert(e);
                break; // its event is consumed: nothing pending while asleep
            case State::Sleeping:
                break;
            }
        }

        // Engine e takes p (after its cost) and goes on with what follows instantly (nodes of no weight).
        void go(uint32_t e, Pick p)
        {
            for (;;) {
                SimEngine& en = m_engines[e];
                if (p.cost == 0 && (m_learn || m_use) && entersSubtree(en, p)) {
                    if (m_learn)
                        m_probes.push_back({ p.strand, m_bad, en.deque.size() - en.head, m_left, m_work });
                    else if (startSolo(e, p.strand))
                        return;
                }
                en.node = p.node;
                en.strand = p.strand;
                if (p.cost > 0) {
                    setState(e, State::Starting);
                    scheduleIn(e, p.cost);
                    return;
                }
                if (const uint64_t w = m_n.weight(p.node); w > 0) {
                    setState(e, State::Running, m_n.nodes[p.node].flags & SimNode::kInConjunct);
                    m_runs.set(e, m_work + double(w));
                    return;
                }
                complete(e, p.strand, p.node);
                if (!pickNext(e, p))
                    return;
            }
        }

        // What engine e does next: the top of its stack, or what the runtime does when a context has
        // nothing left to run (simulate.h). False when it found nothing (it then spins or sleeps).
        bool pickNext(uint32_t e, Pick& p)
        {
            SimEngine& en = m_engines[e];
            if (en.next.empty())
                return afterStack(e, p);
            const Work w = en.next.back();
            en.next.pop_back();
            p = { w.node, w.strand, 0 };
            const SimNode& n = m_n.nodes[w.node];
            if (n.weight == 0 || (n.flags & SimNode::kCarrier))
                return true; // an instant node decides nothing; a carrier runs in the context at hand
            if (m_contextOf[w.strand] != en.context) {
                // The strand's context was parked: resume it here (the engine's own context is done).
                ++m_bad;
                dropContext(e);
                adopt(e, w.strand);
                p.cost = m_costs[CostKind::Switch];
                ++m_switches;
            }
            if (!(n.flags & SimNode::kAfterReturn))
                en.ended = kNone;
            en.stop = Stop::None;
            return true;
        }

        bool afterStack(uint32_t e, Pick& p)
        {
            SimEngine& en = m_engines[e];
            const uint64_t steal = m_costs[CostKind::Steal];
            if (en.ended != kNone) {
                const uint32_t q = en.ended;
                en.ended = kNone;
                // The conjunction's own next spark, if it is still the newest on this engine.
                const SimConjunct& k = m_g.conjunct(q);
                if (k.next != kNone && en.deque.size() > en.head && en.deque.back() == k.next) {
                    popOwn(e);
                    m_contextOf[k.next] = en.context;
                    p = { m_g.conjunct(k.next).first, k.next, 0 };
                    return true;
                }
                const uint32_t parent = k.parent;
                if (en.context == kNone || parent == kNone || m_contextOf[parent] != en.context)
                    return search(e, en.context != kNone, steal, p); // a free context searches
                park(e, Ctx::Barrier);
                return search(e, false, steal, p);
            }
            if (en.context != kNone) {
                if (en.stop == Stop::None)
                    dropContext(e);
                else
                    park(e, en.stop == Stop::Future ? Ctx::Future : Ctx::Barrier);
            }
            en.stop = Stop::None;
            return search(e, false, steal, p);
        }

        // The runtime's search: the runnable queue, the engine's own deque (newest), another engine's
        // (oldest). `withContext`: the engine holds a free context (a spark runs in it; it is released for
        // a runnable context or when nothing is found); without one a spark needs a new context (Context).
        // Nothing found: the engine spins or sleeps.
        bool search(uint32_t e, bool withContext, uint64_t stealCost, Pick& p)
        {
            SimEngine& en = m_engines[e];
            const uint64_t switchCost = m_costs[CostKind::Switch];
            ++m_bad;
            en.ended = kNone;
            en.stop = Stop::None;
            if (m_runHead < m_runnable.size()) {
                const NodeRef r = m_runnable[m_runHead++];
                if (m_runHead == m_runnable.size())
                    m_runnable.clear(), m_runHead = 0;
                p = { r.node, r.strand, 0 };
                if (!carrier(r.node) || !withContext) { // a carrier runs in a free context at hand
                    dropContext(e);
                    adopt(e, r.strand);
                    p.cost = switchCost;
                    ++m_switches;
                }
                return true;
            }
            uint32_t q = kNone;
            uint64_t cost = withContext ? 0 : m_costs[CostKind::Context];
            if (en.deque.size() > en.head) {
                q = popOwn(e);
            } else if (const uint32_t v = victim(e); v != kNone) {
                q = steal(v, e);
                cost += stealCost;
                ++m_steals;
            }
            if (q == kNone) {
                dropContext(e);
                idle(e);
                return false;
            }
            if (!withContext) {
                en.context = newContext();
                ++m_contexts;
            }
            m_contextOf[q] = en.context;
            p = { m_g.conjunct(q).first, q, cost };
            return true;
        }

        void idle(uint32_t e)
        {
            if (m_costs[CostKind::Spin] > 0) {
                setState(e, State::Spinning);
                m_spinners.insert(e);
                scheduleIn(e, m_costs[CostKind::Spin]);
            } else {
                setState(e, State::Sleeping);
                m_sleepers.insert(e);
                m_timers.set(e, kNever);
            }
        }

        // New work exists: the lowest spinning engine looks for it now, and the lowest sleeping one is
        // woken (the runtime's wakeOne, called on every push).
        void notify()
        {
            if (!m_spinners.empty()) {
                const uint32_t s = m_spinners.firstFrom(0);
                m_spinners.erase(s);
                setState(s, State::Notified);
                scheduleIn(s, 0);
            }
            if (!m_sleepers.empty()) {
                const uint32_t s = m_sleepers.firstFrom(0);
                m_sleepers.erase(s);
                setState(s, State::Waking);
                scheduleIn(s, m_costs[CostKind::Wake]);
                ++m_wakeups;
            }
        }

        // ---- contexts, deques and the runnable queue -------------------------------------------------
        uint32_t newContext()
        {
            m_ctx.push_back(Ctx::Active);
            return uint32_t(m_ctx.size() - 1);
        }

        // Engine e (holding no context) takes `strand`'s context, or a new one if it has none to resume.
        void adopt(uint32_t e, uint32_t strand)
        {
            uint32_t c = m_contextOf[strand];
            if (c == kNone || m_ctx[c] == Ctx::Active || m_ctx[c] == Ctx::Released) {
                c = newContext();
                m_contextOf[strand] = c;
            } else {
                m_parkedBarrier -= m_ctx[c] == Ctx::Barrier;
                m_parkedFuture -= m_ctx[c] == Ctx::Future;
                m_ctx[c] = Ctx::Active;
            }
            m_engines[e].context = c;
        }

        void park(uint32_t e, Ctx why)
        {
            SimEngine& en = m_engines[e];
            ++m_bad;
            m_ctx[en.context] = why;
            m_parkedBarrier += why == Ctx::Barrier;
            m_parkedFuture += why == Ctx::Future;
            en.context = kNone;
        }

        void dropContext(uint32_t e)
        {
            SimEngine& en = m_engines[e];
            if (en.context != kNone)
                m_ctx[en.context] = Ctx::Released;
            en.context = kNone;
        }

        void pushSpark(uint32_t e, uint32_t conjunct)
        {
            m_engines[e].deque.push_back(conjunct);
            m_nonEmpty.insert(e);
            ++m_sparks;
            notify();
        }

        uint32_t popOwn(uint32_t e)
        {
            SimEngine& en = m_engines[e];
            const uint32_t q = en.deque.back();
            en.deque.pop_back();
            tookSpark(e);
            return q;
        }

        uint32_t steal(uint32_t v, uint32_t thief)
        {
            SimEngine& en = m_engines[v];
            if (en.solo != kNone && en.deque.size() - en.head == 1)
                replay(v, thief); // the last older spark: the sub-tree's own may be next
            const uint32_t q = en.deque[en.head++];
            tookSpark(v);
            return q;
        }

        void tookSpark(uint32_t e)
        {
            SimEngine& en = m_engines[e];
            --m_sparks;
            if (en.head == en.deque.size()) {
                en.deque.clear();
                en.head = 0;
                m_nonEmpty.erase(e);
            } else if (en.head > 4096 && en.head * 2 > en.deque.size()) { // stolen from the front long enough
                en.deque.erase(en.deque.begin(), en.deque.begin() + std::ptrdiff_t(en.head));
                en.head = 0;
            }
        }

        // The runtime's victim scan: from a pseudo-random engine, the first other one with a spark.
        uint32_t victim(uint32_t e)
        {
            if (m_nonEmpty.empty())
                return kNone;
            uint64_t& r = m_engines[e].rng;
            r ^= r << 13;
            r ^= r >> 7;
            r ^= r << 17;
            return m_nonEmpty.firstFrom(uint32_t(r % m_p), e);
        }

        void pushRunnable(NodeRef r)
        {
            if (const uint32_t c = m_contextOf[r.strand]; c != kNone && m_ctx[c] == Ctx::Future) {
                m_ctx[c] = Ctx::Runnable;
                --m_parkedFuture;
            }
            m_runnable.push_back(r);
            notify();
        }

        // ---- the shortcut (simulate.h) ---------------------------------------------------------------
        // p starts a closed sub-tree with nothing on the engine's stack and no conjunct just ended.
        bool entersSubtree(const SimEngine& en, const Pick& p) const noexcept
        {
            return (m_n.nodes[p.node].flags & SimNode::kStartsClosed) && en.next.empty() && en.ended == kNone;
        }

        // P = 1: the sub-tree `strand` entered last has ended; its run was alone if nothing in it called
        // search, parked or switched (m_bad), its stack and deque are as they began and it ran all its nodes.
        // A run of 2^63 ns or more (a damaged trace's) is not learnt: its sub-tree goes node by node, and
        // its length is never converted to uint64_t (undefined beyond 2^64; the analysis fuzzer found one).
        void learnt(uint32_t e, uint32_t strand)
        {
            const Probe p = m_probes.back();
            m_probes.pop_back();
            const SimEngine& en = m_engines[e];
            const double work = m_work - p.work;
            if (p.bad == m_bad && en.next.empty() && en.deque.size() - en.head == p.sparks
                && p.left - m_left == m_g.subtreeNodes(strand) && work > 0 && work < 0x1p63)
                m_learn->work[strand] = uint64_t(work);
        }

        bool startSolo(uint32_t e, uint32_t strand)
        {
            SimEngine& en = m_engines[e];
            const uint64_t work = m_use->work[strand];
            if (work == 0 || m_replaying || en.deque.size() == en.head || !m_spinners.empty() || !m_sleepers.empty())
                return false;
            en.solo = strand;
            en.soloStart = m_now;
            en.soloWork = m_work;
            en.node = m_g.lastNode(strand);
            en.strand = strand;
            setState(e, State::Running, true);
            m_runs.set(e, m_work + double(work));
            return true;
        }

        // The step's end: every node of the sub-tree but its last is done; the last completes as usual.
        void finishSolo(uint32_t e)
        {
            SimEngine& en = m_engines[e];
            const uint32_t x = en.solo;
            en.solo = kNone;
            const uint32_t from = m_g.firstCut(x), to = m_g.firstCut(m_g.subtreeEnd(x));
            for (uint32_t w = from / 64; w <= (to - 1) / 64; ++w) {
                const uint32_t lo = std::max(from, w * 64) - w * 64, hi = std::min(to, w * 64 + 64) - w * 64;
                m_done[w] |= (hi - lo == 64 ? ~uint64_t(0) : ((uint64_t(1) << (hi - lo)) - 1)) << lo;
            }
            m_left -= m_g.subtreeNodes(x) - 1;
            if (m_stats)
                ++m_stats->steps, m_stats->stepNodes += m_g.subtreeNodes(x);
        }

        // Engine v's sub-tree, run node by node from its start up to the events before the thief's: those
        // at an earlier instant, and at this one those of a lower engine (simulate.h, "Replay").
        void replay(uint32_t v, uint32_t thief)
        {
            SimEngine& en = m_engines[v];
            const uint32_t x = en.solo;
            const uint64_t start = en.soloStart;
            const double w0 = en.soloWork, work = m_work;
            en.solo = kNone;
            const uint64_t left = m_left;
            m_replaying = true;
            m_work = w0;
            go(v, { m_g.firstCut(x), x, 0 });
            for (;;) {
                const double end = m_runs.time(v);
                if (en.state != State::Running || end == EventTree<double>::kNever)
                    break; // (not reached: the sub-tree's run alone never stops)
                const uint64_t d = uint64_t(end - w0); // below the learnt run's length, so below 2^63
                const uint64_t t = saturatedAdd(start, d);
                if (t > m_now || (t == m_now && v > thief))
                    break;
                m_work = end;
                complete(v, en.strand, en.node);
                Pick p;
                if (pickNext(v, p))
                    go(v, p);
            }
            m_work = work;
            m_replaying = false;
            if (m_stats)
                ++m_stats->replays, m_stats->replayedNodes += left - m_left;
        }

        // ---- start and damaged input ---------------------------------------------------------------
        // The first root starts at 0 on engine 0 in a new context; every other strand waiting for nothing
        // is runnable from the start (other program roots; conjuncts whose fork or spark the trace lost),
        // but a carrier's instant first node is just done. The other engines search at 0.
        void start()
        {
            const uint32_t first = m_g.firstRoot();
            for (uint32_t ds = 0; ds < m_g.strandCount(); ++ds) { // in the DAG's order, as it was recorded
                const uint32_t s = m_g.graphStrand(ds), n = m_g.firstNode(s);
                if (n == kNone || s == first || m_remaining[n] != 0)
                    continue;
                if (carrier(n) && m_n.weight(n) == 0)
                    complete(0, s, n);
                else
                    m_runnable.push_back({ n, s });
            }
            for (uint32_t e = 1; e < m_p; ++e) {
                setState(e, State::Notified);
                scheduleIn(e, 0); // m_now is 0
            }
            SimEngine& en = m_engines[0];
            if (first != kNone) {
                en.context = newContext();
                m_contextOf[first] = en.context;
                en.next.push_back({ m_g.firstNode(first), first });
            }
            en.stop = Stop::None;
            Pick p;
            if (pickNext(0, p))
                go(0, p);
        }

        // Nothing pending but nodes left: only a cycle in the DAG (a trace that contradicts itself) does
        // this. The first node not done (its strand has reached it: every node before it is done) goes on
        // as if its dependencies were met (counted). Amortised linear: the scan only moves forwards.
        bool breakStall()
        {
            ++m_bad;
            while (m_scan < m_g.cutCount() && done(m_scan))
                ++m_scan;
            if (m_scan >= m_g.cutCount())
                return false;
            const uint32_t n = m_scan, s = m_g.strandOf(n);
            if (m_remaining[n] != 0) {
                if (m_remaining[n] == 255) {
                    auto it = std::lower_bound(
                        m_bigRemaining.begin(), m_bigRemaining.end(), std::pair<uint32_t, uint32_t>(n, 0));
                    m_broken += it->second;
                    it->second = 0;
                } else {
                    m_broken += m_remaining[n];
                }
                m_remaining[n] = 0;
            }
            if (const uint32_t c = m_contextOf[s]; c != kNone && m_ctx[c] == Ctx::Barrier) {
                m_ctx[c] = Ctx::Runnable;
                --m_parkedBarrier;
            }
            pushRunnable({ n, s });
            return true;
        }

        struct Probe {
            uint32_t strand;
            uint64_t bad;
            size_t sparks;
            uint64_t left;
            double work;
        };

        const SimGraph& m_g;
        const SimNodes& m_n;
        const uint32_t m_p;
        const CostModel& m_costs;
        const bool m_curve;

        std::vector<uint8_t> m_remaining; // per node: cross dependencies not yet met (255: see the big list)
        std::vector<std::pair<uint32_t, uint32_t>> m_bigRemaining; // (node, count) of the 255s, sorted
        std::vector<uint64_t> m_done; // per cut, a bit: the node is done (End cuts: set from the start)
        uint32_t m_scan = 0; // breakStall: every cut before it is done
        std::vector<uint32_t> m_contextOf; // per strand: its simulated context
        std::vector<Ctx> m_ctx; // per simulated context
        std::vector<SimEngine> m_engines;
        std::vector<NodeRef> m_runnable; // FIFO from m_runHead
        size_t m_runHead = 0;
        EngineSet m_spinners, m_sleepers, m_nonEmpty;
        EventTree<uint64_t> m_timers; // costs, spinning, notifications: in ns
        EventTree<double> m_runs; // running nodes' ends on the work clock
        double m_work = 0; // the work clock: recorded running ns done by each running engine since 0
        std::vector<double> m_stretch; // per number of engines running: ns per recorded ns
        bool m_contended = false; // costs.contention > 0: else every stretch is 1 and the clock whole ns

        uint64_t m_now = 0, m_left = 0;
        uint64_t m_sparks = 0, m_parkedBarrier = 0, m_parkedFuture = 0;
        std::array<uint32_t, kSlots> m_count {};
        LossLedger m_ledger;
        std::vector<StepFunction::Step> m_steps;
        SoloRuns* m_learn = nullptr; // P = 1, c = 0: what the shortcut learns
        const SoloRuns* m_use = nullptr; // P > 1, c = 0: the shortcut
        std::vector<Probe> m_probes; // P = 1: the sub-trees entered and not ended, innermost last
        uint64_t m_bad = 0; // searches, parks, switches and stalls so far
        bool m_replaying = false;
        ShortcutStats* m_stats;
        uint64_t m_steals = 0, m_contexts = 0, m_switches = 0, m_wakeups = 0, m_broken = 0;
    };

} // namespace

Prediction simulate(const SimGraph& graph, const SimNodes& nodes, uint32_t engines, const CostModel& costs, bool curve,
    double recordedRate, SoloRuns* learn, const SoloRuns* use, ShortcutStats* stats)
{
    return Simulator(graph, nodes, std::max<uint32_t>(engines, 1), costs, curve, recordedRate, learn, use, stats).run();
}

std::vector<Prediction> simulateAll(const SimGraph& graph, const SimNodes& nodes, const std::vector<uint32_t>& engines,
    const CostModel& costs, bool curve, double recordedRate, bool shortcut)
{
    std::vector<Prediction> runs(engines.size());
    SoloRuns solo;
    size_t from = 0;
    // (Without a closed sub-tree there is nothing to learn: all engine counts at once, as without the shortcut.)
    if (shortcut && engines.size() > 1 && engines.front() == 1 && !(costs.contention > 0) && graph.closedCount() > 0) {
        runs[0] = simulate(graph, nodes, 1, costs, curve, recordedRate, &solo);
        from = 1;
    }
    tbb::task_group tasks; // one task per engine count, largest first (the longest runs); each owns its state
    for (size_t i = engines.size(); i-- > from;)
        tasks.run([&, i] { runs[i] = simulate(graph, nodes, engines[i], costs, curve, recordedRate, nullptr, &solo); });
    tasks.wait();
    return runs;
}

} // namespace sparkscope::core::detail
