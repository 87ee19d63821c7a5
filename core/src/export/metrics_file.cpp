// computeMetricsFile (metrics_export.h): the metrics and the analysis of one range, sharing what
// both build from the trace alone. computeMetrics builds the engine states and the model (at once
// with its own per-engine scans); the analysis session reads the events with them once the metrics'
// event passes are done, and builds its DAG after the metrics; the findings read the metrics. One
// after the other rather than at once: each is parallel inside already, and the metrics' passes free
// their working memory before the session's DAG is built (on the 13 M-event demo parfib, at once
// took 20 % more peak memory for no gain in wall time on 2 cores).
#include "sparkscope/core/metrics_export.h"

#include <optional>

namespace sparkscope::core {

namespace {

    // `releasable`: the trace itself when the caller gives it up. The analysis session reads the
    // events while the metrics still hold them (MetricsInputs::eventsRead); they are released there,
    // before the metrics' descendant pass, and the session's DAG is built after the metrics, from the
    // model alone, so that neither sits beside the events (docs/performance.md).
    MetricsFile computeBoth(const Trace& trace, const MetricsOptions& options, const AnalysisOptions& analysisOptions,
        Trace* releasable = nullptr)
    {
        MetricsFile file;
        std::optional<AnalysisSession::Reading> reading;
        MetricsInputs inputs;
        inputs.eventsRead = [&](const EngineStates& states, const ParModel& model) {
            reading.emplace(trace, AnalysisInputs { &states, &model });
            if (releasable)
                releasable->releaseEvents();
        };
        file.metrics = computeMetrics(trace, options, inputs);
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
