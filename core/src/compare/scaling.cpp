// scalingSeries (compare.h): traces of one program at different engine counts, each measured point
// beside the what-if predictions of the others. Speed-ups are taken against the run with the fewest
// engines, with the engine counts relative to it, so a series that starts at 2 engines reads as one
// that starts at 1 with engines twice as large (docs/compare.md "Scaling").
#include "sparkscope/core/compare.h"

#include "sparkscope/core/compact_trace.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <set>

namespace sparkscope::core {

Scaling scalingOf(uint64_t baseWallNs, uint32_t baseEngines, uint64_t wallNs, uint32_t engines)
{
    Scaling s;
    if (baseWallNs == 0 || wallNs == 0 || baseEngines == 0 || engines == 0)
        return s;
    const double speedup = double(baseWallNs) / double(wallNs);
    const double p = double(engines) / double(baseEngines);
    s.speedup = speedup;
    s.efficiency = speedup / p;
    if (engines != baseEngines)
        s.serialFraction = (1 / speedup - 1 / p) / (1 - 1 / p);
    return s;
}

namespace {

    SitePoint sitePoint(const RunSite& site, const RunSite& base, uint32_t baseEngines, uint32_t engines)
    {
        SitePoint p;
        p.coveredNs = site.coveredNs;
        p.scaling = scalingOf(base.coveredNs, baseEngines, site.coveredNs, engines);
        p.ledger = site.ledger;
        p.workMeanNs = meanOf(site.work);
        p.spanMeanNs = meanOf(site.span);
        p.parallelismMean = meanOf(site.parallelism);
        p.instances = site.instances;
        return p;
    }

    const RunSite* findSite(const RunProfile& run, const std::string& name)
    {
        auto it = std::lower_bound(run.sites.begin(), run.sites.end(), name,
            [](const RunSite& s, const std::string& n) { return s.site < n; });
        return it != run.sites.end() && it->site == name ? &*it : nullptr;
    }

    // The sites every run has; the others are named in a warning.
    std::vector<std::string> commonSites(const std::vector<const RunProfile*>& runs, std::vector<std::string>& warnings)
    {
        std::map<std::string, size_t> seen;
        for (const RunProfile* r : runs)
            for (const RunSite& s : r->sites)
                ++seen[s.site];
        std::vector<std::string> common, partial;
        for (const auto& [name, count] : seen)
            (count == runs.size() ? common : partial).push_back(name);
        if (!partial.empty()) {
            std::string list;
            for (size_t i = 0; i < partial.size() && i < 5; ++i)
                list += (i ? ", " : "") + partial[i];
            if (partial.size() > 5)
                list += ", …";
            warnings.push_back(std::to_string(partial.size()) + " conjunction site(s) ran in some traces only and are "
                + "left out of the per-site table: " + list);
        }
        if (common.empty() && !seen.empty())
            warnings.push_back(
                "no conjunction site is in every trace: the traces look like runs of different programs");
        return common;
    }

} // namespace

ScalingReport scalingSeries(std::span<const RunInput> runs)
{
    ScalingReport out;
    std::vector<const RunProfile*> profiles;
    for (const RunInput& r : runs) {
        if (r.profile) {
            profiles.push_back(&*r.profile);
            for (std::string& w : readerWarnings(*r.profile))
                out.warnings.push_back(std::move(w));
        } else {
            out.failed.push_back(r.error);
        }
    }
    std::stable_sort(profiles.begin(), profiles.end(),
        [](const RunProfile* x, const RunProfile* y) { return x->engines < y->engines; });
    if (profiles.empty())
        return out;
    const RunProfile& base = *profiles.front();

    for (const RunProfile* r : profiles) {
        ScalingPoint p;
        p.path = r->path;
        p.engines = r->engines;
        p.wallNs = r->wallNs;
        p.scaling = scalingOf(base.wallNs, base.engines, r->wallNs, r->engines);
        p.ledger = r->ledger;
        p.workNs = r->workNs;
        if (base.workNs)
            p.workGrowth = double(r->workNs) / double(base.workNs);
        p.spanNs = r->spanNs;
        p.parallelism = r->parallelism;
        out.points.push_back(std::move(p));
    }
    // Each other run's prediction at this point's engine count.
    for (size_t i = 0; i < profiles.size(); ++i) {
        ScalingPoint& point = out.points[i];
        for (size_t j = 0; j < profiles.size(); ++j) {
            if (j == i)
                continue;
            for (const RunPrediction& pr : profiles[j]->predictions) {
                if (pr.engines != point.engines)
                    continue;
                const std::optional<double> error = point.wallNs
                    ? std::optional<double>((double(pr.wallNs) - double(point.wallNs)) / double(point.wallNs))
                    : std::nullopt;
                point.predictions.push_back({ j, pr.wallNs, error });
                break;
            }
        }
    }

    for (const std::string& name : commonSites(profiles, out.warnings)) {
        SiteScaling s { name, {} };
        const RunSite& baseSite = *findSite(base, name);
        for (const RunProfile* r : profiles)
            s.points.push_back(sitePoint(*findSite(*r, name), baseSite, base.engines, r->engines));
        out.sites.push_back(std::move(s));
    }

    std::set<bool> joins;
    for (const RunProfile* r : profiles)
        joins.insert(r->recordsJoins);
    if (joins.size() > 1)
        out.warnings.push_back("some traces record parallel conjunctions and some do not (GHC eventlogs?): the "
                               "traces look like runs of different programs");
    if (joins.count(false))
        out.warnings.push_back("traces without conjunction events (GHC eventlogs) have no span and no predictions");
    if (profiles.size() > 1 && profiles.front()->engines == profiles.back()->engines)
        out.warnings.push_back("every trace ran on " + std::to_string(base.engines)
            + " engines: the speed-ups compare runs, not engine counts");
    return out;
}

std::vector<RunInput> loadScalingRuns(std::span<const std::string> paths)
{
    // First pass: each trace's engine count (reading a trace is a small part of profiling it).
    std::vector<std::optional<uint32_t>> engines;
    for (const std::string& path : paths) {
        auto trace = readTraceCompact(path);
        engines.push_back(trace ? std::optional<uint32_t>(engineCountOf(trace.value())) : std::nullopt);
    }
    std::vector<RunInput> out;
    for (size_t i = 0; i < paths.size(); ++i) {
        ProfileOptions options;
        for (size_t j = 0; j < paths.size(); ++j)
            if (j != i && engines[j]
                && std::find(options.predictAt.begin(), options.predictAt.end(), *engines[j])
                    == options.predictAt.end())
                options.predictAt.push_back(*engines[j]);
        out.push_back(loadRunProfile(paths[i], options));
    }
    return out;
}

} // namespace sparkscope::core
