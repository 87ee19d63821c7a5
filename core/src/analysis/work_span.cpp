// Work and span (see work_span.h for the method and why it is linear).
#include "analysis/work_span.h"
#include "util/saturating.h"

#include <algorithm>
#include <map>

namespace sparkscope::core::detail {

namespace {

    // Longest paths over the strands `allowed` admits (preds from other strands are ignored),
    // computed strand by strand: a strand's nodes are done in order, and when a node needs a node
    // of another strand not yet done, that strand is done up to it first (a stack of strands, each at
    // most once on it). Nodes of one strand are contiguous, so most of the work is a sequential walk.
    // cursor[s] is the first node of s not yet done; the caller sets it to the strand's first node.
    // depth[g] holds g's weight until g is done, its depth after (one node-sized array, not two).
    template <class Allowed> class DepthPass {
    public:
        DepthPass(const RunDag& dag, std::vector<uint64_t>& depth, std::vector<uint32_t>& cursor, Allowed allowed)
            : m_dag(dag)
            , m_depth(depth)
            , m_cursor(cursor)
            , m_onStack(dag.strandCount(), 0)
            , m_allowed(allowed)
        {
        }

        void complete(uint32_t strand)
        {
            const uint32_t last = m_dag.lastNode(strand);
            if (last == kNoIndex || m_cursor[strand] > last)
                return;
            push(strand, last);
            while (!m_stack.empty()) {
                const auto [s, goal] = m_stack.back();
                if (m_cursor[s] > goal) {
                    m_onStack[s] = 0;
                    m_stack.pop_back();
                    continue;
                }
                const uint32_t g = m_cursor[s];
                uint32_t needStrand = kNoIndex, needNode = 0;
                m_dag.forEachPred(g, s, [&](uint32_t p, uint32_t ps, bool) {
                    if (needStrand == kNoIndex && m_allowed(ps) && p >= m_cursor[ps] && !m_onStack[ps])
                        needStrand = ps, needNode = p;
                });
                if (needStrand != kNoIndex) {
                    push(needStrand, needNode);
                    continue;
                }
                uint64_t longest = 0;
                m_dag.forEachPred(g, s, [&](uint32_t p, uint32_t ps, bool) {
                    if (!m_allowed(ps))
                        return;
                    if (p < m_cursor[ps])
                        longest = std::max(longest, m_depth[p]);
                    else
                        ++m_broken; // p's strand waits below on the stack for g: the edge closes a cycle
                });
                m_depth[g] = saturatingAdd(m_depth[g], longest);
                ++m_cursor[s];
            }
        }

        uint64_t broken() const noexcept { return m_broken; }

    private:
        void push(uint32_t strand, uint32_t goal)
        {
            m_onStack[strand] = 1;
            m_stack.push_back({ strand, goal });
        }

        struct Frame {
            uint32_t strand, goal;
        };
        const RunDag& m_dag;
        std::vector<uint64_t>& m_depth;
        std::vector<uint32_t>& m_cursor;
        std::vector<uint8_t> m_onStack; // per strand
        Allowed m_allowed;
        std::vector<Frame> m_stack;
        uint64_t m_broken = 0;
    };

    std::vector<uint32_t> firstNodes(const RunDag& dag)
    {
        std::vector<uint32_t> cursor(dag.strandCount());
        for (uint32_t s = 0; s < cursor.size(); ++s)
            cursor[s] = dag.firstNode(s) == kNoIndex ? 0 : dag.firstNode(s);
        return cursor;
    }

    uint32_t parentConjunction(const ParModel& m, uint32_t j)
    {
        const uint32_t k = m.conjunctions[j].parentConjunct.value();
        return k == kNoIndex ? kNoIndex : m.conjuncts[k].conjunction.value();
    }

    // Instances that a suspended wait enters from outside: every conjunction containing the waiting
    // strand but not the signalling one.
    std::vector<uint8_t> taintedInstances(const RunDag& dag)
    {
        const ParModel& m = dag.model();
        std::vector<uint8_t> tainted(m.conjunctions.size(), 0);
        std::vector<uint32_t> signalSide;
        for (const FutureInstance& f : m.futures) {
            if (!f.signalled || f.signalConjunct.value() == kNoIndex)
                continue;
            signalSide.clear();
            for (uint32_t j = m.conjuncts[f.signalConjunct.value()].conjunction.value(); j != kNoIndex;
                 j = parentConjunction(m, j))
                signalSide.push_back(j);
            for (const FutureWait& w : f.waits) {
                if (!w.suspended || w.conjunct.value() == kNoIndex)
                    continue;
                for (uint32_t j = m.conjuncts[w.conjunct.value()].conjunction.value();
                     j != kNoIndex && std::find(signalSide.begin(), signalSide.end(), j) == signalSide.end();
                     j = parentConjunction(m, j))
                    tainted[j] = 1;
            }
        }
        return tainted;
    }

    // The sub-DAG's longest path of a tainted instance, by a pass restricted to its strands.
    uint64_t restrictedSpan(const RunDag& dag, const std::vector<uint64_t>& weights, uint32_t j,
        std::vector<uint32_t>& stamp, std::vector<uint64_t>& depth, std::vector<uint32_t>& cursor)
    {
        const ParModel& m = dag.model();
        std::vector<uint32_t> strands, conjunctions { j };
        while (!conjunctions.empty()) {
            const uint32_t c = conjunctions.back();
            conjunctions.pop_back();
            for (uint32_t k : strandsOf(m.conjunctions[c].conjuncts)) {
                strands.push_back(k);
                for (uint32_t child : childrenOf(m, k))
                    conjunctions.push_back(child);
            }
        }
        for (uint32_t s : strands) {
            stamp[s] = j + 1;
            const uint32_t first = dag.firstNode(s), last = dag.lastNode(s);
            cursor[s] = first == kNoIndex ? 0 : first;
            for (uint32_t g = first; first != kNoIndex && last != kNoIndex && g <= last; ++g)
                depth[g] = weights[g];
        }
        DepthPass pass(dag, depth, cursor, [&](uint32_t s) { return stamp[s] == j + 1; });
        for (uint32_t s : strands)
            pass.complete(s);
        uint64_t span = 0;
        for (uint32_t k : strandsOf(m.conjunctions[j].conjuncts))
            if (const uint32_t last = dag.lastNode(k); last != kNoIndex)
                span = std::max(span, depth[last]);
        for (uint32_t s : strands)
            stamp[s] = 0;
        return span;
    }

} // namespace

LongestPaths longestPaths(const RunDag& dag, std::vector<uint64_t> weights)
{
    LongestPaths out;
    out.depth = std::move(weights);
    std::vector<uint32_t> cursor = firstNodes(dag);
    DepthPass pass(dag, out.depth, cursor, [](uint32_t) { return true; });
    for (uint32_t s = 0; s < dag.strandCount(); ++s)
        pass.complete(s);
    out.brokenDependencies = pass.broken();
    for (uint64_t d : out.depth)
        out.spanNs = std::max(out.spanNs, d);
    return out;
}

InstanceWorkSpans instanceWork(const RunDag& dag, const std::vector<uint64_t>& weights)
{
    const ParModel& m = dag.model();
    const size_t n = m.conjunctions.size();
    InstanceWorkSpans out;
    out.work.assign(n, 0);
    out.span.assign(n, 0);
    out.known.assign(n, 0);
    // Each conjunct's own nodes plus the instances nested in it, children before parents (a child
    // starts after its parent, so it has the larger index).
    std::vector<uint64_t> nested(m.conjuncts.size(), 0);
    for (size_t j = n; j-- > 0;) {
        const ConjunctionInstance& ci = m.conjunctions[j];
        bool placed = ci.complete;
        uint64_t work = 0;
        for (uint32_t k : strandsOf(ci.conjuncts)) {
            work = saturatingAdd(work, nested[k]);
            const uint32_t first = dag.firstNode(k), last = dag.lastNode(k);
            placed = placed && last != kNoIndex;
            for (uint32_t g = first; first != kNoIndex && last != kNoIndex && g <= last; ++g)
                work = saturatingAdd(work, weights[g]);
        }
        out.work[j] = work;
        out.known[j] = placed;
        if (ci.parentConjunct.value() != kNoIndex)
            nested[ci.parentConjunct.value()] = saturatingAdd(nested[ci.parentConjunct.value()], work);
    }
    out.tainted = taintedInstances(dag);
    std::vector<uint32_t> stamp, cursor; // per strand
    std::vector<uint64_t> depth; // per node; only when some instance is tainted
    for (size_t j = 0; j < n; ++j) {
        if (!out.known[j] || !out.tainted[j])
            continue;
        if (stamp.empty()) {
            stamp.assign(dag.strandCount(), 0);
            cursor.assign(dag.strandCount(), 0);
            depth.assign(dag.cutCount(), 0);
        }
        out.span[j] = restrictedSpan(dag, weights, uint32_t(j), stamp, depth, cursor);
    }
    return out;
}

void addInstanceSpans(const RunDag& dag, const LongestPaths& paths, InstanceWorkSpans& figures)
{
    const ParModel& m = dag.model();
    for (uint32_t j = 0; j < m.conjunctions.size(); ++j) {
        if (!figures.known[j] || figures.tainted[j])
            continue;
        uint64_t deepest = 0;
        for (uint32_t k : strandsOf(m.conjunctions[j].conjuncts))
            deepest = std::max(deepest, paths.depth[dag.lastNode(k)]);
        const uint32_t fork = dag.forkSource(j);
        const uint64_t before = fork == kNoIndex ? 0 : paths.depth[fork];
        figures.span[j] = deepest >= before ? deepest - before : 0;
    }
}

std::vector<SpeedupBound> speedupBounds(uint64_t workNs, uint64_t spanNs)
{
    std::vector<SpeedupBound> out;
    if (workNs == 0 || spanNs == 0)
        return out;
    for (uint32_t p = 1; p <= 64; p *= 2)
        out.push_back(speedupBound(workNs, spanNs, p));
    return out;
}

SpeedupBound speedupBound(uint64_t workNs, uint64_t spanNs, uint32_t engines)
{
    if (workNs == 0 || spanNs == 0)
        return { engines, 0, 0 };
    const double t1 = double(workNs), tinf = double(spanNs);
    return { engines, t1 / (t1 / engines + tinf), std::min(double(engines), t1 / tinf) };
}

std::vector<SiteWorkSpan> siteWorkSpan(
    const ParModel& model, const InstanceWorkSpans& figures, uint64_t fromNs, uint64_t toNs, bool listInstances)
{
    struct Values {
        std::vector<double> work, span, parallelism;
    };
    std::map<uint32_t, std::pair<SiteWorkSpan, Values>> byId;
    for (uint32_t j = 0; j < model.conjunctions.size(); ++j) {
        const ConjunctionInstance& ci = model.conjunctions[j];
        if (ci.startNs < fromNs || ci.startNs >= toNs)
            continue;
        auto& [site, values] = byId[ci.staticId];
        site.staticId = ci.staticId;
        if (!figures.known[j]) {
            ++site.incomplete;
            continue;
        }
        ++site.complete;
        values.work.push_back(double(figures.work[j]));
        values.span.push_back(double(figures.span[j]));
        if (figures.span[j] > 0)
            values.parallelism.push_back(double(figures.work[j]) / double(figures.span[j]));
        if (listInstances)
            site.instances.push_back({ j, ci.startNs, ci.endNs, figures.work[j], figures.span[j] });
    }
    std::vector<SiteWorkSpan> out;
    for (auto& [id, entry] : byId) {
        auto& [site, values] = entry;
        site.site = model.staticName(id);
        site.work = Stat::of(values.work);
        site.span = Stat::of(values.span);
        site.parallelism = Stat::of(values.parallelism);
        out.push_back(std::move(site));
    }
    std::sort(out.begin(), out.end(), [](const SiteWorkSpan& a, const SiteWorkSpan& b) { return a.site < b.site; });
    return out;
}

} // namespace sparkscope::core::detail
