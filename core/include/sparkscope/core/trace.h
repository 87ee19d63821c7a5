#pragma once
// Trace: a decoded eventlog. It owns the (decompressed) bytes of the file, the header's event-type
// table, and every event as an Event handle, split per engine and stably sorted by time within each
// engine (files are not sorted; GHC even writes some events out of order inside a block). A trace
// read by readTraceCompact (compact_trace.h) holds GHC's payload-free spark events as 8-byte marks
// instead (`marks`); forEachEngineEvent walks an engine with them.
// Events outside blocks, and in blocks of the global buffer (cap 0xFFFF), live in `global`.
// A global time-ordered view is a k-way merge: forEachInTimeOrder.
//
// Immutable once read; safe to share between threads for reading.
#include "sparkscope/core/event.h"
#include "sparkscope/core/event_marks.h"

#include <cassert>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace sparkscope::core {

// One declaration of the header's event-type table, kept byte for byte so a writer can reproduce it.
struct EventTypeDecl {
    uint16_t number = 0;
    uint16_t size = 0; // payload size, or kVariableSize
    std::string description;
    std::string extra; // the "extra info" bytes (Mercury: extension records)

    bool isVariable() const noexcept { return size == kVariableSize; }
};

struct Header {
    std::vector<EventTypeDecl> types; // in file order

    const EventTypeDecl* find(uint16_t number) const noexcept;
    // Mercury extension record: the GHC event this one extends (e.g. 114 -> 38), or -1.
    int extends(uint16_t number) const noexcept;
};

// A problem that did not stop reading (truncation, a block whose size lies, ...).
struct Warning {
    std::string message;
    uint64_t byteOffset = 0;
};

enum class Compression { None, Gzip, Zstd, Bzip2 };

// The payload of `e` inside `stream` (the decoded stream its offset indexes); empty when the stream
// does not hold all of it.
inline Payload payloadIn(std::span<const uint8_t> stream, const Event& e) noexcept
{
    if (e.endOffset() > stream.size())
        return {};
    return Payload(stream.subspan(e.payloadOffset(), e.payloadSize));
}

class Trace {
public:
    std::string path; // as given to the reader ("<memory>" for buffers)
    uint64_t fileSize = 0; // bytes on disk (compressed size for compressed input)
    Compression compression = Compression::None;
    Header header;
    std::vector<Warning> warnings;
    bool truncated = false; // the stream ended before DATA_END

    // Index = engine number; each stably sorted by time. As many as the engines that post events or,
    // when more, as STARTUP declares (up to kMaxDeclaredEngines): a declared engine that posts nothing
    // was idle throughout, and every per-engine figure counts it.
    std::vector<std::vector<Event>> engines;
    std::vector<Event> global; // no engine; stably sorted by time
    // Per engine, the events held as marks (event_marks.h) rather than in `engines`: empty unless the
    // trace was read by readTraceCompact. Passes that read mark types walk forEachEngineEvent.
    std::vector<EngineMarks> marks;

    // The decoded stream (header included): Event::offset indexes into it.
    std::span<const uint8_t> bytes() const noexcept
    {
        return { m_bytes ? m_bytes->data() : nullptr, m_bytes ? m_bytes->size() : 0 };
    }
    void setBytes(std::shared_ptr<const std::vector<uint8_t>> bytes) { m_bytes = std::move(bytes); }

    Payload payload(const Event& e) const noexcept { return payloadIn(bytes(), e); }

    size_t eventCount() const noexcept; // marks included
    bool hasMarks() const noexcept;
    size_t engineCount() const noexcept { return engines.size(); }

    // Frees the events and the bytes, keeping everything else (path, sizes, header, warnings, the
    // engine count, the time span): for a one-shot caller that has run every pass reading events and
    // still has model-only work to do (the CLI's metrics and analyze; docs/performance.md, "Big
    // traces"). Afterwards the trace has no events.
    void releaseEvents() noexcept;
    // Time span, set by the reader: the earliest event time, and the latest of event times and
    // block end times (0 and 0 for an empty trace).
    uint64_t firstTimeNs = 0;
    uint64_t lastTimeNs = 0;

    // Calls f(const Event&) for every event in global time order (ties: global first, then by
    // engine number, then file order). O(n log k) for k engines.
    template <class F> void forEachInTimeOrder(F&& f) const;

private:
    std::shared_ptr<const std::vector<uint8_t>> m_bytes;
};

} // namespace sparkscope::core

#include "sparkscope/core/trace_merge.h"

namespace sparkscope::core {

// Calls f(const Event&) for every event of `engine` in its order, marks included (each as the Event it
// stands for, at its place among the engine's Events). Without marks, a loop over trace.engines[engine].
template <class F> void forEachEngineEvent(const Trace& trace, size_t engine, F&& f)
{
    const std::vector<Event>& events = trace.engines[engine];
    const EngineMarks* m
        = engine < trace.marks.size() && !trace.marks[engine].marks.empty() ? &trace.marks[engine] : nullptr;
    if (!m) {
        for (const Event& e : events)
            f(e);
        return;
    }
    size_t k = 0;
    auto mark = m->marks.begin();
    auto marksUpTo = [&](uint64_t n) {
        for (; k < n; ++k, ++mark)
            f(mark->event(uint16_t(engine)));
    };
    assert(m->before.size() == events.size()); // one entry per Event (event_marks.h)
    for (size_t i = 0; i < events.size(); ++i) {
        marksUpTo(m->before[i]);
        f(events[i]);
    }
    marksUpTo(m->marks.size());
}

} // namespace sparkscope::core
