#pragma once
// StreamedEvents: the events of a trace opened by streaming (trace_stream.h), which the viewer does
// not hold: a window of one engine's events is decoded again from the file when the timeline zooms
// in far enough to draw them. Only the blocks that overlap the window are read, a block fully inside
// it is counted from the extents without decoding, and the last few windows are kept (LRU), so
// panning over a few blocks decodes each block once.
//
// Thread safety: window() may be called from any thread (one mutex guards the cache).
#include "sparkscope/core/decompressed_file.h"
#include "sparkscope/core/trace_stream.h"

#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace sparkscope::ui {

// Events of one engine inside a window of time, sorted, and the trace their payloads are in.
struct EventWindow {
    std::shared_ptr<const core::Trace> trace;
    std::span<const core::Event> events;
};

class StreamedEvents {
public:
    // `copy`: the decompressed copy `path` names when the trace is compressed (kept alive here).
    StreamedEvents(std::string path, core::Header header, std::vector<std::vector<core::BlockExtent>> blocks,
        uint64_t eventCount, uint64_t markCount, uint64_t endBytes = UINT64_MAX,
        std::shared_ptr<const core::DecompressedFile> copy = nullptr);

    uint64_t eventCount() const noexcept { return m_eventCount; }
    // How many of them a compact read holds as marks (core::Mark::fits): what its metrics would cost.
    uint64_t markCount() const noexcept { return m_markCount; }
    // The part of the file streamed (StreamOptions::endBytes): all of it, or a followed trace's
    // complete part.
    uint64_t endBytes() const noexcept { return m_endBytes; }
    const std::string& path() const noexcept { return m_path; }
    // Where each engine's events lie in the file, and which times they hold.
    const std::vector<std::vector<core::BlockExtent>>& blocks() const noexcept { return m_blocks; }

    // The engine's events with time in [fromNs, toNs), or nullopt when more than `limit` fall in it
    // (decided from the extents when whole blocks lie inside), or the file cannot be read again.
    std::optional<EventWindow> window(size_t engine, int64_t fromNs, int64_t toNs, size_t limit) const;

    // Bytes of the decoded blocks the cache holds (for tests and the memory figures).
    size_t cachedBytes() const;

private:
    struct Decoded {
        size_t engine = 0;
        size_t firstBlock = 0, lastBlock = 0; // [first, last] indexes into m_blocks[engine]
        std::shared_ptr<const core::Trace> trace;
    };
    std::shared_ptr<const core::Trace> decode(size_t engine, size_t first, size_t last) const;

    std::string m_path;
    std::shared_ptr<const core::DecompressedFile> m_copy; // what m_path reads, for a compressed trace
    core::Header m_header;
    std::vector<std::vector<core::BlockExtent>> m_blocks;
    uint64_t m_eventCount = 0;
    uint64_t m_markCount = 0;
    uint64_t m_endBytes = UINT64_MAX;
    mutable std::mutex m_mutex;
    mutable std::list<Decoded> m_cache; // most recent first
};

} // namespace sparkscope::ui
