#pragma once
// TraceFollower: follows a trace that is still being written (File > Follow…, `sparkscope --follow`).
//
// Design: a QFileSystemWatcher says when the file changes, and a timer polls every kPollMs as well
// (watchers miss changes on some file systems and coalesce others), so a new block is seen within
// kPollMs + the time to index. Each time the file has grown, a background job (LatestJob; one at a
// time, a poll during a job only marks that another is due) reads the file, finds its complete
// part with core::completePrefix (whole blocks; a block still being written is waited for, never
// reported), decodes that part as a finished stream (a DATA_END is appended) and builds the
// TraceData for it, which `updated` hands to the window. The window swaps it in whole, so every view
// and the metrics see one consistent snapshot.
//
// Memory: one snapshot's TraceData (the trace as when opened normally) plus, while a job runs, the
// file's bytes and the next snapshot: about twice the normal figure at the moment of the swap. CPU:
// each update re-decodes and re-indexes the whole complete part (about 0.35-0.6 s per 100 MB);
// updates coalesce, so a fast writer costs at most one core, and the view lags by one update at
// worst. That is why whole reads stop at followStreamThresholdBytes (64 MiB): past it, an update
// would take more than the second a new block may wait to be shown.
//
// A file of followStreamThresholdBytes or more is followed the streamed way, and incrementally: its
// complete part is found by walking the mapped file (completePrefixOfFile, from where the last walk
// stopped), and one streaming pass (TraceDataStreamer) is kept from update to
// update and goes on over the appended blocks only. Each update's snapshot copies the pass's state
// runs and builds the pyramid from them, so it costs O(new bytes + state runs), not a pass over
// the file; memory is what opening it streamed takes, plus one snapshot's indexes. The metrics
// come from a compact read of the part (MetricsPanels::showStreamed), which is O(trace) and
// coalesces: they lag while the timeline keeps up.
//
// Bad input stops following with a message and keeps what was shown: a damaged block (an
// impossible size, an undeclared event, events that overrun their block), a file that shrinks below
// what was read, a file replaced by another (a different inode), a file that disappears or cannot
// be read. DATA_END ends following normally (`finished`). GUI thread only.
#include "sparkscope/core/complete_prefix.h"
#include "ui/loading/trace_data.h"
#include "ui/util/latest_job.h"

#include <QFileSystemWatcher>
#include <QObject>
#include <QString>
#include <QStringList>
#include <QTimer>

#include <memory>
#include <optional>
#include <vector>

namespace sparkscope::ui {

class TraceFollower : public QObject {
    Q_OBJECT
public:
    static constexpr int kPollMs = 200;

    explicit TraceFollower(QObject* parent = nullptr);

    // Starts following `path` (stops following any other file first).
    void follow(const QString& path);
    // Stops following; what was shown stays.
    void stop();
    bool isFollowing() const { return m_following; }
    QString path() const { return m_path; }
    // Bytes of the file read and shown so far (the complete part).
    uint64_t shownBytes() const { return m_shownBytes; }
    // The size from which this file is followed streamed (followStreamThresholdBytes when following began).
    uint64_t streamFromBytes() const { return m_streamFromBytes; }

Q_SIGNALS:
    // A newer complete part is indexed; `first` for the first one of this file. `warnings` are the
    // reader's (a damaged block inside the complete part, ...).
    void updated(std::shared_ptr<const sparkscope::ui::TraceData> data, bool first, const QStringList& warnings);
    // A look at the file finished: it had `fileBytes` bytes, `shownBytes` of them complete and shown.
    // (Tests wait for it to know a partly written block was seen and left waiting.)
    void checked(quint64 fileBytes, quint64 shownBytes);
    // The trace reached DATA_END: it is complete, following stopped.
    void finished();
    // Following stopped because of bad input; `message` says what and where. What was read stays.
    void stopped(const QString& message);

private:
    struct FileId {
        uint64_t device = 0, inode = 0, size = 0;
    };
    // Bytes of the file already read: its first ones and those just before the end of what was read.
    // A file rewritten in place (a program run again with the same output file) keeps its identity,
    // and passes its old size between two looks; its bytes differ there (a new run's times do).
    struct ReadSample {
        std::vector<uint8_t> head;
        uint64_t tailAt = 0;
        std::vector<uint8_t> tail;
    };
    static std::optional<ReadSample> sample(const std::string& path, uint64_t readBytes);
    static bool unchanged(const std::string& path, const ReadSample& sample);

    struct Update {
        core::CompletePrefix prefix;
        std::shared_ptr<const TraceData> data; // null when the complete part did not grow
        QStringList warnings;
        QString error; // the file could not be read
        bool rewritten = false; // the bytes already read differ now
        FileId file;
        std::shared_ptr<TraceDataStreamer> streamer; // a streamed update's pass, to go on from
        std::optional<ReadSample> sample; // of what this update read
    };

    void poll();
    void startJob(FileId id);
    static Update streamedUpdate(
        const std::string& path, Update u, std::shared_ptr<TraceDataStreamer> streamer, JobControl& control);
    static Update wholeUpdate(const std::string& path, Update u, JobControl& control);
    void onJobDone(Update update);
    void fail(const QString& message);
    static std::optional<FileId> stat(const QString& path);

    QFileSystemWatcher m_watcher;
    QTimer m_timer;
    QString m_path;
    bool m_following = false;
    bool m_shownFirst = false;
    bool m_due = false; // the file changed while a job ran
    std::optional<FileId> m_file; // identity and size when last read
    core::CompletePrefix m_prefix;
    uint64_t m_shownBytes = 0;
    uint64_t m_streamFromBytes = 0; // followStreamThresholdBytes when following began
    std::shared_ptr<TraceDataStreamer> m_streamer; // a streamed file's pass, between jobs
    std::optional<ReadSample> m_sample; // of what was read so far
    LatestJob<Update> m_job { this };
};

} // namespace sparkscope::ui
