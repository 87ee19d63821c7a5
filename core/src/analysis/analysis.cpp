// The analysis driver (analysis.h): a session builds the range-independent parts once — engine
// activity, idle classes, the DAG with its whole-run weights, longest paths, per-instance figures
// and the critical path — and analyze() assembles a report for any range from them. Only the ledger
// sweep, and for a partial range the node weights and longest paths, are computed per call.
#include "sparkscope/core/analysis.h"

#include "analysis/contention.h"
#include "analysis/cost_model.h"
#include "analysis/critical_path.h"
#include "analysis/engine_activity.h"
#include "analysis/findings_timeline.h"
#include "analysis/idle_classes.h"
#include "analysis/ledger.h"
#include "analysis/run_dag.h"
#include "analysis/sim_graph.h"
#include "analysis/simulate.h"
#include "analysis/work_span.h"
#include "util/saturating.h"

#include <map>
#include <mutex>
#include <numeric>
#include <set>
#include <stdexcept>
#include <tbb/parallel_for.h>
#include <tbb/parallel_invoke.h>

namespace sparkscope::core {

std::string_view lossCategoryKey(LossCategory category) noexcept
{
    static constexpr std::string_view kKeys[kLossCategoryCount]
        = { "running_in_conjunct", "running_outside_conjunct", "gc", "searching", "idle_work_available",
              "idle_blocked_future", "idle_blocked_barrier", "idle_blocked_other", "idle_no_work" };
    return kKeys[size_t(category)];
}

std::string_view pathKindKey(PathKind kind) noexcept
{
    static constexpr std::string_view kKeys[kPathKindCount]
        = { "running", "spark_queued", "runnable", "resume", "gc", "searching" };
    return kKeys[size_t(kind)];
}

uint64_t LossLedger::totalNs() const noexcept
{
    return std::accumulate(ns.begin(), ns.end(), uint64_t(0), detail::saturatingAdd);
}

uint64_t LossLedger::runningNs() const noexcept
{
    return detail::saturatingAdd(
        (*this)[LossCategory::RunningInConjunct], (*this)[LossCategory::RunningOutsideConjunct]);
}

double LossLedger::fraction(LossCategory c) const noexcept
{
    const uint64_t total = totalNs();
    return total ? double((*this)[c]) / double(total) : 0.0;
}

void LossLedger::addTimes(LossCategory c, uint64_t engines, uint64_t ns) noexcept
{
    (*this)[c] = detail::saturatingAdd((*this)[c], detail::saturatingMul(engines, ns));
}

LossLedger& LossLedger::operator+=(const LossLedger& other) noexcept
{
    for (size_t i = 0; i < kLossCategoryCount; ++i)
        ns[i] = detail::saturatingAdd(ns[i], other.ns[i]);
    return *this;
}

struct AnalysisSession::Impl {
    TraceSummary trace;
    uint64_t firstNs = 0, lastNs = 0;
    bool recordsJoins = false, truncated = false;
    std::unique_ptr<EngineStates> ownStates;
    std::unique_ptr<ParModel> ownModel;
    const EngineStates* states = nullptr;
    const ParModel* model = nullptr;
    detail::EngineActivity activity;
    detail::IdleClasses classes;
    std::unique_ptr<detail::RunDag> dag;
    uint64_t workNs = 0, spanNs = 0, broken = 0; // whole run
    detail::InstanceWorkSpans instances;
    std::optional<CriticalPathReport> path;
    uint64_t firstRunNs = 0; // the first instant any context ran (where the path normally starts)
    CostModel measured; // the trace's own costs (cost_model.h)
    mutable std::once_flag simOnce; // the what-if's view of the DAG and the contention, built on first use
    mutable std::unique_ptr<detail::SimGraph> sim;
    mutable detail::Contention contention;

    void buildSim() const
    {
        std::call_once(simOnce, [&] {
            // (Only if releaseModelForWhatIf let the model go and then failed to build the graph.)
            const ParModel& m = requireModel("predict");
            // One after the other, not side by side: the graph is built beside the model and the DAG
            // (the app's peak on our runtime's traces), and the two's working memory would add up;
            // each is parallel inside, so the time is the same (docs/performance.md).
            contention = detail::measureContention(m, activity);
            sim = std::make_unique<detail::SimGraph>(*dag, activity, firstNs, lastNs);
        });
    }
    // The measured costs with the measured contention (which is computed with the what-if's view).
    CostModel measuredCosts() const
    {
        CostModel c = measured;
        if (recordsJoins && dag) {
            buildSim();
            c.contention = contention.coefficient;
            c.contentionSamples = contention.samples;
        }
        return c;
    }

    void buildDag()
    {
        dag = std::make_unique<detail::RunDag>(*model);
        std::vector<uint64_t> weights = dag->weights(activity, firstNs, lastNs);
        workNs = std::accumulate(weights.begin(), weights.end(), uint64_t(0), detail::saturatingAdd);
        instances = detail::instanceWork(*dag, weights);
        const detail::LongestPaths paths = detail::longestPaths(*dag, std::move(weights));
        spanNs = paths.spanNs;
        broken = paths.brokenDependencies;
        detail::addInstanceSpans(*dag, paths, instances);
        path = detail::walkCriticalPath(*dag, activity);
        firstRunNs = detail::firstRunningNs(activity);
    }

    // The model, unless releaseModelForWhatIf let it go: then a logic_error naming `caller`.
    const ParModel& requireModel(const char* caller) const
    {
        if (!model)
            throw std::logic_error(std::string("AnalysisSession::") + caller
                + ": the model was released for the what-if (releaseModelForWhatIf)");
        return *model;
    }

    void read(const Trace& t, const AnalysisInputs& inputs, bool withDag);
    void workSpan(Analysis& a, const AnalysisOptions& options) const;
    void addNotes(Analysis& a) const;
    std::vector<double> conjunctFactors(const std::vector<SiteScale>& scales) const;
    WhatIfReport whatIf(const AnalysisSession& session, const WhatIfOptions& options) const;
};

// Everything the session reads from the events; the DAG too when `withDag` (it reads the model
// only, and is built beside the idle classes and the measured costs when nothing is to be released).
void AnalysisSession::Impl::read(const Trace& t, const AnalysisInputs& inputs, bool withDag)
{
    trace = { t.path, t.fileSize, t.engines.size(), t.firstTimeNs, t.lastTimeNs, t.eventCount(), {}, {}, {} };
    for (const Warning& w : t.warnings)
        trace.warnings.push_back(w.message + " (at byte " + std::to_string(w.byteOffset) + ")");
    firstNs = t.firstTimeNs;
    lastNs = std::max(t.firstTimeNs, t.lastTimeNs);
    truncated = t.truncated;
    states = inputs.engineStates;
    model = inputs.model;
    tbb::parallel_invoke(
        [&] {
            if (!states) {
                ownStates = std::make_unique<EngineStates>(computeEngineStates(t));
                states = ownStates.get();
            }
        },
        [&] {
            if (!model) {
                ownModel = std::make_unique<ParModel>(buildParModel(t));
                model = ownModel.get();
            }
        });
    activity = detail::EngineActivity(t, *states, *model);
    recordsJoins = t.header.find(ev::MerEndParConj) || !model->conjunctions.empty();
    const detail::BlockReasons reasons(*model);
    tbb::parallel_invoke(
        [&] { classes = detail::IdleClasses(t, *model, reasons, activity.idleUnion(), inputs.sparkTransfers); },
        [&] {
            if (withDag && recordsJoins)
                buildDag();
        },
        [&] {
            if (recordsJoins)
                measured = detail::measureCosts(t, *model, activity);
        });
}

AnalysisSession::AnalysisSession(const Trace& trace, const AnalysisInputs& inputs)
    : m_impl(std::make_unique<Impl>())
{
    m_impl->read(trace, inputs, true);
}

AnalysisSession::Reading::Reading(const Trace& trace, const AnalysisInputs& inputs)
    : m_impl(std::make_unique<Impl>())
{
    Impl& s = *m_impl;
    s.read(trace, inputs, false);
    // Nothing after the reading looks at the states; the model is lent again for the second step,
    // which checks it is the same by its sizes. Neither pointer may outlive what it was lent.
    s.states = nullptr;
    m_conjunctions = s.model->conjunctions.size();
    m_contexts = s.model->contexts.size();
    if (!s.ownModel)
        s.model = nullptr;
}

AnalysisSession::Reading::Reading(Reading&&) noexcept = default;
AnalysisSession::Reading::~Reading() = default;

AnalysisSession::AnalysisSession(Reading&& reading, const AnalysisInputs& inputs)
    : m_impl(std::move(reading.m_impl))
{
    if (!m_impl)
        throw std::logic_error("AnalysisSession: built from a Reading already used");
    Impl& s = *m_impl;
    if (!s.model) { // lent to the reading: lent again, perhaps moved since
        if (!inputs.model || inputs.model->conjunctions.size() != reading.m_conjunctions
            || inputs.model->contexts.size() != reading.m_contexts)
            throw std::logic_error("AnalysisSession: the second step must be lent the model the Reading read with");
        s.model = inputs.model;
    }
    if (s.recordsJoins)
        s.buildDag();
}

AnalysisSession::~AnalysisSession() = default;

void AnalysisSession::Impl::workSpan(Analysis& a, const AnalysisOptions& options) const
{
    WorkSpanReport& ws = a.workSpan;
    if (!recordsJoins) {
        ws.workNs = a.ledger.total.runningNs();
        ws.note = "GHC eventlogs record no joins (START_PAR_CONJ, END_PAR_CONJ, futures): which thread waited "
                  "for which is unknown, so the span, parallelism, speed-up bounds and critical path are not given";
        return;
    }
    uint64_t span = spanNs;
    ws.workNs = workNs;
    ws.brokenDependencies = broken + dag->unplacedDependencies();
    if (a.fromNs != firstNs || a.toNs != lastNs) {
        std::vector<uint64_t> weights = dag->weights(activity, a.fromNs, a.toNs);
        ws.workNs = std::accumulate(weights.begin(), weights.end(), uint64_t(0), detail::saturatingAdd);
        const detail::LongestPaths paths = detail::longestPaths(*dag, std::move(weights));
        span = paths.spanNs;
        ws.brokenDependencies = paths.brokenDependencies + dag->unplacedDependencies();
    }
    ws.spanNs = span;
    if (span > 0)
        ws.parallelism = double(ws.workNs) / double(span);
    ws.bounds = detail::speedupBounds(ws.workNs, span);
    ws.perConjunction = detail::siteWorkSpan(*model, instances, a.fromNs, a.toNs, options.instances);
    if (path)
        a.criticalPath = detail::summarisePath(*path, *model, a.fromNs, a.toNs);
}

void AnalysisSession::Impl::addNotes(Analysis& a) const
{
    auto& notes = a.notes;
    if (!recordsJoins)
        notes.push_back("no conjunction events (a GHC eventlog): the ledger and the work only");
    if (a.incompleteConjunctions)
        notes.push_back(std::to_string(a.incompleteConjunctions)
            + " conjunction instance(s) incomplete (never ended, or damaged): their running time counts in the "
              "ledger, work and span; they are left out of the per-static-id work and span");
    if (a.workSpan.brokenDependencies)
        notes.push_back(std::to_string(a.workSpan.brokenDependencies)
            + " dependency(ies) left out of the DAG: their source is not in the trace, or they contradict its order");
    if (truncated)
        notes.push_back("the trace is truncated: whatever was still open ends at its last event");
    if (a.criticalPath && (a.fromNs != firstNs || a.toNs != lastNs))
        notes.push_back("the critical path is the whole run's, clipped to the range");
    // The walk stopped at a context that waited for nothing, later than the first one started: the
    // DAG cannot say what held it back (analysis.md §3), so say what that leaves out.
    if (path && !path->segments.empty() && path->segments.front().fromNs > firstRunNs)
        notes.push_back("the critical path starts at " + std::to_string(path->segments.front().fromNs)
            + " ns, in a context that depends on nothing in the trace yet started after the first context ran (at "
            + std::to_string(firstRunNs)
            + " ns): a later Runtime::run call, or a context the trace does not say who made. Nothing links it to "
              "what ran before, so the span, the critical path, the recorded wall time the what-if compares "
              "with and the what-if itself take the two as side by side, not one after the other"
            + std::string(truncated ? " (the trace is truncated: what made that context may be among the events "
                                      "lost with its tail)"
                                    : ""));
}

Analysis AnalysisSession::analyze(const AnalysisOptions& options) const
{
    const Impl& s = *m_impl;
    Analysis a;
    a.trace = s.trace;
    a.fromNs = std::clamp(options.fromNs, s.firstNs, s.lastNs);
    a.toNs = std::clamp(options.toNs, a.fromNs, s.lastNs);
    a.recordsJoins = s.recordsJoins;
    const ParModel& model = s.requireModel("analyze");
    a.incompleteConjunctions = model.incompleteConjunctions;
    a.ledger = detail::computeLedger(
        s.activity, s.classes, model, detail::siteUnions(model, a.fromNs, a.toNs), a.fromNs, a.toNs);
    s.workSpan(a, options);
    s.addNotes(a);
    if (options.whatIf)
        addWhatIf(a, *options.whatIf);
    return a;
}

void AnalysisSession::addWhatIf(Analysis& a, const WhatIfOptions& options) const
{
    a.whatIf = whatIf(options);
    if (!a.whatIf->predictions.empty() && (a.fromNs != m_impl->firstNs || a.toNs != m_impl->lastNs))
        a.notes.push_back("the predictions re-simulate the whole run, not the range");
    if (!a.whatIf->predictions.empty())
        for (std::string& n : costNotes(a.whatIf->costs))
            a.notes.push_back(std::move(n));
}

std::vector<std::string> AnalysisSession::costNotes(const CostModel& c) const
{
    // A median of one or two latencies is whatever those were: one thread the OS kept waiting sets a
    // cost paid at every wake-up or steal of every prediction (milliseconds where microseconds are usual).
    std::vector<std::string> notes;
    if (!c.source.starts_with("measured"))
        return notes;
    const uint64_t wall = recordedWallNs();
    for (size_t k = 0; k < kCostKindCount; ++k)
        if (c.samples[k] > 0 && c.samples[k] <= 2 && c.ns[k] > 0 && c.ns[k] >= wall / 100)
            notes.push_back(std::string(costKey(CostKind(k))) + " is the median of only "
                + std::to_string(c.samples[k]) + " latenc" + (c.samples[k] == 1 ? "y" : "ies") + " ("
                + std::to_string(c.ns[k])
                + " ns, at least 1% of the recorded wall): if it is a hiccup rather than what the runtime pays, "
                  "give the cost with --costs FILE (sparkscope-cli calibrate writes one)");
    return notes;
}

void AnalysisSession::forEachLedgerPiece(
    uint64_t fromNs, uint64_t toNs, const std::function<void(const LedgerPiece&)>& f) const
{
    detail::forEachLedgerPiece(m_impl->activity, m_impl->classes, fromNs, toNs, f);
}

const ParModel& AnalysisSession::model() const { return m_impl->requireModel("model"); }

// ---- what-if (analysis.md §4) --------------------------------------------------------------------

// Per conjunct, the factor its static id is scaled by (1 for the others).
std::vector<double> AnalysisSession::Impl::conjunctFactors(const std::vector<SiteScale>& scales) const
{
    std::map<uint32_t, double> byId;
    for (const SiteScale& sc : scales)
        if (sc.factor > 0)
            byId[sc.staticId] = sc.factor;
    std::vector<double> factor(model->conjuncts.size(), 1.0);
    if (!byId.empty())
        tbb::parallel_for(size_t(0), factor.size(), [&](size_t k) {
            const uint32_t j = model->conjuncts[k].conjunction.value();
            const auto it = j == kNoIndex ? byId.end() : byId.find(model->conjunctions[j].staticId);
            if (it != byId.end())
                factor[k] = it->second;
        });
    return factor;
}

std::vector<Prediction> AnalysisSession::predict(const WhatIfOptions& options) const
{
    const Impl& s = *m_impl;
    if (!s.recordsJoins || !s.dag || options.engines.empty())
        return {};
    s.buildSim();
    std::optional<detail::SimNodes> scaled;
    uint64_t work = s.workNs, span = s.spanNs; // of the DAG simulated: the bounds beside each prediction
    if (!options.scales.empty()) {
        s.requireModel("predict with scales");
        scaled = s.sim->scaled(s.conjunctFactors(options.scales));
        std::vector<uint64_t> weights = s.sim->dagWeights(*scaled);
        work = std::accumulate(weights.begin(), weights.end(), uint64_t(0), detail::saturatingAdd);
        span = detail::longestPaths(*s.dag, std::move(weights)).spanNs;
    }
    const detail::SimNodes& nodes = scaled ? *scaled : s.sim->nodes();
    const CostModel costs = options.costs ? *options.costs : s.measuredCosts();
    const double rate = detail::recordedRate(s.contention.runningAt, costs.contention);
    std::set<uint32_t> distinct { 1 }; // P = 1 for the speed-ups
    for (uint32_t p : options.engines)
        distinct.insert(std::max<uint32_t>(p, 1));
    const std::vector<uint32_t> ps(distinct.begin(), distinct.end());
    const std::vector<Prediction> runs
        = detail::simulateAll(*s.sim, nodes, ps, costs, options.curves, rate, options.shortcut);
    std::vector<Prediction> out;
    for (uint32_t p : options.engines) {
        Prediction pr = runs[size_t(std::lower_bound(ps.begin(), ps.end(), std::max<uint32_t>(p, 1)) - ps.begin())];
        pr.speedup = pr.wallNs ? double(runs.front().wallNs) / double(pr.wallNs) : 0.0;
        pr.bound = detail::speedupBound(work, span, pr.engines);
        out.push_back(std::move(pr));
    }
    return out;
}

CostModel AnalysisSession::measuredCosts() const { return m_impl->measuredCosts(); }

CostModel AnalysisSession::measuredLatencies() const { return m_impl->measured; }

std::vector<uint32_t> AnalysisSession::matchSite(std::string_view site) const
{
    const ParModel& m = m_impl->requireModel("matchSite");
    std::set<uint32_t> ids, out;
    for (const ConjunctionInstance& j : m.conjunctions)
        ids.insert(j.staticId);
    for (uint32_t id : ids) {
        const std::string name = m.staticName(id);
        const bool prefix = name.size() > site.size() && name.compare(0, site.size(), site) == 0
            && name[site.size()] == ':' && !site.empty();
        if (site == std::to_string(id) || name == site || prefix)
            out.insert(id);
    }
    return { out.begin(), out.end() };
}

uint64_t AnalysisSession::recordedWallNs() const noexcept
{
    const auto& path = m_impl->path;
    return path && !path->segments.empty() ? path->segments.back().toNs - path->segments.front().fromNs : 0;
}

WhatIfReport AnalysisSession::Impl::whatIf(const AnalysisSession& session, const WhatIfOptions& options) const
{
    WhatIfReport r;
    r.costs = options.costs ? *options.costs : measuredCosts();
    r.scales = options.scales;
    for (SiteScale& sc : r.scales)
        sc.site = requireModel("whatIf with scales").staticName(sc.staticId);
    r.recordedWallNs = session.recordedWallNs();
    if (!recordsJoins) {
        r.note = "GHC eventlogs record no joins: there is no DAG to re-simulate";
        return r;
    }
    WhatIfOptions measured = options; // the costs just taken, not measuredCosts() again inside predict()
    measured.costs = r.costs;
    r.predictions = session.predict(measured);
    return r;
}

WhatIfReport AnalysisSession::whatIf(const WhatIfOptions& options) const { return m_impl->whatIf(*this, options); }

void AnalysisSession::releaseModelForWhatIf(const std::function<void()>& release)
{
    Impl& s = *m_impl;
    auto letGo = [&] {
        s.model = nullptr;
        s.ownModel.reset();
        release();
    };
    bool released = false;
    if (s.recordsJoins && s.dag)
        std::call_once(s.simOnce, [&] { // as buildSim(), but the graph is built after the model is gone
            // One after the other, as in buildSim(): this is the step's peak, with the model still
            // here, and the two's working memory would add up.
            s.contention = detail::measureContention(*s.model, s.activity);
            detail::SimInputs inputs = detail::SimInputs::extract(*s.dag, s.activity, s.firstNs, s.lastNs);
            letGo();
            released = true;
            s.sim = std::make_unique<detail::SimGraph>(*s.dag, std::move(inputs));
        });
    if (!released) // the graph was built already, or there is none to build
        letGo();
}

Analysis analyze(const Trace& trace, const AnalysisOptions& options, const AnalysisInputs& inputs)
{
    return AnalysisSession(trace, inputs).analyze(options);
}

} // namespace sparkscope::core
