// computeMetricsFile (metrics_export.h): the metrics and the analysis of one range, sharing what
// both build from the trace alone. computeMetrics builds the engine states and the model (at once
// with its own per-engine scans); the analysis session borrows them, and the findings read the
// metrics. One after the other rather than at once: each is parallel inside already, and the
// metrics' passes free their working memory before the session's DAG is built (on the 13 M-event
// demo parfib, at once took 20 % more peak memory for no gain in wall time on 2 cores). A trace
// given up is read by the session in two steps around the metrics' last event pass
// (computeMetricsWithSession).
#include "sparkscope/core/metrics_export.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <optional>
#include <stdexcept>

namespace sparkscope::core {

namespace {

    // `releasable`: the trace itself when the caller gives it up (computeMetricsWithSession). A
    // trace kept is read by the session after the metrics, in one step, when the metrics' working
    // memory is gone.
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
        MetricsWithSession both = computeMetricsWithSession(std::move(*releasable), options);
        file.analysis = analysisReport(*both.session, analysisOptions, *both.metrics);
        both.session.reset(); // before the model it borrows moves
        file.metrics = std::move(*both.metrics);
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

AnalysisSession::Reading computeMetricsAndReading(Trace&& trace, Metrics& into, const MetricsOptions& options)
{
    std::optional<AnalysisSession::Reading> reading;
    MetricsInputs inputs;
    inputs.eventsRead = [&](const EngineStates& states, const ParModel& model, const SparkPoolTransfers& transfers) {
        reading.emplace(trace, AnalysisInputs { &states, &model, &transfers });
        trace.releaseEvents();
    };
    into = computeMetrics(trace, options, inputs);
    if (!reading)
        throw std::logic_error("computeMetricsAndReading: the metrics never said their events were read");
    return std::move(*reading);
}

MetricsWithSession computeMetricsWithSession(Trace&& trace, const MetricsOptions& options)
{
    MetricsWithSession out;
    out.metrics = std::make_unique<Metrics>();
    AnalysisSession::Reading reading = computeMetricsAndReading(std::move(trace), *out.metrics, options);
    // The metrics' passes were the top pieces' only readers: the index goes before the DAG is built
    // beside the model (the peak of `metrics` on our runtime's traces, and of `analyze` through the
    // what-if; docs/performance.md).
    out.metrics->model.releaseTopPieces();
    // The metrics' passes leave freed small blocks (the sweep's queues, per-thread buffers; ~170 MB
    // on the 13 M-event demo parfib) that glibc keeps for reuse; the DAG's arrays come from fresh
    // pages beside them. Handing them back first lowers the session's peak (docs/performance.md).
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
    out.session = std::make_unique<AnalysisSession>(
        std::move(reading), AnalysisInputs { &out.metrics->engineStates, &out.metrics->model });
    return out;
}

AnalysisReport analysisReportReleasing(MetricsWithSession& both, const AnalysisOptions& options)
{
    if (!options.whatIf || !options.whatIf->scales.empty()) // scales are read through the model
        return analysisReport(*both.session, options, *both.metrics);
    AnalysisOptions withoutWhatIf = options;
    withoutWhatIf.whatIf.reset();
    AnalysisReport report = analysisReport(*both.session, withoutWhatIf, *both.metrics);
    both.session->releaseModelForWhatIf([&] { both.metrics.reset(); });
    both.session->addWhatIf(report.analysis, *options.whatIf);
    summarisePredictions(report);
    return report;
}

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
