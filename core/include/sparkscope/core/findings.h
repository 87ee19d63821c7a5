#pragma once
// Findings: the analysis (analysis.h) and the metrics (metrics.h) turned into advice a programmer acts
// on, ranked by the time each could win back (the design's analysis.md §5; every rule, its threshold
// and how its recoverable time is estimated: docs/analysis.md "Findings").
//
// A finding has a stable `rule` key, one or two plain sentences naming the source location, the
// static id it is about (none for the whole program), the time ranges it is about (the stretches
// that lost the most, or the instances concerned), and `recoverableNs`: an ESTIMATE of the wall time
// the run could save, computed from the loss ledger as the engine time the cause lost divided by the
// number of engines. Rules can name the same lost time (an idle engine may be idle because a
// conjunction is unbalanced and because the program has little parallelism), so recoverable times
// do not add up; each is an upper estimate of what acting on that finding alone could win.
//
// The program-wide figures are taken over the run: from the first to the last instant some engine
// ran a context within the analysed range (start-up and shutdown are left out).
//
// The findings read the metrics of the same range (computed once by the caller: the metrics file
// has them anyway) and the session's model and ledger over time; they compute nothing the metrics
// already have. Thread safety: pure functions of their inputs. Cost: one sweep of the ledger over
// the range (two, to find the run first), one pass over the conjunctions and futures, look-ups in
// the metrics.
#include "sparkscope/core/analysis.h"
#include "sparkscope/core/metrics.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace sparkscope::core {

struct TimeRange {
    uint64_t fromNs = 0, toNs = 0; // [from, to)
    bool operator==(const TimeRange&) const = default;
};

struct Finding {
    std::string rule; // stable key, one of findingRules()
    std::string text; // one or two sentences, naming the source location
    std::string site; // the conjunction's static id (ParModel::staticName); empty for the whole program
    std::vector<TimeRange> ranges; // what it is about, most important first (at most 5)
    uint64_t recoverableNs = 0; // estimate: the engine time its cause lost / engines
};

// Every rule key, most specific first (the order of findings that could win back the same time):
// sparks_too_fine, parallelism_not_achieved, amdahl_limited, imbalance, parallelism_brief,
// future_waited_early, sequential_code, work_waited_for_engine, gc_share, too_little_parallelism.
std::span<const std::string_view> findingRules() noexcept;

// The findings for `analysis` (a result of session.analyze) from `metrics` computed for the same
// range, ranked: the largest recoverable time first (ties: rule order, then site, then the first
// range's start).
std::vector<Finding> findFindings(const AnalysisSession& session, const Analysis& analysis, const Metrics& metrics);

// The run the findings' program-wide shares ("x % of the run's engine time") are of: from the first
// to the last instant some engine ran a context within the analysed range. None when no engine ran
// one (then there are no findings). A demo trace's first ~0.4 ms, start-up with no context running,
// is outside it: the report says so, or the shares would read as of the whole range.
std::optional<TimeRange> findingsRun(const AnalysisSession& session, const Analysis& analysis);

// One what-if prediction as the metrics file lists it (analysis.md §6): the predicted wall time on P
// engines and the speed-up over the predicted P = 1.
struct PredictionSummary {
    uint32_t engines = 1;
    uint64_t wallNs = 0;
    double speedup = 0;
};

// Everything the metrics file's `analysis` section and `sparkscope-cli analyze` report for one range.
struct AnalysisReport {
    Analysis analysis;
    std::vector<Finding> findings; // ranked
    std::optional<TimeRange> run; // what the findings' shares are of (findingsRun)
    std::vector<PredictionSummary> predictions; // the what-if (§4) results; empty until it is run

    // The run is only part of the analysed range (start-up or an idle tail left out): a report then
    // says which part "of the run" means, or the shares would read as of the whole range.
    bool runIsPartOfRange() const noexcept
    {
        return run && (run->fromNs != analysis.fromNs || run->toNs != analysis.toNs);
    }
};

// session.analyze(options) and its findings from `metrics` (computed for the same range).
AnalysisReport analysisReport(const AnalysisSession& session, const AnalysisOptions& options, const Metrics& metrics);
// report.predictions from report.analysis.whatIf (the file's summary of each prediction).
void summarisePredictions(AnalysisReport& report);

// The JSON document of `sparkscope-cli analyze`: {"format_version", "trace", "range", "analysis"}
// where "analysis" is analysisToJson's plus `predictions` and `findings` (docs/analysis.md "JSON").
// `instances`: also each instance's work and span and the critical path's segments. Deterministic;
// "\n" line ends and a final newline.
std::string analysisReportToJson(const AnalysisReport& report, bool instances = false);

} // namespace sparkscope::core
