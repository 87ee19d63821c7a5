// `sparkscope-cli analyze`: why a run does not scale (core/analysis.h, docs/analysis.md): the
// findings, ranked by the time they could win back (core/findings.h), then the loss ledger, work and
// span with the speed-up bounds, the critical path and the what-if predictions for other engine
// counts, as a readable report (default) or as JSON (core::analysisReportToJson, the keys of the
// design's analysis.md §6). The findings read the metrics of the same range, computed with the
// analysis.
#include "cli/cli_common.h"
#include "cli/text_table.h"

#include "sparkscope/core/analysis.h"
#include "sparkscope/core/findings.h"
#include "sparkscope/core/metrics_export.h"

#include <cinttypes>
#include <cmath>
#include <fstream>
#include <sstream>

namespace sparkscope::cli {

namespace {

    constexpr std::string_view kUsage
        = "usage: sparkscope-cli analyze TRACE [--from NS --to NS] [--engines LIST] [--costs measured|zero|FILE]\n"
          "                              [--contention C] [--scale SITE=FACTOR]... [--curves] [--format text|json]\n"
          "                              [-o FILE] [--instances] [--force]\n\n"
          "What to change, ranked by the time it could win back (the findings); where the engines' time\n"
          "went (the loss ledger), how much parallelism the program has (work,\n"
          "span, speed-up bounds), which chain of work decided the run's length (the critical path), and\n"
          "what the run would take on other engine counts (the what-if re-simulation). See docs/analysis.md.\n"
          "  --from/--to   analyse [NS, NS) only (trace time in nanoseconds); predictions are of the whole run\n"
          "  --engines     engine counts to predict, e.g. 1,2,4 (default 1,2,4,8,16,32,64); none: no what-if\n"
          "  --costs       measured (default): the costs this trace measured; zero: none; FILE: key=value\n"
          "                lines (spark_ns, steal_ns, context_ns, switch_ns, wake_ns, spin_ns, contention;\n"
          "                '#' comments; sparkscope-cli calibrate writes one)\n"
          "  --contention  the contention coefficient C (0 to 1000) instead of the costs' own, e.g. what\n"
          "                sparkscope-cli calibrate found for this program on this machine\n"
          "  --scale       make a conjunction site's conjuncts FACTOR times as fast (SITE: its name as the\n"
          "                report shows it, or file:line, or its static id); repeatable\n"
          "  --curves      JSON: each prediction's CPUs curve too ([time ns, engines running] steps)\n"
          "  --format      text (default): a readable report; json: the analysis as JSON\n"
          "  -o FILE       write to FILE instead of stdout\n"
          "  --instances   also list each conjunction instance's work and span and the critical\n"
          "                path's segments\n"
          "  --force       go on when the analysis would take more memory than is available\n"
          "                (SPARKSCOPE_MEMORY_BYTES sets that figure; default: what the system has free)\n";

    // Short column names for the per-engine and per-site shares (the JSON has the full keys).
    constexpr std::string_view kShortNames[core::kLossCategoryCount]
        = { "run_in", "run_out", "gc", "search", "work", "future", "barrier", "other", "no_work" };

    // A row of shares of `ledger`'s categories in %, after the given leading cells.
    std::vector<std::string> shares(std::vector<std::string> cells, const core::LossLedger& ledger)
    {
        for (size_t c = 0; c < core::kLossCategoryCount; ++c)
            cells.push_back(percent(ledger.ns[c], ledger.totalNs()));
        return cells;
    }

    std::vector<std::string> shareHeader(std::vector<std::string> cells)
    {
        cells.insert(cells.end(), std::begin(kShortNames), std::end(kShortNames));
        return cells;
    }

    void appendLedger(std::string& out, const core::Analysis& a, const TimeUnit& u)
    {
        const core::LedgerReport& l = a.ledger;
        out += "\nLoss ledger: " + counted(l.engines, "engine") + " x " + u(a.toNs - a.fromNs) + " " + u.name + " = "
            + u(l.total.totalNs()) + " engine-" + u.header() + "\n";
        Table total;
        total.row({ "category", u.header(), "%" });
        for (size_t c = 0; c < core::kLossCategoryCount; ++c)
            total.row({ std::string(core::lossCategoryKey(core::LossCategory(c))), u(l.total.ns[c]),
                percent(l.total.ns[c], l.total.totalNs()) });
        total.row({ "running (in + outside conjuncts)", u(l.total.runningNs()),
            percent(l.total.runningNs(), l.total.totalNs()) });
        total.appendTo(out);
        out += "\nPer engine, % of the range (run_in: running_in_conjunct, work: idle_work_available, future:\n"
               "idle_blocked_future, and so on):\n";
        Table engines;
        engines.row(shareHeader({ "engine" }));
        for (size_t e = 0; e < l.perEngine.size(); ++e)
            engines.row(shares({ std::to_string(e) }, l.perEngine[e]));
        engines.appendTo(out);
        if (l.perConjunction.empty())
            return;
        out += "\nPer conjunction static id, % of engines x the union of its instances' spans:\n";
        Table sites;
        sites.row(shareHeader({ "site", "instances", std::string("covered ") + u.name }));
        for (const core::SiteLedger& s : l.perConjunction)
            sites.row(shares({ s.site, std::to_string(s.instances), u(s.coveredNs) }, s.ledger));
        sites.appendTo(out);
    }

    void appendWorkSpan(std::string& out, const core::WorkSpanReport& ws, const TimeUnit& u)
    {
        out += "\nWork and span\n";
        Table t;
        t.row({ "work (T1)", u(ws.workNs) + " " + u.name });
        t.row({ "span (T-infinity)", ws.spanNs ? u(*ws.spanNs) + " " + u.name : "absent" });
        t.row({ "parallelism (T1 / T-infinity)", ws.parallelism ? format("%.2f", *ws.parallelism) : "absent" });
        t.appendTo(out);
        if (!ws.note.empty())
            out += "  (" + ws.note + ")\n";
        if (!ws.bounds.empty()) {
            out += "\nSpeed-up bounds over one engine (Cilkview: lower = Brent's T1/(T1/P + T-infinity), upper = "
                   "min(P, T1/T-infinity)):\n";
            Table b;
            b.row({ "engines", "lower", "upper" });
            for (const core::SpeedupBound& s : ws.bounds)
                b.row({ std::to_string(s.engines), format("%.2f", s.lower), format("%.2f", s.upper) });
            b.appendTo(out);
        }
        if (ws.perConjunction.empty())
            return;
        out += "\nPer conjunction static id (each complete instance's sub-DAG; means over instances):\n";
        Table s;
        const std::string unit = std::string(" ") + u.name;
        s.row({ "site", "complete", "incomplete", "work mean" + unit, "span mean" + unit, "span max" + unit,
            "parallelism mean" });
        for (const core::SiteWorkSpan& w : ws.perConjunction)
            s.row({ w.site, std::to_string(w.complete), std::to_string(w.incomplete), u(uint64_t(w.work.mean)),
                u(uint64_t(w.span.mean)), u(uint64_t(w.span.max)), format("%.2f", w.parallelism.mean) });
        s.appendTo(out);
    }

    void appendCriticalPath(std::string& out, const core::Analysis& a, const TimeUnit& u)
    {
        if (!a.criticalPath) {
            out += "\nCritical path: absent" + std::string(a.recordsJoins ? " (no context ran)\n" : " (no joins)\n");
            return;
        }
        const core::CriticalPathReport& p = *a.criticalPath;
        out += "\nCritical path: " + std::to_string(p.fromNs) + " .. " + std::to_string(p.toNs) + " ns, "
            + std::to_string(p.segments.size()) + " segments\n";
        Table t;
        t.row({ "", u.header(), "% of the path" });
        t.row({ "length", u(p.lengthNs), percent(p.lengthNs, p.lengthNs) });
        for (size_t k = 0; k < core::kPathKindCount; ++k)
            t.row({ (k ? "waiting: " : "") + std::string(core::pathKindKey(core::PathKind(k))), u(p.byKind[k]),
                percent(p.byKind[k], p.lengthNs) });
        t.row({ "outside every conjunct", u(p.outsideConjunctNs), percent(p.outsideConjunctNs, p.lengthNs) });
        for (const core::PathSiteShare& s : p.perConjunction)
            t.row({ "in " + s.site + " (running " + u(s.runningNs) + " " + u.name + ")", u(s.ns),
                percent(s.ns, p.lengthNs) });
        t.appendTo(out);
    }

    void appendSegments(std::string& out, const core::Analysis& a)
    {
        out += "\nInstances (work and span of each complete instance):\n";
        Table t;
        t.row({ "site", "instance", "start ns", "end ns", "work ns", "span ns" });
        for (const core::SiteWorkSpan& w : a.workSpan.perConjunction)
            for (const core::InstanceWorkSpan& i : w.instances)
                t.row({ w.site, std::to_string(i.instance), std::to_string(i.startNs), std::to_string(i.endNs),
                    std::to_string(i.workNs), std::to_string(i.spanNs) });
        t.appendTo(out);
        if (!a.criticalPath)
            return;
        out += "\nCritical path segments:\n";
        Table s;
        s.row({ "kind", "from ns", "to ns", "context", "engine", "static id", "position" });
        for (const core::PathSegment& g : a.criticalPath->segments)
            s.row({ std::string(core::pathKindKey(g.kind)), std::to_string(g.fromNs), std::to_string(g.toNs),
                std::to_string(g.context), g.engine == core::kNoEngine ? "-" : std::to_string(g.engine),
                g.position ? std::to_string(g.staticId) : "-", g.position ? std::to_string(g.position) : "-" });
        s.appendTo(out);
    }

    // ---- what-if (analysis.md §4): the options and the predictions table ---------------------------

    std::optional<std::vector<uint32_t>> engineList(std::string_view list)
    {
        std::vector<uint32_t> out;
        for (;;) {
            const size_t comma = list.find(',');
            const auto n = parseUnsigned(list.substr(0, comma));
            if (!n || *n < 1 || *n > 4096)
                return std::nullopt;
            out.push_back(uint32_t(*n));
            if (comma == std::string_view::npos)
                return out;
            list.remove_prefix(comma + 1);
        }
    }

    // --costs FILE: its key=value lines.
    std::optional<core::CostModel> costsFile(const std::string& path, std::string& error)
    {
        std::ifstream in(path, std::ios::binary);
        std::stringstream text;
        text << in.rdbuf();
        if (!in) {
            error = "--costs: cannot read " + path;
            return std::nullopt;
        }
        auto costs = core::parseCostModel(text.str());
        if (!costs) {
            error = "--costs " + path + ": " + costs.error().message;
            return std::nullopt;
        }
        costs->source = "file " + path;
        return costs.value();
    }

    // --scale SITE=FACTOR: every static id SITE names, FACTOR > 0.
    bool addScale(
        const std::string& arg, const core::AnalysisSession& session, core::WhatIfOptions& w, std::string& error)
    {
        const size_t eq = arg.rfind('=');
        char* end = nullptr;
        const double factor = eq == std::string::npos ? 0.0 : std::strtod(arg.c_str() + eq + 1, &end);
        if (eq == std::string::npos || eq == 0 || !end || *end || !std::isfinite(factor) || factor <= 0) {
            error = "--scale takes SITE=FACTOR with a FACTOR above 0, not '" + arg + "'";
            return false;
        }
        if (factor < core::kMinScaleFactor || factor > core::kMaxScaleFactor) {
            error = "--scale: FACTOR must lie between 1e-06 and 1e+06 (beyond, the predicted run can outlast what "
                    "64 bits of nanoseconds hold, or its sites take less than a nanosecond), not '"
                + arg + "'";
            return false;
        }
        const std::string site = arg.substr(0, eq);
        const std::vector<uint32_t> ids = session.matchSite(site);
        if (ids.empty()) {
            error = "--scale: no conjunction site is '" + site + "' (the report's per-site tables list them)";
            return false;
        }
        for (uint32_t id : ids) {
            // Two factors for one site would not multiply (the what-if takes one per site): say so.
            if (std::any_of(w.scales.begin(), w.scales.end(), [&](const auto& s) { return s.staticId == id; })) {
                error = "--scale: '" + site + "' names a site an earlier --scale names: give each site one factor";
                return false;
            }
            w.scales.push_back({ id, factor, {} });
        }
        return true;
    }

    // --engines, --costs and --scale as what-if options (nullopt inside for --engines none); nullopt
    // (with `error` set) on a bad value.
    std::optional<std::optional<core::WhatIfOptions>> whatIfOptions(
        const ParsedArgs& parsed, const core::AnalysisSession& session, std::string& error)
    {
        core::WhatIfOptions w;
        if (parsed.value("--engines") == "none")
            return std::optional<core::WhatIfOptions>();
        if (auto list = parsed.value("--engines")) {
            auto engines = engineList(*list);
            if (!engines) {
                error = "--engines takes engine counts from 1 to 4096 separated by commas, not '" + *list + "'";
                return std::nullopt;
            }
            w.engines = std::move(*engines);
        }
        const std::string costs = parsed.value("--costs").value_or("measured");
        if (costs == "zero") {
            w.costs = core::CostModel {};
        } else if (costs != "measured") {
            w.costs = costsFile(costs, error);
            if (!w.costs)
                return std::nullopt;
        }
        if (auto given = parsed.value("--contention")) {
            char* end = nullptr;
            const double c = std::strtod(given->c_str(), &end);
            if (given->empty() || !end || *end || !std::isfinite(c) || c < 0 || c > core::kMaxContention) {
                error = "--contention takes a number from 0 to 1000 (beyond, the predicted run can outlast what 64 "
                        "bits of nanoseconds hold), not '"
                    + *given + "'";
                return std::nullopt;
            }
            // The other costs stay as chosen; the source says the coefficient was given. (The measured
            // latencies alone: the measured contention would build the what-if's graph beside the model.)
            core::CostModel costs = w.costs ? *w.costs : session.measuredLatencies();
            costs.contention = c;
            costs.contentionSamples = 0;
            costs.source += ", contention given";
            w.costs = std::move(costs);
        }
        for (const std::string& arg : parsed.all("--scale"))
            if (!addScale(arg, session, w, error))
                return std::nullopt;
        w.curves = parsed.flag("--curves");
        return w;
    }

    std::string costsLine(const core::CostModel& c)
    {
        std::string out;
        for (size_t k = 0; k < core::kCostKindCount; ++k) {
            out += (k ? ", " : "") + std::string(core::costKey(core::CostKind(k))) + "=" + std::to_string(c.ns[k]);
            if (c.source.starts_with("measured"))
                out += " (" + std::to_string(c.samples[k]) + ")";
        }
        out += ", contention=" + format("%.3f", c.contention);
        if (c.source == "measured")
            out += " (" + std::to_string(c.contentionSamples) + ")";
        return out;
    }

    void appendPredictions(std::string& out, const core::Analysis& a, const TimeUnit& u)
    {
        const core::WhatIfReport& w = *a.whatIf;
        out += "\nWhat-if: the recorded DAG re-simulated on P engines under the runtime's rules\n";
        if (!w.note.empty()) {
            out += "  (" + w.note + ")\n";
            return;
        }
        out += "  costs " + w.costs.source + ": " + costsLine(w.costs) + "\n";
        if (w.costs.source == "measured")
            out += "  (each the median of that many latencies in the trace, the contention fitted on that many\n"
                   "  conjuncts; a cost with none is 0: --costs FILE can give it, e.g. from a trace on more engines)\n";
        else if (w.costs.source.starts_with("measured"))
            out += "  (each the median of that many latencies in the trace, a cost with none 0; the contention as\n"
                   "  given by --contention)\n";
        for (const core::SiteScale& s : w.scales)
            out += "  " + s.site + " conjuncts made " + format("%g", s.factor) + "x as fast\n";
        out += "  recorded: " + counted(a.ledger.engines, "engine") + ", wall " + u(w.recordedWallNs) + " " + u.name
            + " (the critical path's extent: first context start to last context end, unless a note says it starts "
              "later)\n";
        Table t;
        t.row({ "engines", std::string("wall ") + u.name, "speed-up", "bounds", "run %", "search %", "work %",
            "blocked %", "no_work %" });
        bool belowBound = false;
        for (const core::Prediction& p : w.predictions) {
            const core::LossLedger& l = p.ledger;
            const std::string bounds = p.bound.upper > 0
                ? format("%.2f", p.bound.lower) + "-" + format("%.2f", p.bound.upper)
                : std::string("-");
            using C = core::LossCategory;
            const uint64_t blocked = l[C::IdleBlockedFuture] + l[C::IdleBlockedBarrier] + l[C::IdleBlockedOther];
            // Below Cilkview's lower bound, the simulated scheduling costs outweigh the parallelism.
            const bool below = p.bound.upper > 0 && p.speedup < p.bound.lower;
            belowBound = belowBound || below;
            t.row({ std::to_string(p.engines), u(p.wallNs), format("%.2f", p.speedup) + (below ? " *" : ""), bounds,
                percent(l.runningNs(), l.totalNs()), percent(l[C::Searching], l.totalNs()),
                percent(l[C::IdleWorkAvailable], l.totalNs()), percent(blocked, l.totalNs()),
                percent(l[C::IdleNoWork], l.totalNs()) });
        }
        t.appendTo(out);
        out += "  (speed-up over the predicted P = 1; bounds: Cilkview's lower-upper for P, from the simulated\n"
               "  run's work and span; shares of P x the predicted wall: running, searching, idle with work\n"
               "  available, idle blocked on a future or at a barrier, idle with nothing to do)\n";
        if (belowBound)
            out += "  * below the lower bound: the costs the simulation charges each search, steal and wake-up "
                   "(above)\n"
                   "    outweigh the parallelism; if they are not what the runtime pays, give them with --costs FILE\n";
    }

    // The findings, ranked: rule and site, the time it could win back, the advice, the ranges.
    void appendFindings(std::string& out, const core::AnalysisReport& report)
    {
        if (report.findings.empty()) {
            out += "\nFindings: none (no rule of docs/analysis.md fired)\n";
            return;
        }
        out += "\nFindings, ranked by the time they could win back (estimates: docs/analysis.md):\n";
        if (report.runIsPartOfRange()) {
            // The shares below are of the run, not of the range above: say which part that is.
            out += "  (\"of the run\" below: ";
            appendUnsigned(out, report.run->fromNs);
            out += " .. ";
            appendUnsigned(out, report.run->toNs);
            out += " ns (" + duration(report.run->toNs - report.run->fromNs)
                + "), from the first to the last instant an engine ran a context)\n";
        }
        for (size_t i = 0; i < report.findings.size(); ++i) {
            const core::Finding& f = report.findings[i];
            out += "\n  ";
            appendUnsigned(out, i + 1);
            out += ". " + f.rule;
            if (!f.site.empty())
                out += " at " + f.site;
            out += ": could win back " + duration(f.recoverableNs) + "\n";
            out += "     " + f.text + "\n";
            if (f.ranges.empty())
                continue;
            out += "     ranges (ns):";
            for (const core::TimeRange& r : f.ranges) {
                out += ' ';
                appendUnsigned(out, r.fromNs);
                out += "..";
                appendUnsigned(out, r.toNs);
            }
            out += "\n";
        }
    }

    std::string textReport(const core::AnalysisReport& report, bool instances)
    {
        const core::Analysis& a = report.analysis;
        std::string out = "trace  " + a.trace.path + ": " + counted(a.trace.engines, "engine") + ", "
            + std::to_string(a.trace.eventCount) + " events\n";
        out += "range  " + std::to_string(a.fromNs) + " .. " + std::to_string(a.toNs) + " ns ("
            + duration(a.toNs - a.fromNs) + ")\n";
        appendFindings(out, report);
        const TimeUnit unit = TimeUnit::forRun(a.toNs - a.fromNs);
        appendLedger(out, a, unit);
        appendWorkSpan(out, a.workSpan, unit);
        appendCriticalPath(out, a, unit);
        if (a.whatIf)
            appendPredictions(out, a, unit);
        if (instances)
            appendSegments(out, a);
        if (!a.notes.empty()) {
            out += "\nNotes:\n";
            for (const std::string& n : a.notes)
                out += "  - " + n + "\n";
        }
        return out;
    }

    int runAnalyze(const std::vector<std::string>& args)
    {
        auto parsed
            = parseArgs(args, { "--format", "-o", "--from", "--to", "--engines", "--costs", "--contention", "--scale" },
                { "--instances", "--curves", "--force" }, kUsage);
        if (!parsed)
            return kExitBadInput;
        if (printedHelp(*parsed, kUsage))
            return kExitOk;
        if (parsed->positional.size() != 1)
            return usageError(parsed->positional.empty() ? "analyze needs a TRACE" : "analyze takes one TRACE", kUsage);
        const std::string format = parsed->value("--format").value_or("text");
        if (format != "text" && format != "json")
            return usageError("--format must be text or json, not '" + format + "'", kUsage);
        core::AnalysisOptions options;
        options.instances = parsed->flag("--instances");
        for (auto [name, into] : { std::pair { "--from", &options.fromNs }, std::pair { "--to", &options.toNs } }) {
            if (auto v = parsed->value(name)) {
                const auto n = parseUnsigned(*v);
                if (!n)
                    return usageError(std::string(name) + " takes a whole non-negative number", kUsage);
                *into = *n;
            }
        }
        if (options.toNs <= options.fromNs)
            return usageError("--to must be after --from", kUsage);

        auto trace = loadTraceForMetrics(parsed->positional.front(), parsed->flag("--force"));
        if (!trace || !rangeMeetsTrace(*trace, parsed->positional.front(), options.fromNs, options.toNs))
            return kExitBadInput;
        // The metrics the findings read, and the analysis session over their states and model
        // (--scale names sites the session knows); the events go before the peaks
        // (core::computeMetricsWithSession).
        core::MetricsOptions metricsOptions;
        metricsOptions.fromNs = options.fromNs;
        metricsOptions.toNs = options.toNs;
        core::MetricsWithSession both = core::computeMetricsWithSession(std::move(*trace), metricsOptions);
        std::string error;
        const auto whatIf = whatIfOptions(*parsed, *both.session, error);
        if (!whatIf)
            return usageError(error, kUsage);
        options.whatIf = *whatIf;
        // The what-if last, with the metrics and their model gone (core::analysisReportReleasing).
        const core::AnalysisReport report = core::analysisReportReleasing(both, options);
        return writeOutput(parsed->value("-o"),
            format == "json" ? core::analysisReportToJson(report, options.instances)
                             : textReport(report, options.instances));
    }

    const RegisterCommand kRegistered { { "analyze",
        "why a run does not scale: findings, loss ledger, work and span, critical path", kUsage, &runAnalyze } };

} // namespace

} // namespace sparkscope::cli
