#include "ui/loading/trace_follower.h"

#include "ui/loading/trace_loader.h"

#include <sys/stat.h>

#include <fstream>

namespace sparkscope::ui {

namespace {

    // Reads the whole file; nullopt when it cannot be read.
    std::optional<std::vector<uint8_t>> readAll(const std::string& path)
    {
        std::ifstream in(path, std::ios::binary);
        if (!in)
            return std::nullopt;
        in.seekg(0, std::ios::end);
        const auto size = in.tellg();
        if (size < 0)
            return std::nullopt;
        in.seekg(0);
        std::vector<uint8_t> bytes(static_cast<size_t>(size));
        in.read(reinterpret_cast<char*>(bytes.data()), size);
        bytes.resize(static_cast<size_t>(in.gcount())); // the file may have changed under us: keep what came
        return bytes;
    }

    constexpr uint64_t kSampleBytes = 4096;

    // `n` bytes of the file from `at` (fewer where it ends).
    std::vector<uint8_t> readAt(std::ifstream& in, uint64_t at, uint64_t n)
    {
        std::vector<uint8_t> bytes(n);
        in.clear();
        in.seekg(std::streamoff(at));
        in.read(reinterpret_cast<char*>(bytes.data()), std::streamsize(n));
        bytes.resize(size_t(std::max<std::streamsize>(in.gcount(), 0)));
        return bytes;
    }

} // namespace

std::optional<TraceFollower::ReadSample> TraceFollower::sample(const std::string& path, uint64_t readBytes)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return std::nullopt;
    ReadSample s;
    s.head = readAt(in, 0, std::min(readBytes, kSampleBytes));
    s.tailAt = readBytes - std::min(readBytes, kSampleBytes);
    s.tail = readAt(in, s.tailAt, readBytes - s.tailAt);
    return s;
}

bool TraceFollower::unchanged(const std::string& path, const ReadSample& s)
{
    std::ifstream in(path, std::ios::binary);
    return in && readAt(in, 0, s.head.size()) == s.head && readAt(in, s.tailAt, s.tail.size()) == s.tail;
}

// A trace of followStreamThresholdBytes or more (trace_data.h): its complete part is
// found by walking the mapped file a window at a time, and the streaming pass kept from the update
// before (`streamer`) goes on over the blocks appended since, so an update costs the new bytes plus
// the snapshot's indexes, not the whole file again.
TraceFollower::Update TraceFollower::streamedUpdate(
    const std::string& path, Update u, std::shared_ptr<TraceDataStreamer> streamer, JobControl& control)
{
    const core::CompletePrefix from = u.prefix;
    uint64_t fileBytes = 0;
    auto prefix = core::completePrefixOfFile(path, from, fileBytes);
    if (!prefix) {
        u.error = QStringLiteral("cannot read the file");
        return u;
    }
    u.file.size = fileBytes;
    u.prefix = *prefix;
    u.streamer = streamer;
    if (u.prefix.bytes <= std::max(from.bytes, u.prefix.dataStart) && !(u.prefix.ended && !from.ended))
        return u; // no new complete block (or only the header)
    if (!streamer || streamer->position() > u.prefix.bytes)
        streamer = std::make_shared<TraceDataStreamer>(path); // the first streamed update: from the start
    u.streamer = nullptr; // spent if the advance fails
    if (auto failed = streamer->advance(u.prefix.bytes, control.stopFlag())) {
        if (failed->code != core::ErrorCode::Cancelled)
            u.error = QString::fromStdString(failed->toString());
        return u;
    }
    u.data = streamer->snapshot();
    if (auto shrank = streamer->fileShrank()) {
        u.data = nullptr;
        u.error = QString::fromStdString(shrank->toString());
        return u;
    }
    u.streamer = std::move(streamer);
    u.warnings = traceWarnings(*u.data);
    return u;
}

TraceFollower::TraceFollower(QObject* parent)
    : QObject(parent)
{
    m_timer.setInterval(kPollMs);
    connect(&m_timer, &QTimer::timeout, this, &TraceFollower::poll);
    connect(&m_watcher, &QFileSystemWatcher::fileChanged, this, &TraceFollower::poll);
}

std::optional<TraceFollower::FileId> TraceFollower::stat(const QString& path)
{
    struct stat st { };
    if (::stat(path.toLocal8Bit().constData(), &st) != 0)
        return std::nullopt;
    return FileId { uint64_t(st.st_dev), uint64_t(st.st_ino), uint64_t(st.st_size) };
}

void TraceFollower::follow(const QString& path)
{
    stop();
    m_path = path;
    m_following = true;
    m_shownFirst = false;
    m_due = false;
    m_file.reset();
    m_prefix = {};
    m_streamer.reset();
    m_sample.reset();
    m_shownBytes = 0;
    m_streamFromBytes = followStreamThresholdBytes(); // read here, on the GUI thread, not by each job
    m_watcher.addPath(path);
    m_timer.start();
    poll();
}

void TraceFollower::stop()
{
    m_timer.stop();
    if (!m_watcher.files().isEmpty())
        m_watcher.removePaths(m_watcher.files());
    m_job.cancel();
    m_following = false;
}

void TraceFollower::fail(const QString& message)
{
    stop();
    Q_EMIT stopped(message);
}

void TraceFollower::poll()
{
    if (!m_following)
        return;
    if (m_job.isRunning()) {
        m_due = true;
        return;
    }
    const auto id = stat(m_path);
    if (!id) {
        if (m_file)
            fail(tr("%1 disappeared while it was followed; showing what was read").arg(m_path));
        else
            fail(tr("Cannot follow %1: there is no such file").arg(m_path));
        return;
    }
    if (m_file) {
        if (id->device != m_file->device || id->inode != m_file->inode) {
            fail(tr("%1 was replaced by another file while it was followed; showing what was read from the first "
                    "(%2 bytes)")
                     .arg(m_path)
                     .arg(m_shownBytes));
            return;
        }
        if (id->size < m_prefix.bytes) {
            fail(tr("%1 shrank to %2 bytes while it was followed (%3 bytes had been read); showing what was read")
                     .arg(m_path)
                     .arg(id->size)
                     .arg(m_prefix.bytes));
            return;
        }
        if (id->size == m_file->size)
            return; // nothing new
    }
    // The watcher drops a path when the file is replaced or re-created: watch it again.
    if (m_watcher.files().isEmpty())
        m_watcher.addPath(m_path);
    startJob(*id);
}

void TraceFollower::startJob(FileId id)
{
    const std::string path = m_path.toStdString();
    const core::CompletePrefix from = m_prefix;
    // The kept streaming pass goes with the job and comes back with its result: a job cancelled or
    // failed leaves none, and the next streamed update starts over.
    std::shared_ptr<TraceDataStreamer> streamer = std::move(m_streamer);
    m_job.start(
        [path, from, id, streamer, streamFrom = m_streamFromBytes, before = m_sample](JobControl& control) {
            Update u;
            u.prefix = from;
            u.file = id;
            // What was read must still be there, byte for byte, for the new blocks to continue it.
            if (before && !unchanged(path, *before)) {
                u.rewritten = true;
                return u;
            }
            u = id.size >= streamFrom ? streamedUpdate(path, std::move(u), streamer, control)
                                      : wholeUpdate(path, std::move(u), control);
            if (u.data)
                u.sample = sample(path, u.prefix.bytes);
            return u;
        },
        [this](Update u) { onJobDone(std::move(u)); });
}

// A trace below followStreamThresholdBytes: read whole, and its complete part decoded again.
TraceFollower::Update TraceFollower::wholeUpdate(const std::string& path, Update u, JobControl& control)
{
    const core::CompletePrefix from = u.prefix;
    auto bytes = readAll(path);
    if (!bytes) {
        u.error = QStringLiteral("cannot read the file");
        return u;
    }
    u.file.size = bytes->size();
    u.prefix = core::completePrefix(*bytes, from);
    if (u.prefix.bytes <= std::max(from.bytes, u.prefix.dataStart) && !(u.prefix.ended && !from.ended))
        return u; // no new complete block (or only the header)
    auto data = readTraceDataPart(std::move(*bytes), u.prefix.bytes, u.prefix.ended, path, control.stopFlag());
    if (!data) {
        if (data.error().code != core::ErrorCode::Cancelled)
            u.error = QString::fromStdString(data.error().toString());
        return u;
    }
    u.data = std::move(data).value();
    if (u.data)
        u.warnings = traceWarnings(*u.data);
    return u;
}

void TraceFollower::onJobDone(Update u)
{
    if (u.rewritten) {
        fail(tr("%1 was rewritten while it was followed (the bytes read before are not there any more); showing "
                "what was read before")
                 .arg(m_path));
        return;
    }
    if (!u.error.isEmpty()) {
        fail(tr("Following %1 stopped: %2; showing what was read").arg(m_path, u.error));
        return;
    }
    m_file = u.file;
    m_prefix = u.prefix;
    m_streamer = std::move(u.streamer);
    if (u.sample)
        m_sample = std::move(u.sample);
    if (u.data) {
        m_shownBytes = u.prefix.bytes;
        const bool first = !m_shownFirst;
        m_shownFirst = true;
        Q_EMIT updated(u.data, first, u.warnings);
    }
    Q_EMIT checked(u.file.size, m_shownBytes);
    if (m_prefix.damage) {
        fail(tr("Following %1 stopped: %2; showing the %3 bytes before it")
                 .arg(m_path, QString::fromStdString(m_prefix.damage->toString()))
                 .arg(m_prefix.bytes));
        return;
    }
    if (m_prefix.ended) {
        stop();
        Q_EMIT finished();
        return;
    }
    if (m_due) {
        m_due = false;
        poll();
    }
}

} // namespace sparkscope::ui
