// computeMetricsFile (metrics_export.h): the metrics and the analysis of one range, sharing what
// both build from the trace alone. computeMetrics builds the engine states and the model (at once
// with its own per-engine scans); the analysis session borrows them, and the findings read the
// metrics. One after the other rather than at once: each is parallel inside already, and the
// metrics' passes free their working memory before the session's DAG is built (on the 13 M-event
// demo parfib, at once took 20 % more peak memory for no gain in wall time on 2 cores). A trace
// given up is read by the session in two steps around the metrics' last event pass (computeBoth).
#include "sparkscope/core/metrics_export.h"

#include <optional>
#include <stdexcept>

namespace sparkscope::core {

namespace {

    // `releasable`: the trace itself when the caller gives it up. Then the analysis session reads the
    // events while the metrics still hold them (MetricsInputs::eventsRead); they are released there,
    // before the metrics' descendant pass, and the session's DAG is built after the metrics, from the
    // model alone, so that neither sits beside the events (docs/performance.md). A trace kept is
    // read by the session after the metrics, in one step, when the metrics' working memory is gone.
    MetricsFile computeBoth(const Trace& trace, const MetricsOptions& options, const AnalysisOptions& analysisOptions,
        Trace* releasable = nullptr)
    {
        MetricsFile file;
        if (!releasable) {
            file.metrics = computeMetrics(trace, options);
            const AnalysisSession session(trace, AnalysisInputs { &file.metrics.engineStates, &file.metrics.model });
            file.analysis = analysisReport(session, analysisOptions, file.metrics);
            return file;
        }
        std::optional<AnalysisSession::Reading> reading;
        MetricsInputs inputs;
        inputs.eventsRead = [&](const EngineStates& states, const ParModel& model) {
            reading.emplace(trace, AnalysisInputs { &states, &model });
            releasable->releaseEvents();
        };
        file.metrics = computeMetrics(trace, options, inputs);
        if (!reading)
            throw std::logic_error("computeMetricsFile: the metrics never said their events were read");
        const AnalysisSession session(
            std::move(*reading), AnalysisInputs { &file.metrics.engineStates, &file.metrics.model });
        file.analysis = analysisReport(session, analysisOptions, file.metrics);
        return file;
    }

    AnalysisOptions analysisOptionsOf(const MetricsOptions& options)
    {
        AnalysisOptions analysisOptions;
        analysisOptions.fromNs = options.fromNs;
        analysisOptions.toNs = options.toNs;
        analysisOptions.instances = options.instances;
        return analysisOptions;
    }

} // namespace

MetricsFile computeMetricsFile(const Trace& trace, const MetricsOptions& options)
{
    return computeBoth(trace, options, analysisOptionsOf(options));
}

MetricsFile computeMetricsFile(Trace&& trace, const MetricsOptions& options)
{
    return computeBoth(trace, options, analysisOptionsOf(options), &trace);
}

AnalysisReport computeAnalysisReport(const Trace& trace, const AnalysisOptions& options)
{
    MetricsOptions metricsOptions;
    metricsOptions.fromNs = options.fromNs;
    metricsOptions.toNs = options.toNs;
    return computeBoth(trace, metricsOptions, options).analysis;
}

} // namespace sparkscope::core
