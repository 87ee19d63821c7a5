#include "ui/panels/metrics_session.h"

#include "sparkscope/core/compact_trace.h"
#include "sparkscope/core/metrics_export.h"

#include <QElapsedTimer>

#include <algorithm>
#include <chrono>
#include <fstream>

#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <sys/stat.h>

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
    m_source.reset();
    m_viewError.clear();
    m_full.reset();
    m_view.reset();
    m_viewOptions = {};
    m_viewComputedFor = {};
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
        startFull();
}

namespace {
    // The device and inode of `path`, and its size in `size` (nullopt: it is not there).
    std::optional<std::pair<uint64_t, uint64_t>> fileIdentity(const std::string& path, uint64_t* size = nullptr)
    {
        struct stat st { };
        if (::stat(path.c_str(), &st) != 0)
            return std::nullopt;
        if (size)
            *size = uint64_t(st.st_size);
        return std::pair<uint64_t, uint64_t>(uint64_t(st.st_dev), uint64_t(st.st_ino));
    }

    // The first and the last 64 KiB of the file's first `bytes` bytes (all of them when fewer than
    // 128 KiB), as they are now; shorter when the file is. A writer that rewrites a trace in place
    // changes its header or its events' times there: timestamps are in every block.
    std::string contentSample(const std::string& path, uint64_t bytes)
    {
        constexpr uint64_t kEach = 64 * 1024;
        std::ifstream in(path, std::ios::binary);
        std::string out;
        const auto take = [&](uint64_t from, uint64_t count) {
            std::string part(count, '\0');
            in.seekg(std::streamoff(from));
            in.read(part.data(), std::streamsize(count));
            part.resize(size_t(std::max<std::streamsize>(in.gcount(), 0)));
            in.clear();
            out += part;
        };
        if (bytes <= 2 * kEach) {
            take(0, bytes);
        } else {
            take(0, kEach);
            take(bytes - kEach, kEach);
        }
        return out;
    }
} // namespace

std::shared_ptr<core::Trace> MetricsSession::FileSource::read(const std::atomic<bool>* stop, std::string& error) const
{
    core::StreamOptions options;
    options.cancel = stop;
    options.endBytes = endBytes;
    // A whole file read before: as it was read then (an end makes the reader take the stream as
    // finished, which would drop a truncation warning), unless it grew since.
    uint64_t size = 0;
    if (endBytes == UINT64_MAX && bytesRead != UINT64_MAX && !copy && fileIdentity(path, &size) && size != bytesRead)
        options.endBytes = bytesRead;
    auto trace = copy ? core::readTraceCompact(*copy, options) : core::readTraceCompact(path, options);
    if (!trace) {
        error = trace.error().toString();
        return nullptr;
    }
    return std::make_shared<core::Trace>(std::move(trace).value());
}

std::string MetricsSession::FileSource::changed() const
{
    if (copy || !identity)
        return {};
    uint64_t size = 0;
    const auto now = fileIdentity(path, &size);
    if (!now)
        return "the file is gone";
    if (*now != *identity)
        return "the file was replaced since its metrics were computed: open it again";
    if (size < std::min(endBytes, bytesRead))
        return "the file is shorter than when its metrics were computed: open it again";
    if (contentSample(path, std::min(endBytes, bytesRead)) != sample)
        return "the file was rewritten since its metrics were computed: open it again";
    return {};
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
    m_source.emplace();
    m_source->path = path;
    m_source->endBytes = endBytes;
    m_source->copy = std::move(copy);
    startFull();
}

void MetricsSession::startFull()
{
    m_fullJob.start(
        [held = m_trace, source = m_source](JobControl& job) -> FullResult {
            QElapsedTimer timer;
            timer.start();
            FullResult out;
            auto bundle = std::make_shared<MetricsBundle>();
            if (held) {
                bundle->metrics = core::computeMetrics(*held);
                bundle->conjunctionEvents = core::declaresConjunctionEvents(*held);
            } else {
                out.source = source;
                if (!source->copy)
                    out.source->identity = fileIdentity(source->path);
                std::shared_ptr<core::Trace> read = source->read(job.stopFlag(), out.error);
                if (!read || job.stopRequested())
                    return out;
                bundle->conjunctionEvents = core::declaresConjunctionEvents(*read);
                out.source->bytesRead = read->fileSize;
                if (!source->copy)
                    out.source->sample = contentSample(source->path, std::min(source->endBytes, read->fileSize));
                // As the CLI: the events go once the metrics' and the analysis' passes over them
                // are done, before the descendant pass (and, in startAnalysis, the DAG).
                out.reading = std::make_shared<core::AnalysisSession::Reading>(
                    core::computeMetricsAndReading(std::move(*read), bundle->metrics));
                read.reset();
            }
            if (job.stopRequested())
                return out;
            bundle->index = core::ParEventIndex::build(bundle->metrics.model);
            bundle->computeMs = double(timer.nsecsElapsed()) / 1e6;
            out.bundle = std::move(bundle);
            return out;
        },
        [this](FullResult full) {
            if (!full.bundle) {
                const std::optional<uint64_t> next = m_nextEnd;
                const std::string file = m_file;
                setUnavailable(tr("No metrics: %1").arg(QString::fromStdString(full.error)));
                if (next) // a newer part of a followed file may read where this one did not
                    setTraceFile(file, *next);
                return;
            }
            if (full.source)
                m_source = std::move(full.source);
            m_full = std::move(full.bundle);
            Q_EMIT fullReady();
            startView();
            startAnalysis(std::move(full.reading));
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
    if (!m_full)
        return; // started again when the full metrics are ready
    const bool plain = !m_viewOptions.callCount && !viewHasRange();
    if (plain) {
        m_view = std::shared_ptr<const core::Metrics>(m_full, &m_full->metrics);
        m_viewComputedFor = m_viewOptions;
        Q_EMIT viewReady();
        return;
    }
    if (!m_viewError.isEmpty()) { // the file cannot be read as it was: no read again per selection
        failView(m_viewError);
        return;
    }
    // The view borrows the whole-trace engine states, CPUs curve and model (the bundle is kept alive
    // by the capture): no second model in memory, and no second model pass, per selection. Its
    // analysis, from the session built once, costs one ledger sweep and the range's longest paths.
    // A file's trace, not kept, is read again for the view's passes over its events, and let go after.
    m_viewJob.start(
        [held = m_trace, source = m_source, reads = m_viewReads, options = m_viewOptions, full = m_full,
            analysis = m_analysis, range = viewHasRange()](JobControl& job) {
            ViewResult out;
            const core::Metrics& whole = full->metrics;
            core::MetricsInputs inputs { &whole.engineStates, &whole.cpusOverTime, &whole.model, {} };
            if (held) {
                out.metrics = std::make_shared<core::Metrics>(core::computeMetrics(*held, options, inputs));
            } else {
                // A superseded view waiting here gives up; the lock goes with the read's events.
                std::unique_lock<std::timed_mutex> one(*reads, std::defer_lock);
                while (!one.try_lock_for(std::chrono::milliseconds(50)))
                    if (job.stopRequested())
                        return out;
                if (job.stopRequested())
                    return out;
                // The model the view borrows must be this trace's: a file replaced since is refused
                // (by its inode, size and sampled bytes; then by what the read holds).
                out.error = source->changed();
                if (!out.error.empty()) {
                    out.changed = true;
                    return out;
                }
                std::shared_ptr<core::Trace> read = source->read(job.stopFlag(), out.error);
                if (!read || job.stopRequested())
                    return out;
                const core::TraceSummary& was = whole.trace;
                if (read->eventCount() != was.eventCount || read->engineCount() != was.engines
                    || read->firstTimeNs != was.firstNs || read->lastTimeNs != was.lastNs) {
                    out.error = "the file changed since its metrics were computed (" + std::to_string(was.eventCount)
                        + " events then, " + std::to_string(read->eventCount()) + " now): open it again";
                    out.changed = true;
                    return out;
                }
                // The events go as soon as the view's last pass over them is done (as in the CLI).
                inputs.eventsRead
                    = [&](const core::EngineStates&, const core::ParModel&, const core::SparkPoolTransfers&) {
                          read->releaseEvents();
                          one.unlock();
                      };
                out.metrics = std::make_shared<core::Metrics>(core::computeMetrics(*read, options, inputs));
            }
            if (analysis && range)
                out.analysis = std::make_shared<core::AnalysisReport>(
                    core::analysisReport(*analysis->session, analysisRange(options), *out.metrics));
            return out;
        },
        [this, options = m_viewOptions](ViewResult view) {
            if (!view.metrics) {
                const QString why = QString::fromStdString(view.error);
                if (view.changed)
                    m_viewError = why;
                failView(why);
                return;
            }
            m_view = std::move(view.metrics);
            m_viewComputedFor = options;
            m_viewAnalysis = std::move(view.analysis);
            Q_EMIT viewReady();
            // A listener may have set other options (a waiting export asks for its range): that newer
            // view brings its own analysis; this view's would be of the wrong metrics.
            if (m_viewJob.isRunning())
                return;
            if (m_viewAnalysis)
                Q_EMIT analysisReady();
            else if (m_analysis && viewHasRange())
                startViewAnalysis(); // the session became ready while this view was computed
        });
    Q_EMIT computing();
}

// Says why the view's options cannot be computed, first (a waiting export gives up on them), then
// shows the whole trace's metrics, which stay, with its analysis.
void MetricsSession::failView(const QString& why)
{
    Q_EMIT viewFailed(tr("No metrics for the selection: %1").arg(why));
    m_viewOptions = {};
    startView();
}

void MetricsSession::startAnalysis(std::shared_ptr<core::AnalysisSession::Reading> reading)
{
    m_analysisJob.start(
        [full = m_full, trace = m_trace, reading = std::move(reading)](
            JobControl& job) -> std::shared_ptr<const AnalysisBundle> {
            if (job.stopRequested()) // another trace was opened: its work comes first
                return nullptr;
            auto bundle = std::make_shared<AnalysisBundle>();
            bundle->full = full;
            const core::AnalysisInputs inputs { &full->metrics.engineStates, &full->metrics.model };
            if (reading) {
#if defined(__GLIBC__)
                // As the CLI does before its DAG (computeMetricsWithSession): the metrics' passes left
                // freed blocks that glibc keeps; the DAG's arrays would come from fresh pages beside them.
                malloc_trim(0);
#endif
                bundle->session = std::make_shared<const core::AnalysisSession>(std::move(*reading), inputs);
            } else {
                bundle->session = std::make_shared<const core::AnalysisSession>(*trace, inputs);
            }
            if (job.stopRequested())
                return nullptr;
            bundle->whole
                = std::make_shared<core::AnalysisReport>(core::analysisReport(*bundle->session, {}, full->metrics));
            return bundle;
        },
        [this](std::shared_ptr<const AnalysisBundle> analysis) {
            if (!analysis) // (stopped: only a job superseded stops, and its result is not delivered)
                return;
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
    const core::MetricsOptions view = m_viewOptions; // the selection, or the live range, stays
    setTraceFile(std::string(m_file), end);
    m_viewOptions = view;
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

std::shared_ptr<const core::Metrics> MetricsSession::metricsFor(const core::MetricsOptions& o) const
{
    if (!m_full)
        return nullptr;
    // A call count of 0 is none (setCallCount).
    const uint64_t count = o.callCount.value_or(0);
    if (o.fromNs == 0 && o.toNs == UINT64_MAX && count == 0 && !o.instances)
        return std::shared_ptr<const core::Metrics>(m_full, &m_full->metrics);
    const core::MetricsOptions& v = m_viewComputedFor;
    if (m_view && !o.instances && o.fromNs == v.fromNs && o.toNs == v.toNs && count == v.callCount.value_or(0))
        return m_view;
    return nullptr;
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
