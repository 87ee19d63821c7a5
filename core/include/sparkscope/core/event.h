#pragma once
// Event: one decoded event record. It is a small fixed-size handle (24 bytes) into the trace's
// byte buffer: fields are decoded on demand from the payload (see EventFields in event_fields.h),
// so a 10-million-event trace costs ~240 MB of handles on top of its bytes, not a tree of objects.
#include "sparkscope/core/byte_order.h"
#include "sparkscope/core/event_types.h"

#include <cstdint>
#include <span>

namespace sparkscope::core {

struct Event {
    uint64_t timeNs = 0; // as written; GHC: since RTS start, Mercury/SparkScope: since trace start
    uint64_t offset = 0; // byte offset of the event's first byte (its type number) in the stream
    uint16_t type = 0; // event number
    uint16_t engine = kNoEngine; // from the enclosing block marker; kNoEngine outside blocks
    uint16_t payloadSize = 0; // payload bytes (after the u16 length for variable-size events)
    uint8_t headerSize = 10; // 10 for fixed-size events, 12 for variable-size ones
    uint8_t flags = 0; // reserved

    uint64_t payloadOffset() const noexcept { return offset + headerSize; }
    uint64_t endOffset() const noexcept { return payloadOffset() + payloadSize; }
    bool hasEngine() const noexcept { return engine != kNoEngine; }
};
static_assert(sizeof(Event) == 24);

// A bounds-checked big-endian view of one event's payload. Reading past the end yields 0, which is
// how shorter (older) layouts of an event read their missing trailing fields.
class Payload {
public:
    Payload() = default;
    explicit Payload(std::span<const uint8_t> bytes)
        : m_bytes(bytes)
    {
    }
    size_t size() const noexcept { return m_bytes.size(); }
    std::span<const uint8_t> bytes() const noexcept { return m_bytes; }
    uint8_t u8(size_t at) const noexcept { return at + 1 <= m_bytes.size() ? m_bytes[at] : 0; }
    uint16_t u16(size_t at) const noexcept { return at + 2 <= m_bytes.size() ? loadBE16(&m_bytes[at]) : 0; }
    uint32_t u32(size_t at) const noexcept { return at + 4 <= m_bytes.size() ? loadBE32(&m_bytes[at]) : 0; }
    uint64_t u64(size_t at) const noexcept { return at + 8 <= m_bytes.size() ? loadBE64(&m_bytes[at]) : 0; }
    // Bytes [at, end) as text (no decoding; callers escape for display).
    std::string_view text(size_t at) const noexcept
    {
        if (at >= m_bytes.size())
            return {};
        return { reinterpret_cast<const char*>(m_bytes.data() + at), m_bytes.size() - at };
    }

private:
    std::span<const uint8_t> m_bytes;
};

} // namespace sparkscope::core
