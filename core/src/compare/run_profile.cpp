// RunProfile (compare.h): what a comparison keeps of one trace, read from its metrics report, its
// analysis and its session. Everything a profile holds is a figure these already computed; nothing is
// derived here but the grouping by site (docs/compare.md says which figure comes from where).
#include "sparkscope/core/compare.h"

#include "sparkscope/core/compact_trace.h"
#include "sparkscope/core/event_types.h"

#include <algorithm>
#include <charconv>
#include <map>

namespace sparkscope::core {

namespace {

    std::optional<double> fieldOf(const MetricValue* value, std::string_view name)
    {
        if (!value)
            return std::nullopt;
        for (const auto& [key, scalar] : value->fields) {
            if (key != name)
                continue;
            if (const auto* i = std::get_if<int64_t>(&scalar))
                return double(*i);
            if (const auto* d = std::get_if<double>(&scalar))
                return *d;
        }
        return std::nullopt;
    }

    uint64_t countOf(const MetricValue* value, std::string_view name)
    {
        return uint64_t(std::max(0.0, fieldOf(value, name).value_or(0)));
    }

    Stat statOf(const MetricGroup& group, std::string_view key)
    {
        for (const auto& [k, v] : group.metrics)
            if (k == key && v.stat)
                return *v.stat;
        return {};
    }

    const MetricValue* valueOf(const MetricGroup& group, std::string_view key)
    {
        for (const auto& [k, v] : group.metrics)
            if (k == key)
                return &v;
        return nullptr;
    }

    // The conjuncts section's group id "<site>/<position>" split at its last '/' (a site's name may
    // hold one, a position never does).
    std::optional<std::pair<std::string, uint32_t>> conjunctId(const std::string& id)
    {
        const size_t slash = id.rfind('/');
        if (slash == std::string::npos)
            return std::nullopt;
        uint32_t position = 0;
        const char* first = id.data() + slash + 1;
        const char* last = id.data() + id.size();
        auto [ptr, ec] = std::from_chars(first, last, position);
        if (ec != std::errc() || ptr != last || first == last)
            return std::nullopt;
        return std::pair { id.substr(0, slash), position };
    }

    // Every site the metrics or the analysis name, with the figures of each.
    std::vector<RunSite> sitesOf(const Metrics& metrics, const Analysis& a)
    {
        std::map<std::string, RunSite> sites;
        auto at = [&](const std::string& name) -> RunSite& {
            RunSite& s = sites[name];
            s.site = name;
            return s;
        };
        if (const MetricSection* section = metrics.section("conjunctions")) {
            for (const MetricGroup& g : section->groups) {
                if (g.id.starts_with("instance:"))
                    continue;
                RunSite& s = at(g.id);
                const MetricValue* instances = valueOf(g, "INSTANCES");
                s.instances = countOf(instances, "complete") + countOf(instances, "incomplete");
                s.time = statOf(g, "PARCONJ_TIME");
            }
        }
        if (const MetricSection* section = metrics.section("conjuncts")) {
            for (const MetricGroup& g : section->groups) {
                const auto id = conjunctId(g.id);
                if (!id)
                    continue;
                RunConjunct c;
                c.position = id->second;
                c.running = statOf(g, "CONJUNCT_TIME_RUNNING");
                c.instances = c.running.count;
                c.after = statOf(g, "CONJUNCT_TIME_AFTER");
                if (valueOf(g, "CONJUNCT_TIME_AS_SPARK"))
                    c.asSpark = statOf(g, "CONJUNCT_TIME_AS_SPARK");
                at(id->first).conjuncts.push_back(std::move(c));
            }
        }
        for (const SiteLedger& l : a.ledger.perConjunction) {
            RunSite& s = at(l.site);
            s.coveredNs = l.coveredNs;
            s.ledger = l.ledger;
        }
        for (const SiteWorkSpan& w : a.workSpan.perConjunction) {
            RunSite& s = at(w.site);
            s.work = w.work;
            s.span = w.span;
            s.parallelism = w.parallelism;
        }
        if (a.criticalPath)
            for (const PathSiteShare& p : a.criticalPath->perConjunction)
                at(p.site).criticalPathNs = p.ns;
        std::vector<RunSite> out;
        out.reserve(sites.size());
        for (auto& [name, s] : sites) {
            std::sort(s.conjuncts.begin(), s.conjuncts.end(),
                [](const RunConjunct& x, const RunConjunct& y) { return x.position < y.position; });
            out.push_back(std::move(s));
        }
        return out;
    }

    // The first instant a context runs to the last instant one runs: the recorded wall time where the
    // trace has no critical path to take it from (GHC eventlogs).
    uint64_t runningSpanNs(const ParModel& model)
    {
        uint64_t first = UINT64_MAX, last = 0;
        for (const ContextTimeline& c : model.contexts) {
            for (size_t i = 0; i < c.states.size(); ++i) {
                if (c.states[i].state != ContextState::Running)
                    continue;
                const uint64_t end = i + 1 < c.states.size() ? c.states[i + 1].startNs : model.endNs;
                first = std::min(first, c.states[i].startNs);
                last = std::max(last, end);
            }
        }
        return last > first ? last - first : 0;
    }

} // namespace

uint32_t engineCountOf(const Trace& trace)
{
    // The reader already counts STARTUP's engines (our runtime, Mercury and old GHC post it) among
    // the trace's, as the ledger and every other figure do: one count, not two that could differ.
    return uint32_t(trace.engineCount());
}

RunProfile makeRunProfile(const Trace& trace, const Metrics& metrics, const Analysis& a, const AnalysisSession& session,
    const ProfileOptions& options)
{
    RunProfile p;
    p.path = trace.path;
    p.engines = engineCountOf(trace);
    p.recordsJoins = a.recordsJoins;
    p.events = metrics.trace.eventCount;
    p.rangeNs = a.toNs - a.fromNs;
    const ParModel& model = session.model();
    p.wallNs = a.recordsJoins ? session.recordedWallNs() : runningSpanNs(model);
    p.ledger = a.ledger.total;
    p.workNs = a.workSpan.workNs;
    p.spanNs = a.workSpan.spanNs;
    p.parallelism = a.workSpan.parallelism;
    if (a.criticalPath)
        p.criticalPathNs = a.criticalPath->lengthNs;
    p.gcNs = uint64_t(fieldOf(metrics.find("program", "all", "MUTATOR_VS_GC_TIME"), "gc_ns").value_or(0));
    p.cpusAverage = fieldOf(metrics.find("program", "all", "CPUS_OVER_TIME"), "average").value_or(0);
    const MetricValue* sparks = metrics.find("program", "all", "SPARK_COUNTS");
    p.sparksCreated = countOf(sparks, "created");
    p.sparksStolen = countOf(sparks, "stolen");
    p.contextsCreated = countOf(metrics.find("program", "all", "CONTEXT_COUNTS"), "created");
    p.conjunctionInstances = model.conjunctions.size();
    p.incompleteConjunctions = a.incompleteConjunctions;
    p.sites = sitesOf(metrics, a);
    if (!options.predictAt.empty() && a.recordsJoins) {
        WhatIfOptions w;
        w.engines = options.predictAt;
        for (const Prediction& prediction : session.predict(w))
            p.predictions.push_back({ prediction.engines, prediction.wallNs });
    }
    for (const std::string& n : a.notes)
        p.notes.push_back(n);
    for (const Warning& w : trace.warnings)
        p.notes.push_back("reader: " + w.message);
    return p;
}

RunProfile profileTrace(const Trace& trace, const ProfileOptions& options)
{
    // As computeMetricsFile: the metrics first, then the session lent their states and model (one
    // after the other: each is parallel inside, and the metrics free their working memory first).
    // The findings are left out: no figure of a profile reads them.
    const Metrics metrics = computeMetrics(trace);
    const AnalysisSession session(trace, AnalysisInputs { &metrics.engineStates, &metrics.model });
    return makeRunProfile(trace, metrics, session.analyze(), session, options);
}

RunInput loadRunProfile(const std::string& path, const ProfileOptions& options)
{
    RunInput in { path, std::nullopt, {} };
    auto trace = readTraceCompact(path);
    if (!trace) {
        in.error = path + ": " + trace.error().toString();
        return in;
    }
    if (trace->eventCount() == 0) { // (a run of 0 engines and 0 ns would be every ratio's base)
        in.error = path + ": the trace has no events";
        return in;
    }
    in.profile = profileTrace(trace.value(), options);
    return in;
}

} // namespace sparkscope::core
