// The analysis driver (analysis.h): a session builds the range-independent parts once — engine
// activity, idle classes, the DAG with its whole-run weights, longest paths, per-instance figures
// and the critical path — and analyze() assembles a report for any range from them. Only the ledger
// sweep, and for a partial range the node weights and longest paths, are computed per call.
#include "sparkscope/core/analysis.h"

#include "analysis/critical_path.h"
#include "analysis/engine_activity.h"
#include "analysis/findings_timeline.h"
#include "analysis/idle_classes.h"
#include "analysis/ledger.h"
#include "analysis/run_dag.h"
#include "analysis/work_span.h"

#include <numeric>
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

uint64_t LossLedger::totalNs() const noexcept { return std::accumulate(ns.begin(), ns.end(), uint64_t(0)); }

uint64_t LossLedger::runningNs() const noexcept
{
    return (*this)[LossCategory::RunningInConjunct] + (*this)[LossCategory::RunningOutsideConjunct];
}

double LossLedger::fraction(LossCategory c) const noexcept
{
    const uint64_t total = totalNs();
    return total ? double((*this)[c]) / double(total) : 0.0;
}

LossLedger& LossLedger::operator+=(const LossLedger& other) noexcept
{
    for (size_t i = 0; i < kLossCategoryCount; ++i)
        ns[i] += other.ns[i];
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
    detail::InstanceFigures instances;
    std::optional<CriticalPathReport> path;

    void buildDag()
    {
        dag = std::make_unique<detail::RunDag>(*model);
        std::vector<uint64_t> weights = dag->weights(activity, firstNs, lastNs);
        workNs = std::accumulate(weights.begin(), weights.end(), uint64_t(0));
        instances = detail::instanceWork(*dag, weights);
        const detail::LongestPaths paths = detail::longestPaths(*dag, std::move(weights));
        spanNs = paths.spanNs;
        broken = paths.brokenDependencies;
        detail::addInstanceSpans(*dag, paths, instances);
        path = detail::walkCriticalPath(*dag, activity);
    }

    void workSpan(Analysis& a, const AnalysisOptions& options) const;
    void addNotes(Analysis& a) const;
};

AnalysisSession::AnalysisSession(const Trace& trace, const AnalysisInputs& inputs)
    : m_impl(std::make_unique<Impl>())
{
    Impl& s = *m_impl;
    s.trace = { trace.path, trace.fileSize, trace.engines.size(), trace.firstTimeNs, trace.lastTimeNs,
        trace.eventCount(), {} };
    for (const Warning& w : trace.warnings)
        s.trace.warnings.push_back(w.message + " (at byte " + std::to_string(w.byteOffset) + ")");
    s.firstNs = trace.firstTimeNs;
    s.lastNs = std::max(trace.firstTimeNs, trace.lastTimeNs);
    s.truncated = trace.truncated;
    s.states = inputs.engineStates;
    s.model = inputs.model;
    tbb::parallel_invoke(
        [&] {
            if (!s.states) {
                s.ownStates = std::make_unique<EngineStates>(computeEngineStates(trace));
                s.states = s.ownStates.get();
            }
        },
        [&] {
            if (!s.model) {
                s.ownModel = std::make_unique<ParModel>(buildParModel(trace));
                s.model = s.ownModel.get();
            }
        });
    s.activity = detail::EngineActivity(trace, *s.states, *s.model);
    s.recordsJoins = trace.header.find(ev::MerEndParConj) || !s.model->conjunctions.empty();
    const detail::BlockReasons reasons(*s.model);
    tbb::parallel_invoke([&] { s.classes = detail::IdleClasses(trace, *s.model, reasons, s.activity.idleUnion()); },
        [&] {
            if (s.recordsJoins)
                s.buildDag();
        });
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
        ws.workNs = std::accumulate(weights.begin(), weights.end(), uint64_t(0));
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
}

Analysis AnalysisSession::analyze(const AnalysisOptions& options) const
{
    const Impl& s = *m_impl;
    Analysis a;
    a.trace = s.trace;
    a.fromNs = std::clamp(options.fromNs, s.firstNs, s.lastNs);
    a.toNs = std::clamp(options.toNs, a.fromNs, s.lastNs);
    a.recordsJoins = s.recordsJoins;
    a.incompleteConjunctions = s.model->incompleteConjunctions;
    a.ledger = detail::computeLedger(
        s.activity, s.classes, *s.model, detail::siteUnions(*s.model, a.fromNs, a.toNs), a.fromNs, a.toNs);
    s.workSpan(a, options);
    s.addNotes(a);
    return a;
}

void AnalysisSession::forEachLedgerPiece(
    uint64_t fromNs, uint64_t toNs, const std::function<void(const LedgerPiece&)>& f) const
{
    detail::forEachLedgerPiece(m_impl->activity, m_impl->classes, fromNs, toNs, f);
}

const ParModel& AnalysisSession::model() const noexcept { return *m_impl->model; }

Analysis analyze(const Trace& trace, const AnalysisOptions& options, const AnalysisInputs& inputs)
{
    return AnalysisSession(trace, inputs).analyze(options);
}

} // namespace sparkscope::core
