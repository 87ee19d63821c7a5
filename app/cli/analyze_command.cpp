// `sparkscope-cli analyze`: why a run does not scale (core/analysis.h, docs/analysis.md): the
// findings, ranked by the time they could win back (core/findings.h), then the loss ledger, work and
// span with the speed-up bounds, and the critical path, as a readable report (default) or as JSON
// (core::analysisReportToJson, the keys of the design's analysis.md §6). The findings read the
// metrics of the same range, computed with the analysis (core::computeMetricsFile).
#include "cli/cli_common.h"

#include "sparkscope/core/analysis.h"
#include "sparkscope/core/findings.h"
#include "sparkscope/core/metrics_export.h"

#include <cinttypes>

namespace sparkscope::cli {

namespace {

    constexpr std::string_view kUsage
        = "usage: sparkscope-cli analyze TRACE [--from NS --to NS] [--format text|json] [-o FILE] [--instances]\n\n"
          "What to change, ranked by the time it could win back (the findings); where the engines' time\n"
          "went (the loss ledger), how much parallelism the program has (work, span, speed-up bounds)\n"
          "and which chain of work decided the run's length (the critical path). See docs/analysis.md.\n"
          "  --from/--to   analyse [NS, NS) only (trace time in nanoseconds)\n"
          "  --format      text (default): a readable report; json: the analysis as JSON\n"
          "  -o FILE       write to FILE instead of stdout\n"
          "  --instances   also list each conjunction instance's work and span and the critical\n"
          "                path's segments\n";

    std::string format(const char* fmt, double v)
    {
        char buf[64];
        std::snprintf(buf, sizeof buf, fmt, v);
        return buf;
    }
    std::string seconds(uint64_t ns) { return format("%.6f", double(ns) / 1e9); }
    std::string percent(uint64_t part, uint64_t whole)
    {
        return format("%.2f", whole ? 100.0 * double(part) / double(whole) : 0.0);
    }

    // A text table: the first column left-aligned, the others right-aligned, each as wide as its widest cell.
    class Table {
    public:
        void row(std::vector<std::string> cells) { m_rows.push_back(std::move(cells)); }
        void appendTo(std::string& out) const
        {
            std::vector<size_t> width;
            for (const auto& r : m_rows) {
                width.resize(std::max(width.size(), r.size()), 0);
                for (size_t i = 0; i < r.size(); ++i)
                    width[i] = std::max(width[i], r[i].size());
            }
            for (const auto& r : m_rows) {
                out += "  ";
                for (size_t i = 0; i < r.size(); ++i) {
                    appendPadded(out, r[i], width[i], i > 0);
                    out += i + 1 < r.size() ? "  " : "\n";
                }
            }
        }

    private:
        std::vector<std::vector<std::string>> m_rows;
    };

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

    void appendLedger(std::string& out, const core::Analysis& a)
    {
        const core::LedgerReport& l = a.ledger;
        out += "\nLoss ledger: " + std::to_string(l.engines) + " engines x " + seconds(a.toNs - a.fromNs)
            + " s = " + seconds(l.total.totalNs()) + " engine-seconds\n";
        Table total;
        total.row({ "category", "seconds", "%" });
        for (size_t c = 0; c < core::kLossCategoryCount; ++c)
            total.row({ std::string(core::lossCategoryKey(core::LossCategory(c))), seconds(l.total.ns[c]),
                percent(l.total.ns[c], l.total.totalNs()) });
        total.row({ "running (in + outside conjuncts)", seconds(l.total.runningNs()),
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
        sites.row(shareHeader({ "site", "instances", "covered s" }));
        for (const core::SiteLedger& s : l.perConjunction)
            sites.row(shares({ s.site, std::to_string(s.instances), seconds(s.coveredNs) }, s.ledger));
        sites.appendTo(out);
    }

    void appendWorkSpan(std::string& out, const core::WorkSpanReport& ws)
    {
        out += "\nWork and span\n";
        Table t;
        t.row({ "work (T1)", seconds(ws.workNs) + " s" });
        t.row({ "span (T-infinity)", ws.spanNs ? seconds(*ws.spanNs) + " s" : "absent" });
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
        s.row({ "site", "complete", "incomplete", "work mean s", "span mean s", "span max s", "parallelism mean" });
        for (const core::SiteWorkSpan& w : ws.perConjunction)
            s.row({ w.site, std::to_string(w.complete), std::to_string(w.incomplete), seconds(uint64_t(w.work.mean)),
                seconds(uint64_t(w.span.mean)), seconds(uint64_t(w.span.max)), format("%.2f", w.parallelism.mean) });
        s.appendTo(out);
    }

    void appendCriticalPath(std::string& out, const core::Analysis& a)
    {
        if (!a.criticalPath) {
            out += "\nCritical path: absent" + std::string(a.recordsJoins ? " (no context ran)\n" : " (no joins)\n");
            return;
        }
        const core::CriticalPathReport& p = *a.criticalPath;
        out += "\nCritical path: " + std::to_string(p.fromNs) + " .. " + std::to_string(p.toNs) + " ns, "
            + std::to_string(p.segments.size()) + " segments\n";
        Table t;
        t.row({ "", "seconds", "% of the path" });
        t.row({ "length", seconds(p.lengthNs), percent(p.lengthNs, p.lengthNs) });
        for (size_t k = 0; k < core::kPathKindCount; ++k)
            t.row({ (k ? "waiting: " : "") + std::string(core::pathKindKey(core::PathKind(k))), seconds(p.byKind[k]),
                percent(p.byKind[k], p.lengthNs) });
        t.row({ "outside every conjunct", seconds(p.outsideConjunctNs), percent(p.outsideConjunctNs, p.lengthNs) });
        for (const core::PathSiteShare& s : p.perConjunction)
            t.row({ "in " + s.site + " (running " + seconds(s.runningNs) + " s)", seconds(s.ns),
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

    // The findings, ranked: rule and site, the time it could win back, the advice, the ranges.
    void appendFindings(std::string& out, const core::AnalysisReport& report)
    {
        if (report.findings.empty()) {
            out += "\nFindings: none (no rule of docs/analysis.md fired)\n";
            return;
        }
        out += "\nFindings, ranked by the time they could win back (estimates: docs/analysis.md):\n";
        for (size_t i = 0; i < report.findings.size(); ++i) {
            const core::Finding& f = report.findings[i];
            out += "\n  ";
            appendUnsigned(out, i + 1);
            out += ". " + f.rule;
            if (!f.site.empty())
                out += " at " + f.site;
            out += ": could win back " + seconds(f.recoverableNs) + " s\n";
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
        std::string out = "trace  " + a.trace.path + ": " + std::to_string(a.trace.engines) + " engines, "
            + std::to_string(a.trace.eventCount) + " events\n";
        out += "range  " + std::to_string(a.fromNs) + " .. " + std::to_string(a.toNs) + " ns ("
            + seconds(a.toNs - a.fromNs) + " s)\n";
        appendFindings(out, report);
        appendLedger(out, a);
        appendWorkSpan(out, a.workSpan);
        appendCriticalPath(out, a);
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
        auto parsed = parseArgs(args, { "--format", "-o", "--from", "--to" }, { "--instances" }, kUsage);
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

        auto trace = loadTrace(parsed->positional.front());
        if (!trace)
            return kExitBadInput;
        const core::AnalysisReport report = core::computeAnalysisReport(*trace, options);
        return writeOutput(parsed->value("-o"),
            format == "json" ? core::analysisReportToJson(report, options.instances)
                             : textReport(report, options.instances));
    }

    const RegisterCommand kRegistered { { "analyze",
        "why a run does not scale: findings, loss ledger, work and span, critical path", kUsage, &runAnalyze } };

} // namespace

} // namespace sparkscope::cli
