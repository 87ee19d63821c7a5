#pragma once
// Marks: payload-free events held in 8 bytes each rather than as a 24-byte Event handle plus their
// 10 bytes of stream. GHC posts one SPARK_CREATE, SPARK_RUN, SPARK_FIZZLE, SPARK_GC, SPARK_OVERFLOW
// or SPARK_DUD per spark event, none with a payload: in a spark-heavy GHC log they are 99.9 % of the
// events (parfib-4-37: 10.8 M of 10.8 M), and what the metrics read of them is their engine, type and
// time. readTraceCompact (compact_trace.h) holds them as marks, so a 2 GB log's metrics fit in a few
// GB (docs/performance.md, "Metrics of big traces").
//
// Only the types isMarkType names become marks, and every pass that reads one of those types walks
// an engine with forEachEngineEvent (trace.h), which hands each mark out as an Event in its place.
#include "sparkscope/core/event.h"
#include "sparkscope/core/event_types.h"

#include <array>
#include <cstdint>
#include <deque>
#include <vector>

namespace sparkscope::core {

class Mark {
public:
    // The types that may be marks, in the order of their 3-bit code.
    static constexpr std::array<uint16_t, 6> kTypes
        = { ev::SparkCreate, ev::SparkDud, ev::SparkOverflow, ev::SparkRun, ev::SparkFizzle, ev::SparkGc };
    static constexpr uint64_t kMaxTimeNs = (uint64_t(1) << 61) - 1; // the time takes the low 61 bits

    // Whether `e` can be held as a mark: a payload-free event of a mark type, at a time that fits.
    static bool fits(const Event& e) noexcept { return e.payloadSize == 0 && e.timeNs <= kMaxTimeNs && code(e.type) >= 0; }

    // `e` must fit.
    explicit Mark(const Event& e) noexcept
        : m_bits(e.timeNs | uint64_t(code(e.type)) << 61)
    {
    }
    uint64_t timeNs() const noexcept { return m_bits & kMaxTimeNs; }
    uint16_t type() const noexcept { return kTypes[m_bits >> 61]; }

    // The mark as the Event handle it stands for: no payload, and no place in a stream (offset 0).
    Event event(uint16_t engine) const noexcept
    {
        Event e;
        e.timeNs = timeNs();
        e.type = type();
        e.engine = engine;
        return e;
    }

private:
    static constexpr int code(uint16_t type) noexcept
    {
        for (size_t i = 0; i < kTypes.size(); ++i)
            if (kTypes[i] == type)
                return int(i);
        return -1;
    }
    uint64_t m_bits;
};
static_assert(sizeof(Mark) == 8);

// The marks of one engine, and where they go among its Events: its event order is the order a whole
// read gives (marks and Events interleaved), which passes with ties at one time rely on. A deque, not
// a vector: marks are most of a big trace, and a vector's growth would hold its old and new arrays
// together (1.5x its size at each doubling) and copy them; a deque grows by 512-byte blocks.
struct EngineMarks {
    std::deque<Mark> marks; // in the engine's order
    std::vector<uint64_t> before; // before[i]: how many marks come before the engine's i-th Event
};

} // namespace sparkscope::core
