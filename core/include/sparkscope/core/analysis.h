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
//     last context finished, as segments, with running and waiting by kind and a share per static id.
// The findings (findings.h) turn these into ranked advice; they read the ledger over time
// (AnalysisSession::forEachLedgerPiece) and the session's model.
//
// Invariants (tested on hand-built traces, random programs and the shared eventlogs):
//   - the ledger's categories sum exactly (integer ns) to engines × (to − from); each engine's to
//     (to − from); each static id's to engines × the length of the union of its instances' spans;
//   - work_ns = running_in_conjunct + running_outside_conjunct; span_ns ≤ work_ns and
//     span_ns ≤ to − from; the span is absent (never guessed) when the trace records no joins (GHC);
//   - the critical path's segments are contiguous; length = running + waiting; running ≤ span.
//
// Thread safety: analyze() is reentrant. An AnalysisSession is immutable once built; its analyze()
// may be called from several threads at once. Results are plain values.
// Cost: building a session is O(n log n) in the model's segments, the DAG's cuts (about four per
// conjunct) and the engines' intervals, plus one scan of the trace's events for search episodes
// and the spark deques; it keeps 16 bytes per cut (24 while the longest paths are computed), beside
// the model. analyze() for a range costs one ledger sweep (linear in what lies in the range), and
// for a partial range new node weights and longest paths (linear in the DAG); the critical path is
// computed once per session. About 1 s of CPU after the model on a 13 M-event trace
// (docs/analysis.md).
#include "sparkscope/core/engine_states.h"
#include "sparkscope/core/metrics.h"
#include "sparkscope/core/par_model.h"
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

// ---- the whole analysis --------------------------------------------------------------------------
struct AnalysisOptions {
    uint64_t fromNs = 0; // the range [from, to), clipped to the trace's [first, last]
    uint64_t toNs = UINT64_MAX;
    bool instances = false; // list every conjunction instance's work and span
};

// What an analysis needs that other parts may already have built for this trace: lent for the
// session's life (they must outlive it); whatever is missing is built and owned by the session.
struct AnalysisInputs {
    const EngineStates* engineStates = nullptr;
    const ParModel* model = nullptr;
};

struct Analysis {
    TraceSummary trace;
    uint64_t fromNs = 0, toNs = 0; // the range analysed
    bool recordsJoins = false; // the trace has conjunction events (SparkScope, Mercury), not GHC's
    LedgerReport ledger;
    WorkSpanReport workSpan;
    std::optional<CriticalPathReport> criticalPath; // absent without joins, or when nothing ran
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
public:
    explicit AnalysisSession(const Trace& trace, const AnalysisInputs& inputs = {});
    ~AnalysisSession();
    AnalysisSession(const AnalysisSession&) = delete;
    AnalysisSession& operator=(const AnalysisSession&) = delete;

    Analysis analyze(const AnalysisOptions& options = {}) const;

    // The ledger's categories over [from, to) (clipped to the trace) as consecutive pieces in time
    // order: f is called once per piece. Summing piece length × engines per category gives the
    // ledger of analyze() for that range, exactly. O(activity intervals and idle-class changes in
    // the range × engines).
    void forEachLedgerPiece(uint64_t fromNs, uint64_t toNs, const std::function<void(const LedgerPiece&)>& f) const;
    // The model analysed (lent through AnalysisInputs, or the session's own).
    const ParModel& model() const noexcept;

private:
    struct Impl;
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
