#pragma once
// KeptEvents: events picked out of a streaming pass (trace_stream.h), each record copied into a
// buffer of their own, so that what is kept outlives the pass's window of the file: what cutFile and
// readTraceCompact keep.
#include "sparkscope/core/trace.h"

#include <algorithm>
#include <memory>
#include <span>
#include <vector>

namespace sparkscope::core::detail {

class KeptEvents {
public:
    // Copies e's record out of `stream` (an event whose record the stream does not hold is dropped).
    // Returns whether it was kept.
    bool keep(uint16_t engine, Event e, std::span<const uint8_t> stream)
    {
        if (e.endOffset() > stream.size())
            return false;
        // What is kept is at most the stream: reserved once, so the buffer is never copied as it grows
        // (untouched capacity is address space, not memory) and needs no shrinking after.
        if (m_bytes->capacity() == 0)
            m_bytes->reserve(stream.size());
        const uint64_t at = m_bytes->size();
        m_bytes->insert(m_bytes->end(), stream.begin() + long(e.offset), stream.begin() + long(e.endOffset()));
        e.offset = at;
        if (engine == kNoEngine) {
            m_global.push_back(e);
        } else {
            if (engine >= m_engines.size())
                m_engines.resize(size_t(engine) + 1);
            m_engines[engine].push_back(e);
        }
        return true;
    }

    // How many events of `engine` have been kept so far.
    size_t count(uint16_t engine) const noexcept { return engine < m_engines.size() ? m_engines[engine].size() : 0; }

    // `summary` (streamTrace's trace without events) with the kept events and their bytes.
    Trace into(Trace summary) &&
    {
        m_engines.resize(std::max(m_engines.size(), summary.engineCount()));
        summary.engines = std::move(m_engines);
        summary.global = std::move(m_global);
        summary.setBytes(std::move(m_bytes));
        return summary;
    }

private:
    std::shared_ptr<std::vector<uint8_t>> m_bytes = std::make_shared<std::vector<uint8_t>>();
    std::vector<std::vector<Event>> m_engines;
    std::vector<Event> m_global;
};

} // namespace sparkscope::core::detail
