#include "ui/panels/metrics_session.h"

#include "sparkscope/core/compact_trace.h"

#include <QElapsedTimer>

namespace sparkscope::ui {

namespace {
    // The analysis of the range the metrics were computed for (no instances, no what-if).
    core::AnalysisOptions analysisRange(const core::MetricsOptions& metrics)
    {
        core::AnalysisOptions options;
        options.fromNs = metrics.fromNs;
        options.toNs = metrics.toNs;
        return options;
    }
} // namespace

MetricsSession::MetricsSession(QObject* parent)
    : QObject(parent)
{
}

void MetricsSession::setUnavailable(const QString& why)
{
    clear();
    m_unavailable = why;
    Q_EMIT unavailableSet();
}

void MetricsSession::clear()
{
    m_unavailable.clear();
    m_file.clear();
    m_nextEnd.reset();
    m_trace.reset();
    m_full.reset();
    m_view.reset();
    m_viewOptions = {};
    m_analysis.reset();
    m_viewAnalysis.reset();
    // Every computation in flight is about the previous trace now.
    m_fullJob.cancel();
    m_viewJob.cancel();
    m_analysisJob.cancel();
    m_viewAnalysisJob.cancel();
}

void MetricsSession::setTrace(std::shared_ptr<const core::Trace> trace)
{
    clear();
    m_trace = std::move(trace);
    if (m_trace)
        startFull([trace = m_trace](const std::atomic<bool>*, std::string&) { return trace; });
}

void MetricsSession::setTraceFile(
    const std::string& path, uint64_t endBytes, std::shared_ptr<const core::DecompressedFile> copy)
{
    if (path == m_file && (m_fullJob.isRunning() || m_analysisJob.isRunning())) {
        m_nextEnd = endBytes;
        return;
    }
    clear();
    m_file = path;
    startFull([path, endBytes, copy](
                  const std::atomic<bool>* stop, std::string& error) -> std::shared_ptr<const core::Trace> {
        core::StreamOptions options;
        options.cancel = stop;
        options.endBytes = endBytes;
        auto read = copy ? core::readTraceCompact(*copy, options) : core::readTraceCompact(path, options);
        if (!read) {
            error = read.error().toString();
            return nullptr;
        }
        return std::make_shared<const core::Trace>(std::move(read).value());
    });
}

void MetricsSession::startFull(
    std::function<std::shared_ptr<const core::Trace>(const std::atomic<bool>* stop, std::string& error)> load)
{
    m_fullJob.start(
        [load = std::move(load)](JobControl& job) -> std::shared_ptr<const MetricsBundle> {
            QElapsedTimer timer;
            timer.start();
            auto bundle = std::make_shared<MetricsBundle>();
            bundle->trace = load(job.stopFlag(), bundle->error);
            if (!bundle->trace || job.stopRequested())
                return bundle;
            bundle->metrics = core::computeMetrics(*bundle->trace);
            bundle->index = core::ParEventIndex::build(bundle->metrics.model);
            bundle->conjunctionEvents = core::declaresConjunctionEvents(*bundle->trace);
            bundle->computeMs = double(timer.nsecsElapsed()) / 1e6;
            return bundle;
        },
        [this](std::shared_ptr<const MetricsBundle> full) {
            if (!full->trace) {
                const std::optional<uint64_t> next = m_nextEnd;
                const std::string file = m_file;
                setUnavailable(tr("No metrics: %1").arg(QString::fromStdString(full->error)));
                if (next) // a newer part of a followed file may read where this one did not
                    setTraceFile(file, *next);
                return;
            }
            m_trace = full->trace;
            m_full = std::move(full);
            Q_EMIT fullReady();
            startView();
            startAnalysis();
        });
    Q_EMIT computing();
}

void MetricsSession::setRange(std::optional<std::pair<uint64_t, uint64_t>> range)
{
    const uint64_t from = range ? range->first : 0, to = range ? range->second : UINT64_MAX;
    if (from == m_viewOptions.fromNs && to == m_viewOptions.toNs)
        return;
    m_viewOptions.fromNs = from;
    m_viewOptions.toNs = to;
    startView();
}

void MetricsSession::setCallCount(std::optional<uint64_t> count)
{
    if (count && *count == 0)
        count.reset();
    if (count == m_viewOptions.callCount)
        return;
    m_viewOptions.callCount = count;
    startView();
}

void MetricsSession::startView()
{
    m_viewJob.cancel();
    m_viewAnalysisJob.cancel(); // the view's analysis belongs to the view's options
    m_viewAnalysis.reset();
    if (!m_trace || !m_full)
        return; // started again when the full metrics are ready
    const bool plain = !m_viewOptions.callCount && !viewHasRange();
    if (plain) {
        m_view = std::shared_ptr<const core::Metrics>(m_full, &m_full->metrics);
        Q_EMIT viewReady();
        return;
    }
    // The view borrows the whole-trace engine states, CPUs curve and model (the bundle is kept alive
    // by the capture): no second model in memory, and no second model pass, per selection. Its
    // analysis, from the session built once, costs one ledger sweep and the range's longest paths.
    m_viewJob.start(
        [trace = m_trace, options = m_viewOptions, full = m_full, analysis = m_analysis, range = viewHasRange()] {
            const core::Metrics& whole = full->metrics;
            const core::MetricsInputs inputs { &whole.engineStates, &whole.cpusOverTime, &whole.model, {} };
            ViewResult out;
            out.metrics = std::make_shared<core::Metrics>(core::computeMetrics(*trace, options, inputs));
            if (analysis && range)
                out.analysis = std::make_shared<core::AnalysisReport>(
                    core::analysisReport(*analysis->session, analysisRange(options), *out.metrics));
            return out;
        },
        [this](ViewResult view) {
            m_view = std::move(view.metrics);
            m_viewAnalysis = std::move(view.analysis);
            Q_EMIT viewReady();
            if (m_viewAnalysis)
                Q_EMIT analysisReady();
            else if (m_analysis && viewHasRange())
                startViewAnalysis(); // the session became ready while this view was computed
        });
    Q_EMIT computing();
}

void MetricsSession::startAnalysis()
{
    m_analysisJob.start(
        [full = m_full]() -> std::shared_ptr<const AnalysisBundle> {
            auto bundle = std::make_shared<AnalysisBundle>();
            bundle->full = full;
            const core::AnalysisInputs inputs { &full->metrics.engineStates, &full->metrics.model };
            bundle->session = std::make_unique<const core::AnalysisSession>(*full->trace, inputs);
            bundle->whole
                = std::make_shared<core::AnalysisReport>(core::analysisReport(*bundle->session, {}, full->metrics));
            return bundle;
        },
        [this](std::shared_ptr<const AnalysisBundle> analysis) {
            m_analysis = std::move(analysis);
            Q_EMIT analysisReady();
            if (viewHasRange() && m_view && !m_viewJob.isRunning() && !m_viewAnalysis)
                startViewAnalysis(); // else the view in flight analyses its range when it is done
            startNextPart();
        });
}

// A followed file's newer part, held back while this one was computed (setTraceFile).
void MetricsSession::startNextPart()
{
    if (!m_nextEnd)
        return;
    const uint64_t end = *m_nextEnd;
    m_nextEnd.reset();
    setTraceFile(std::string(m_file), end);
}

// The analysis of a view computed before the session was ready: from the view's metrics.
void MetricsSession::startViewAnalysis()
{
    m_viewAnalysisJob.start(
        [analysis = m_analysis, view = m_view, options = m_viewOptions] {
            return std::shared_ptr<const core::AnalysisReport>(std::make_shared<core::AnalysisReport>(
                core::analysisReport(*analysis->session, analysisRange(options), *view)));
        },
        [this](std::shared_ptr<const core::AnalysisReport> report) {
            m_viewAnalysis = std::move(report);
            Q_EMIT analysisReady();
        });
}

std::shared_ptr<const core::AnalysisReport> MetricsSession::analysisFor(uint64_t fromNs, uint64_t toNs) const
{
    if (fromNs == 0 && toNs == UINT64_MAX)
        return m_analysis ? m_analysis->whole : nullptr;
    if (fromNs == m_viewOptions.fromNs && toNs == m_viewOptions.toNs)
        return m_viewAnalysis;
    return nullptr;
}

} // namespace sparkscope::ui
