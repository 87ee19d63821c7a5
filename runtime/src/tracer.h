#pragma once
// The runtime's eventlog tracer.
//
// Why this shape (after GHC's and Mercury's tracers): every engine owns a preallocated buffer that
// only its thread writes, so posting an event is a bounds check, a clock read and a few big-endian
// stores: no lock, no allocation, no system call. The buffer always starts with a reserved 24-byte
// block marker; when the buffer fills up (and at shutdown) the marker is back-patched with the
// block's size, end time and engine, and the whole block is written with one write(2) under the
// file mutex. The file is therefore always the header followed by whole blocks, so a program that
// is killed leaves a readable prefix. Start-up events, interned strings and annotations posted off
// the engines go through the global buffer (engine 0xFFFF), which is written immediately.
//
// Timestamps are nanoseconds since the runtime started. TraceClock uses the CPU's time-stamp
// counter when /proc/cpuinfo promises an invariant one (constant_tsc and nonstop_tsc), scaled by a
// ratio measured against steady_clock at start-up; otherwise steady_clock. rdtsc is far cheaper
// than clock_gettime, and every event reads the clock. The counters of two cores can disagree, so
// an engine's events never go back in time, and an event caused by another engine's (a steal of a
// spark) is stamped after it: otherwise a trace can show a spark stolen before it was created.
// (Figures behind both choices: docs/performance.md, "Runtime".)
//
// A failing write drops the block and sets a flag (failed()); it never aborts the program.
#include "sparkscope/core/byte_order.h"
#include "sparkscope/core/event_types.h"
#include "sparkscope/core/result.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace sparkscope::runtime::detail {

__extension__ typedef unsigned __int128 Uint128;

// Nanoseconds since construction. Thread-safe (immutable after construction).
class TraceClock {
public:
    // useTsc = false forces steady_clock (used by the benchmark to compare both).
    explicit TraceClock(bool allowTsc = true);
    uint64_t nowNs() const noexcept
    {
#if defined(__x86_64__)
        if (m_useTsc) {
            uint64_t delta = __rdtsc() - m_tsc0;
            return static_cast<uint64_t>((static_cast<Uint128>(delta) * m_mult) >> 32);
        }
#endif
        return static_cast<uint64_t>((std::chrono::steady_clock::now() - m_start).count());
    }

private:
    std::chrono::steady_clock::time_point m_start;
    uint64_t m_tsc0 = 0;
    uint64_t m_mult = 0; // ns per tick in 32.32 fixed point
    bool m_useTsc = false;
};

// The output file: header, then whole blocks. Thread-safe (one mutex around write(2)).
class TraceSink {
public:
    ~TraceSink();
    // Creates/truncates `path` and writes the header plus the global start-up block, whose
    // RTS_IDENTIFIER also gives the live-context limit (core::contextLimitOf reads it back) and the
    // engines' flush interval when there is one (core::flushMsOf).
    static core::Result<std::unique_ptr<TraceSink>> open(const std::string& path, unsigned engines,
        uint32_t contextLimit, const TraceClock& clock, uint64_t flushMs = 0);
    // Writes bytes (whole blocks) with write(2); on failure drops them and sets failed().
    void writeBlock(const uint8_t* data, size_t size) noexcept;
    // Posts one event into a block of the global buffer (engine 0xFFFF) and writes it now.
    void postGlobal(uint16_t type, uint64_t timeNs, const uint8_t* payload, size_t size, bool variable) noexcept;
    // The INTERN_STRING id of `text`, posting the string (time 0, as Mercury does) the first time.
    uint32_t intern(std::string_view text) noexcept;
    // Appends DATA_END; the sink accepts nothing after this.
    void finish() noexcept;
    bool failed() const noexcept { return m_failed.load(std::memory_order_relaxed); }
    const TraceClock& clock() const noexcept { return *m_clock; }
    const std::string& path() const noexcept { return m_path; }

private:
    TraceSink() = default;
    int m_fd = -1;
    std::string m_path;
    const TraceClock* m_clock = nullptr;
    std::mutex m_writeMutex;
    std::mutex m_internMutex;
    std::unordered_map<std::string, uint32_t> m_strings;
    uint32_t m_nextStringId = 1;
    std::atomic<bool> m_failed { false };
    bool m_finished = false;
};

// One engine's event buffer. Only the owning engine's thread may call it (no locks).
// Cost of an event: one clock read, two compares, ~3 stores; a flush every ~bufferBytes, or, with a
// flush interval, when an event comes that long after the block opened (before the event is written) (the engine's
// events then reach the file while the program runs: a followed trace shows them, docs/runtime.md).
class EngineTraceBuffer {
public:
    static constexpr size_t kMarkerBytes = 24;

    // flushIntervalNs 0: blocks are written when full (and at sleep and shutdown) only.
    EngineTraceBuffer(TraceSink& sink, uint16_t engine, size_t bytes, uint64_t flushIntervalNs = 0);
    ~EngineTraceBuffer();
    EngineTraceBuffer(const EngineTraceBuffer&) = delete;
    EngineTraceBuffer& operator=(const EngineTraceBuffer&) = delete;

    uint64_t now() const noexcept { return m_clock.nowNs(); }
    // Blocks are written at least every flush interval (SPARKSCOPE_TRACE_FLUSH_MS): the trace is
    // meant to be followed while it is written.
    bool flushesAtInterval() const noexcept { return m_flushIntervalNs != 0; }
    // The time stamped on the last event posted (0 before any).
    uint64_t lastNs() const noexcept { return m_lastNs; }

    void event0(uint16_t type) noexcept { begin(type, 0); }
    void event4(uint16_t type, uint32_t a) noexcept { core::storeBE32(begin(type, 4), a); }
    void event8(uint16_t type, uint64_t a) noexcept { core::storeBE64(begin(type, 8), a); }
    void event12(uint16_t type, uint64_t a, uint32_t b) noexcept
    {
        uint8_t* p = begin(type, 12);
        core::storeBE64(p, a);
        core::storeBE32(p + 8, b);
    }
    void event4x2(uint16_t type, uint32_t a, uint32_t b) noexcept
    {
        uint8_t* p = begin(type, 8);
        core::storeBE32(p, a);
        core::storeBE32(p + 4, b);
    }
    // SPARK_STEAL (115): victim engine u16, spark id u32; stamped after `createdNs`, the spark's
    // SPARK_CREATE on the victim.
    void sparkSteal(uint16_t victim, uint32_t sparkId, uint64_t createdNs) noexcept
    {
        uint8_t* p = begin(core::ev::MerSparkSteal, 6, createdNs + 1);
        core::storeBE16(p, victim);
        core::storeBE32(p + 2, sparkId);
    }
    // STOP_THREAD in GHC's 10-byte form: thread u32, status u16, info u32 = 0.
    void stopThread(uint32_t context, uint16_t status) noexcept
    {
        uint8_t* p = begin(core::ev::StopThread, 10);
        core::storeBE32(p, context);
        core::storeBE16(p + 4, status);
        core::storeBE32(p + 6, 0);
    }
    // A variable-size event (USER_MSG, USER_MARKER); text longer than fits is cut.
    void text(uint16_t type, std::string_view text) noexcept;

    // Writes the current block (if it holds events) and opens a new one.
    void flush() noexcept;

private:
    uint8_t* begin(uint16_t type, size_t payload, uint64_t notBeforeNs = 0) noexcept
    {
        const uint64_t t = stamp(notBeforeNs);
        if (m_pos + 10 + payload > m_capacity || t >= m_flushDeadlineNs) [[unlikely]]
            flushAt(t); // (the new block opens at t: its events are never before its start)
        uint8_t* p = m_data + m_pos;
        m_pos += 10 + payload;
        core::storeBE16(p, type);
        core::storeBE64(p + 2, t);
        return p + 10;
    }
    // The clock, but never before this engine's last event nor before `notBeforeNs`.
    uint64_t stamp(uint64_t notBeforeNs = 0) noexcept
    {
        m_lastNs = std::max({ m_clock.nowNs(), m_lastNs, notBeforeNs });
        return m_lastNs;
    }
    // Writes the current block (if it holds events) as ending at `t`, and opens the next at `t`.
    void flushAt(uint64_t t) noexcept;
    void openBlockAt(uint64_t t) noexcept;

    TraceSink& m_sink;
    const TraceClock& m_clock;
    uint8_t* m_data = nullptr;
    size_t m_pos = 0;
    size_t m_capacity = 0;
    uint16_t m_engine = 0;
    uint64_t m_lastNs = 0;
    uint64_t m_flushIntervalNs = 0;
    uint64_t m_flushDeadlineNs = UINT64_MAX; // the open block's opening + the interval
};

} // namespace sparkscope::runtime::detail
