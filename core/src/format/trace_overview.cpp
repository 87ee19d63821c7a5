// TraceOverview (trace_overview.h): the same counts from a Trace's vectors or from one streaming
// pass's batches. Each engine's events come out of either in time order, so its first and last
// times are its first and last event's (the minimum and maximum, kept so, also stand when a
// stream hands an event out late).
#include "sparkscope/core/trace_overview.h"

#include "sparkscope/core/decompressed_file.h"
#include "sparkscope/core/trace_stream.h"

#include <algorithm>
#include <memory>

namespace sparkscope::core {

namespace {

    // The counts both ways build: per type, and per source (index 0 the global one, 1 + engine).
    class Counter {
    public:
        void add(uint16_t engine, std::span<const Event> events)
        {
            for (const Event& e : events)
                add(engine, e);
        }

        void add(uint16_t engine, const Event& e)
        {
            const size_t at = engine == kNoEngine ? 0 : size_t(engine) + 1;
            if (at >= m_sources.size())
                m_sources.resize(at + 1);
            TraceOverview::Source& s = m_sources[at];
            s.engine = engine;
            ++m_types[e.type];
            s.firstNs = s.events == 0 ? e.timeNs : std::min(s.firstNs, e.timeNs);
            s.lastNs = std::max(s.lastNs, e.timeNs);
            ++s.events;
        }

        TraceOverview finish(const Trace& summary, uint64_t events) &&
        {
            TraceOverview out;
            out.path = summary.path;
            out.fileSize = summary.fileSize;
            out.compression = summary.compression;
            out.truncated = summary.truncated;
            out.events = events;
            out.declaredTypes = summary.header.types.size();
            out.firstNs = summary.firstTimeNs;
            out.lastNs = summary.lastTimeNs;
            out.warnings = summary.warnings;
            for (size_t i = 1; i < m_sources.size(); ++i)
                if (m_sources[i].events > 0)
                    out.engines.push_back(m_sources[i]);
            if (!m_sources.empty())
                out.global = m_sources[0];
            out.engineCount = std::max(summary.engines.size(), m_sources.empty() ? 0 : m_sources.size() - 1);
            for (size_t n = 0; n < m_types.size(); ++n)
                if (m_types[n] > 0)
                    out.types.emplace_back(uint16_t(n), m_types[n]);
            return out;
        }

    private:
        std::vector<uint64_t> m_types = std::vector<uint64_t>(65536, 0);
        std::vector<TraceOverview::Source> m_sources;
    };

} // namespace

TraceOverview overviewOf(const Trace& trace)
{
    Counter counter;
    counter.add(kNoEngine, trace.global);
    for (size_t e = 0; e < trace.engines.size(); ++e) // (a compact read's marks included)
        forEachEngineEvent(trace, e, [&](const Event& event) { counter.add(uint16_t(e), event); });
    return std::move(counter).finish(trace, trace.eventCount());
}

Result<TraceOverview> overviewOfFile(const std::string& path, const std::atomic<bool>* cancel)
{
    auto made = DecompressedFile::ifCompressed(path, cancel);
    if (!made)
        return made.error();
    const std::shared_ptr<const DecompressedFile> copy = std::move(made).value();
    Counter counter;
    StreamOptions options;
    options.cancel = cancel;
    auto streamed = streamTrace(
        copy ? copy->path() : path, [&](const StreamBatch& batch) { counter.add(batch.engine, batch.events); },
        options);
    if (!streamed)
        return streamed.error();
    StreamedTrace& s = streamed.value();
    if (copy)
        copy->nameAfterSource(s.summary);
    return std::move(counter).finish(s.summary, s.events);
}

} // namespace sparkscope::core
