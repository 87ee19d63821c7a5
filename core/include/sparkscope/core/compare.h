#pragma once
// Comparing runs: two traces side by side (compareRuns), and a scaling series of traces of one
// program at different engine counts (scalingSeries). Every figure is defined in docs/compare.md.
//
// Both read a RunProfile per trace: the figures a comparison needs, taken from that trace's metrics
// (metrics.h), its analysis report (findings.h) and, for a scaling series, what-if predictions at the
// other traces' engine counts (AnalysisSession::predict with the trace's measured costs). A profile is
// small (a few hundred bytes per conjunction site), so a comparison holds profiles, never two traces'
// models at once: profileTrace computes one trace's metrics and analysis, keeps its profile and frees
// the rest before the next trace is read.
//
// Matching: conjunction sites by their source location (ParModel::staticName, the static id's
// INTERN_STRING text), conjuncts by position. A site found in one run only is listed as such. GHC
// eventlogs have no conjunctions, no span and no critical path: those figures are absent (null),
// never zero, and no site is listed.
//
// Thread safety: pure functions of their inputs; profileTrace may run for several traces at once.
// Cost: profileTrace is computeMetricsFile's (docs/performance.md "Compare"), plus one what-if
// simulation per engine count asked; compareRuns and scalingSeries are linear in the sites.
#include "sparkscope/core/analysis.h"
#include "sparkscope/core/findings.h"
#include "sparkscope/core/metrics.h"
#include "sparkscope/core/trace.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace sparkscope::core {

// ---- one run, as a comparison reads it -----------------------------------------------------------

// One position of a conjunction site (over its complete instances).
struct RunConjunct {
    uint32_t position = 1;
    uint64_t instances = 0; // complete conjunct instances
    Stat running; // CONJUNCT_TIME_RUNNING
    Stat after; // CONJUNCT_TIME_AFTER
    std::optional<Stat> asSpark; // CONJUNCT_TIME_AS_SPARK (positions ≥ 2)
};

// One conjunction static id of a run.
struct RunSite {
    std::string site; // ParModel::staticName: the match key
    uint64_t instances = 0; // complete + incomplete
    uint64_t coveredNs = 0; // the union of its instances' spans: the wall time with one of them open
    LossLedger ledger; // over that union (sums to engines × coveredNs)
    Stat time; // PARCONJ_TIME over complete instances
    Stat work, span, parallelism; // per complete instance's sub-DAG (analysis.h SiteWorkSpan)
    uint64_t criticalPathNs = 0; // critical-path time inside one of its conjuncts (innermost)
    std::vector<RunConjunct> conjuncts; // by position
};

// What-if: this run's DAG re-simulated on `engines` engines (its own measured costs).
struct RunPrediction {
    uint32_t engines = 1;
    uint64_t wallNs = 0;
};

struct RunProfile {
    std::string path;
    uint32_t engines = 0; // P: the trace's engines, STARTUP's included (engineCountOf)
    bool recordsJoins = false; // conjunction events (our runtime, Mercury); false for GHC eventlogs
    uint64_t events = 0;
    uint64_t rangeNs = 0; // the trace's last time − first time
    // The first context's start to the last context's end: AnalysisSession::recordedWallNs, or without joins
    // (no critical path: GHC) the first to the last instant some context runs.
    uint64_t wallNs = 0;
    LossLedger ledger; // the whole trace, E engines × rangeNs
    uint64_t workNs = 0; // T1
    std::optional<uint64_t> spanNs; // T∞; absent without joins
    std::optional<double> parallelism;
    std::optional<uint64_t> criticalPathNs; // its length; absent without joins
    uint64_t gcNs = 0; // MUTATOR_VS_GC_TIME gc_ns: time with some engine in GC
    double cpusAverage = 0; // CPUS_OVER_TIME time-weighted average
    uint64_t sparksCreated = 0, sparksStolen = 0, contextsCreated = 0;
    uint64_t conjunctionInstances = 0, incompleteConjunctions = 0;
    std::vector<RunSite> sites; // sorted by site
    std::vector<RunPrediction> predictions; // in the order asked (ProfileOptions::predictAt); empty without joins
    std::vector<std::string> notes; // the analysis' notes and the reader's warnings
};

struct ProfileOptions {
    std::vector<uint32_t> predictAt; // engine counts to re-simulate this run at (none: no what-if)
};

// P of a trace: its engines (Trace::engineCount), the ones the ledger counts: those its STARTUP event
// declares (our runtime and Mercury post one; old GHC too), and up to the highest engine with events
// (GHC's capabilities: one that posted nothing below it is an engine of the run, idle throughout).
uint32_t engineCountOf(const Trace& trace);

// The profile of a trace from its metrics and the analysis of the same (whole) range (an
// AnalysisReport's `analysis`), the session that made it (for the wall time and the predictions) and
// the engine counts to predict at.
RunProfile makeRunProfile(const Trace& trace, const Metrics& metrics, const Analysis& analysis,
    const AnalysisSession& session, const ProfileOptions& options = {});

// computeMetricsFile's work on the whole trace (the metrics, then the analysis session lent their
// engine states and model; not the findings, which no figure reads), the predictions asked, and the
// profile of all that.
RunProfile profileTrace(const Trace& trace, const ProfileOptions& options = {});

// A run given to a comparison: its profile, or why there is none (the trace did not read).
struct RunInput {
    std::string path;
    std::optional<RunProfile> profile;
    std::string error; // when there is no profile: "<path>: <reason>"
};

// Reads `path` and profiles it; the trace is freed before returning. Never throws.
RunInput loadRunProfile(const std::string& path, const ProfileOptions& options = {});

// ---- two runs side by side ------------------------------------------------------------------------

// One figure of A and B. difference = B − A and ratio = B / A when both are present (ratio absent
// when A is 0); a figure one run does not have (GHC's span, a site of the other program) is absent.
struct FigureComparison {
    std::string key; // stable: "wall_ns", "work_ns", "idle_no_work_fraction", ...
    std::optional<double> a, b;
    std::optional<double> difference, ratio;
};

enum class Presence : uint8_t { Both, OnlyA, OnlyB };
// "both", "only_a", "only_b".
std::string_view presenceKey(Presence presence) noexcept;

struct ConjunctComparison {
    uint32_t position = 1;
    Presence presence = Presence::Both;
    std::vector<FigureComparison> figures; // instances, running_mean_ns, after_mean_ns, as_spark_mean_ns
};

struct SiteComparison {
    std::string site;
    Presence presence = Presence::Both;
    std::vector<FigureComparison> figures; // instances, covered_ns, time_mean_ns, work_mean_ns, span_mean_ns, ...
    std::vector<ConjunctComparison> conjuncts; // by position
    // |covered_ns of B − covered_ns of A|, a missing side counting 0: the sort key.
    uint64_t timeDifferenceNs = 0;
};

struct RunComparison {
    RunInput a, b; // the profiles compared (or why one is missing)
    std::vector<FigureComparison> program; // engines, wall_ns, range_ns, events, work_ns, span_ns, ...
    std::vector<FigureComparison> ledger; // each category's _ns, running_ns, total_ns, then each _fraction
    // Sorted by timeDifferenceNs, largest first (ties: by site). Only sites of runs that read.
    std::vector<SiteComparison> sites;
    std::vector<std::string> warnings; // a run that did not read; programs whose sites do not match
};

// A and B side by side. When one did not read, the other's figures are still there (the missing
// side absent); when neither did, the comparison is empty but for the warnings.
RunComparison compareRuns(RunInput a, RunInput b);

// The figure lists compareRuns aligns, in their stable order, for one run (absent values null).
struct Figure {
    std::string key;
    std::optional<double> value;
};
std::vector<Figure> programFigures(const RunProfile& run);
std::vector<Figure> ledgerFigures(const LossLedger& ledger);
std::vector<Figure> siteFigures(const RunSite& site);
// A Stat's mean, absent over no values (a site none of whose instances completed): never 0.
std::optional<double> meanOf(const Stat& stat);
// The reader's warnings about a run's trace (cut short, damaged), each as "PATH: message": the
// comparison and the series warn with them, so that a figure of a damaged trace is read as such.
std::vector<std::string> readerWarnings(const RunProfile& run);
std::vector<Figure> conjunctFigures(const RunConjunct& conjunct);

// ---- a scaling series ------------------------------------------------------------------------------

// Speed-up S = base wall / wall, efficiency S / p and the Karp–Flatt serial fraction
// e = (1/S − 1/p) / (1 − 1/p), where p = P / P_base (the engine counts relative to the base run, so
// p = P when the series starts at 1 engine). All absent when a wall time is 0; e also at p = 1,
// where it is undefined.
struct Scaling {
    std::optional<double> speedup, efficiency, serialFraction;
};
Scaling scalingOf(uint64_t baseWallNs, uint32_t baseEngines, uint64_t wallNs, uint32_t engines);

// Another run's what-if prediction of this point: its DAG re-simulated at this point's engine count.
struct PointPrediction {
    size_t from = 0; // index into ScalingReport::points of the predicting run
    uint64_t wallNs = 0;
    std::optional<double> error; // (predicted − measured) / measured; absent when measured is 0
};

struct ScalingPoint {
    std::string path;
    uint32_t engines = 0;
    uint64_t wallNs = 0;
    Scaling scaling;
    LossLedger ledger; // shares: LossLedger::fraction
    uint64_t workNs = 0;
    std::optional<double> workGrowth; // work / the base run's work
    std::optional<uint64_t> spanNs;
    std::optional<double> parallelism;
    std::vector<PointPrediction> predictions; // one per other run that records joins, in point order
};

struct SitePoint {
    uint64_t coveredNs = 0; // the site's "wall": the union of its instances' spans
    Scaling scaling; // from coveredNs, against the base run's
    LossLedger ledger;
    // Means over its complete instances (a sum would count a recursive site's nested instances
    // within their ancestors' too); absent when none completed.
    std::optional<double> workMeanNs, spanMeanNs, parallelismMean;
    uint64_t instances = 0;
};

struct SiteScaling {
    std::string site;
    std::vector<SitePoint> points; // in the order of ScalingReport::points
};

struct ScalingReport {
    std::vector<ScalingPoint> points; // the runs that read, by engine count (ties: the order given)
    size_t base = 0; // the point speed-ups are taken against: the first with the smallest count
    std::vector<SiteScaling> sites; // sites present in every point, sorted by site
    std::vector<std::string> failed; // "<path>: <reason>" for each run that did not read
    std::vector<std::string> warnings; // sites in some runs only, runs of different programs, ...
};

// The series of `runs` (in any order). Each profile's predictions should include every other run's
// engine count (loadScalingRuns asks for them); a missing one is left out of that point's predictions.
ScalingReport scalingSeries(std::span<const RunInput> runs);

// Reads the traces twice: first each one's engine count alone, then each one's profile with
// predictions at the other traces' engine counts (so one trace's model is in memory at a time).
std::vector<RunInput> loadScalingRuns(std::span<const std::string> paths);

// ---- output ---------------------------------------------------------------------------------------
// JSON documents for scripts (keys: docs/cli.md "compare" and "scaling"): deterministic, "\n" line
// ends, a final newline. CSV: one number per row, `section,id,figure,a,b,difference,ratio` (compare)
// and `section,id,engines,figure,value` (scaling).
std::string comparisonToJson(const RunComparison& comparison);
std::string comparisonToCsv(const RunComparison& comparison);
std::string scalingToJson(const ScalingReport& report);
std::string scalingToCsv(const ScalingReport& report);

inline constexpr int kCompareFormatVersion = 1;

} // namespace sparkscope::core
