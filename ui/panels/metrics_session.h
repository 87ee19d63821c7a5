#pragma once
// MetricsSession: the metrics of the trace on screen, computed in the background (QtConcurrent) by
// core::computeMetrics — the same function `sparkscope-cli metrics` calls — once per trace, plus a
// second result for the current "view" options (the selected time range and the call-sequence count
// typed into the summary panel), recomputed when those change. The newest request wins (LatestJob):
// results of superseded computations are dropped. Panels listen to fullReady / viewReady and fill in then.
//
// The full result also carries a ParEventIndex (event -> instance lookup) so hover responses are a
// binary search. A view is computed with the full result's engine states, CPUs curve and model lent
// to computeMetrics (core::MetricsInputs), so a view holds only its report: its model, states and
// curves are empty (panels read only the report of a view).
//
// The analysis (core/findings.h: ledger, work and span, critical path, findings) is computed in the
// background too, after the full metrics, from the same states and model: an AnalysisSession and
// the whole trace's report, then — cheaply, from that session — the report of the view's range with
// the view's metrics. File > Export Metrics writes these metrics and reports; it never computes on
// the GUI thread. Results are immutable and shared (std::shared_ptr<const ...>); GUI thread only.
//
// A file read for its metrics (setTraceFile: a streamed trace, whose events the viewer does not hold)
// is computed as `sparkscope-cli metrics` computes it (core::computeMetricsAndReading): its events
// are let go once the metrics' and the analysis' passes over them are done, before the descendant
// pass and the analysis' DAG, and the trace is not kept. A view reads the file again for its own
// computation (one view's read at a time), so only a view's own read ever sits beside the DAG and
// the what-if's graph (docs/performance.md, "The app's metrics of a streamed trace: the events let go").
#include "sparkscope/core/decompressed_file.h"
#include "sparkscope/core/findings.h"
#include "sparkscope/core/metrics.h"
#include "sparkscope/core/metrics_query.h"
#include "sparkscope/core/trace.h"
#include "ui/util/latest_job.h"

#include <QObject>

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace sparkscope::ui {

struct MetricsBundle {
    core::Metrics metrics;
    core::ParEventIndex index;
    bool conjunctionEvents = true; // false for GHC eventlogs: no conjunctions or futures
    double computeMs = 0;
};

// The analysis of the trace on screen: a session over the full metrics' states and model (kept alive
// by `full`), and the whole trace's report. It reads no event after it is built.
struct AnalysisBundle {
    std::shared_ptr<const MetricsBundle> full;
    std::shared_ptr<const core::AnalysisSession> session; // borrows full->metrics' states and model
    std::shared_ptr<const core::AnalysisReport> whole;
};

class MetricsSession : public QObject {
    Q_OBJECT
public:
    explicit MetricsSession(QObject* parent = nullptr);

    // A new trace (or none): drops every result and starts computing the full metrics.
    void setTrace(std::shared_ptr<const core::Trace> trace);
    // A trace whose events the viewer does not hold (a streamed one): drops every result, and reads
    // `path` again in the background with core::readTraceCompact — the way sparkscope-cli metrics reads
    // it — to compute the full metrics from (its first `endBytes` only: a followed trace's complete
    // part), as the CLI computes them, the trace not kept (each view reads the file again); if the
    // read fails, the session becomes unavailable with its error.
    //
    // A followed trace's next part while the metrics of an earlier part of the same file are still
    // being computed waits for them (and their analysis) to finish, then the newest part is read: a
    // trace that grows faster than its metrics compute still shows metrics, a step behind.
    // `copy`: a compressed trace's decompressed copy, the viewer's, which is read instead of
    // decompressing `path` a second time (the metrics still name `path`).
    void setTraceFile(const std::string& path, uint64_t endBytes = UINT64_MAX,
        std::shared_ptr<const core::DecompressedFile> copy = nullptr);
    // A followed file's newer part waits for the results of this one (setTraceFile): those are
    // of a part, not of what is on screen.
    bool hasNewerPart() const noexcept { return m_nextEnd.has_value(); }
    // Whether the metrics are being read from a file (setTraceFile) and it is not read yet.
    bool isLoading() const noexcept { return !m_file.empty() && !m_full && m_unavailable.isEmpty(); }
    // Whether there is a trace to compute from: one set (setTrace), or a file's, read (setTraceFile).
    bool hasTrace() const noexcept { return m_trace || m_full; }
    // The trace the session holds: setTrace's; null for a file's, which is never kept.
    std::shared_ptr<const core::Trace> heldTrace() const { return m_trace; }
    // The whole-trace metrics (null until ready).
    std::shared_ptr<const MetricsBundle> full() const { return m_full; }
    // The metrics for the view options (the full ones while none is set; null until ready).
    std::shared_ptr<const core::Metrics> view() const { return m_view; }
    // The metrics for exactly these options' range and call count, when they are computed: the full
    // ones for the whole trace without a call count, else the view's when the view was computed for
    // them; else null (setRange and setCallCount to them, and wait for viewReady).
    std::shared_ptr<const core::Metrics> metricsFor(const core::MetricsOptions& options) const;
    const core::MetricsOptions& viewOptions() const { return m_viewOptions; }
    // The analysis of the whole trace (null until ready).
    std::shared_ptr<const AnalysisBundle> analysis() const { return m_analysis; }
    // The analysis report of [fromNs, toNs) when it is ready: the whole trace's for the whole range
    // (0, UINT64_MAX), the view's when the view's range is that range; else null (setRange to it and
    // wait for analysisReady).
    std::shared_ptr<const core::AnalysisReport> analysisFor(uint64_t fromNs, uint64_t toNs) const;

    // Restricts the view metrics to [fromNs, toNs) (nullopt: the whole trace).
    void setRange(std::optional<std::pair<uint64_t, uint64_t>> range);
    // The sequential call-sequence count for NANOSECS_PER_CALL (nullopt or 0: absent).
    void setCallCount(std::optional<uint64_t> count);

    // Why there are no metrics although a trace is open (a streamed trace), or "" (see setTrace).
    const QString& unavailable() const noexcept { return m_unavailable; }
    // No trace to compute from, and why: the panels say so instead of "open a trace".
    void setUnavailable(const QString& why);

Q_SIGNALS:
    void unavailableSet(); // setUnavailable: no computation will come
    void computing();
    void fullReady();
    void viewReady();
    // A view could not be computed (its file, read again, changed or went): the view is the whole
    // trace's again, `why` says what happened, and later views of that trace fail the same way.
    void viewFailed(const QString& why);
    void analysisReady(); // the whole trace's analysis, or the view's, is ready

private:
    // Where a file's trace is read from, each time: setTraceFile's path, end and decompressed copy.
    struct FileSource {
        std::string path;
        uint64_t endBytes = UINT64_MAX; // a followed file's complete part; else the whole file
        std::shared_ptr<const core::DecompressedFile> copy;
        // The file read first (device and inode; none for a decompressed copy, which never changes),
        // and how many bytes that read read.
        std::optional<std::pair<uint64_t, uint64_t>> identity;
        uint64_t bytesRead = UINT64_MAX;
        // The first and last 64 KiB of what the first read read, as they were then: a file
        // rewritten in place keeps its inode, and often its size and its events' count and span.
        std::string sample;
        // The trace: the first read, or a view's read of what it read (the whole file, as the first
        // read read it, while its size is the same; only the bytes the first read read if it grew).
        std::shared_ptr<core::Trace> read(const std::atomic<bool>* stop, std::string& error) const;
        // Why the file cannot give what the first read gave (another file by that name now,
        // shorter than what was read, or other bytes where the sample was taken), or "".
        std::string changed() const;
    };

    void clear();
    // Starts the full metrics of m_trace, or else of m_source's file.
    void startFull();
    void startView();
    // The session is built from `reading` (a file's, whose events are gone), or else from m_trace.
    void startAnalysis(std::shared_ptr<core::AnalysisSession::Reading> reading = nullptr);
    void startViewAnalysis();
    void failView(const QString& why);
    bool viewHasRange() const { return m_viewOptions.fromNs != 0 || m_viewOptions.toNs != UINT64_MAX; }

    void startNextPart();

    std::shared_ptr<const core::Trace> m_trace; // setTrace's (a file's is not kept)
    std::optional<FileSource> m_source; // setTraceFile's
    QString m_unavailable;
    QString m_viewError; // why no view of m_source's file can be computed: it changed since it was read
    std::string m_file; // setTraceFile's path, while its metrics are computed or shown
    std::optional<uint64_t> m_nextEnd; // a later part of m_file to read once the current one is done
    std::shared_ptr<const MetricsBundle> m_full;
    std::shared_ptr<const core::Metrics> m_view;
    core::MetricsOptions m_viewOptions;
    core::MetricsOptions m_viewComputedFor; // the options m_view was computed for
    std::shared_ptr<const AnalysisBundle> m_analysis;
    std::shared_ptr<const core::AnalysisReport> m_viewAnalysis; // of m_viewOptions' range, when it has one
    // One view's read of the file at a time: a superseded view job runs to its end (nothing can stop
    // computeMetrics), and its read would otherwise sit beside the next one's.
    std::shared_ptr<std::timed_mutex> m_viewReads = std::make_shared<std::timed_mutex>();
    // The full metrics (null, with the error, when the file could not be read); for a file, the
    // analysis' reading of its events, from which the session is built, and the source as read.
    struct FullResult {
        std::shared_ptr<const MetricsBundle> bundle;
        std::shared_ptr<core::AnalysisSession::Reading> reading;
        std::optional<FileSource> source;
        std::string error;
    };
    // A view's metrics and, when the analysis session was ready at its start, its range's analysis;
    // or why a read of the file failed.
    struct ViewResult {
        std::shared_ptr<const core::Metrics> metrics;
        std::shared_ptr<const core::AnalysisReport> analysis;
        std::string error;
        bool changed = false; // the error is that the file changed: no later view can be computed
    };
    LatestJob<FullResult> m_fullJob { this };
    LatestJob<ViewResult> m_viewJob { this };
    LatestJob<std::shared_ptr<const AnalysisBundle>> m_analysisJob { this };
    LatestJob<std::shared_ptr<const core::AnalysisReport>> m_viewAnalysisJob { this };
};

} // namespace sparkscope::ui
