#include "ui/loading/streamed_events.h"

#include <algorithm>

namespace sparkscope::ui {

namespace {
    constexpr size_t kCachedWindowsPerEngine = 2; // a frame asks one window per engine
    // A window whose extents hold more than this is not decoded, whatever the caller's limit: at any
    // zoom where it could matter, the extents inside the window hold more events than can be drawn.
    constexpr uint64_t kMaxDecodeBytes = uint64_t(64) << 20;
}

StreamedEvents::StreamedEvents(
    std::string path, core::Header header, std::vector<std::vector<core::BlockExtent>> blocks, uint64_t eventCount,
    uint64_t markCount, uint64_t endBytes, std::shared_ptr<const core::DecompressedFile> copy)
    : m_path(std::move(path))
    , m_copy(std::move(copy))
    , m_header(std::move(header))
    , m_blocks(std::move(blocks))
    , m_eventCount(eventCount)
    , m_markCount(markCount)
    , m_endBytes(endBytes)
{
}

std::optional<EventWindow> StreamedEvents::window(size_t engine, int64_t fromNs, int64_t toNs, size_t limit) const
{
    if (engine >= m_blocks.size() || toNs <= fromNs)
        return EventWindow {};
    const auto& blocks = m_blocks[engine];
    const uint64_t from = uint64_t(std::max<int64_t>(0, fromNs)), to = uint64_t(std::max<int64_t>(0, toNs));
    // The overlapping blocks are a run in file order (an engine's blocks follow each other in time,
    // give or take the few events GHC writes late); take the span from the first to the last.
    size_t first = SIZE_MAX, last = 0;
    uint64_t inside = 0, decodeBytes = 0;
    for (size_t i = 0; i < blocks.size(); ++i) {
        const core::BlockExtent& b = blocks[i];
        if (b.events == 0 || b.lastNs < from || b.firstNs >= to)
            continue;
        first = std::min(first, i);
        last = i;
        if (b.firstNs >= from && b.lastNs < to)
            inside += b.events;
        decodeBytes += b.bytes;
    }
    if (first == SIZE_MAX)
        return EventWindow {};
    if (inside > limit || decodeBytes > kMaxDecodeBytes)
        return std::nullopt;

    std::shared_ptr<const core::Trace> trace = decode(engine, first, last);
    if (!trace)
        return std::nullopt;
    const auto& events = trace->engines[engine];
    auto timeLess = [](const core::Event& e, uint64_t t) { return e.timeNs < t; };
    const auto a = std::lower_bound(events.begin(), events.end(), from, timeLess);
    const auto b = std::lower_bound(a, events.end(), to, timeLess);
    if (size_t(b - a) > limit)
        return std::nullopt;
    return EventWindow { trace, std::span<const core::Event>(events.data() + (a - events.begin()), size_t(b - a)) };
}

std::shared_ptr<const core::Trace> StreamedEvents::decode(size_t engine, size_t first, size_t last) const
{
    std::lock_guard lock(m_mutex);
    for (auto it = m_cache.begin(); it != m_cache.end(); ++it)
        if (it->engine == engine && it->firstBlock == first && it->lastBlock == last) {
            m_cache.splice(m_cache.begin(), m_cache, it);
            return it->trace;
        }
    auto trace = core::decodeBlocks(m_path, m_header, uint16_t(engine),
        std::span<const core::BlockExtent>(m_blocks[engine]).subspan(first, last - first + 1));
    if (!trace)
        return nullptr; // the file changed or went away: no ticks rather than wrong ones
    m_cache.push_front({ engine, first, last, std::make_shared<const core::Trace>(std::move(trace).value()) });
    if (m_cache.size() > std::max<size_t>(8, kCachedWindowsPerEngine * m_blocks.size()))
        m_cache.pop_back();
    return m_cache.front().trace;
}

size_t StreamedEvents::cachedBytes() const
{
    std::lock_guard lock(m_mutex);
    size_t n = 0;
    for (const Decoded& d : m_cache)
        n += d.trace->bytes().size() + d.trace->eventCount() * sizeof(core::Event);
    return n;
}

} // namespace sparkscope::ui
