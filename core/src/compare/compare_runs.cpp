// compareRuns (compare.h): two profiles side by side. Each run's figures are flattened into keyed
// lists (programFigures, …) in one stable order, and the two lists are aligned key by key, so the
// JSON, the CSV, the CLI's text and the app all show the same rows; docs/compare.md defines each key.
#include "sparkscope/core/compare.h"

#include <algorithm>
#include <map>

namespace sparkscope::core {

namespace {

    std::optional<double> value(std::optional<uint64_t> v)
    {
        return v ? std::optional<double>(double(*v)) : std::nullopt;
    }

    FigureComparison compared(std::string key, std::optional<double> a, std::optional<double> b)
    {
        FigureComparison f { std::move(key), a, b, std::nullopt, std::nullopt };
        if (a && b) {
            f.difference = *b - *a;
            if (*a != 0)
                f.ratio = *b / *a;
        }
        return f;
    }

    // Aligns two figure lists of one kind (same keys in the same order; either may be missing).
    std::vector<FigureComparison> aligned(const std::vector<Figure>* a, const std::vector<Figure>* b)
    {
        const std::vector<Figure>& keys = a ? *a : *b;
        std::vector<FigureComparison> out;
        out.reserve(keys.size());
        for (size_t i = 0; i < keys.size(); ++i)
            out.push_back(compared(keys[i].key, a ? (*a)[i].value : std::nullopt, b ? (*b)[i].value : std::nullopt));
        return out;
    }

    Presence presenceOf(bool inA, bool inB)
    {
        return inA && inB ? Presence::Both : inA ? Presence::OnlyA : Presence::OnlyB;
    }

    std::vector<ConjunctComparison> conjunctsCompared(const RunSite* a, const RunSite* b)
    {
        std::map<uint32_t, std::pair<const RunConjunct*, const RunConjunct*>> byPosition;
        if (a)
            for (const RunConjunct& c : a->conjuncts)
                byPosition[c.position].first = &c;
        if (b)
            for (const RunConjunct& c : b->conjuncts)
                byPosition[c.position].second = &c;
        std::vector<ConjunctComparison> out;
        for (const auto& [position, pair] : byPosition) {
            const auto [ca, cb] = pair;
            const std::vector<Figure> fa = ca ? conjunctFigures(*ca) : std::vector<Figure>();
            const std::vector<Figure> fb = cb ? conjunctFigures(*cb) : std::vector<Figure>();
            out.push_back({ position, presenceOf(ca, cb), aligned(ca ? &fa : nullptr, cb ? &fb : nullptr) });
        }
        return out;
    }

    SiteComparison siteCompared(const RunSite* a, const RunSite* b)
    {
        SiteComparison s;
        s.site = a ? a->site : b->site;
        s.presence = presenceOf(a, b);
        const std::vector<Figure> fa = a ? siteFigures(*a) : std::vector<Figure>();
        const std::vector<Figure> fb = b ? siteFigures(*b) : std::vector<Figure>();
        s.figures = aligned(a ? &fa : nullptr, b ? &fb : nullptr);
        s.conjuncts = conjunctsCompared(a, b);
        const uint64_t ta = a ? a->coveredNs : 0, tb = b ? b->coveredNs : 0;
        s.timeDifferenceNs = ta > tb ? ta - tb : tb - ta;
        return s;
    }

} // namespace

std::string_view presenceKey(Presence presence) noexcept
{
    switch (presence) {
    case Presence::Both:
        return "both";
    case Presence::OnlyA:
        return "only_a";
    case Presence::OnlyB:
        return "only_b";
    }
    return "both";
}

std::vector<Figure> programFigures(const RunProfile& r)
{
    return {
        { "engines", double(r.engines) },
        { "wall_ns", double(r.wallNs) },
        { "range_ns", double(r.rangeNs) },
        { "events", double(r.events) },
        { "work_ns", double(r.workNs) },
        { "span_ns", value(r.spanNs) },
        { "parallelism", r.parallelism },
        { "critical_path_ns", value(r.criticalPathNs) },
        { "gc_ns", double(r.gcNs) },
        { "cpus_average", r.cpusAverage },
        { "sparks_created", double(r.sparksCreated) },
        { "sparks_stolen", double(r.sparksStolen) },
        { "contexts_created", double(r.contextsCreated) },
        { "conjunction_instances",
            r.recordsJoins ? std::optional<double>(double(r.conjunctionInstances)) : std::nullopt },
        { "incomplete_conjunctions",
            r.recordsJoins ? std::optional<double>(double(r.incompleteConjunctions)) : std::nullopt },
    };
}

std::vector<Figure> ledgerFigures(const LossLedger& l)
{
    std::vector<Figure> out;
    for (size_t c = 0; c < kLossCategoryCount; ++c)
        out.push_back({ std::string(lossCategoryKey(LossCategory(c))) + "_ns", double(l.ns[c]) });
    out.push_back({ "running_ns", double(l.runningNs()) });
    out.push_back({ "total_ns", double(l.totalNs()) });
    for (size_t c = 0; c < kLossCategoryCount; ++c)
        out.push_back({ std::string(lossCategoryKey(LossCategory(c))) + "_fraction", l.fraction(LossCategory(c)) });
    out.push_back({ "running_fraction", l.totalNs() ? double(l.runningNs()) / double(l.totalNs()) : 0.0 });
    return out;
}

std::optional<double> meanOf(const Stat& s) { return s.count ? std::optional<double>(s.mean) : std::nullopt; }

std::vector<std::string> readerWarnings(const RunProfile& run)
{
    constexpr std::string_view kReader = "reader: "; // makeRunProfile's prefix
    std::vector<std::string> out;
    for (const std::string& n : run.notes)
        if (n.starts_with(kReader))
            out.push_back(run.path + ": " + n.substr(kReader.size()));
    return out;
}

std::vector<Figure> siteFigures(const RunSite& s)
{
    return {
        { "instances", double(s.instances) },
        { "covered_ns", double(s.coveredNs) },
        { "time_mean_ns", meanOf(s.time) },
        { "work_mean_ns", meanOf(s.work) },
        { "span_mean_ns", meanOf(s.span) },
        { "parallelism_mean", meanOf(s.parallelism) },
        { "critical_path_ns", double(s.criticalPathNs) },
        { "running_fraction", s.ledger.totalNs() ? double(s.ledger.runningNs()) / double(s.ledger.totalNs()) : 0.0 },
    };
}

std::vector<Figure> conjunctFigures(const RunConjunct& c)
{
    return {
        { "instances", double(c.instances) },
        { "running_mean_ns", meanOf(c.running) },
        { "after_mean_ns", meanOf(c.after) },
        { "as_spark_mean_ns", c.asSpark ? meanOf(*c.asSpark) : std::nullopt },
    };
}

RunComparison compareRuns(RunInput a, RunInput b)
{
    RunComparison out;
    out.a = std::move(a);
    out.b = std::move(b);
    const RunProfile* pa = out.a.profile ? &*out.a.profile : nullptr;
    const RunProfile* pb = out.b.profile ? &*out.b.profile : nullptr;
    for (const auto& [name, in] : { std::pair { "A", &out.a }, std::pair { "B", &out.b } }) {
        if (!in->profile)
            out.warnings.push_back(std::string(name) + " could not be read: " + in->error);
        else
            for (const std::string& w : readerWarnings(*in->profile))
                out.warnings.push_back(std::string(name) + ", " + w);
    }
    if (!pa && !pb)
        return out;

    const std::vector<Figure> programA = pa ? programFigures(*pa) : std::vector<Figure>();
    const std::vector<Figure> programB = pb ? programFigures(*pb) : std::vector<Figure>();
    out.program = aligned(pa ? &programA : nullptr, pb ? &programB : nullptr);
    const std::vector<Figure> ledgerA = pa ? ledgerFigures(pa->ledger) : std::vector<Figure>();
    const std::vector<Figure> ledgerB = pb ? ledgerFigures(pb->ledger) : std::vector<Figure>();
    out.ledger = aligned(pa ? &ledgerA : nullptr, pb ? &ledgerB : nullptr);

    // Sites: both lists are sorted by site, so one merge pairs them.
    static const std::vector<RunSite> kNone;
    const std::vector<RunSite>& sa = pa ? pa->sites : kNone;
    const std::vector<RunSite>& sb = pb ? pb->sites : kNone;
    size_t i = 0, j = 0, matched = 0;
    while (i < sa.size() || j < sb.size()) {
        if (j == sb.size() || (i < sa.size() && sa[i].site < sb[j].site)) {
            out.sites.push_back(siteCompared(&sa[i++], nullptr));
        } else if (i == sa.size() || sb[j].site < sa[i].site) {
            out.sites.push_back(siteCompared(nullptr, &sb[j++]));
        } else {
            out.sites.push_back(siteCompared(&sa[i++], &sb[j++]));
            ++matched;
        }
    }
    std::stable_sort(out.sites.begin(), out.sites.end(),
        [](const SiteComparison& x, const SiteComparison& y) { return x.timeDifferenceNs > y.timeDifferenceNs; });

    if (pa && pb) {
        if (pa->recordsJoins != pb->recordsJoins)
            out.warnings.push_back(std::string("only ") + (pa->recordsJoins ? "A" : "B")
                + " records parallel conjunctions (the other is a GHC eventlog?): no conjunction site matches");
        else if (matched == 0 && !sa.empty() && !sb.empty())
            out.warnings.push_back("no conjunction site of A matches one of B: the traces look like runs of different "
                                   "programs, so only the whole-program figures compare");
    }
    return out;
}

} // namespace sparkscope::core
