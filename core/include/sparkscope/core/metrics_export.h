#pragma once
// The metrics file (docs/metrics.md "The metrics file"): what `sparkscope-cli metrics` writes and
// what the app exports, byte for byte the same because both call these functions.
//
// JSON: {"format_version": N, "trace": {...}, "range": {...}, "program": {...}, "engines": {...},
//        "conjunctions": {...}, "conjuncts": {...}, "futures": {...}, "scheduling": {...},
//        "analysis": {...}}
// where each metrics section maps group id -> metric key -> value; a Stat is
// {"count","min","max","mean","variance","sum"}. `analysis` is the analysis of the same range
// (findings.h: ledger, work and span, critical path, predictions, findings; keys in
// docs/analysis.md), present when the caller gives it. CSV: the same data in long form, one row per
// number: `scope,id,metric,statistic,value` (sub-statistics as metric "KEY.sub"; the analysis as
// scope `analysis`). The sections before `analysis` are written exactly as without it.
//
// Determinism: keys in insertion order (sections, then groups sorted by id as computeMetrics made
// them), numbers printed by nlohmann-json (integers exactly, doubles in the shortest form that
// reads back to the same value), "\n" line ends, a final newline. Pure functions; thread-safe.
#include "sparkscope/core/findings.h"
#include "sparkscope/core/metrics.h"

#include <memory>
#include <string>

namespace sparkscope::core {

// Bumped whenever a key is renamed or removed, or a value changes meaning, and when a section is
// added (2: the `analysis` section). Adding keys inside a section keeps it.
inline constexpr int kMetricsFormatVersion = 2;

enum class MetricsFormat { Json, Csv };

// `analysis`: the analysis of the same range as `metrics` (with its findings); null writes the file
// without the section. Its instance lists and path segments follow metrics.options.instances.
std::string metricsToJson(const Metrics& metrics, const AnalysisReport* analysis = nullptr);
std::string metricsToCsv(const Metrics& metrics, const AnalysisReport* analysis = nullptr);
inline std::string formatMetrics(const Metrics& metrics, MetricsFormat format, const AnalysisReport* analysis = nullptr)
{
    return format == MetricsFormat::Json ? metricsToJson(metrics, analysis) : metricsToCsv(metrics, analysis);
}

// What a metrics file holds: the metrics for `options` and the analysis of the same range (from,
// to; instances as --instances asks) with its findings, read from those metrics.
struct MetricsFile {
    Metrics metrics;
    AnalysisReport analysis;
};
// computeMetrics(trace, options), then the analysis from the states and model it built (lent to an
// AnalysisSession): nothing is built twice.
MetricsFile computeMetricsFile(const Trace& trace, const MetricsOptions& options = {});
// The same file from a trace the caller has no further use for: its events are released
// (Trace::releaseEvents) as soon as the last pass reading them is done, before the metrics'
// descendant pass and the analysis' DAG, which lowers the peak memory by the trace's size. `trace`
// keeps its summary fields only; the model, its instances without the top-piece index
// (computeMetricsWithSession).
MetricsFile computeMetricsFile(Trace&& trace, const MetricsOptions& options = {});
// The metrics of a trace the caller has no further use for, with the analysis session over their
// states and model, for a caller that asks the session more than computeMetricsFile does (`analyze`:
// --scale names the session's sites). The session reads the events in two steps around the metrics'
// last event pass (AnalysisSession::Reading), the events are released in between, and the DAG is
// built after the metrics, so that neither the sweep nor the DAG sits beside the events
// (docs/performance.md). `trace` keeps its summary fields only, and the model its instances without
// the top-piece index (released once the metrics have read it: ParModel::releaseTopPieces). Both are
// on the heap, so the session's loan of the metrics' model holds wherever the pair is moved; the
// session goes first.
struct MetricsWithSession {
    std::unique_ptr<Metrics> metrics;
    std::unique_ptr<AnalysisSession> session; // borrows *metrics' model
};
MetricsWithSession computeMetricsWithSession(Trace&& trace, const MetricsOptions& options = {});
// Its first step, for a caller that builds the session later and keeps the metrics in a place of its
// own (the app's metrics of a streamed trace): the metrics into `into`, and the analysis' reading of
// the events taken as the metrics' last pass over them ends, when the events are released. The model
// keeps its top-piece index (built after the release). AnalysisSession(std::move(reading), inputs
// lending `into`'s states and model) is the session.
AnalysisSession::Reading computeMetricsAndReading(Trace&& trace, Metrics& into, const MetricsOptions& options = {});
// analysisReport(*both.session, options, *both.metrics) for a caller done with both afterwards
// (`sparkscope-cli analyze`): the same report, but the what-if, when asked for without scales, is run
// after the report's other parts, once the metrics (and so the model) are let go
// (AnalysisSession::releaseModelForWhatIf): its graph and simulations never sit beside the model,
// which lowers `analyze`'s peak memory (docs/performance.md). `both.metrics` is null afterwards when
// it was let go, and the session answers only what releaseModelForWhatIf says.
AnalysisReport analysisReportReleasing(MetricsWithSession& both, const AnalysisOptions& options);
// The analysis alone (`sparkscope-cli analyze`): the same computation, with the metrics the findings
// read (of the range; no instances, no call count) dropped afterwards.
AnalysisReport computeAnalysisReport(const Trace& trace, const AnalysisOptions& options = {});
inline std::string formatMetricsFile(const MetricsFile& file, MetricsFormat format)
{
    return formatMetrics(file.metrics, format, &file.analysis);
}

} // namespace sparkscope::core
