#pragma once
// Writing eventlogs. EventlogWriter produces a valid file event by event: the header (event types
// with descriptions and extra-info bytes), per-engine blocks with back-patched block markers, and
// big-endian payloads. writeTrace re-encodes a decoded Trace (header verbatim, events in blocks).
// mercuryHeader() is the header SparkScope's runtime declares: Mercury's event set with Mercury's
// descriptions and extension records, STOP_THREAD in GHC's current 10-byte form.
#include "sparkscope/core/result.h"
#include "sparkscope/core/trace.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace sparkscope::core {

// Builds one event's payload in big-endian order.
class PayloadBuilder {
public:
    PayloadBuilder& u8(uint8_t v);
    PayloadBuilder& u16(uint16_t v);
    PayloadBuilder& u32(uint32_t v);
    PayloadBuilder& u64(uint64_t v);
    PayloadBuilder& bytes(std::span<const uint8_t> v);
    PayloadBuilder& text(std::string_view v); // raw, no terminator
    PayloadBuilder& cstring(std::string_view v); // NUL-terminated
    const std::vector<uint8_t>& data() const noexcept { return m_bytes; }
    std::span<const uint8_t> span() const noexcept { return m_bytes; }

private:
    std::vector<uint8_t> m_bytes;
};

// The bytes from "hdrb" up to and including "datb".
std::vector<uint8_t> encodeHeader(const Header& header);

// The header SparkScope's runtime writes (see the file comment).
Header mercuryHeader();

// EventlogWriter: builds a whole eventlog in memory. The header is encoded on construction (a
// header without BLOCK_MARKER gets it added); events go into the open block, or outside blocks when
// none is open. Invariants: every written event's type is declared and a fixed-size payload has
// exactly the declared size; a block's size counts its 24-byte marker. Not thread-safe (one writer
// per thread). Cost: amortised O(payload) per event, one growing vector; finish() moves it out.
class EventlogWriter {
public:
    explicit EventlogWriter(Header header);

    // Opens a block for `engine` (kNoEngine = the global buffer) at time `timeNs`; closes any open one.
    void beginBlock(uint16_t engine, uint64_t timeNs);
    // Closes the open block, back-patching its size and end time. No-op when none is open.
    void endBlock(uint64_t endTimeNs);
    // Appends one event. Returns false (and writes nothing) if the type is undeclared or the payload
    // size contradicts a fixed declared size.
    bool event(uint16_t type, uint64_t timeNs, std::span<const uint8_t> payload);
    // Closes any open block, appends DATA_END and returns the whole file.
    std::vector<uint8_t> finish();
    // As finish(), but DATA_END goes inside the open block (counted in its size), as GHC writes its
    // global buffer at shutdown.
    std::vector<uint8_t> finishInsideBlock(uint64_t endTimeNs);

    // Makes room for `bytes` bytes of output in total (an optimisation; never required).
    void reserve(size_t bytes) { m_out.reserve(bytes); }
    // Bytes written so far (header included).
    size_t size() const noexcept { return m_out.size(); }
    // The engine of the open block, or std::nullopt when no block is open.
    std::optional<uint16_t> openBlockEngine() const noexcept
    {
        return m_blockStart == SIZE_MAX ? std::nullopt : std::optional<uint16_t>(m_blockEngine);
    }
    const Header& header() const noexcept { return m_header; }

private:
    Header m_header;
    std::vector<uint8_t> m_out;
    size_t m_blockStart = SIZE_MAX;
    uint16_t m_blockEngine = kNoEngine;
    uint64_t m_blockLastTimeNs = 0; // latest event time in the open block (its default end time)
    std::vector<int32_t> m_sizes; // declared size by event number; -1 when not declared
};

// Re-encodes a decoded trace: its header verbatim, then each engine's events in blocks.
std::vector<uint8_t> writeTrace(const Trace& trace);

Result<bool> writeFile(const std::string& path, std::span<const uint8_t> bytes);

} // namespace sparkscope::core
