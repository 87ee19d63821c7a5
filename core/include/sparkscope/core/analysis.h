#pragma once
// Analysis: why a run does not scale. Built on the trace model (par_model.h), the engine states
// (engine_states.h) and the spark deque sizes (deque_sizes.h), it answers three questions about a
// range [from, to) of a trace (definitions: the design's analysis.md; as implemented, with every
// choice it left open: docs/analysis.md):
//   - the loss ledger: where every engine-nanosecond went, in exactly one of nine categories, for
//     the whole range, per engine and per conjunction static id (over the union of its instances);
//   - work and span: T1 (all running time), T∞ (the heaviest chain of dependent running time in the
//     recorded run's DAG), parallelism T1/T∞ and the Cilkview speed-up bounds for P = 1, 2, 4 … 64,
//     for the program and per static id (each instance's sub-DAG, summarised over instances);
//   - the critical path of the recorded run: the chain of running and waiting that decided when the
//     last context finished, as segments, with running and waiting by kind and a share per static id;
//   - what-if: the recorded DAG re-simulated on other engine counts under the runtime's scheduling
//     rules, with costs measured from the trace (or zero, or given) and optional virtual speed-ups of
//     one static id's conjuncts: predicted wall time, speed-up and ledger per engine count.
// The findings (findings.h) turn these into ranked advice; they read the ledger over time
// (AnalysisSession::forEachLedgerPiece) and the session's model.
//
// Invariants (tested on hand-built traces, random programs and the shared eventlogs):
//   - the ledger's categories sum exactly (integer ns) to engines × (to − from); each engine's to
//     (to − from); each static id's to engines × the length of the union of its instances' spans;
//   - work_ns = running_in_conjunct + running_outside_conjunct; span_ns ≤ work_ns and
//     span_ns ≤ to − from; the span is absent (never guessed) when the trace records no joins (GHC);
//   - the critical path's segments are contiguous; length = running + waiting; running ≤ span;
//   - a prediction's ledger sums exactly to P × its wall; with zero costs, P = 1 predicts exactly the
//     work, and no P predicts less than the span or work / P.
//
// Thread safety: analyze() is reentrant. An AnalysisSession is immutable once built (but for the
// what-if's view of the DAG and the contention fit, built once under a std::once_flag); its analyze()
// and predict() may be called from several threads at once. Results are plain values. (The one
// non-const call, releaseModelForWhatIf, must run alone.)
// Cost: building a session is O(n log n) in the model's segments, the DAG's cuts (about four per
// conjunct) and the engines' intervals, plus one scan of the trace's events for search episodes
// and the spark deques; it keeps 16 bytes per cut (24 while the longest paths are computed), beside
// the model. analyze() for a range costs one ledger sweep (linear in what lies in the range), and
// for a partial range new node weights and longest paths (linear in the DAG); the critical path is
// computed once per session. predict() builds the DAG's forward view once, then simulates each
// engine count in O(nodes log P) on one thread, the counts in parallel. Measured times:
// sparkscope-whatif-bench, and docs/performance.md "What-if".
#include "sparkscope/core/engine_states.h"
#include "sparkscope/core/metrics.h"
#include "sparkscope/core/par_model.h"
#include "sparkscope/core/result.h"
#include "sparkscope/core/step_function.h"
#include "sparkscope/core/trace.h"

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace sparkscope::core {

// ---- the loss ledger (analysis.md §1) ------------------------------------------------------------
enum class LossCategory : uint8_t {
    RunningInConjunct,
    RunningOutsideConjunct,
    Gc,
    Searching,
    IdleWorkAvailable,
    IdleBlockedFuture,
    IdleBlockedBarrier,
    IdleBlockedOther,
    IdleNoWork,
};
inline constexpr size_t kLossCategoryCount = 9;
// "running_in_conjunct", …, "idle_no_work": the stable keys of the metrics file.
std::string_view lossCategoryKey(LossCategory category) noexcept;

// Engine-nanoseconds per category.
struct LossLedger {
    std::array<uint64_t, kLossCategoryCount> ns {};

    uint64_t& operator[](LossCategory c) noexcept { return ns[size_t(c)]; }
    uint64_t operator[](LossCategory c) const noexcept { return ns[size_t(c)]; }
    uint64_t totalNs() const noexcept;
    uint64_t runningNs() const noexcept; // running_in_conjunct + running_outside_conjunct
    double fraction(LossCategory c) const noexcept; // of totalNs(); 0 when empty
    LossLedger& operator+=(const LossLedger& other) noexcept;
    // Adds `engines` × `ns` to category c. Sums here and in += saturate at UINT64_MAX: a damaged
    // trace's times can come near 2^64, and a sum over engines would wrap.
    void addTimes(LossCategory c, uint64_t engines, uint64_t ns) noexcept;
};

// The ledger restricted to the union of one static id's instances (so recursive instances count once).
struct SiteLedger {
    uint32_t staticId = 0;
    std::string site; // ParModel::staticName
    uint64_t instances = 0; // instances overlapping the range
    uint64_t coveredNs = 0; // length of the union of their spans within the range
    LossLedger ledger; // sums to engines × coveredNs
};

struct LedgerReport {
    size_t engines = 0;
    LossLedger total; // sums to engines × (to − from)
    std::vector<LossLedger> perEngine; // each sums to (to − from)
    std::vector<SiteLedger> perConjunction; // sorted by site
};

// ---- work and span (analysis.md §2) --------------------------------------------------------------
struct SpeedupBound {
    uint32_t engines = 1; // P
    double lower = 0; // Brent: T1 / (T1/P + T∞)
    double upper = 0; // min(P, T1/T∞)
};

struct InstanceWorkSpan {
    uint32_t instance = 0; // index into ParModel::conjunctions
    uint64_t startNs = 0, endNs = 0;
    uint64_t workNs = 0, spanNs = 0;
};

// Per static id: the work and span of each complete instance's sub-DAG (its conjuncts and everything
// nested in them), summarised over the complete instances that start in the range.
struct SiteWorkSpan {
    uint32_t staticId = 0;
    std::string site;
    uint64_t complete = 0, incomplete = 0;
    Stat work, span, parallelism; // parallelism over the instances whose span is > 0
    std::vector<InstanceWorkSpan> instances; // only with AnalysisOptions::instances
};

struct WorkSpanReport {
    uint64_t workNs = 0; // T1: all running time in the range
    std::optional<uint64_t> spanNs; // T∞; absent when the trace records no joins
    std::optional<double> parallelism; // T1 / T∞; absent without a span or when T∞ = 0
    std::vector<SpeedupBound> bounds; // P = 1, 2, 4, …, 64; empty without a parallelism
    std::string note; // why the span is absent, or empty
    std::vector<SiteWorkSpan> perConjunction; // sorted by site
    uint64_t brokenDependencies = 0; // dependencies left out because the trace contradicts itself
};

// ---- the critical path (analysis.md §3) ----------------------------------------------------------
enum class PathKind : uint8_t { Running, SparkQueued, Runnable, Resume, Gc, Searching };
inline constexpr size_t kPathKindCount = 6;
// "running", "spark_queued", "runnable", "resume", "gc", "searching".
std::string_view pathKindKey(PathKind kind) noexcept;

struct PathSegment {
    uint64_t fromNs = 0, toNs = 0;
    uint32_t context = kNoContext; // the context's id in the trace
    uint32_t staticId = 0; // of the innermost conjunct on the path here; 0 outside every conjunct
    uint32_t position = 0; // that conjunct's position (1-based); 0 outside every conjunct
    uint16_t engine = kNoEngine; // the engine for running and gc segments
    PathKind kind = PathKind::Running;
};

struct PathSiteShare {
    uint32_t staticId = 0;
    std::string site;
    uint64_t ns = 0; // path time whose innermost conjunct has this static id
    uint64_t runningNs = 0;
};

struct CriticalPathReport {
    uint64_t fromNs = 0, toNs = 0; // the path within the range
    uint64_t lengthNs = 0, runningNs = 0, waitingNs = 0; // length = running + waiting
    std::array<uint64_t, kPathKindCount> byKind {}; // indexed by PathKind (running included)
    uint64_t outsideConjunctNs = 0; // path time outside every conjunct
    std::vector<PathSiteShare> perConjunction; // sorted by site
    std::vector<PathSegment> segments; // in time order, contiguous
};

// ---- what-if: re-simulating the run (analysis.md §4) ---------------------------------------------
// The recorded DAG replayed on P engines under the runtime's scheduling rules (docs/analysis.md,
// "What-if"). Each node takes its recorded running time (divided by a SiteScale's factor for the
// conjuncts of that static id); the simulated engines pay these costs on top:
enum class CostKind : uint8_t {
    Spark, // a newly created spark until an engine already searching takes it
    Steal, // an engine that starts searching until it has stolen a spark that was there
    Context, // an engine without a context that took a spark, until a new context runs it
    Switch, // an engine until it runs a context it resumes (parked at a barrier, or runnable)
    Wake, // a sleeping engine, from the work that wakes it to its search
    Spin, // an engine that found nothing searches this long before it sleeps
};
inline constexpr size_t kCostKindCount = 6;
// "spark_ns", "steal_ns", "context_ns", "switch_ns", "wake_ns", "spin_ns": the keys of a costs file and
// of the JSON.
std::string_view costKey(CostKind kind) noexcept;

struct CostModel {
    std::array<uint64_t, kCostKindCount> ns {}; // indexed by CostKind
    // For measured costs: how many latencies each figure is the median of (0: none in the trace, 0 ns used).
    std::array<uint64_t, kCostKindCount> samples {};
    std::string source = "zero"; // "measured", "zero", or "file <path>"
    // Contention (docs/analysis.md "Contention"): running is 1 + contention × (other engines running)
    // times as slow. Measured: fitted on the trace's conjuncts (0 when it cannot be measured).
    double contention = 0;
    uint64_t contentionSamples = 0; // measured: the conjuncts the fit used (0: not measurable)

    uint64_t operator[](CostKind k) const noexcept { return ns[size_t(k)]; }
    uint64_t& operator[](CostKind k) noexcept { return ns[size_t(k)]; }
};

// A costs file's text: `key=value` lines (keys as costKey, values whole nanoseconds; and `contention`, a
// number from 0 to kMaxContention), blank lines and `#` comments; keys left out are 0. An unknown key, a repeated key
// or a bad value is an error.
Result<CostModel> parseCostModel(std::string_view text);

// The bounds the command line and cost files hold a what-if's inputs to: beyond them a predicted run
// can last longer than 64 bits of nanoseconds hold (2^64 ns is 585 years; a 1e-6 factor reaches it
// from a 5-hour run), which the simulation saturates rather than wraps, but whose figures (speed-ups,
// the ledger's sum) are then meaningless; a factor above 1e6 makes the site's conjuncts take less than
// a nanosecond per millisecond recorded.
inline constexpr double kMinScaleFactor = 1e-6, kMaxScaleFactor = 1e6;
inline constexpr double kMaxContention = 1000;

// Make the conjuncts of one static id `factor` times as fast (their running time divided by factor).
struct SiteScale {
    uint32_t staticId = 0;
    double factor = 1; // > 0
    std::string site; // its name: filled in by analyze()'s report, not read
};

struct WhatIfOptions {
    std::vector<uint32_t> engines { 1, 2, 4, 8, 16, 32, 64 }; // each ≥ 1
    std::optional<CostModel> costs; // absent: the trace's own (AnalysisSession::measuredCosts())
    std::vector<SiteScale> scales;
    bool curves = false; // also the predicted CPUs curve of each P
    // Run the sub-trees nobody can see into as one step each (docs/analysis.md, "What-if"): the same
    // predictions, fewer simulated events. Off: every node is an event (tests compare the two).
    bool shortcut = true;
};

struct Prediction {
    uint32_t engines = 1; // P
    uint64_t wallNs = 0; // from the first context's start to the last one's end
    double speedup = 0; // the predicted wall at P = 1 over this one
    SpeedupBound bound; // Cilkview's bounds for this P, from the simulated DAG's work and span (scaled)
    LossLedger ledger; // the nine categories, summing exactly to engines × wallNs (gc is always 0)
    std::optional<StepFunction> cpus; // engines running, over [0, wallNs); only with WhatIfOptions::curves
    // What the simulated engines did: sparks stolen, new contexts taken for sparks, contexts resumed
    // (Switch), sleeping engines woken.
    uint64_t steals = 0, contexts = 0, switches = 0, wakeups = 0;
    uint64_t brokenDependencies = 0; // edges dropped to go on where the DAG had a cycle (damaged traces)
};

// What analyze() reports when AnalysisOptions::whatIf is set.
struct WhatIfReport {
    CostModel costs; // the costs used
    std::vector<SiteScale> scales;
    std::vector<Prediction> predictions; // in the order of WhatIfOptions::engines
    uint64_t recordedWallNs = 0; // the recorded run's first context start to its last context end
    std::string note; // why there are no predictions, or empty
};

// ---- the whole analysis --------------------------------------------------------------------------
struct AnalysisOptions {
    uint64_t fromNs = 0; // the range [from, to), clipped to the trace's [first, last]
    uint64_t toNs = UINT64_MAX;
    bool instances = false; // list every conjunction instance's work and span
    // Also re-simulate the whole run (never just the range) for these engine counts and costs.
    std::optional<WhatIfOptions> whatIf;
};

// What an analysis needs that other parts may already have built for this trace: lent for the
// session's life (they must outlive it); whatever is missing is built and owned by the session.
struct AnalysisInputs {
    const EngineStates* engineStates = nullptr;
    const ParModel* model = nullptr;
    // The spark pools' transfers (deque_sizes.h), read while the session is built (MetricsInputs::
    // eventsRead lends the metrics' own): a walk of a GHC log's spark events in time order spared.
    const SparkPoolTransfers* sparkTransfers = nullptr;
};

struct Analysis {
    TraceSummary trace;
    uint64_t fromNs = 0, toNs = 0; // the range analysed
    bool recordsJoins = false; // the trace has conjunction events (SparkScope, Mercury), not GHC's
    LedgerReport ledger;
    WorkSpanReport workSpan;
    std::optional<CriticalPathReport> criticalPath; // absent without joins, or when nothing ran
    std::optional<WhatIfReport> whatIf; // only when AnalysisOptions::whatIf is set
    uint64_t incompleteConjunctions = 0; // never ended, or ended before a conjunct (truncated, damaged)
    std::vector<std::string> notes; // what a reader must know to trust the figures
};

// ---- the ledger over time (what the findings, findings.h, read) ---------------------------------
// One piece of a range during which no engine changes ledger category.
struct LedgerPiece {
    uint64_t fromNs = 0, toNs = 0;
    std::span<const LossCategory> categories; // per engine
    std::span<const uint32_t> contexts; // per engine: the running context (index into ParModel::contexts) or kNoIndex
};

// Builds once what every range needs (the engines' activity, the idle classes, the DAG, its
// longest paths and the critical path), then analyses any range cheaply.
class AnalysisSession {
    struct Impl;

public:
    explicit AnalysisSession(const Trace& trace, const AnalysisInputs& inputs = {});

    // The same session in two steps, for a caller that releases the trace's events in between
    // (computeMetricsFile, `analyze`): a Reading reads the events, with the engine states and model
    // `inputs` lends for that call (what it is not lent, it builds and keeps); the session is then
    // built from the reading, its DAG from the model alone, so the DAG never sits beside the events
    // (docs/performance.md). A model lent to the reading must be lent again to the second step (the
    // same model, perhaps moved in between; checked by its sizes), for the session's life; the
    // states are not needed again. std::logic_error when it is not, or when the reading was used.
    class Reading {
    public:
        Reading(const Trace& trace, const AnalysisInputs& inputs);
        Reading(Reading&&) noexcept;
        ~Reading();

    private:
        friend class AnalysisSession;
        std::unique_ptr<Impl> m_impl;
        size_t m_conjunctions = 0, m_contexts = 0; // of the model read with
    };
    AnalysisSession(Reading&& reading, const AnalysisInputs& inputs);

    ~AnalysisSession();
    AnalysisSession(const AnalysisSession&) = delete;
    AnalysisSession& operator=(const AnalysisSession&) = delete;

    Analysis analyze(const AnalysisOptions& options = {}) const;
    // What analyze() adds for AnalysisOptions::whatIf, added to an analysis made without it: its
    // whatIf, and the note that the predictions are of the whole run when `a` is of a range.
    void addWhatIf(Analysis& a, const WhatIfOptions& options) const;

    // The ledger's categories over [from, to) (clipped to the trace) as consecutive pieces in time
    // order: f is called once per piece. Summing piece length × engines per category gives the
    // ledger of analyze() for that range, exactly. O(activity intervals and idle-class changes in
    // the range × engines).
    void forEachLedgerPiece(uint64_t fromNs, uint64_t toNs, const std::function<void(const LedgerPiece&)>& f) const;
    // The model analysed (lent through AnalysisInputs, or the session's own). std::logic_error once
    // it is released (releaseModelForWhatIf).
    const ParModel& model() const;

    // What-if (analysis.md §4): the whole run re-simulated for each engine count of `options`, in that
    // order. Empty when the trace records no joins. Deterministic; the engine counts run in parallel.
    // Cost: O(nodes log P) per engine count, plus the node weights once per call.
    std::vector<Prediction> predict(const WhatIfOptions& options) const;
    // The what-if of analyze() alone (Analysis::whatIf): the predictions with the costs used and the
    // recorded wall time; a note instead when the trace records no joins.
    WhatIfReport whatIf(const WhatIfOptions& options) const;
    // For a caller that needs no more of the model than the what-if (`sparkscope-cli analyze`, once its
    // report is made: analysisReportReleasing): measures the contention and takes what the what-if's
    // graph reads out of the model (sim_graph.h, SimInputs), calls `release`, which must free the model
    // lent to the session (the session frees one of its own), then builds the graph. So the graph is
    // never beside the model (docs/performance.md). Afterwards predict() and whatIf() without scales,
    // measuredCosts(), measuredLatencies(), forEachLedgerPiece() and recordedWallNs() answer as
    // before; analyze(), model(), matchSite() and scales throw std::logic_error.
    void releaseModelForWhatIf(const std::function<void()>& release);
    // The costs as this trace measured them (medians of its latencies; docs/analysis.md gives each rule),
    // and the contention coefficient fitted on its conjuncts (computed with the what-if's view of the
    // DAG, once, on the first call of this or predict()).
    CostModel measuredCosts() const;
    // The same costs without the contention fit (coefficient 0, no samples), for a caller that gives its
    // own coefficient: they need no what-if graph, so the graph can still be built without the model
    // (releaseModelForWhatIf).
    CostModel measuredLatencies() const;
    // The static ids a SITE names: its number, its exact name ("parfib.cpp:23:9"), or a prefix of the
    // name that ends before a ':' ("parfib.cpp:23"). Sorted; empty when none matches.
    std::vector<uint32_t> matchSite(std::string_view site) const;
    // The recorded run's wall time: its first context's start to its last context's end (0 if none ran).
    uint64_t recordedWallNs() const noexcept;
    // What a reader of predictions made with `costs` must know of them (analyze() adds these to its
    // notes): each measured cost that is the median of at most two latencies and at least 1 % of the
    // recorded wall, as one thread the OS kept waiting can make it. Empty for costs not measured.
    std::vector<std::string> costNotes(const CostModel& costs) const;

private:
    std::unique_ptr<Impl> m_impl;
};

// One-shot: AnalysisSession(trace, inputs).analyze(options).
Analysis analyze(const Trace& trace, const AnalysisOptions& options = {}, const AnalysisInputs& inputs = {});

// The analysis as a JSON document ({"format_version", "trace", "range", "analysis"}); "analysis"
// holds the keys of analysis.md §6 (ledger, work_ns, span_ns, parallelism, speedup_bounds,
// critical_path) plus work_span_per_conjunction and notes. `sparkscope-cli analyze` writes
// analysisReportToJson (findings.h): this with predictions and findings. Instances and path
// segments only when `instances`. Deterministic; "\n" line ends and a final newline.
std::string analysisToJson(const Analysis& analysis, bool instances = false);

} // namespace sparkscope::core
