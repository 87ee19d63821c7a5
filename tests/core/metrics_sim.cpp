// See metrics_sim.h. Each engine takes steps in global time order (a priority queue); a step is one
// instantaneous action at the engine's time (its events all carry that time) and the time until the
// engine's next step is the action's duration. A consumer never acts at or before the time its input
// was produced (sparks, runnable contexts, signals), so the merged trace is causally ordered.
#include "metrics_sim.h"

#include "sparkscope/core/event_types.h"

#include <algorithm>
#include <deque>
#include <memory>
#include <queue>
#include <random>
#include <vector>

namespace sparkscope::test {

namespace {

    using core::kStopBlocked;
    using core::kStopFinished;
    using core::kStopYielding;

    struct Node {
        uint64_t work = 0; // leaf when children is empty
        // A leaf that signals a future may signal after signalAfterNs of its work and then yield (its
        // context runnable, not running, until an engine takes it from the global queue again).
        bool yieldAfterSignal = false;
        uint64_t signalAfterNs = 0;
        uint32_t staticId = 0;
        // A chain of futures between leaf children (2 or 3 of them): children[chain[i]] signals future
        // i and children[chain[i + 1]] waits on it (so the middle one of 3 waits and then signals).
        // Empty when the conjunction has no futures. In natural order, except in some deep trees.
        std::vector<size_t> chain;
        std::vector<std::unique_ptr<Node>> children;
    };

    // A random conjunction tree of at most maxDepth nested levels. Below level 4 one conjunct of each
    // conjunction nests down to maxDepth and the others are leaves, so deep trees stay small (spines
    // with leaves, like a right-recursive parallel loop).
    std::unique_ptr<Node> randomNode(std::mt19937_64& rng, int depth, int maxDepth, int maxWidth)
    {
        auto n = std::make_unique<Node>();
        if (depth >= maxDepth || (depth < 4 && rng() % 3 == 0)) {
            n->work = 10 + rng() % 200;
            return n;
        }
        n->staticId = 1 + uint32_t(rng() % 3);
        const size_t k = 2 + rng() % uint64_t(maxWidth - 1);
        const size_t spine = depth >= 4 ? rng() % k : k; // below level 4: only this child may nest
        for (size_t i = 0; i < k; ++i)
            n->children.push_back(
                randomNode(rng, depth + 1, depth >= 4 && i != spine ? depth + 1 : maxDepth, maxWidth));
        bool leaves = true;
        for (const auto& c : n->children)
            leaves = leaves && c->children.empty();
        if (!leaves || rng() % 4 >= k) // half of the pairs, three quarters of the triples
            return n;
        for (size_t i = 0; i < k; ++i)
            n->chain.push_back(i);
        // A spark that produces: it may wait in a deque while its consumer is blocked (Fisher-Yates
        // written out, as std::shuffle differs between standard libraries).
        if (maxDepth > 4)
            for (size_t i = k - 1; i > 0; --i)
                std::swap(n->chain[i], n->chain[rng() % (i + 1)]);
        for (size_t i = 0; i + 1 < k; ++i) {
            Node& producer = *n->children[n->chain[i]];
            producer.yieldAfterSignal = rng() % 4 != 0;
            if (producer.yieldAfterSignal) {
                // Longer work, signalled in its second half: a consumer sparked after the producer
                // started has time to be stolen and suspend first, so the chains the transitive
                // closure follows (producer waiting after its signal, consumer running, the next
                // consumer still suspended) also arise with the producer logically first.
                producer.work = 100 + rng() % 400;
                producer.signalAfterNs = producer.work / 2 + rng() % (producer.work / 2);
            }
        }
        return n;
    }

    struct Conj;
    struct Future {
        uint64_t id = 0;
        bool signalled = false;
        uint64_t signalNs = 0;
        int waiter = -1;
    };
    struct Conj {
        const Node* node = nullptr;
        uint64_t dyn = 0;
        size_t done = 0;
        int waiter = -1; // the starting context, blocked at the barrier
        std::vector<Future> futures; // futures[i] between node->chain[i] and node->chain[i + 1]
    };
    struct Spark {
        std::shared_ptr<Conj> conj;
        size_t position = 0; // 0-based conjunct index
        uint32_t id = 0;
        uint64_t createdNs = 0;
    };
    struct Frame {
        enum Kind { RunNode, Conjunct } kind = RunNode;
        const Node* node = nullptr; // RunNode
        int phase = 0;
        std::shared_ptr<Conj> conj; // Conjunct
        size_t position = 0;
    };
    struct Context {
        uint32_t id = 0;
        std::vector<Frame> stack;
        uint64_t readyNs = 0; // when it became runnable
    };

    class Sim {
    public:
        Sim(uint64_t seed, TraceBuilder& b, int maxDepth, int maxWidth)
            : m_rng(seed)
            , b(b)
        {
            m_engines = 2 + int(seed % 3);
            m_root = randomNode(m_rng, 0, maxDepth, maxWidth);
            m_deques.resize(size_t(m_engines));
            m_current.assign(size_t(m_engines), -1);
            m_sleeping.assign(size_t(m_engines), false);
        }

        void run()
        {
            b.internString(0, 1, "sim.m:1").internString(0, 2, "sim.m:2").internString(0, 3, "sim.m:3");
            b.internString(0, 9, "V");
            const int main = newContext(0, 0);
            m_contexts[size_t(main)].stack.push_back({ Frame::RunNode, m_root.get(), 0, nullptr, 0 });
            b.runThread(0, 1, m_contexts[size_t(main)].id);
            m_current[0] = main;
            schedule(0, 1);
            for (int e = 1; e < m_engines; ++e)
                schedule(e, 1);
            while (!m_queue.empty()) {
                auto [t, e] = m_queue.top();
                m_queue.pop();
                step(int(e), t);
            }
        }

        int engines() const { return m_engines; }

    private:
        void schedule(int e, uint64_t t) { m_queue.push({ t, uint64_t(e) }); }

        int newContext(int e, uint64_t t)
        {
            Context c;
            c.id = m_nextContext++;
            m_contexts.push_back(c);
            b.createThread(uint16_t(e), t, c.id);
            return int(m_contexts.size() - 1);
        }

        void makeRunnable(int e, uint64_t t, int c)
        {
            b.threadRunnable(uint16_t(e), t, m_contexts[size_t(c)].id);
            m_contexts[size_t(c)].readyNs = t;
            m_runnable.push_back(c);
            wakeOne(t);
        }

        void wakeOne(uint64_t t)
        {
            for (int e = 0; e < m_engines; ++e)
                if (m_sleeping[size_t(e)]) {
                    m_sleeping[size_t(e)] = false;
                    schedule(e, t + 5 + m_rng() % 20);
                    return;
                }
        }

        uint64_t dynId()
        {
            if (!m_freeDyn.empty()) {
                const uint64_t d = m_freeDyn.back();
                m_freeDyn.pop_back();
                return d;
            }
            return 0x1000 + 0x40 * m_nextDyn++;
        }

        // One scheduling step of engine e at time t: search when it runs nothing, else advance the
        // innermost frame of its context (a leaf's work, a conjunction's start, a conjunct's end).
        void step(int e, uint64_t t)
        {
            const int c = m_current[size_t(e)];
            if (c < 0) {
                search(e, t);
                return;
            }
            Context& ctx = m_contexts[size_t(c)];
            if (ctx.stack.empty()) {
                b.stopThread(uint16_t(e), t, ctx.id, kStopFinished);
                m_current[size_t(e)] = -1;
                schedule(e, t + 1 + m_rng() % 5);
                return;
            }
            Frame& f = ctx.stack.back();
            if (f.kind == Frame::RunNode && f.node->children.empty())
                stepLeaf(e, t, c, f);
            else if (f.kind == Frame::RunNode)
                startConjunction(e, t, ctx, f);
            else
                stepConjunct(e, t, c, f);
        }

        // Search: global queue, own deque (newest), steal (oldest of another engine), else sleep.
        void search(int e, uint64_t t)
        {
            const auto E = uint16_t(e);
            b.lookingForGlobal(E, t);
            if (!m_runnable.empty()) {
                const int c = m_runnable.front();
                m_runnable.pop_front();
                t = std::max(t + 1, m_contexts[size_t(c)].readyNs + 1);
                b.runThread(E, t, m_contexts[size_t(c)].id);
                m_current[size_t(e)] = c;
                schedule(e, t + 1);
                return;
            }
            b.lookingForLocal(E, t + 1);
            if (!m_deques[size_t(e)].empty()) {
                Spark s = m_deques[size_t(e)].back();
                m_deques[size_t(e)].pop_back();
                t = std::max(t + 2, s.createdNs + 1);
                b.sparkRun(E, t, s.id);
                startSparkContext(e, t, s);
                return;
            }
            b.workStealing(E, t + 2);
            for (int v = 0; v < m_engines; ++v) {
                const int victim = (e + 1 + v) % m_engines;
                if (victim == e || m_deques[size_t(victim)].empty())
                    continue;
                Spark s = m_deques[size_t(victim)].front();
                m_deques[size_t(victim)].pop_front();
                t = std::max(t + 3, s.createdNs + 1);
                b.sparkSteal(E, t, uint16_t(victim), s.id);
                startSparkContext(e, t, s);
                return;
            }
            b.sleeping(E, t + 3);
            m_sleeping[size_t(e)] = true;
        }

        // A leaf goal of context c: wait on its future (if its conjunction chains one to it), work,
        // signal its own future (possibly in the middle, then yield), finish.
        void stepLeaf(int e, uint64_t t, int c, Frame& f)
        {
            const auto E = uint16_t(e);
            Context& ctx = m_contexts[size_t(c)];
            const Node* n = f.node;
            // The futures this leaf waits on and signals, if its conjunction chains them.
            Future* waitsOn = nullptr;
            Future* signals = nullptr;
            if (ctx.stack.size() >= 2 && ctx.stack[ctx.stack.size() - 2].kind == Frame::Conjunct) {
                const Frame& parent = ctx.stack[ctx.stack.size() - 2];
                const auto& chain = parent.conj->node->chain;
                for (size_t r = 0; r < chain.size(); ++r)
                    if (chain[r] == parent.position) {
                        waitsOn = r > 0 ? &parent.conj->futures[r - 1] : nullptr;
                        signals = r + 1 < chain.size() ? &parent.conj->futures[r] : nullptr;
                    }
            }
            const bool yields = signals && n->yieldAfterSignal;
            if (f.phase == 0) { // a consumer of a future waits first
                f.phase = 1;
                if (waitsOn) {
                    if (waitsOn->signalled) {
                        t = std::max(t, waitsOn->signalNs + 1);
                        b.futureWaitNoSuspend(E, t, waitsOn->id);
                    } else {
                        b.futureWaitSuspended(E, t, waitsOn->id);
                        b.stopThread(E, t + 1, ctx.id, kStopBlocked);
                        waitsOn->waiter = c;
                        m_current[size_t(e)] = -1;
                        schedule(e, t + 2);
                        return;
                    }
                }
            }
            if (f.phase == 1) { // start the work (again running, if the wait suspended)
                f.phase = 2;
                schedule(e, t + (yields ? n->signalAfterNs : n->work));
                return;
            }
            if (f.phase == 2 && signals) { // a producer signals, at the end or in the middle
                b.futureSignal(E, t, signals->id);
                signals->signalled = true;
                signals->signalNs = t;
                if (signals->waiter >= 0) {
                    makeRunnable(e, t, signals->waiter);
                    signals->waiter = -1;
                }
                if (yields) { // runnable, behind any context the signal woke
                    f.phase = 3;
                    b.stopThread(E, t + 1, ctx.id, kStopYielding);
                    ctx.readyNs = t + 1;
                    m_runnable.push_back(c);
                    wakeOne(t + 1);
                    m_current[size_t(e)] = -1;
                    schedule(e, t + 2);
                    return;
                }
            }
            if (f.phase == 3) { // running again after the yield: the rest of the work
                f.phase = 4;
                schedule(e, t + (n->work - n->signalAfterNs));
                return;
            }
            ctx.stack.pop_back();
            schedule(e, t + 1);
        }

        // A parallel conjunction: (futures), START_PAR_CONJ, then run G1 in this context.
        void startConjunction(int e, uint64_t t, Context& ctx, Frame& f)
        {
            const auto E = uint16_t(e);
            const Node* n = f.node;
            auto conj = std::make_shared<Conj>();
            conj->node = n;
            conj->futures.resize(n->chain.empty() ? 0 : n->chain.size() - 1);
            for (Future& fut : conj->futures) {
                fut.id = m_freeFutures.empty() ? 0x9000 + 0x10 * m_nextFuture++ : m_freeFutures.back();
                if (!m_freeFutures.empty())
                    m_freeFutures.pop_back();
                b.futureCreate(E, t, fut.id, 9);
            }
            conj->dyn = dynId();
            b.startParConj(E, t, conj->dyn, n->staticId);
            ctx.stack.pop_back(); // f is gone from here on
            ctx.stack.push_back({ Frame::Conjunct, nullptr, 0, conj, 0 });
            schedule(e, t + 1);
        }

        // A conjunct frame of context c: spark the rest of the chain and run the goal; when the goal
        // is done, end the conjunct; the starting context then waits at the barrier.
        void stepConjunct(int e, uint64_t t, int c, Frame& f)
        {
            const auto E = uint16_t(e);
            Context& ctx = m_contexts[size_t(c)];
            Conj& cj = *f.conj;
            const size_t n = cj.node->children.size();
            if (f.phase == 0) { // spark the rest of the chain, then run the conjunct's goal
                f.phase = 1;
                if (f.position + 1 < n) {
                    Spark s { f.conj, f.position + 1, (uint32_t(e) << 24) | (m_sparkSeq++ & 0xFFFFFF), t };
                    b.sparkCreate(E, t, cj.dyn, s.id);
                    m_deques[size_t(e)].push_back(s);
                    wakeOne(t);
                }
                const Node* goal = cj.node->children[f.position].get();
                ctx.stack.push_back({ Frame::RunNode, goal, 0, nullptr, 0 });
                schedule(e, t + 1);
                return;
            }
            if (f.phase == 1) { // goal done
                f.phase = 2;
                b.endParConjunct(E, t, cj.dyn);
                ++cj.done;
                if (f.position != 0) {
                    if (cj.done == n && cj.waiter >= 0) {
                        makeRunnable(e, t, cj.waiter);
                        cj.waiter = -1;
                    }
                    ctx.stack.pop_back();
                    schedule(e, t + 1);
                    return;
                }
            }
            atBarrier(e, t, c, cj);
        }

        // The starting context at the barrier: run our next spark inline, finish, or block.
        void atBarrier(int e, uint64_t t, int c, Conj& cj)
        {
            const auto E = uint16_t(e);
            Context& ctx = m_contexts[size_t(c)];
            if (cj.done == cj.node->children.size()) {
                b.endParConj(E, t, cj.dyn);
                m_freeDyn.push_back(cj.dyn);
                for (const Future& fut : cj.futures)
                    m_freeFutures.push_back(fut.id);
                ctx.stack.pop_back();
                schedule(e, t + 1);
                return;
            }
            auto& dq = m_deques[size_t(e)];
            if (!dq.empty() && dq.back().conj.get() == &cj) {
                Spark s = dq.back();
                dq.pop_back();
                b.sparkRun(E, t, s.id);
                ctx.stack.push_back({ Frame::Conjunct, nullptr, 0, s.conj, s.position });
                schedule(e, t + 1);
                return;
            }
            b.stopThread(E, t, ctx.id, kStopBlocked);
            cj.waiter = c;
            m_current[size_t(e)] = -1;
            schedule(e, t + 1);
        }

        void startSparkContext(int e, uint64_t t, const Spark& s)
        {
            const int c = newContext(e, t + 1);
            m_contexts[size_t(c)].stack.push_back({ Frame::Conjunct, nullptr, 0, s.conj, s.position });
            b.runThread(uint16_t(e), t + 2, m_contexts[size_t(c)].id);
            m_current[size_t(e)] = c;
            schedule(e, t + 3);
        }

        std::mt19937_64 m_rng;
        TraceBuilder& b;
        int m_engines = 2;
        std::unique_ptr<Node> m_root;
        std::vector<Context> m_contexts;
        std::vector<std::deque<Spark>> m_deques;
        std::vector<int> m_current;
        std::vector<bool> m_sleeping;
        std::deque<int> m_runnable;
        std::vector<uint64_t> m_freeDyn, m_freeFutures;
        uint32_t m_nextContext = 1, m_sparkSeq = 1;
        uint64_t m_nextDyn = 0, m_nextFuture = 0;
        std::priority_queue<std::pair<uint64_t, uint64_t>, std::vector<std::pair<uint64_t, uint64_t>>, std::greater<>>
            m_queue;
    };

} // namespace

TraceBuilder simulateRandomProgram(uint64_t seed, int maxDepth, int maxWidth)
{
    TraceBuilder b(uint16_t(2 + seed % 3));
    Sim sim(seed, b, maxDepth, std::max(2, maxWidth));
    sim.run();
    return b;
}

} // namespace sparkscope::test
