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

    // A figure as the text report prints it: nanoseconds in the report's unit (the largest the runs
    // last at least one of, as analyze's tables: a run of microseconds does not read +0.000000 s),
    // fractions as %, counts whole.
    std::string cell(const TimeUnit& u, const std::string& key, std::optional<double> v, bool signedValue = false)
    {
        if (!v)
            return "-";
        const char* sign = signedValue ? "%+" : "%";
        if (endsWith(key, "_ns"))
            return format((std::string(sign) + (u.fmt + 1)).c_str(), *v / u.nsPerUnit);
        if (endsWith(key, "_fraction"))
            return format((std::string(sign) + ".2f%%").c_str(), *v * 100);
        if (*v == std::trunc(*v) && std::fabs(*v) < 1e15)
            return format((std::string(sign) + ".0f").c_str(), *v);
        return format((std::string(sign) + ".3f").c_str(), *v);
    }

    std::string ratioCell(std::optional<double> r) { return r ? format("%.3f", *r) : "-"; }

    // "wall_ns" -> "wall (s)", "idle_no_work_fraction" -> "idle_no_work (%)".
    std::string label(const TimeUnit& u, const std::string& key)
    {
        if (endsWith(key, "_ns"))
            return key.substr(0, key.size() - 3) + " (" + u.name + ")";
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

    void appendFigures(std::string& out, const TimeUnit& u, const std::vector<core::FigureComparison>& figures)
    {
        Table t;
        t.row({ "", "A", "B", "B - A", "B / A" });
        for (const auto& f : figures)
            t.row({ label(u, f.key), cell(u, f.key, f.a), cell(u, f.key, f.b), cell(u, f.key, f.difference, true),
                ratioCell(f.ratio) });
        t.appendTo(out);
    }

    // The ledger: each category's engine-seconds and share, A beside B.
    void appendLedger(std::string& out, const TimeUnit& u, const std::vector<core::FigureComparison>& ledger)
    {
        Table t;
        const std::string n = std::string(" ") + u.name;
        t.row({ "category", "A" + n, "A %", "B" + n, "B %", "B - A" + n, "B / A" });
        for (const auto& f : ledger) {
            if (!endsWith(f.key, "_ns"))
                continue;
            const std::string name = f.key.substr(0, f.key.size() - 3);
            const auto* share = figure(ledger, name + "_fraction");
            t.row({ name, cell(u, f.key, f.a), share ? cell(u, share->key, share->a) : "", cell(u, f.key, f.b),
                share ? cell(u, share->key, share->b) : "", cell(u, f.key, f.difference, true), ratioCell(f.ratio) });
        }
        t.appendTo(out);
    }

    std::string presenceCell(core::Presence p)
    {
        return p == core::Presence::Both ? "" : p == core::Presence::OnlyA ? "A only" : "B only";
    }

    void appendSites(std::string& out, const TimeUnit& u, const core::RunComparison& c)
    {
        out += "\nConjunction sites, by how much their time (covered: the union of their instances' spans)\n"
               "changed, largest first:\n";
        Table t;
        const std::string n = std::string(" ") + u.name;
        t.row({ "site", "in", "instances A", "B", "covered A" + n, "B" + n, "B - A" + n, "B / A", "work mean A" + n,
            "B" + n, "span mean A" + n, "B" + n });
        for (const auto& s : c.sites) {
            const auto& f = s.figures;
            auto get = [&](const char* key) { return figure(f, key); };
            t.row({ s.site, presenceCell(s.presence), cell(u, "instances", get("instances")->a),
                cell(u, "instances", get("instances")->b), cell(u, "covered_ns", get("covered_ns")->a),
                cell(u, "covered_ns", get("covered_ns")->b), cell(u, "covered_ns", get("covered_ns")->difference, true),
                ratioCell(get("covered_ns")->ratio), cell(u, "work_mean_ns", get("work_mean_ns")->a),
                cell(u, "work_mean_ns", get("work_mean_ns")->b), cell(u, "span_mean_ns", get("span_mean_ns")->a),
                cell(u, "span_mean_ns", get("span_mean_ns")->b) });
        }
        t.appendTo(out);
        out += "\nConjuncts (by position within their site; means over their complete instances):\n";
        Table k;
        k.row({ "site/position", "in", "instances A", "B", "running mean A" + n, "B" + n, "B - A" + n, "B / A",
            "after mean A" + n, "B" + n });
        for (const auto& s : c.sites)
            for (const auto& j : s.conjuncts) {
                auto get = [&](const char* key) { return figure(j.figures, key); };
                const auto* running = get("running_mean_ns");
                k.row({ s.site + "/" + std::to_string(j.position), presenceCell(j.presence),
                    cell(u, "instances", get("instances")->a), cell(u, "instances", get("instances")->b),
                    cell(u, running->key, running->a), cell(u, running->key, running->b),
                    cell(u, running->key, running->difference, true), ratioCell(running->ratio),
                    cell(u, "after_mean_ns", get("after_mean_ns")->a), cell(u, "after_mean_ns", get("after_mean_ns")->b) });
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
        // One unit for the report: the largest the longer run lasts at least one of.
        const core::FigureComparison* range = figure(c.program, "range_ns");
        const TimeUnit u = TimeUnit::forRun(
            range ? uint64_t(std::max(range->a.value_or(0), range->b.value_or(0))) : uint64_t(1'000'000'000));
        out += "\nProgram (wall: first context start to last context end; B - A, B / A where both have it):\n";
        appendFigures(out, u, c.program);
        out += std::string("\nLoss ledger (engine-") + (u.nsPerUnit == 1e9 ? "seconds" : u.name)
            + ", and % of engines x the trace's range):\n";
        appendLedger(out, u, c.ledger);
        if (!c.sites.empty())
            appendSites(out, u, c);
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
