// `sparkscope-cli scaling T1 T2 ...`: traces of one program at different engine counts
// (core/compare.h, docs/compare.md "Scaling"): per engine count the wall time, speed-up, efficiency,
// Karp–Flatt serial fraction, ledger shares, work and span; the same per conjunction site found in
// every trace; and beside each measured wall time the what-if prediction of every other trace at that
// engine count, with its error. A trace that does not read is named with the reason; the others
// still make the series.
#include "cli/cli_common.h"
#include "cli/text_table.h"

#include "sparkscope/core/compare.h"

namespace sparkscope::cli {

namespace {

    constexpr std::string_view kUsage
        = "usage: sparkscope-cli scaling TRACE TRACE... [--format text|json|csv] [-o FILE]\n\n"
          "Traces of one program at different engine counts (read from each trace's STARTUP): per\n"
          "engine count the wall time, the speed-up and efficiency against the smallest count, the\n"
          "Karp-Flatt serial fraction, the loss ledger's shares, work and span; the same per\n"
          "conjunction site found in every trace; and beside each measured wall time what every other\n"
          "trace's what-if re-simulation predicts for that engine count, with its error. Each trace is\n"
          "read twice (its engine count, then its figures) so that one is in memory at a time.\n"
          "See docs/compare.md.\n"
          "  --format      text (default): aligned tables; json or csv: for scripts (docs/cli.md)\n"
          "  -o FILE       write to FILE instead of stdout\n";

    std::string opt(std::optional<double> v, const char* fmt) { return v ? format(fmt, *v) : "-"; }
    std::string optSeconds(std::optional<double> ns) { return ns ? seconds(uint64_t(*ns)) : "-"; }
    std::string shortPath(const std::string& path)
    {
        const size_t slash = path.rfind('/');
        return slash == std::string::npos ? path : path.substr(slash + 1);
    }

    constexpr std::string_view kShortNames[core::kLossCategoryCount]
        = { "run_in", "run_out", "gc", "search", "work", "future", "barrier", "other", "no_work" };

    void appendPoints(std::string& out, const core::ScalingReport& r)
    {
        out += "\nPer trace, by engine count (speed-up, efficiency: against the base; serial fraction:\n"
               "Karp-Flatt (1/S - 1/p) / (1 - 1/p) with p = engines / base engines; work growth: work /\n"
               "the base's work):\n";
        Table t;
        t.row({ "engines", "trace", "wall s", "speed-up", "efficiency", "serial fr.", "work s", "work growth", "span s",
            "parallelism" });
        for (const core::ScalingPoint& p : r.points)
            t.row({ std::to_string(p.engines), shortPath(p.path), seconds(p.wallNs), opt(p.scaling.speedup, "%.3f"),
                opt(p.scaling.efficiency, "%.3f"), opt(p.scaling.serialFraction, "%.3f"), seconds(p.workNs),
                opt(p.workGrowth, "%.3f"), p.spanNs ? seconds(*p.spanNs) : "-", opt(p.parallelism, "%.2f") });
        t.appendTo(out);

        out += "\nLoss ledger shares, % of engines x the trace's range (run_in: running_in_conjunct, work:\n"
               "idle_work_available, future: idle_blocked_future, ...):\n";
        Table l;
        std::vector<std::string> header { "engines", "trace" };
        header.insert(header.end(), std::begin(kShortNames), std::end(kShortNames));
        l.row(header);
        for (const core::ScalingPoint& p : r.points) {
            std::vector<std::string> row { std::to_string(p.engines), shortPath(p.path) };
            for (size_t c = 0; c < core::kLossCategoryCount; ++c)
                row.push_back(percent(p.ledger.ns[c], p.ledger.totalNs()));
            l.row(std::move(row));
        }
        l.appendTo(out);
    }

    void appendPredictions(std::string& out, const core::ScalingReport& r)
    {
        Table t;
        t.row({ "engines", "trace", "measured wall s", "predicted by", "its engines", "predicted wall s", "error %" });
        for (const core::ScalingPoint& p : r.points)
            for (const core::PointPrediction& pr : p.predictions)
                t.row({ std::to_string(p.engines), shortPath(p.path), seconds(p.wallNs),
                    shortPath(r.points[pr.from].path), std::to_string(r.points[pr.from].engines), seconds(pr.wallNs),
                    pr.error ? format("%+.2f", *pr.error * 100) : "-" });
        out += "\nWhat-if predictions: each other trace's DAG re-simulated at this engine count with its own\n"
               "measured costs (error: (predicted - measured) / measured):\n";
        if (t.empty() || r.points.size() < 2) {
            out += "  none (they need two traces that record parallel conjunctions)\n";
            return;
        }
        t.appendTo(out);
    }

    void appendSites(std::string& out, const core::ScalingReport& r)
    {
        if (r.sites.empty())
            return;
        out += "\nPer conjunction site in every trace (covered: the union of its instances' spans, the site's\n"
               "wall time; speed-up etc. from it; work, span, parallelism: means over its complete instances):\n";
        Table t;
        t.row({ "site", "engines", "instances", "covered s", "speed-up", "efficiency", "serial fr.", "work mean s",
            "span mean s", "parallelism", "running %" });
        for (const core::SiteScaling& s : r.sites)
            for (size_t i = 0; i < s.points.size(); ++i) {
                const core::SitePoint& p = s.points[i];
                t.row({ i == 0 ? s.site : "", std::to_string(r.points[i].engines), std::to_string(p.instances),
                    seconds(p.coveredNs), opt(p.scaling.speedup, "%.3f"), opt(p.scaling.efficiency, "%.3f"),
                    opt(p.scaling.serialFraction, "%.3f"), optSeconds(p.workMeanNs),
                    optSeconds(p.spanMeanNs), opt(p.parallelismMean, "%.2f"),
                    percent(p.ledger.runningNs(), p.ledger.totalNs()) });
            }
        t.appendTo(out);
    }

    std::string textReport(const core::ScalingReport& r)
    {
        std::string out = "Scaling series: " + std::to_string(r.points.size()) + " trace(s)";
        if (!r.points.empty())
            out += "; base " + shortPath(r.points[r.base].path) + " (" + counted(r.points[r.base].engines, "engine")
                + ")";
        out += "\n";
        for (const std::string& f : r.failed)
            out += "NOT READ: " + f + "\n";
        for (const std::string& w : r.warnings)
            out += "warning: " + w + "\n";
        if (r.points.empty())
            return out;
        appendPoints(out, r);
        appendPredictions(out, r);
        appendSites(out, r);
        return out;
    }

    int runScaling(const std::vector<std::string>& args)
    {
        auto parsed = parseArgs(args, { "--format", "-o" }, {}, kUsage);
        if (!parsed)
            return kExitBadInput;
        if (printedHelp(*parsed, kUsage))
            return kExitOk;
        if (parsed->positional.empty())
            return usageError("scaling needs at least one TRACE", kUsage);
        const std::string format = parsed->value("--format").value_or("text");
        if (format != "text" && format != "json" && format != "csv")
            return usageError("--format must be text, json or csv, not '" + format + "'", kUsage);

        const std::vector<core::RunInput> runs = core::loadScalingRuns(parsed->positional);
        const core::ScalingReport report = core::scalingSeries(runs);
        for (const std::string& f : report.failed)
            std::fprintf(stderr, "sparkscope-cli: %s\n", f.c_str());
        if (format != "text")
            for (const std::string& w : report.warnings)
                std::fprintf(stderr, "sparkscope-cli: warning: %s\n", w.c_str());
        const int written = writeOutput(parsed->value("-o"),
            format == "json"      ? core::scalingToJson(report)
                : format == "csv" ? core::scalingToCsv(report)
                                  : textReport(report));
        return written != kExitOk ? written : report.failed.empty() ? kExitOk : kExitBadInput;
    }

    const RegisterCommand kRegistered { { "scaling",
        "traces at different engine counts: speed-up, efficiency, Karp-Flatt, ledger, predictions", kUsage,
        &runScaling } };

} // namespace

} // namespace sparkscope::cli
