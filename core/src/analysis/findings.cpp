// The findings (findings.h). Three sources, each read once:
//   - the ledger over time (findings_timeline.h), swept over the run: the engine time lost to having
//     nothing to run (split into sequential code, keyed by the conjunction it is next to, and the
//     rest), to work waiting for an engine, and to garbage collection, with the stretches that lost
//     the most;
//   - the ledger per static id (Analysis): what each conjunction's open time lost, by category;
//   - the metrics of the same range: the per-site patterns the Mercury paper (Bone and Somogyi 2011,
//     §4.2-4.3; quoted in metrics.md) reads — PARCONJ_RUNNABLE_SELF, CONJUNCT_TIME_AFTER,
//     CONJUNCT_TIME_RUNNING against the cost of handing a spark over, FUTURE_SUSPEND_*.
// A rule fires on its pattern and reports the engine time its cause lost, divided by the engines, as
// the time it could win back (docs/analysis.md "Findings" says, rule by rule, which time that is).
#include "sparkscope/core/findings.h"

#include "analysis/findings_sites.h"
#include "analysis/findings_timeline.h"
#include "analysis/ledger.h"
#include "util/saturating.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <map>
#include <vector>

namespace sparkscope::core {

namespace {

    // ---- thresholds -----------------------------------------------------------------------------

    // A whole-program cause from the ledger (nothing to run, work waiting for an engine, sequential
    // code) is reported from 5 % of the run's engine time: less is within the run-to-run variation of
    // wall time on a shared machine.
    constexpr double kMinLostShare = 0.05;
    // Garbage collection is reported from 10 % of the engines' time (ThreadScope's productivity below
    // 90 %): below that, tuning the collector rarely pays, and Amdahl's bound 1/share stays above 10.
    constexpr double kMinGcShare = 0.10;
    // A finding about one static id (found by a pattern in its metrics) is reported when it could win
    // back at least 1 % of the run: a pattern that costs less is not worth changing the code for.
    constexpr double kMinRecoverableShare = 0.01;
    // A sparked conjunct is too fine when it runs less than 10 times what handing work to an idle
    // engine costs: the hand-over then costs more than a tenth of the work it moves.
    constexpr double kGrainFactor = 10;
    // Mercury: "a maximum number of runnable tasks significantly less than n" means the parallelism
    // never happened. The aim on E engines is min(n, E) at once (more cannot run; and a runtime that
    // sparks "the rest of the conjunction" as one spark never has all n of a long conjunction at
    // once). Significantly: PARCONJ_RUNNABLE_SELF's max (mean over instances) below 3/4 of that;
    // with two conjuncts, most instances never had both runnable.
    constexpr double kNotAchievedShare = 0.75;
    // Mercury: "the average but not the maximum significantly less than n" means it happened only
    // briefly. Significantly: the time-weighted average below half the conjuncts.
    constexpr double kBriefShare = 0.5;
    // A conjunct's TIME_AFTER is large against the conjunction's time from a quarter of PARCONJ_TIME
    // (means): the engine that ran it has nothing of this conjunction to do for a quarter of it.
    constexpr double kImbalanceShare = 0.25;
    // Mercury: TIME_AFTERs "relatively stable (have low variance)": every position's standard
    // deviation at most a tenth of the conjunction's mean time, over at least three instances (fewer
    // say nothing about variation).
    constexpr double kStableShare = 0.10;
    constexpr uint64_t kMinInstancesForStability = 3;
    // Mercury: first waits "consistently negative" (the consumer suspends): at least half of them.
    constexpr double kSuspendProbability = 0.5;
    // too_little_parallelism says the program lacks parallelism when work / span is below 9/10 of the
    // engines (it cannot keep them busy even on an ideal scheduler); from there on, that the work was
    // there but not in time.
    constexpr double kParallelismShortfall = 0.9;
    // Time ranges listed per finding: enough to see the pattern, few enough to read.
    constexpr size_t kMaxRanges = 5;
    // Stretches closer than 1/1000 of the run are one: less than a pixel apart on a timeline of the
    // run 1000 pixels wide.
    constexpr uint64_t kStretchGapDivisor = 1000;

    // The rules, most specific first: that is also the order of findings that could win back the same
    // time (a conjunction's imbalance before the program's lack of parallelism it causes).
    constexpr std::array<std::string_view, 10> kRules { "sparks_too_fine", "parallelism_not_achieved", "amdahl_limited",
        "imbalance", "parallelism_brief", "future_waited_early", "sequential_code", "work_waited_for_engine",
        "gc_share", "too_little_parallelism" };

    // ---- text -----------------------------------------------------------------------------------

    std::string printf1(const char* fmt, double v)
    {
        char buf[64];
        std::snprintf(buf, sizeof buf, fmt, v);
        return buf;
    }

    std::string duration(double ns)
    {
        if (ns < 1e3)
            return printf1("%.0f ns", ns);
        if (ns < 1e6)
            return printf1("%.1f us", ns / 1e3);
        if (ns < 1e9)
            return printf1("%.1f ms", ns / 1e6);
        return printf1("%.2f s", ns / 1e9);
    }

    std::string percent(double share) { return printf1(share < 0.095 ? "%.1f%%" : "%.0f%%", 100 * share); }

    std::string number(double v) { return printf1("%.2f", v); }
    // "1 engine", "2 engines".
    std::string counted(uint64_t n, const char* what) { return std::to_string(n) + " " + what + (n == 1 ? "" : "s"); }

    // ---- the run: the ledger swept over time ------------------------------------------------------

    // What the sweep of the run found. "Nothing to run": idle with no work available and no context
    // waiting on a future (idle_no_work, idle_blocked_barrier, idle_blocked_other: what was left of
    // the program was parked at a barrier or blocked otherwise; futures have their own rule).
    // Sequential code: an engine runs a context outside every conjunct, none runs inside one, and the
    // idle engines have nothing to run; it is keyed by the conjunction the code is next to. Nothing to
    // run elsewhere is `noWork`.
    struct RunLosses {
        RunLosses(uint64_t gapNs)
            : noWork(gapNs, kMaxRanges)
            , workAvailable(gapNs, kMaxRanges)
            , gc(gapNs, kMaxRanges)
            , gapNs(gapNs)
        {
        }
        uint64_t fromNs = 0, toNs = 0;
        LossLedger ledger; // within the run
        detail::Stretches noWork, workAvailable, gc;
        // `noWork` split by the ledger's category: no work anywhere, the rest of the program parked
        // at a barrier, blocked otherwise; the finding's text says which it was.
        uint64_t noWorkIdleNs = 0, noWorkBarrierNs = 0, noWorkBlockedNs = 0;
        std::map<detail::SequentialSites::Site, detail::Stretches> sequential;
        uint64_t gapNs;
    };

    bool isRunning(LossCategory c)
    {
        return c == LossCategory::RunningInConjunct || c == LossCategory::RunningOutsideConjunct;
    }

    RunLosses sweepRun(const AnalysisSession& session, const Analysis& a, TimeRange run)
    {
        RunLosses out(std::max<uint64_t>(1, (run.toNs - run.fromNs) / kStretchGapDivisor));
        out.fromNs = run.fromNs;
        out.toNs = run.toNs;
        const detail::SequentialSites sites(session.model());
        std::array<uint64_t, kLossCategoryCount> count {};
        session.forEachLedgerPiece(run.fromNs, run.toNs, [&](const LedgerPiece& p) {
            count.fill(0);
            for (LossCategory c : p.categories)
                ++count[size_t(c)];
            const uint64_t dt = p.toNs - p.fromNs;
            // Saturated, as the analysis' own totals (util/saturating.h): a damaged trace's times can
            // come near 2^64, and a sum over engines would wrap.
            const auto times = [&](LossCategory c) { return detail::saturatingMul(count[size_t(c)], dt); };
            for (size_t c = 0; c < kLossCategoryCount; ++c)
                out.ledger.addTimes(LossCategory(c), count[c], dt);
            out.gc.add(p.fromNs, p.toNs, times(LossCategory::Gc));
            out.workAvailable.add(p.fromNs, p.toNs, times(LossCategory::IdleWorkAvailable));
            const uint64_t noWork = detail::saturatingMul(count[size_t(LossCategory::IdleNoWork)]
                    + count[size_t(LossCategory::IdleBlockedBarrier)] + count[size_t(LossCategory::IdleBlockedOther)],
                dt);
            if (noWork == 0)
                return;
            const bool sequential = a.recordsJoins && count[size_t(LossCategory::RunningInConjunct)] == 0
                && count[size_t(LossCategory::RunningOutsideConjunct)] > 0;
            if (!sequential) {
                out.noWork.add(p.fromNs, p.toNs, noWork);
                out.noWorkIdleNs = detail::saturatingAdd(out.noWorkIdleNs, times(LossCategory::IdleNoWork));
                out.noWorkBarrierNs
                    = detail::saturatingAdd(out.noWorkBarrierNs, times(LossCategory::IdleBlockedBarrier));
                out.noWorkBlockedNs = detail::saturatingAdd(out.noWorkBlockedNs, times(LossCategory::IdleBlockedOther));
                return;
            }
            size_t e = 0;
            while (p.categories[e] != LossCategory::RunningOutsideConjunct)
                ++e;
            const auto site = sites.at(p.contexts[e], p.fromNs);
            out.sequential.try_emplace(site, out.gapNs, kMaxRanges).first->second.add(p.fromNs, p.toNs, noWork);
        });
        return out;
    }

    // ---- the inputs every rule reads ------------------------------------------------------------------

    struct SiteShare {
        std::string site;
        uint64_t ns = 0;
    };

    struct Inputs {
        const Analysis& analysis;
        const Metrics& metrics;
        const ParModel& model;
        const RunLosses& run;
        size_t engines;
        std::map<std::string, const SiteLedger*> siteLedgers;
        std::vector<uint32_t> recursive; // static ids, sorted (detail::recursiveSites)

        uint64_t runNs() const { return run.toNs - run.fromNs; }
        double shareOfRun(uint64_t engineNs) const { return double(engineNs) / (double(engines) * double(runNs())); }
        uint64_t recoverable(uint64_t engineNs) const { return engineNs / engines; }
        bool worthReporting(uint64_t recoverableNs) const
        {
            return double(recoverableNs) >= kMinRecoverableShare * double(runNs()) && recoverableNs > 0;
        }
        const SiteLedger* siteLedger(const std::string& site) const
        {
            auto it = siteLedgers.find(site);
            return it == siteLedgers.end() ? nullptr : it->second;
        }
        // The static id whose conjunctions were open during the most of `categories`; ties: the one
        // open for the shorter time (the more specific). Empty when no site had any.
        // The site whose open conjunctions saw the most of those categories, and how much (the site
        // empty when none saw any).
        SiteShare siteWithMost(std::initializer_list<LossCategory> categories) const
        {
            const SiteLedger* best = nullptr;
            uint64_t bestNs = 0;
            for (const SiteLedger& s : analysis.ledger.perConjunction) {
                uint64_t ns = 0;
                for (LossCategory c : categories)
                    ns = detail::saturatingAdd(ns, s.ledger[c]);
                if (ns > 0 && (!best || ns > bestNs || (ns == bestNs && s.coveredNs < best->coveredNs)))
                    best = &s, bestNs = ns;
            }
            return best ? SiteShare { best->site, bestNs } : SiteShare {};
        }
        const Stat* stat(const std::string& section, const std::string& id, const std::string& key) const
        {
            const MetricValue* v = metrics.find(section, id, key);
            return v && v->stat && v->stat->count > 0 ? &*v->stat : nullptr;
        }
        const Stat* subStat(
            const std::string& section, const std::string& id, const std::string& key, const std::string& sub) const
        {
            const MetricValue* v = metrics.find(section, id, key);
            if (!v)
                return nullptr;
            for (const auto& [k, s] : v->subStats)
                if (k == sub && s.count > 0)
                    return &s;
            return nullptr;
        }
        std::optional<double> field(
            const std::string& section, const std::string& id, const std::string& key, const std::string& name) const
        {
            const MetricValue* v = metrics.find(section, id, key);
            if (!v)
                return std::nullopt;
            for (const auto& [k, x] : v->fields)
                if (k == name) {
                    if (const auto* i = std::get_if<int64_t>(&x))
                        return double(*i);
                    if (const auto* d = std::get_if<double>(&x))
                        return *d;
                }
            return std::nullopt;
        }
    };

    // Where the lost time was, as far as a site says: "most of it" only when more than half of it was.
    std::string during(const SiteShare& site, uint64_t lostNs)
    {
        if (site.site.empty())
            return std::string();
        const std::string share
            = 2 * site.ns > lostNs ? std::string("most of it") : percent(double(site.ns) / double(lostNs)) + " of it";
        return ", " + share + " while the conjunctions at " + site.site + " were open";
    }

    // ---- whole-program rules (the ledger over the run) ------------------------------------------

    // The parts of the idle time in the ledger's words, biggest first, e.g. ": 1.2 s with no work
    // anywhere, 0.3 s while contexts waited at a barrier"; nothing when only one part is there.
    std::string whyNothingToRun(const RunLosses& run)
    {
        std::vector<std::pair<uint64_t, const char*>> parts {
            { run.noWorkIdleNs, "with no work anywhere" },
            { run.noWorkBarrierNs, "while the rest of the program waited at a barrier" },
            { run.noWorkBlockedNs, "while the rest of the program was blocked" },
        };
        std::erase_if(parts, [](const auto& p) { return p.first == 0; });
        if (parts.size() < 2)
            return parts.empty() ? std::string() : std::string(", all ") + parts.front().second;
        std::stable_sort(parts.begin(), parts.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
        std::string text = ":";
        for (size_t i = 0; i < parts.size(); ++i)
            text += (i ? ", " : " ") + duration(double(parts[i].first)) + " " + parts[i].second;
        return text;
    }

    void tooLittleParallelism(const Inputs& in, std::vector<Finding>& out)
    {
        const uint64_t lost = in.run.noWork.lostNs();
        if (in.shareOfRun(lost) < kMinLostShare)
            return;
        const SiteShare where = in.siteWithMost(
            { LossCategory::IdleNoWork, LossCategory::IdleBlockedBarrier, LossCategory::IdleBlockedOther });
        const std::string& site = where.site;
        std::string text = "Engines were idle with nothing to run for " + percent(in.shareOfRun(lost))
            + " of the run's engine time (" + duration(double(lost)) + whyNothingToRun(in.run) + ")"
            + during(where, lost) + ". ";
        const auto& p = in.analysis.workSpan.parallelism;
        if (p && *p < kParallelismShortfall * double(in.engines))
            text += "The program's parallelism (work / span) is only " + number(*p) + " for its "
                + counted(in.engines, "engine")
                + ": give it more parallel work, e.g. parallelise more of it or split its largest conjuncts.";
        else if (p)
            text += "Its parallelism (work / span) of " + number(*p) + " would keep " + counted(in.engines, "engine")
                + " busy, so the work existed but not when engines were free: create the sparks earlier, or "
                  "remove the futures and barriers that hold the work back.";
        else
            text += "Give the program more parallel work: more sparks, or sparks created earlier.";
        out.push_back({ "too_little_parallelism", text, site, in.run.noWork.top(), in.recoverable(lost) });
    }

    void sequentialCode(const Inputs& in, std::vector<Finding>& out)
    {
        using Relation = detail::SequentialSites::Relation;
        for (const auto& [key, stretches] : in.run.sequential) {
            const uint64_t lost = stretches.lostNs();
            if (in.shareOfRun(lost) < kMinLostShare)
                continue;
            const std::string site = key.relation == Relation::None ? std::string() : in.model.staticName(key.staticId);
            const std::string cost = " ran while the other engines had nothing to do: " + duration(double(lost))
                + " of engine time, " + percent(in.shareOfRun(lost)) + " of the run. ";
            std::string text;
            if (key.relation == Relation::Before)
                text = "Sequential code before the parallel conjunction at " + site + cost
                    + "Start that parallel work earlier, or make this code parallel too.";
            else if (key.relation == Relation::After)
                text = "Sequential code after the parallel conjunction at " + site + cost
                    + "Make it parallel too, or overlap it with the conjunction's work.";
            else
                text = "Sequential code outside every parallel conjunction" + cost
                    + "Make it parallel, or overlap it with parallel work.";
            out.push_back({ "sequential_code", text, site, stretches.top(), in.recoverable(lost) });
        }
    }

    void workWaitedForEngine(const Inputs& in, std::vector<Finding>& out)
    {
        const uint64_t lost = in.run.workAvailable.lostNs();
        if (in.shareOfRun(lost) < kMinLostShare)
            return;
        const SiteShare where = in.siteWithMost({ LossCategory::IdleWorkAvailable });
        const std::string& site = where.site;
        std::string text = "Engines sat idle for " + percent(in.shareOfRun(lost)) + " of the run's engine time ("
            + duration(double(lost)) + ") while sparks or runnable contexts waited for an engine" + during(where, lost)
            + ".";
        const Stat* wake = in.stat("engines", "all", "ENGINE_WAKE_LATENCY");
        const Stat* find = in.stat("engines", "all", "ENGINE_TIME_TO_FIND_WORK");
        // Our runtime pools contexts: it makes a new one only when every one made is in use, so the
        // contexts made are the most ever live. At its limit a spark is not handed to a sleeping
        // engine (it would need a context): waking sooner or searching longer would not help.
        // (Those made by the range's end: a limit reached only later did not hold this work back.)
        const std::optional<uint64_t> limit = in.metrics.trace.contextLimit;
        const auto made = std::count_if(in.model.contextCreations.begin(), in.model.contextCreations.end(),
            [&](uint64_t t) { return t < in.run.toNs; });
        // More engines than CPUs: the operating system runs them in turn, so a woken engine waits for
        // a CPU however soon the runtime wakes it; tuning the wake-up would not help.
        const std::optional<uint64_t> cpus = in.metrics.trace.cpus;
        const bool oversubscribed = cpus && in.engines > *cpus;
        if (limit && uint64_t(made) >= *limit)
            text += " Live contexts reached the runtime's limit of " + std::to_string(*limit)
                + " (SPARKSCOPE_MAX_CONTEXTS_PER_ENGINE x engines): at the limit a spark waits for an engine that has "
                  "a context to run it on instead of waking a sleeping one. Raise the limit, or have fewer conjuncts "
                  "blocked at once (each blocked one holds a context).";
        else if (oversubscribed)
            text += " The run had " + std::to_string(in.engines) + " engines on " + std::to_string(*cpus)
                + (*cpus == 1 ? " CPU" : " CPUs")
                + ": the operating system ran them in turn, so an engine woken for work waited for a CPU"
                + (wake ? " (" + duration(wake->mean) + " on average, ENGINE_WAKE_LATENCY)" : std::string()) + ". With "
                + std::to_string(*cpus) + (*cpus == 1 ? " CPU" : " CPUs") + ", run at most " + std::to_string(*cpus)
                + (*cpus == 1 ? " engine" : " engines") + ": each engine more only takes turns.";
        else if (wake && (!find || wake->mean >= find->mean))
            text += " A sleeping engine took " + duration(wake->mean)
                + " on average to wake up once work appeared (ENGINE_WAKE_LATENCY): let engines look for work longer "
                  "before they sleep, or wake one as soon as work appears.";
        else if (find)
            text += " An idle engine took " + duration(find->mean)
                + " on average to find work (ENGINE_TIME_TO_FIND_WORK): make finding work cheaper, e.g. fewer and "
                  "larger sparks, or a cheaper steal.";
        else
            text += " The runtime was slow to hand waiting work to idle engines.";
        out.push_back({ "work_waited_for_engine", text, site, in.run.workAvailable.top(), in.recoverable(lost) });
    }

    void gcShare(const Inputs& in, std::vector<Finding>& out)
    {
        const uint64_t lost = in.run.ledger[LossCategory::Gc];
        const double share = in.shareOfRun(lost);
        if (share < kMinGcShare)
            return;
        std::string text = "Garbage collection took " + percent(share) + " of the run's engine time";
        if (const Stat* gc = in.stat("program", "all", "GC_STATS"))
            text += " (" + std::to_string(gc->count) + (gc->count == 1 ? " collection" : " collections")
                + ", the longest " + duration(gc->max) + ")";
        text += ": at that share no number of engines can make the program more than " + number(1 / share)
            + " times faster (Amdahl's law). Allocate less, or give the collector a larger allocation area (GHC: +RTS "
              "-A).";
        out.push_back({ "gc_share", text, std::string(), in.run.gc.top(), in.recoverable(lost) });
    }

    // ---- per static id: the metrics' patterns ---------------------------------------------------

    // The conjunctions section's static ids and, per static id, its conjunct positions (from the
    // conjuncts section's "<site>/<position>" ids; a site's name may itself hold '/').
    std::map<std::string, std::vector<uint32_t>> sitePositions(const Metrics& m)
    {
        std::map<std::string, std::vector<uint32_t>> out;
        if (const MetricSection* s = m.section("conjunctions"))
            for (const MetricGroup& g : s->groups)
                if (g.id.rfind("instance:", 0) != 0)
                    out[g.id];
        if (const MetricSection* s = m.section("conjuncts"))
            for (const MetricGroup& g : s->groups) {
                const size_t slash = g.id.rfind('/');
                auto it = slash == std::string::npos ? out.end() : out.find(g.id.substr(0, slash));
                uint32_t position = 0;
                const char* digits = g.id.data() + slash + 1;
                if (it != out.end()
                    && std::from_chars(digits, g.id.data() + g.id.size(), position).ptr == g.id.data() + g.id.size())
                    it->second.push_back(position);
            }
        for (auto& [site, positions] : out)
            std::sort(positions.begin(), positions.end());
        return out;
    }

    // The cost of handing a spark to an idle engine: the mean time an engine took from starting to look
    // for work to finding it (ENGINE_TIME_TO_FIND_WORK); without any (no search events), the quickest
    // any of the site's sparks started after its creation (CONJUNCT_TIME_AS_SPARK's min).
    double handOverCostNs(const Inputs& in, const std::string& site, const std::vector<uint32_t>& positions)
    {
        if (const Stat* find = in.stat("engines", "all", "ENGINE_TIME_TO_FIND_WORK"); find && find->mean > 0)
            return find->mean;
        double cost = 0;
        for (uint32_t p : positions)
            if (const Stat* s = in.stat("conjuncts", site + "/" + std::to_string(p), "CONJUNCT_TIME_AS_SPARK"))
                cost = cost == 0 ? s->min : std::min(cost, s->min);
        return cost;
    }

    std::vector<TimeRange> siteSpans(const Inputs& in, uint32_t staticId)
    {
        for (const detail::SiteSpans& s : detail::siteUnions(in.model, in.run.fromNs, in.run.toNs))
            if (s.staticId == staticId) {
                std::vector<TimeRange> out;
                for (const auto& [a, b] : s.spans)
                    out.push_back({ a, b });
                std::stable_sort(out.begin(), out.end(),
                    [](const TimeRange& x, const TimeRange& y) { return x.toNs - x.fromNs > y.toNs - y.fromNs; });
                if (out.size() > kMaxRanges)
                    out.resize(kMaxRanges);
                return out;
            }
        return {};
    }

    void sparksTooFine(const Inputs& in, const std::string& site, const std::vector<uint32_t>& positions,
        const SiteLedger& ledger, std::vector<Finding>& out)
    {
        const double cost = handOverCostNs(in, site, positions);
        if (cost <= 0)
            return;
        std::string fine;
        double runningNs = 0;
        uint64_t sparks = 0;
        for (uint32_t p : positions) {
            const Stat* running
                = p >= 2 ? in.stat("conjuncts", site + "/" + std::to_string(p), "CONJUNCT_TIME_RUNNING") : nullptr;
            if (!running || running->mean >= kGrainFactor * cost)
                continue;
            fine += (fine.empty() ? "" : ", ") + std::to_string(p);
            runningNs += running->sum;
            sparks += running->count;
        }
        const uint64_t recoverable
            = in.recoverable(ledger.ledger[LossCategory::Searching] + ledger.ledger[LossCategory::IdleWorkAvailable]);
        if (sparks == 0 || !in.worthReporting(recoverable))
            return;
        const std::string text = "The sparked conjuncts at " + site
            + (fine.find(',') == std::string::npos ? " (position " : " (positions ") + fine + ") run only "
            + duration(runningNs / double(sparks)) + " on average, less than " + printf1("%.0f", kGrainFactor)
            + " times the " + duration(cost) + " an idle engine takes to find and start work ("
            + counted(sparks, "spark")
            + "). Give each spark more work: run calls below a size sequentially, or handle several items per "
              "spark.";
        out.push_back({ "sparks_too_fine", text, site, siteSpans(in, ledger.staticId), recoverable });
    }

    // One of the Mercury paper's readings of a conjunction, the first that holds: the parallelism never
    // happened (RUNNABLE_SELF max), the TIME_AFTERs are stable and far apart (Amdahl), they are far
    // apart and vary (imbalance), the parallelism happened only briefly (RUNNABLE_SELF average). Each
    // explains the engine time left idle (any idle category) while the site's conjunctions were open.
    void conjunctionShape(const Inputs& in, const std::string& site, const std::vector<uint32_t>& positions,
        const SiteLedger& ledger, std::vector<Finding>& out)
    {
        // A recursive conjunction's conjuncts hold its nested instances: their TIME_AFTER and runnable
        // counts describe one level of the recursion, and its ledger covers nearly the whole run, so
        // what it loses is left to the whole-program rules.
        if (std::binary_search(in.recursive.begin(), in.recursive.end(), ledger.staticId))
            return;
        const Stat* time = in.stat("conjunctions", site, "PARCONJ_TIME");
        const Stat* runnableMax = in.subStat("conjunctions", site, "PARCONJ_RUNNABLE_SELF", "max");
        const Stat* runnableAverage = in.subStat("conjunctions", site, "PARCONJ_RUNNABLE_SELF", "average");
        const Stat* descAverage = in.subStat("conjunctions", site, "PARCONJ_RUNNABLE_SELF_AND_DESC", "average");
        if (!time || !runnableMax || !runnableAverage || positions.size() < 2 || time->mean <= 0)
            return;
        const double n = double(positions.back());
        const double aim = std::min(n, double(in.engines));
        uint64_t lost = 0; // every idle category: the engine time the site's open conjunctions left unused
        for (size_t c = size_t(LossCategory::IdleWorkAvailable); c < kLossCategoryCount; ++c)
            lost = detail::saturatingAdd(lost, ledger.ledger.ns[c]);
        const uint64_t recoverable = in.recoverable(lost);
        if (!in.worthReporting(recoverable))
            return;
        const std::string idled = "engines idled for " + duration(double(lost)) + " (" + percent(in.shareOfRun(lost))
            + " of the run) while it was open";
        const double T = time->mean;
        if (runnableMax->mean < kNotAchievedShare * aim) {
            out.push_back({ "parallelism_not_achieved",
                "The parallel conjunction at " + site + " has " + std::to_string(positions.back())
                    + " conjuncts, but on average at most " + number(runnableMax->mean)
                    + " of them could run at once (PARCONJ_RUNNABLE_SELF), so the parallelism it aims for never "
                      "happens, and "
                    + idled
                    + ". Look for a conjunct that waits for another's result or is sparked only after the others end, "
                      "and reorder, merge or decouple them.",
                site,
                detail::longestInstances(in.model, ledger.staticId, in.analysis.fromNs, in.analysis.toNs, kMaxRanges),
                recoverable });
            return;
        }
        // TIME_AFTER by position: the earliest-ending conjunct has the largest.
        uint32_t early = 0, late = 0;
        double earlyMean = -1, lateMean = 0, maxDeviation = 0;
        for (uint32_t p : positions) {
            const Stat* after = in.stat("conjuncts", site + "/" + std::to_string(p), "CONJUNCT_TIME_AFTER");
            if (!after)
                continue;
            if (after->mean > earlyMean)
                early = p, earlyMean = after->mean;
            if (late == 0 || after->mean < lateMean)
                late = p, lateMean = after->mean;
            maxDeviation = std::max(maxDeviation, std::sqrt(after->variance));
        }
        const double spread = earlyMean - lateMean;
        if (early && spread >= kImbalanceShare * T) {
            const auto ranges = detail::longestTimesAfter(
                in.model, ledger.staticId, in.analysis.fromNs, in.analysis.toNs, kMaxRanges);
            if (maxDeviation <= kStableShare * T && time->count >= kMinInstancesForStability)
                out.push_back({ "amdahl_limited",
                    "At " + site + ", conjunct " + std::to_string(late) + " always ends last: conjunct "
                        + std::to_string(early) + " ends " + duration(spread) + " before it, " + percent(spread / T)
                        + " of the conjunction's " + duration(T)
                        + ", with little variation (CONJUNCT_TIME_AFTER), so Amdahl's law limits this conjunction and "
                        + idled + ". Run the short conjuncts in sequence as one, or split conjunct "
                        + std::to_string(late) + ".",
                    site, ranges, recoverable });
            else
                out.push_back({ "imbalance",
                    "At " + site + ", conjunct " + std::to_string(late) + " ends on average " + duration(spread)
                        + " after conjunct " + std::to_string(early) + ", " + percent(spread / T)
                        + " of the conjunction's " + duration(T)
                        + (time->count >= kMinInstancesForStability ? ", by an amount that varies between instances"
                                                                    : "")
                        + " (CONJUNCT_TIME_AFTER): the conjuncts are unbalanced, and " + idled
                        + ". Split the work by its cost rather than its count (e.g. split conjunct "
                        + std::to_string(late) + "), or into more, smaller conjuncts.",
                    site, ranges, recoverable });
            return;
        }
        if (runnableAverage->mean < kBriefShare * aim && (!descAverage || descAverage->mean < kBriefShare * aim))
            out.push_back({ "parallelism_brief",
                "At " + site + ", up to " + number(runnableMax->mean)
                    + " conjuncts were runnable together (the mean of each instance's maximum), but on average only "
                    + number(runnableAverage->mean) + " were (PARCONJ_RUNNABLE_SELF"
                    + (descAverage ? "; " + number(descAverage->mean) + " with nested conjunctions" : "")
                    + "), so the parallelism happened only briefly, and " + idled
                    + ". Check whether a conjunct soon blocks on a future, or the conjuncts end at very different "
                      "times.",
                site,
                detail::longestInstances(in.model, ledger.staticId, in.analysis.fromNs, in.analysis.toNs, kMaxRanges),
                recoverable });
    }

    // First waits on a future that suspend: the engine time idle on futures while the site's
    // conjunctions were open, shared among its variables by the time their first waits suspended.
    void futuresWaitedEarly(const Inputs& in, std::vector<Finding>& out)
    {
        const auto suspensions
            = detail::firstWaitSuspensions(in.model, in.analysis.fromNs, in.analysis.toNs, kMaxRanges);
        std::map<uint32_t, uint64_t> suspendedPerSite;
        for (const auto& s : suspensions)
            suspendedPerSite[s.staticId] += s.suspendedNs;
        for (const auto& s : suspensions) {
            const std::optional<double> probability
                = in.field("futures", s.group, "FUTURE_SUSPEND_PROBABILITY_FIRST_WAIT", "probability");
            const Stat* firstWaits = in.stat("futures", s.group, "FUTURE_SUSPEND_TIME_FIRST_WAITS");
            const std::string site = in.model.staticName(s.staticId);
            const SiteLedger* ledger = in.siteLedger(site);
            if (!probability || *probability < kSuspendProbability || !firstWaits || firstWaits->mean >= 0 || !ledger
                || s.suspensions == 0)
                continue;
            const double idle = double(ledger->ledger[LossCategory::IdleBlockedFuture]);
            const uint64_t recoverable = in.recoverable(
                uint64_t(idle * double(s.suspendedNs) / double(std::max<uint64_t>(1, suspendedPerSite[s.staticId]))));
            if (!in.worthReporting(recoverable))
                continue;
            out.push_back({ "future_waited_early",
                "At " + site + ", the first wait on future " + s.variable + " comes before its signal in "
                    + percent(*probability) + " of cases, suspending the consumer for "
                    + duration(double(s.suspendedNs) / double(s.suspensions)) + " on average ("
                    + duration(double(s.suspendedNs)) + " in all; FUTURE_SUSPEND_TIME_FIRST_WAITS). Compute "
                    + s.variable + " earlier in its producer, or use it later in its consumer.",
                site, s.longest, recoverable });
        }
    }

    size_t ruleOrder(const std::string& rule)
    {
        return size_t(std::find(kRules.begin(), kRules.end(), rule) - kRules.begin());
    }

} // namespace

std::span<const std::string_view> findingRules() noexcept { return kRules; }

std::optional<TimeRange> findingsRun(const AnalysisSession& session, const Analysis& analysis)
{
    std::optional<TimeRange> run;
    if (analysis.ledger.engines == 0)
        return run;
    session.forEachLedgerPiece(analysis.fromNs, analysis.toNs, [&](const LedgerPiece& p) {
        if (std::none_of(p.categories.begin(), p.categories.end(), isRunning))
            return;
        if (!run)
            run = TimeRange { p.fromNs, p.toNs };
        run->toNs = p.toNs;
    });
    return run;
}

namespace {

    // The findings over `run` (findingsRun's, found once by the caller).
    std::vector<Finding> findingsOver(
        const AnalysisSession& session, const Analysis& analysis, const Metrics& metrics, std::optional<TimeRange> run)
    {
        std::vector<Finding> out;
        const size_t engines = analysis.ledger.engines;
        if (!run || engines == 0)
            return out;
        const RunLosses losses = sweepRun(session, analysis, *run);
        Inputs in { analysis, metrics, session.model(), losses, engines, {}, detail::recursiveSites(session.model()) };
        for (const SiteLedger& s : analysis.ledger.perConjunction)
            in.siteLedgers.emplace(s.site, &s);

        tooLittleParallelism(in, out);
        sequentialCode(in, out);
        for (const auto& [site, positions] : sitePositions(metrics))
            if (const SiteLedger* ledger = in.siteLedger(site)) {
                sparksTooFine(in, site, positions, *ledger, out);
                conjunctionShape(in, site, positions, *ledger, out);
            }
        futuresWaitedEarly(in, out);
        workWaitedForEngine(in, out);
        gcShare(in, out);

        std::stable_sort(out.begin(), out.end(), [](const Finding& a, const Finding& b) {
            if (a.recoverableNs != b.recoverableNs)
                return a.recoverableNs > b.recoverableNs;
            if (ruleOrder(a.rule) != ruleOrder(b.rule))
                return ruleOrder(a.rule) < ruleOrder(b.rule);
            if (a.site != b.site)
                return a.site < b.site;
            const uint64_t aFrom = a.ranges.empty() ? 0 : a.ranges.front().fromNs;
            const uint64_t bFrom = b.ranges.empty() ? 0 : b.ranges.front().fromNs;
            return aFrom < bFrom;
        });
        return out;
    }

} // namespace

std::vector<Finding> findFindings(const AnalysisSession& session, const Analysis& analysis, const Metrics& metrics)
{
    return findingsOver(session, analysis, metrics, findingsRun(session, analysis));
}

AnalysisReport analysisReport(const AnalysisSession& session, const AnalysisOptions& options, const Metrics& metrics)
{
    AnalysisReport report;
    report.analysis = session.analyze(options);
    report.run = findingsRun(session, report.analysis);
    report.findings = findingsOver(session, report.analysis, metrics, report.run);
    summarisePredictions(report);
    return report;
}

void summarisePredictions(AnalysisReport& report)
{
    report.predictions.clear();
    if (report.analysis.whatIf)
        for (const Prediction& p : report.analysis.whatIf->predictions)
            report.predictions.push_back({ p.engines, p.wallNs, p.speedup });
}

} // namespace sparkscope::core
