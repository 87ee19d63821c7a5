#include "tracer.h"

#include "sparkscope/core/trace.h"
#include "sparkscope/core/writer.h"
#include "sparkscope/runtime/version.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <fcntl.h>
#include <fstream>
#include <sched.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace sparkscope::runtime::detail {

namespace {

    // The CPUs this process may run on (its affinity mask: what taskset or a cpuset allows), or else
    // the machine's hardware threads. A CPU quota (a container's --cpus) does not show in it.
    unsigned usableCpus()
    {
        cpu_set_t set;
        CPU_ZERO(&set);
        if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
            return unsigned(CPU_COUNT(&set));
        return std::max(1u, std::thread::hardware_concurrency());
    }

    bool cpuHasInvariantTsc()
    {
        std::ifstream in("/proc/cpuinfo");
        std::string line;
        while (std::getline(in, line)) {
            if (line.rfind("flags", 0) == 0)
                return line.find(" constant_tsc") != std::string::npos
                    && line.find(" nonstop_tsc") != std::string::npos;
        }
        return false;
    }

    // The payload sizes this tracer writes; the header must declare exactly these.
    struct PostedType {
        uint16_t number;
        uint16_t size;
    };
    constexpr PostedType kPostedTypes[] = {
        { core::ev::CreateThread, 4 },
        { core::ev::RunThread, 4 },
        { core::ev::StopThread, 10 },
        { core::ev::ThreadRunnable, 4 },
        { core::ev::Shutdown, 0 },
        { core::ev::CreateSparkThread, 4 },
        { core::ev::Startup, 2 },
        { core::ev::BlockMarker, 14 },
        { core::ev::UserMsg, core::kVariableSize },
        { core::ev::CapsetCreate, 6 },
        { core::ev::CapsetAssignCap, 6 },
        { core::ev::RtsIdentifier, core::kVariableSize },
        { core::ev::InternString, core::kVariableSize },
        { core::ev::UserMarker, core::kVariableSize },
        { core::ev::MerStartParConj, 12 },
        { core::ev::MerEndParConj, 8 },
        { core::ev::MerEndParConjunct, 8 },
        { core::ev::MerSparkCreate, 12 },
        { core::ev::MerFutCreate, 12 },
        { core::ev::MerFutWaitNoSuspend, 8 },
        { core::ev::MerFutWaitSuspended, 8 },
        { core::ev::MerFutSignal, 8 },
        { core::ev::MerLookingForGlobalContext, 0 },
        { core::ev::MerWorkStealing, 0 },
        { core::ev::MerReleaseContext, 4 },
        { core::ev::MerEngineSleeping, 0 },
        { core::ev::MerLookingForLocalSpark, 0 },
        { core::ev::MerCallingMain, 0 },
        { core::ev::MerSparkRun, 4 },
        { core::ev::MerSparkSteal, 6 },
        { core::ev::MerReuseContext, 8 },
    };

    constexpr size_t kMaxText = 60000; // below the format's 65,535-byte payload limit

    void putMarker(uint8_t* p, uint64_t startNs, uint32_t size, uint64_t endNs, uint16_t engine)
    {
        core::storeBE16(p, core::ev::BlockMarker);
        core::storeBE64(p + 2, startNs);
        core::storeBE32(p + 10, size);
        core::storeBE64(p + 14, endNs);
        core::storeBE16(p + 22, engine);
    }

    void putEvent(
        std::vector<uint8_t>& out, uint16_t type, uint64_t timeNs, const uint8_t* payload, size_t size, bool variable)
    {
        size_t at = out.size();
        out.resize(at + 10 + (variable ? 2 : 0) + size);
        core::storeBE16(&out[at], type);
        core::storeBE64(&out[at + 2], timeNs);
        at += 10;
        if (variable) {
            core::storeBE16(&out[at], static_cast<uint16_t>(size));
            at += 2;
        }
        if (size)
            std::memcpy(&out[at], payload, size);
    }

} // namespace

TraceClock::TraceClock(bool allowTsc)
    : m_start(std::chrono::steady_clock::now())
{
#if defined(__x86_64__)
    if (!allowTsc || !cpuHasInvariantTsc())
        return;
    // Calibrate ticks against steady_clock over ~10 ms; the error is the clock read jitter
    // (tens of ns) over 10 ms, i.e. a few parts per million.
    auto t0 = std::chrono::steady_clock::now();
    uint64_t c0 = __rdtsc();
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    auto t1 = std::chrono::steady_clock::now();
    uint64_t c1 = __rdtsc();
    const double ns = static_cast<double>((t1 - t0).count());
    const double ticks = static_cast<double>(c1 - c0);
    if (ticks <= 0 || ns <= 0)
        return;
    m_mult = static_cast<uint64_t>(ns / ticks * 4294967296.0);
    // Time zero is the end of the calibration, for both clocks.
    m_start = t1;
    m_tsc0 = c1;
    m_useTsc = true;
#else
    (void)allowTsc;
#endif
}

TraceSink::~TraceSink()
{
    if (m_fd >= 0)
        ::close(m_fd);
}

core::Result<std::unique_ptr<TraceSink>> TraceSink::open(
    const std::string& path, unsigned engines, uint32_t contextLimit, const TraceClock& clock, uint64_t flushMs)
{
    core::Header header = core::mercuryHeader();
    for (const PostedType& t : kPostedTypes) {
        const core::EventTypeDecl* d = header.find(t.number);
        if (!d || d->size != t.size)
            return core::Error { core::ErrorCode::BadFormat,
                "runtime tracer: the Mercury header does not declare event " + std::to_string(t.number)
                    + " with payload size " + std::to_string(t.size),
                std::nullopt };
    }
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return core::Error { core::ErrorCode::Io, "cannot create trace file '" + path + "': " + std::strerror(errno),
            std::nullopt };
    std::unique_ptr<TraceSink> sink(new TraceSink);
    sink->m_fd = fd;
    sink->m_path = path;
    sink->m_clock = &clock;

    std::vector<uint8_t> bytes = core::encodeHeader(header);
    // The global start-up block (engine 0xFFFF), all at time 0 as Mercury posts them.
    const size_t markerAt = bytes.size();
    bytes.resize(markerAt + EngineTraceBuffer::kMarkerBytes);
    uint8_t p[16];
    core::storeBE16(p, static_cast<uint16_t>(engines));
    putEvent(bytes, core::ev::Startup, 0, p, 2, false);
    core::storeBE32(p, 0);
    core::storeBE16(p + 4, 2); // OSPROCESS
    putEvent(bytes, core::ev::CapsetCreate, 0, p, 6, false);
    // As GHC's "GHC-9.0.2 rts_thr": the runtime and how it was set up. The analysis needs the limit
    // (at it, a spark waits for an engine with a context instead of waking a sleeping one) and the
    // CPUs the process could run on (more engines than those take turns on them, so a woken engine
    // waits for a CPU: its work waits although the runtime did all it could). With a flush interval,
    // a follower also needs to know that an engine's wake-up is written at once (engine.cpp), so one
    // whose last written event is its sleep is asleep still.
    std::string ident = std::string("sparkscope-") + version() + " max-contexts=" + std::to_string(contextLimit)
        + " cpus=" + std::to_string(usableCpus());
    if (flushMs)
        ident += " flush-ms=" + std::to_string(flushMs);
    std::vector<uint8_t> rts(4 + ident.size());
    core::storeBE32(rts.data(), 0);
    std::memcpy(rts.data() + 4, ident.data(), ident.size());
    putEvent(bytes, core::ev::RtsIdentifier, 0, rts.data(), rts.size(), true);
    for (unsigned e = 0; e < engines; ++e) {
        core::storeBE32(p, 0);
        core::storeBE16(p + 4, static_cast<uint16_t>(e));
        putEvent(bytes, core::ev::CapsetAssignCap, 0, p, 6, false);
    }
    putMarker(&bytes[markerAt], 0, static_cast<uint32_t>(bytes.size() - markerAt), std::max<uint64_t>(clock.nowNs(), 1),
        core::kNoEngine);
    sink->writeBlock(bytes.data(), bytes.size());
    if (sink->failed())
        return core::Error { core::ErrorCode::Io, "cannot write trace file '" + path + "'", std::nullopt };
    return sink;
}

void TraceSink::writeBlock(const uint8_t* data, size_t size) noexcept
{
    std::lock_guard lock(m_writeMutex);
    if (m_finished || m_fd < 0) {
        m_failed.store(true, std::memory_order_relaxed);
        return;
    }
    while (size > 0) {
        ssize_t n = ::write(m_fd, data, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            m_failed.store(true, std::memory_order_relaxed);
            return;
        }
        data += n;
        size -= static_cast<size_t>(n);
    }
}

void TraceSink::postGlobal(uint16_t type, uint64_t timeNs, const uint8_t* payload, size_t size, bool variable) noexcept
{
    try {
        std::vector<uint8_t> block(EngineTraceBuffer::kMarkerBytes);
        putEvent(block, type, timeNs, payload, size, variable);
        // End time = when the block is written (a block ending at 0 reads as never closed).
        putMarker(block.data(), timeNs, static_cast<uint32_t>(block.size()), std::max<uint64_t>(m_clock->nowNs(), 1),
            core::kNoEngine);
        writeBlock(block.data(), block.size());
    } catch (...) {
        m_failed.store(true, std::memory_order_relaxed);
    }
}

uint32_t TraceSink::intern(std::string_view text) noexcept
{
    try {
        std::lock_guard lock(m_internMutex);
        auto [it, inserted] = m_strings.try_emplace(std::string(text), m_nextStringId);
        if (!inserted)
            return it->second;
        const uint32_t id = m_nextStringId++;
        const size_t len = std::min(text.size(), kMaxText);
        std::vector<uint8_t> payload(len + 4);
        std::memcpy(payload.data(), text.data(), len);
        core::storeBE32(payload.data() + len, id);
        postGlobal(core::ev::InternString, 0, payload.data(), payload.size(), true);
        return id;
    } catch (...) {
        m_failed.store(true, std::memory_order_relaxed);
        return 0;
    }
}

void TraceSink::finish() noexcept
{
    uint8_t end[2];
    core::storeBE16(end, 0xFFFF);
    writeBlock(end, 2);
    std::lock_guard lock(m_writeMutex);
    m_finished = true;
}

EngineTraceBuffer::EngineTraceBuffer(TraceSink& sink, uint16_t engine, size_t bytes, uint64_t flushIntervalNs)
    : m_sink(sink)
    , m_clock(sink.clock())
    , m_data(new uint8_t[std::max<size_t>(bytes, 4096)])
    , m_capacity(std::max<size_t>(bytes, 4096))
    , m_engine(engine)
    , m_flushIntervalNs(flushIntervalNs)
{
    openBlockAt(stamp());
}

EngineTraceBuffer::~EngineTraceBuffer() { delete[] m_data; }

void EngineTraceBuffer::openBlockAt(uint64_t t) noexcept
{
    putMarker(m_data, t, 0, 0, m_engine);
    m_pos = kMarkerBytes;
    m_flushDeadlineNs = m_flushIntervalNs ? t + m_flushIntervalNs : UINT64_MAX;
}

void EngineTraceBuffer::flush() noexcept { flushAt(stamp()); }

void EngineTraceBuffer::flushAt(uint64_t t) noexcept
{
    if (m_pos > kMarkerBytes) {
        core::storeBE32(m_data + 10, static_cast<uint32_t>(m_pos));
        core::storeBE64(m_data + 14, t); // the block ends at or after its last event (t is the latest stamp)
        m_sink.writeBlock(m_data, m_pos);
    }
    openBlockAt(t);
}

void EngineTraceBuffer::text(uint16_t type, std::string_view text) noexcept
{
    const size_t len = std::min(text.size(), std::min(kMaxText, m_capacity - kMarkerBytes - 12));
    const uint64_t t = stamp();
    if (m_pos + 12 + len > m_capacity || t >= m_flushDeadlineNs)
        flushAt(t);
    uint8_t* p = m_data + m_pos;
    core::storeBE16(p, type);
    core::storeBE64(p + 2, t);
    core::storeBE16(p + 10, static_cast<uint16_t>(len));
    std::memcpy(p + 12, text.data(), len);
    m_pos += 12 + len;
}

} // namespace sparkscope::runtime::detail
