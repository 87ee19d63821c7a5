// The loss ledger (see ledger.h). The sweep of one engine merges three sorted streams: the engine's
// activity intervals, the idle-class changes (only while the engine is idle) and the boundaries of
// the static ids' unions. Between two consecutive boundaries everything is constant, so the piece
// is added once to the engine's ledger and once to each static id active there (a handful at most:
// the distinct call sites nested at that instant).
#include "analysis/ledger.h"

#include <algorithm>
#include <map>
#include <tbb/parallel_for.h>

namespace sparkscope::core::detail {

LossCategory ledgerCategory(Activity a) noexcept
{
    switch (a) {
    case Activity::RunningIn:
        return LossCategory::RunningInConjunct;
    case Activity::RunningOut:
        return LossCategory::RunningOutsideConjunct;
    case Activity::Gc:
        return LossCategory::Gc;
    case Activity::Searching:
        return LossCategory::Searching;
    case Activity::Idle:
        break;
    }
    return LossCategory::IdleNoWork;
}

LossCategory ledgerCategory(IdleClass c) noexcept
{
    return LossCategory(size_t(LossCategory::IdleWorkAvailable) + size_t(c));
}

namespace {

    // A boundary of a static id's union: it becomes active (open) or inactive at timeNs.
    struct SiteEdge {
        uint64_t timeNs;
        uint32_t site;
        bool open;
    };

    struct EngineSweep {
        LossLedger engine;
        std::vector<LossLedger> sites;
    };

    EngineSweep sweepEngine(const EngineActivity& activity, size_t e, const IdleClasses& classes,
        const std::vector<SiteEdge>& edges, size_t siteCount, uint64_t from, uint64_t to)
    {
        EngineSweep out;
        out.sites.resize(siteCount);
        const auto& intervals = activity.intervals(e);
        const auto& changes = classes.changes();
        std::vector<uint32_t> active;
        size_t edge = 0;
        auto applyEdges = [&](uint64_t t) {
            for (; edge < edges.size() && edges[edge].timeNs <= t; ++edge) {
                if (edges[edge].open)
                    active.push_back(edges[edge].site);
                else
                    active.erase(std::find(active.begin(), active.end(), edges[edge].site));
            }
        };
        for (size_t i = activity.indexAt(e, from); i < intervals.size() && intervals[i].startNs < to; ++i) {
            const ActivityInterval& a = intervals[i];
            const uint64_t end = std::min(a.endNs, to);
            uint64_t t = std::max(a.startNs, from);
            const bool idle = a.activity == Activity::Idle;
            size_t change = idle && !changes.empty() ? classes.indexAt(t) : 0;
            while (t < end) {
                applyEdges(t);
                uint64_t next = end;
                if (edge < edges.size())
                    next = std::min(next, edges[edge].timeNs);
                LossCategory cat = ledgerCategory(a.activity);
                if (idle && !changes.empty()) {
                    while (change + 1 < changes.size() && changes[change + 1].timeNs <= t)
                        ++change;
                    cat = ledgerCategory(changes[change].idleClass);
                    if (change + 1 < changes.size())
                        next = std::min(next, changes[change + 1].timeNs);
                }
                out.engine[cat] += next - t;
                for (uint32_t s : active)
                    out.sites[s][cat] += next - t;
                t = next;
            }
        }
        return out;
    }

} // namespace

std::vector<SiteSpans> siteUnions(const ParModel& model, uint64_t fromNs, uint64_t toNs)
{
    std::map<uint32_t, SiteSpans> byId;
    // Instances are in start order, so each site's spans arrive sorted by start and merge in one pass.
    for (const ConjunctionInstance& j : model.conjunctions) {
        const uint64_t start = std::max(j.startNs, fromNs);
        const uint64_t end = std::min(j.ended ? j.endNs : std::max(model.endNs, j.startNs), toNs);
        SiteSpans& site = byId[j.staticId];
        site.staticId = j.staticId;
        if (end <= start)
            continue;
        ++site.instances;
        auto& spans = site.spans;
        if (!spans.empty() && start <= spans.back().second)
            spans.back().second = std::max(spans.back().second, end);
        else
            spans.emplace_back(start, end);
    }
    std::vector<SiteSpans> out;
    out.reserve(byId.size());
    for (auto& [id, site] : byId)
        if (site.instances)
            out.push_back(std::move(site));
    return out;
}

LedgerReport computeLedger(const EngineActivity& activity, const IdleClasses& classes, const ParModel& model,
    const std::vector<SiteSpans>& sites, uint64_t fromNs, uint64_t toNs)
{
    LedgerReport report;
    const size_t engines = activity.engineCount();
    report.engines = engines;
    report.perEngine.resize(engines);
    std::vector<SiteEdge> edges;
    for (uint32_t s = 0; s < sites.size(); ++s)
        for (const auto& [a, b] : sites[s].spans) {
            edges.push_back({ a, s, true });
            edges.push_back({ b, s, false });
        }
    // Closing before opening at one instant: a site's own spans never touch (they are merged).
    std::sort(edges.begin(), edges.end(), [](const SiteEdge& x, const SiteEdge& y) {
        return x.timeNs != y.timeNs ? x.timeNs < y.timeNs : x.open < y.open;
    });
    std::vector<EngineSweep> sweeps(engines);
    if (toNs > fromNs)
        tbb::parallel_for(size_t(0), engines,
            [&](size_t e) { sweeps[e] = sweepEngine(activity, e, classes, edges, sites.size(), fromNs, toNs); });
    report.perConjunction.resize(sites.size());
    for (size_t s = 0; s < sites.size(); ++s) {
        SiteLedger& out = report.perConjunction[s];
        out.staticId = sites[s].staticId;
        out.site = model.staticName(sites[s].staticId);
        out.instances = sites[s].instances;
        for (const auto& [a, b] : sites[s].spans)
            out.coveredNs += b - a;
    }
    for (size_t e = 0; e < engines; ++e) {
        report.perEngine[e] = sweeps[e].engine;
        report.total += sweeps[e].engine;
        for (size_t s = 0; s < sweeps[e].sites.size(); ++s)
            report.perConjunction[s].ledger += sweeps[e].sites[s];
    }
    std::sort(report.perConjunction.begin(), report.perConjunction.end(),
        [](const SiteLedger& a, const SiteLedger& b) { return a.site < b.site; });
    return report;
}

} // namespace sparkscope::core::detail
