// The critical path (rules in critical_path.h). The walk emits segments backwards in time into one
// vector, merging neighbours with the same attributes, and reverses it at the end.
#include "analysis/critical_path.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace sparkscope::core::detail {

namespace {

    // How a stretch of a context's time reads on the path: inside a node (the strand's running is
    // running), as the wait before a node (nothing is running for the path), or as the wait of a
    // spark's conjunct between SPARK_RUN/SPARK_STEAL and its context running it (all of it runnable).
    enum class Reading : uint8_t { Node, Waiting, SparkBind };

    class PathWalker {
    public:
        PathWalker(const RunDag& dag, const EngineActivity& activity)
            : m_dag(dag)
            , m_activity(activity)
            , m(dag.model())
        {
        }

        std::optional<CriticalPathReport> run()
        {
            uint32_t g = lastRunningNode();
            if (g == kNoIndex)
                return std::nullopt;
            uint64_t tau = m_endNs;
            std::vector<PathSegment> inNode;
            std::vector<bool> visited(m_dag.cutCount(), false); // a damaged trace's cycle ends the walk
            for (;;) {
                visited[g] = true;
                const uint32_t strand = m_dag.strandOf(g);
                const uint32_t c = m_dag.contextOf(strand);
                inNode.clear();
                emitContext(c, strand, m_dag.cut(g).timeNs, tau, Reading::Node, inNode);
                // Keep the node's time from its first running piece on (inNode is backwards).
                size_t keep = 0;
                for (size_t i = 0; i < inNode.size(); ++i)
                    if (inNode[i].kind == PathKind::Running)
                        keep = i + 1;
                const uint64_t r = keep ? inNode[keep - 1].fromNs : tau;
                for (size_t i = 0; i < keep; ++i)
                    push(inNode[i]);
                const auto [pred, met] = lastMet(g, strand, c);
                if (pred == kNoIndex || visited[pred])
                    break;
                const uint64_t mNs = std::min(met, r);
                emitWait(g, strand, c, mNs, r);
                g = pred;
                tau = mNs;
            }
            CriticalPathReport path;
            path.segments.assign(m_out.rbegin(), m_out.rend());
            return path;
        }

    private:
        // The node running at the latest instant any context ran; sets m_endNs to that instant.
        uint32_t lastRunningNode()
        {
            uint64_t end = 0;
            uint32_t context = kNoIndex;
            for (size_t e = 0; e < m_activity.engineCount(); ++e) {
                const auto& v = m_activity.intervals(e);
                for (auto it = v.rbegin(); it != v.rend(); ++it)
                    if (it->activity == Activity::RunningIn || it->activity == Activity::RunningOut) {
                        if (it->endNs > end)
                            end = it->endNs, context = it->context;
                        break;
                    }
            }
            if (context == kNoIndex)
                return kNoIndex;
            m_endNs = end;
            const auto& segs = m.contexts[context].segments;
            auto it = std::upper_bound(
                segs.begin(), segs.end(), end - 1, [](uint64_t t, const ContextSegment& s) { return t < s.startNs; });
            const uint32_t strand = it == segs.begin() ? m_dag.rootStrand(context) : strandOf(*std::prev(it), context);
            return strand == kNoIndex ? kNoIndex : m_dag.nodeAt(strand, end - 1);
        }

        // The strand a segment of context c belongs to (kNoIndex for a conjunct bound elsewhere).
        uint32_t strandOf(const ContextSegment& s, uint32_t c) const
        {
            if (!s.top.valid())
                return m_dag.rootStrand(c);
            return m.conjunct(s.top).context.value() == c ? s.top.value() : kNoIndex;
        }

        // The dependency of node g met last (critical_path.h for the ties) and when it was met.
        std::pair<uint32_t, uint64_t> lastMet(uint32_t g, uint32_t strand, uint32_t c) const
        {
            uint32_t best = kNoIndex;
            uint64_t bestMet = 0;
            bool bestSame = false, bestCross = false;
            m_dag.forEachPred(g, strand, [&](uint32_t p, uint32_t ps, bool strandOrder) {
                const uint64_t met = m_dag.cut(p + 1).timeNs;
                const bool same = m_dag.contextOf(ps) == c;
                const auto key = std::make_tuple(met, same, !strandOrder);
                if (best == kNoIndex || key > std::make_tuple(bestMet, bestSame, bestCross)
                    || (key == std::make_tuple(bestMet, bestSame, bestCross) && p < best)) {
                    best = p;
                    bestMet = met;
                    bestSame = same;
                    bestCross = !strandOrder;
                }
            });
            return { best, bestMet };
        }

        // The wait [mNs, r) before node g's first running instant.
        void emitWait(uint32_t g, uint32_t strand, uint32_t c, uint64_t mNs, uint64_t r)
        {
            const bool spawned
                = m_dag.isConjunct(strand) && m.conjuncts[strand].fromSpark && m_dag.cut(g).kind == CutKind::Start;
            if (!spawned) {
                emitContext(c, strand, mNs, r, Reading::Waiting, m_out);
                return;
            }
            const uint64_t taken = std::clamp(m.conjuncts[strand].startNs, mNs, r);
            emitContext(c, strand, taken, r, Reading::SparkBind, m_out);
            if (taken > mNs)
                push(label(strand, c, mNs, taken, PathKind::SparkQueued, kNoEngine));
        }

        PathSegment label(uint32_t strand, uint32_t c, uint64_t from, uint64_t to, PathKind kind, uint16_t engine) const
        {
            PathSegment s;
            s.fromNs = from;
            s.toNs = to;
            s.context = m.contexts[c].id;
            s.engine = engine;
            s.kind = kind;
            if (m_dag.isConjunct(strand)) {
                const ConjunctInstance& k = m.conjuncts[strand];
                s.staticId = m.conjunction(k.conjunction).staticId;
                s.position = k.position;
            }
            return s;
        }

        // Context c's time in [x, y), backwards, as strand `strand` reads it.
        void emitContext(
            uint32_t c, uint32_t strand, uint64_t x, uint64_t y, Reading reading, std::vector<PathSegment>& out)
        {
            const auto& segs = m.contexts[c].segments;
            auto it = std::lower_bound(
                segs.begin(), segs.end(), y, [](const ContextSegment& s, uint64_t t) { return s.startNs < t; });
            const PathKind other = reading == Reading::SparkBind ? PathKind::Runnable : PathKind::Resume;
            for (uint64_t hi = y; hi > x;) {
                if (it == segs.begin()) { // before the context existed
                    pushTo(out, label(strand, c, x, hi, other, kNoEngine));
                    break;
                }
                --it;
                const uint64_t lo = std::max(it->startNs, x);
                if (lo >= hi)
                    continue;
                if (it->state == ContextState::Running && reading != Reading::SparkBind && strandOf(*it, c) == strand)
                    emitRunning(c, strand, it->engine, lo, hi, reading, out);
                else if (it->state == ContextState::Runnable && reading != Reading::SparkBind && it != segs.begin()
                    && std::prev(it)->state == ContextState::Running)
                    emitStopped(c, strand, std::prev(it)->engine, lo, hi, out);
                else
                    pushTo(out,
                        label(strand, c, lo, hi, it->state == ContextState::Runnable ? PathKind::Runnable : other,
                            kNoEngine));
                hi = lo;
            }
        }

        // A running stretch of the strand on `engine`, split where the engine collected garbage or searched.
        void emitRunning(uint32_t c, uint32_t strand, uint16_t engine, uint64_t lo, uint64_t hi, Reading reading,
            std::vector<PathSegment>& out)
        {
            emitByActivity(c, strand, engine, lo, hi, PathKind::Resume, out, [&](const ActivityInterval& a) {
                if (a.activity == Activity::Gc)
                    return PathKind::Gc;
                if (a.activity == Activity::Searching)
                    return PathKind::Searching;
                if (a.context == c && a.activity != Activity::Idle && reading == Reading::Node)
                    return PathKind::Running;
                return PathKind::Resume;
            });
        }

        // A runnable stretch of a context stopped (or interrupted) on `engine`: `gc` while that engine
        // collected garbage (a collection stops the context, and it waits for it, not for an engine),
        // `runnable` otherwise.
        void emitStopped(
            uint32_t c, uint32_t strand, uint16_t engine, uint64_t lo, uint64_t hi, std::vector<PathSegment>& out)
        {
            emitByActivity(c, strand, engine, lo, hi, PathKind::Runnable, out, [](const ActivityInterval& a) {
                return a.activity == Activity::Gc ? PathKind::Gc : PathKind::Runnable;
            });
        }

        // [lo, hi) of context c, backwards, cut where `engine`'s activity changes and read by kindOf;
        // `otherwise` where the engine is unknown or has no interval. A segment names the engine unless
        // it is that default kind.
        template <class KindOf>
        void emitByActivity(uint32_t c, uint32_t strand, uint16_t engine, uint64_t lo, uint64_t hi, PathKind otherwise,
            std::vector<PathSegment>& out, KindOf kindOf)
        {
            if (engine >= m_activity.engineCount()) {
                pushTo(out, label(strand, c, lo, hi, otherwise, kNoEngine));
                return;
            }
            const auto& v = m_activity.intervals(engine);
            for (size_t i = m_activity.indexAt(engine, hi - 1); hi > lo; --i) {
                const uint64_t from = std::max(v[i].startNs, lo);
                const PathKind kind = kindOf(v[i]);
                pushTo(out, label(strand, c, from, hi, kind, kind == otherwise ? kNoEngine : engine));
                hi = from;
                if (i == 0)
                    break;
            }
            if (hi > lo)
                pushTo(out, label(strand, c, lo, hi, otherwise, kNoEngine));
        }

        void push(const PathSegment& s) { pushTo(m_out, s); }

        // Appends a segment that ends where the last one starts, merging it into the last one when
        // they read the same.
        static void pushTo(std::vector<PathSegment>& out, const PathSegment& s)
        {
            if (s.toNs <= s.fromNs)
                return;
            if (!out.empty()) {
                PathSegment& last = out.back();
                if (last.fromNs == s.toNs && last.kind == s.kind && last.context == s.context && last.engine == s.engine
                    && last.staticId == s.staticId && last.position == s.position) {
                    last.fromNs = s.fromNs;
                    return;
                }
            }
            out.push_back(s);
        }

        const RunDag& m_dag;
        const EngineActivity& m_activity;
        const ParModel& m;
        uint64_t m_endNs = 0;
        std::vector<PathSegment> m_out; // backwards
    };

} // namespace

std::optional<CriticalPathReport> walkCriticalPath(const RunDag& dag, const EngineActivity& activity)
{
    return PathWalker(dag, activity).run();
}

uint64_t firstRunningNs(const EngineActivity& activity)
{
    uint64_t first = UINT64_MAX;
    for (size_t e = 0; e < activity.engineCount(); ++e)
        for (const ActivityInterval& a : activity.intervals(e))
            if (a.activity == Activity::RunningIn || a.activity == Activity::RunningOut) {
                first = std::min(first, a.startNs);
                break;
            }
    return first == UINT64_MAX ? 0 : first;
}

CriticalPathReport summarisePath(const CriticalPathReport& path, const ParModel& model, uint64_t fromNs, uint64_t toNs)
{
    CriticalPathReport out;
    out.fromNs = out.toNs = fromNs; // where the path does not reach into the range: empty there
    std::map<uint32_t, PathSiteShare> sites;
    for (PathSegment s : path.segments) {
        s.fromNs = std::max(s.fromNs, fromNs);
        s.toNs = std::min(s.toNs, toNs);
        if (s.toNs <= s.fromNs)
            continue;
        const uint64_t ns = s.toNs - s.fromNs;
        if (out.segments.empty())
            out.fromNs = s.fromNs;
        out.toNs = s.toNs;
        out.lengthNs += ns;
        out.byKind[size_t(s.kind)] += ns;
        (s.kind == PathKind::Running ? out.runningNs : out.waitingNs) += ns;
        if (s.position == 0) {
            out.outsideConjunctNs += ns;
        } else {
            PathSiteShare& share = sites[s.staticId];
            share.staticId = s.staticId;
            share.ns += ns;
            if (s.kind == PathKind::Running)
                share.runningNs += ns;
        }
        out.segments.push_back(s);
    }
    for (auto& [id, share] : sites) {
        share.site = model.staticName(id);
        out.perConjunction.push_back(std::move(share));
    }
    std::sort(out.perConjunction.begin(), out.perConjunction.end(),
        [](const PathSiteShare& a, const PathSiteShare& b) { return a.site < b.site; });
    return out;
}

} // namespace sparkscope::core::detail
