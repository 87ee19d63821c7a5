// `sparkscope-cli compare A B`: two runs side by side (core/compare.h, docs/compare.md): the program's
// figures, the loss ledger, and each conjunction site (matched by source location, conjuncts by
// position) with A, B, B − A and B / A, the sites whose time changed most first. Text for a terminal,
// JSON or CSV for scripts (core::comparisonToJson / ToCsv). A trace that does not read is named with
// the reason and the other's figures are still shown (exit 2); traces of different programs compare
// with a warning.
#include "cli/cli_common.h"
#include "cli/text_table.h"

#include "sparkscope/core/compare.h"

#include <cmath>

namespace sparkscope::cli {

namespace {

    constexpr std::string_view kUsage
        = "usage: sparkscope-cli compare A B [--format text|json|csv] [-o FILE]\n\n"
          "Two runs side by side: the whole-program figures (wall time, work, span, GC, ...), the loss\n"
          "ledger, and each conjunction site matched by source location (its conjuncts by position),\n"
          "as A, B, B - A and B / A. Sites are sorted by how much their time (the union of their\n"
          "instances' spans) changed, largest first; a site in one run only is listed as such. GHC\n"
          "eventlogs have the figures that apply (no span, no sites). See docs/compare.md.\n"
          "  --format      text (default): aligned tables; json or csv: for scripts (docs/cli.md)\n"
          "  -o FILE       write to FILE instead of stdout\n";

    bool endsWith(std::string_view s, std::string_view suffix) { return s.ends_with(suffix); }

    // A figure as the text report prints it: nanoseconds as seconds, fractions as %, counts whole.
    std::string cell(const std::string& key, std::optional<double> v, bool signedValue = false)
    {
        if (!v)
            return "-";
        const char* sign = signedValue ? "%+" : "%";
        if (endsWith(key, "_ns"))
            return format((std::string(sign) + ".6f").c_str(), *v / 1e9);
        if (endsWith(key, "_fraction"))
            return format((std::string(sign) + ".2f%%").c_str(), *v * 100);
        if (*v == std::trunc(*v) && std::fabs(*v) < 1e15)
            return format((std::string(sign) + ".0f").c_str(), *v);
        return format((std::string(sign) + ".3f").c_str(), *v);
    }

    std::string ratioCell(std::optional<double> r) { return r ? format("%.3f", *r) : "-"; }

    // "wall_ns" -> "wall (s)", "idle_no_work_fraction" -> "idle_no_work (%)".
    std::string label(const std::string& key)
    {
        if (endsWith(key, "_ns"))
            return key.substr(0, key.size() - 3) + " (s)";
        if (endsWith(key, "_fraction"))
            return key.substr(0, key.size() - 9) + " (%)";
        return key;
    }

    const core::FigureComparison* figure(const std::vector<core::FigureComparison>& figures, std::string_view key)
    {
        for (const auto& f : figures)
            if (f.key == key)
                return &f;
        return nullptr;
    }

    void appendFigures(std::string& out, const std::vector<core::FigureComparison>& figures)
    {
        Table t;
        t.row({ "", "A", "B", "B - A", "B / A" });
        for (const auto& f : figures)
            t.row({ label(f.key), cell(f.key, f.a), cell(f.key, f.b), cell(f.key, f.difference, true),
                ratioCell(f.ratio) });
        t.appendTo(out);
    }

    // The ledger: each category's engine-seconds and share, A beside B.
    void appendLedger(std::string& out, const std::vector<core::FigureComparison>& ledger)
    {
        Table t;
        t.row({ "category", "A s", "A %", "B s", "B %", "B - A s", "B / A" });
        for (const auto& f : ledger) {
            if (!endsWith(f.key, "_ns"))
                continue;
            const std::string name = f.key.substr(0, f.key.size() - 3);
            const auto* share = figure(ledger, name + "_fraction");
            t.row({ name, cell(f.key, f.a), share ? cell(share->key, share->a) : "", cell(f.key, f.b),
                share ? cell(share->key, share->b) : "", cell(f.key, f.difference, true), ratioCell(f.ratio) });
        }
        t.appendTo(out);
    }

    std::string presenceCell(core::Presence p)
    {
        return p == core::Presence::Both ? "" : p == core::Presence::OnlyA ? "A only" : "B only";
    }

    void appendSites(std::string& out, const core::RunComparison& c)
    {
        out += "\nConjunction sites, by how much their time (covered: the union of their instances' spans)\n"
               "changed, largest first:\n";
        Table t;
        t.row({ "site", "in", "instances A", "B", "covered A s", "B s", "B - A s", "B / A", "work mean A s", "B s",
            "span mean A s", "B s" });
        for (const auto& s : c.sites) {
            const auto& f = s.figures;
            auto get = [&](const char* key) { return figure(f, key); };
            t.row({ s.site, presenceCell(s.presence), cell("instances", get("instances")->a),
                cell("instances", get("instances")->b), cell("covered_ns", get("covered_ns")->a),
                cell("covered_ns", get("covered_ns")->b), cell("covered_ns", get("covered_ns")->difference, true),
                ratioCell(get("covered_ns")->ratio), cell("work_mean_ns", get("work_mean_ns")->a),
                cell("work_mean_ns", get("work_mean_ns")->b), cell("span_mean_ns", get("span_mean_ns")->a),
                cell("span_mean_ns", get("span_mean_ns")->b) });
        }
        t.appendTo(out);
        out += "\nConjuncts (by position within their site; means over their complete instances):\n";
        Table k;
        k.row({ "site/position", "in", "instances A", "B", "running mean A s", "B s", "B - A s", "B / A",
            "after mean A s", "B s" });
        for (const auto& s : c.sites)
            for (const auto& j : s.conjuncts) {
                auto get = [&](const char* key) { return figure(j.figures, key); };
                const auto* running = get("running_mean_ns");
                k.row({ s.site + "/" + std::to_string(j.position), presenceCell(j.presence),
                    cell("instances", get("instances")->a), cell("instances", get("instances")->b),
                    cell(running->key, running->a), cell(running->key, running->b),
                    cell(running->key, running->difference, true), ratioCell(running->ratio),
                    cell("after_mean_ns", get("after_mean_ns")->a), cell("after_mean_ns", get("after_mean_ns")->b) });
            }
        k.appendTo(out);
    }

    std::string runLine(const char* name, const core::RunInput& in)
    {
        std::string line = std::string(name) + "  " + in.path;
        if (!in.profile)
            return line + ": NOT READ (" + in.error + ")\n";
        const core::RunProfile& p = *in.profile;
        return line + ": " + counted(p.engines, "engine") + ", " + counted(p.events, "event")
            + (p.recordsJoins ? "" : " (no conjunction events: a GHC eventlog?)") + "\n";
    }

    std::string textReport(const core::RunComparison& c)
    {
        std::string out = runLine("A", c.a) + runLine("B", c.b);
        for (const std::string& w : c.warnings)
            out += "warning: " + w + "\n";
        if (c.program.empty())
            return out;
        out += "\nProgram (wall: first context start to last context end; B - A, B / A where both have it):\n";
        appendFigures(out, c.program);
        out += "\nLoss ledger (engine-seconds, and % of engines x the trace's range):\n";
        appendLedger(out, c.ledger);
        if (!c.sites.empty())
            appendSites(out, c);
        return out;
    }

    int runCompare(const std::vector<std::string>& args)
    {
        auto parsed = parseArgs(args, { "--format", "-o" }, {}, kUsage);
        if (!parsed)
            return kExitBadInput;
        if (printedHelp(*parsed, kUsage))
            return kExitOk;
        if (parsed->positional.size() != 2)
            return usageError("compare takes two traces, A and B", kUsage);
        const std::string format = parsed->value("--format").value_or("text");
        if (format != "text" && format != "json" && format != "csv")
            return usageError("--format must be text, json or csv, not '" + format + "'", kUsage);

        // One trace at a time: each profile is small, and its trace and model are freed before the
        // next is read (docs/performance.md "Compare" has the time and memory against `metrics`).
        core::RunInput a = core::loadRunProfile(parsed->positional[0]);
        core::RunInput b = core::loadRunProfile(parsed->positional[1]);
        const bool bothRead = a.profile && b.profile;
        for (const core::RunInput* in : { &a, &b })
            if (!in->profile)
                std::fprintf(stderr, "sparkscope-cli: %s\n", in->error.c_str());
        const core::RunComparison comparison = core::compareRuns(std::move(a), std::move(b));
        if (format != "text")
            for (const std::string& w : comparison.warnings)
                if (bothRead)
                    std::fprintf(stderr, "sparkscope-cli: warning: %s\n", w.c_str());
        const int written = writeOutput(parsed->value("-o"),
            format == "json"      ? core::comparisonToJson(comparison)
                : format == "csv" ? core::comparisonToCsv(comparison)
                                  : textReport(comparison));
        return written != kExitOk ? written : bothRead ? kExitOk : kExitBadInput;
    }

    const RegisterCommand kRegistered { { "compare",
        "two runs side by side: program, ledger and each conjunction site, A, B, B - A, B / A", kUsage, &runCompare } };

} // namespace

} // namespace sparkscope::cli
