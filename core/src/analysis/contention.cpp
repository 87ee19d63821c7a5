// Contention (the rule and the fit in contention.h).
#include "analysis/contention.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>

namespace sparkscope::core::detail {

namespace {

    bool running(const ActivityInterval& a) noexcept
    {
        return a.activity == Activity::RunningIn || a.activity == Activity::RunningOut;
    }

    // Per engine, per activity interval: the engine-ns other engines ran during it (0 unless it is a
    // running interval), as a prefix (entry i: before interval i); and the recorded load. One walk over
    // every engine's intervals together: they are gap-free over the same [first, last), so the next
    // boundary is the earliest current interval's end.
    struct Overlap {
        std::vector<std::vector<uint64_t>> before; // per engine, intervals + 1
        std::vector<uint64_t> runningAt;

        explicit Overlap(const EngineActivity& a)
            : before(a.engineCount())
            , runningAt(std::max<size_t>(a.engineCount(), 1), 0)
        {
            const size_t engines = a.engineCount();
            std::vector<size_t> at(engines, 0);
            std::vector<size_t> live; // engines with intervals
            for (size_t e = 0; e < engines; ++e) {
                before[e].assign(a.intervals(e).size() + 1, 0);
                if (!a.intervals(e).empty())
                    live.push_back(e);
            }
            if (live.empty())
                return;
            for (uint64_t t = a.firstNs(); t < a.lastNs();) {
                uint64_t next = a.lastNs();
                size_t k = 0;
                for (size_t e : live) {
                    const ActivityInterval& i = a.intervals(e)[at[e]];
                    next = std::min(next, i.endNs);
                    k += running(i);
                }
                const uint64_t dt = next - t;
                if (k > 0) {
                    runningAt[k - 1] += k * dt;
                    for (size_t e : live)
                        if (running(a.intervals(e)[at[e]]))
                            before[e][at[e] + 1] += (k - 1) * dt;
                }
                t = next;
                for (size_t e : live)
                    if (at[e] + 1 < a.intervals(e).size() && a.intervals(e)[at[e]].endNs <= next)
                        ++at[e];
            }
            for (auto& b : before)
                for (size_t i = 1; i < b.size(); ++i)
                    b[i] += b[i - 1];
        }

        // Other engines' running time during engine e's running time before t (spread evenly over an
        // interval: the walk kept one figure per interval). `hint`: an interval index kept by the caller.
        uint64_t at(const EngineActivity& a, size_t e, uint64_t t, size_t& hint) const
        {
            const auto& v = a.intervals(e);
            if (v.empty())
                return 0;
            if (hint >= v.size() || v[hint].startNs > t)
                hint = a.indexAt(e, t);
            while (hint + 1 < v.size() && v[hint].endNs <= t)
                ++hint;
            const ActivityInterval& i = v[hint];
            const uint64_t whole = before[e][hint + 1] - before[e][hint];
            const uint64_t into = std::clamp(t, i.startNs, i.endNs) - i.startNs;
            if (into >= i.endNs - i.startNs)
                return before[e][hint + 1];
            return before[e][hint] + uint64_t(double(whole) * double(into) / double(i.endNs - i.startNs));
        }
    };

    // Per group of like conjuncts: the sums of the least-squares fit of y = log(running time) on
    // x = the mean number of other engines running.
    struct Sums {
        double n = 0, x = 0, y = 0, xx = 0, xy = 0;
        void add(double xi, double yi)
        {
            n += 1, x += xi, y += yi, xx += xi * xi, xy += xi * yi;
        }
        void add(const Sums& o) { n += o.n, x += o.x, y += o.y, xx += o.xx, xy += o.xy; }
    };

} // namespace

Contention measureContention(const ParModel& m, const EngineActivity& activity)
{
    const Overlap overlap(activity);
    Contention out;
    out.runningAt = overlap.runningAt;
    // Each conjunct's running time (less Gc and searching, as the DAG's weights) and the other
    // engines' running time meanwhile.
    const size_t engines = activity.engineCount();
    std::vector<uint64_t> runNs(m.conjuncts.size(), 0), othersNs(m.conjuncts.size(), 0);
    tbb::parallel_for(size_t(0), m.contexts.size(), [&](size_t c) {
        const auto& segs = m.contexts[c].segments;
        std::vector<size_t> hints(engines, 0), overlapHints(engines, 0);
        for (size_t i = 0; i < segs.size(); ++i) {
            const ContextSegment& s = segs[i];
            if (s.state != ContextState::Running || s.engine >= engines || !s.top.valid()
                || m.conjunct(s.top).context.value() != c)
                continue;
            const uint64_t a = std::max(s.startNs, activity.firstNs());
            const uint64_t b = std::min(i + 1 < segs.size() ? segs[i + 1].startNs : m.endNs, activity.lastNs());
            if (a >= b)
                continue;
            const uint32_t k = s.top.value();
            runNs[k] += (b - a) - activity.excludedIn(s.engine, a, b, hints[s.engine]);
            const uint64_t from = overlap.at(activity, s.engine, a, overlapHints[s.engine]);
            othersNs[k] += overlap.at(activity, s.engine, b, overlapHints[s.engine]) - from;
        }
    });
    // Nesting depth per conjunction (a child has a larger index than its parent).
    std::vector<uint32_t> depth(m.conjunctions.size(), 0);
    for (size_t j = 0; j < m.conjunctions.size(); ++j) {
        const uint32_t parent = m.conjunctions[j].parentConjunct.value();
        const uint32_t pj = parent == kNoIndex ? kNoIndex : m.conjuncts[parent].conjunction.value();
        if (pj != kNoIndex && pj < j)
            depth[j] = depth[pj] + 1;
    }
    // Grouped in a fixed order (deterministic chunks joined in a fixed tree, groups in key order): a
    // floating-point sum depends on its order, and the coefficient must not change from run to run.
    using Groups = std::map<uint64_t, Sums>;
    const Groups groups = tbb::parallel_deterministic_reduce(
        tbb::blocked_range<size_t>(0, m.conjuncts.size(), 4096), Groups {},
        [&](const tbb::blocked_range<size_t>& r, Groups g) {
            for (size_t k = r.begin(); k < r.end(); ++k) {
                const ConjunctInstance& q = m.conjuncts[k];
                if (!q.started || !q.ended || !q.conjunction.valid() || runNs[k] < kMinConjunctNs)
                    continue;
                const ConjunctionInstance& j = m.conjunction(q.conjunction);
                const uint64_t key = uint64_t(j.staticId) << 32 | uint64_t(std::min<uint32_t>(q.position, 0xFFF)) << 20
                    | std::min<uint32_t>(depth[q.conjunction.value()], 0xFFFFF);
                g[key].add(double(othersNs[k]) / double(runNs[k]), std::log(double(runNs[k])));
            }
            return g;
        },
        [](Groups a, const Groups& b) {
            for (const auto& [key, sums] : b)
                a[key].add(sums);
            return a;
        });
    double sxx = 0, sxy = 0;
    uint64_t samples = 0;
    for (const auto& [key, g] : groups) {
        const double vx = g.xx - g.x * g.x / g.n;
        if (g.n < 2 || vx <= 1e-9)
            continue; // u does not vary in this group: it says nothing about c
        sxx += vx;
        sxy += g.xy - g.x * g.y / g.n;
        samples += uint64_t(g.n);
    }
    // At least as much variation in u as two conjuncts alone and two beside another engine.
    if (sxx < 1.0)
        return out;
    out.samples = samples;
    out.coefficient = std::max(0.0, std::expm1(sxy / sxx));
    return out;
}

double recordedRate(const std::vector<uint64_t>& runningAt, double c)
{
    double work = 0, time = 0;
    for (size_t k = 0; k < runningAt.size(); ++k) {
        work += double(runningAt[k]) / (1.0 + c * double(k));
        time += double(runningAt[k]);
    }
    return c == 0 || time == 0 ? 1.0 : work / time;
}

} // namespace sparkscope::core::detail
