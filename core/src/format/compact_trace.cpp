// readTraceCompact and foldMarks (compact_trace.h).
#include "sparkscope/core/compact_trace.h"

#include "sparkscope/core/decompressed_file.h"
#include "sparkscope/core/reader.h"

#include "format/kept_events.h"

#include <filesystem>
#include <fstream>
#include <optional>

namespace sparkscope::core {

namespace {

    // An engine's marks grow as its events are handed out; `before` gets an entry per kept Event.
    void addMark(std::vector<EngineMarks>& marks, uint16_t engine, const Event& e)
    {
        if (engine >= marks.size())
            marks.resize(size_t(engine) + 1);
        marks[engine].marks.emplace_back(e);
    }

    void noteKept(std::vector<EngineMarks>& marks, uint16_t engine)
    {
        if (engine >= marks.size())
            marks.resize(size_t(engine) + 1);
        marks[engine].before.push_back(marks[engine].marks.size());
    }

    // An engine without marks needs no `before` either (forEachEngineEvent then loops over its Events).
    void trim(std::vector<EngineMarks>& marks, size_t engines)
    {
        marks.resize(engines);
        for (EngineMarks& m : marks) {
            if (m.marks.empty())
                std::vector<uint64_t>().swap(m.before);
            m.marks.shrink_to_fit();
            m.before.shrink_to_fit();
        }
    }

    // The first `endBytes` of `path` read whole as a finished stream (DATA_END appended, as the
    // follower reads a trace being written), or the whole file.
    Result<Trace> readWhole(const std::string& path, uint64_t endBytes, const ReadOptions& options)
    {
        if (endBytes == UINT64_MAX)
            return readTrace(path, options);
        std::ifstream in(path, std::ios::binary);
        std::vector<uint8_t> bytes(endBytes);
        in.read(reinterpret_cast<char*>(bytes.data()), std::streamsize(endBytes));
        if (!in || uint64_t(in.gcount()) != endBytes)
            return Error { ErrorCode::Io, "cannot read the first " + std::to_string(endBytes) + " bytes of " + path,
                std::nullopt };
        bytes.push_back(0xFF);
        bytes.push_back(0xFF);
        auto trace = readTraceFromBytes(std::move(bytes), options, path);
        if (trace)
            trace->fileSize = endBytes;
        return trace;
    }

    // The compact trace of `path` by streaming it (Unsupported when it is compressed: it cannot be
    // mapped), or nullopt when it must be read whole: its events come later than the stream's
    // hold-back (its order would not be readTrace's).
    Result<std::optional<Trace>> streamCompact(const std::string& path, const StreamOptions& options)
    {
        detail::KeptEvents kept;
        std::vector<EngineMarks> marks;
        auto streamed = streamTrace(
            path,
            [&](const StreamBatch& batch) {
                for (const Event& e : batch.events) {
                    if (batch.engine != kNoEngine && Mark::fits(e)) {
                        addMark(marks, batch.engine, e);
                        continue;
                    }
                    const bool keptIt = kept.keep(batch.engine, e, batch.stream);
                    if (keptIt && batch.engine != kNoEngine)
                        noteKept(marks, batch.engine);
                }
            },
            options);
        if (!streamed)
            return streamed.error();
        if (streamed->lateEvents > 0)
            return std::optional<Trace> {};
        Trace trace = std::move(kept).into(std::move(streamed.value().summary));
        trim(marks, trace.engineCount());
        trace.marks = std::move(marks);
        return std::optional<Trace>(std::move(trace));
    }

} // namespace

uint64_t compactMetricsBytes(const Trace& trace)
{
    uint64_t marks = 0;
    for (const EngineMarks& m : trace.marks)
        marks += m.marks.size();
    return compactMetricsBytes(trace.eventCount(), marks);
}

void foldMarks(Trace& trace)
{
    if (trace.hasMarks())
        return; // folded already
    std::vector<EngineMarks> marks(trace.engineCount());
    for (size_t engine = 0; engine < trace.engineCount(); ++engine) {
        std::vector<Event>& events = trace.engines[engine];
        EngineMarks& m = marks[engine];
        size_t kept = 0;
        for (const Event& e : events) {
            if (Mark::fits(e)) {
                m.marks.emplace_back(e);
            } else {
                m.before.push_back(m.marks.size());
                events[kept++] = e;
            }
        }
        events.resize(kept);
        events.shrink_to_fit();
    }
    trim(marks, trace.engineCount());
    trace.marks = std::move(marks);
}

namespace {

    // The whole read a compact read falls back to, its marks folded.
    Result<Trace> readWholeFolded(const std::string& path, const StreamOptions& options)
    {
        ReadOptions read;
        read.cancel = options.cancel;
        read.progress = options.progress;
        auto whole = readWhole(path, options.endBytes, read);
        if (whole)
            foldMarks(whole.value());
        return whole;
    }

} // namespace

Result<Trace> readTraceCompact(const DecompressedFile& copy, const StreamOptions& options)
{
    auto streamed = streamCompact(copy.path(), options);
    if (!streamed)
        return streamed.error();
    if (streamed.value()) {
        copy.nameAfterSource(*streamed.value());
        return std::move(*streamed.value());
    }
    // Its events come late: read whole (from the copy, no second decompression), as below.
    auto whole = readWholeFolded(copy.path(), options);
    if (whole)
        copy.nameAfterSource(whole.value());
    return whole;
}

Result<Trace> readTraceCompact(const std::string& path, const StreamOptions& options)
{
    auto streamed = streamCompact(path, options);
    if (!streamed && streamed.error().code == ErrorCode::Unsupported && options.endBytes == UINT64_MAX) {
        // Compressed: streamed from a decompressed copy, unless the copy cannot be made (a full
        // disk, no temporary directory, a damaged stream): then read whole below, which says what is
        // wrong in its own words, as when only a part is asked for (a followed file is never
        // compressed).
        auto copy = DecompressedFile::create(path, options.cancel);
        if (copy)
            return readTraceCompact(*copy.value(), options);
        if (copy.error().code == ErrorCode::Cancelled)
            return copy.error();
    }
    if (!streamed && streamed.error().code == ErrorCode::Unsupported)
        streamed = std::optional<Trace> {};
    if (!streamed)
        return streamed.error();
    if (streamed.value())
        return std::move(*streamed.value());
    // Read whole: what the stream kept is gone by now (streamCompact's), so the peak is the whole
    // read's alone.
    return readWholeFolded(path, options);
}

} // namespace sparkscope::core
