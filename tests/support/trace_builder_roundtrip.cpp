// TraceBuilder::eventlogBytes and roundTrip: the builder's events as a real eventlog (EventlogWriter,
// Mercury header, one block per engine), and that eventlog read back with the real reader.
#include "support/trace_builder.h"

#include "sparkscope/core/reader.h"
#include "sparkscope/core/writer.h"

#include <algorithm>
#include <map>
#include <stdexcept>

namespace sparkscope::test {

using namespace sparkscope::core;

std::vector<uint8_t> TraceBuilder::eventlogBytes() const
{
    Header header = mercuryHeader();
    for (uint16_t type : m_declared) {
        const EventTypeInfo* info = knownEventType(type);
        EventTypeDecl d;
        d.number = type;
        d.size = info ? info->size : kVariableSize;
        d.description = info ? std::string(info->description) : std::string();
        header.types.push_back(d);
    }
    EventlogWriter writer(std::move(header));
    std::map<uint16_t, std::vector<const Pending*>> byEngine;
    for (const Pending& p : m_events)
        byEngine[p.engine].push_back(&p);
    for (auto& [engine, events] : byEngine) {
        std::stable_sort(
            events.begin(), events.end(), [](const Pending* a, const Pending* b) { return a->timeNs < b->timeNs; });
        writer.beginBlock(engine, events.front()->timeNs);
        for (const Pending* p : events)
            if (!writer.event(p->type, p->timeNs, p->payload))
                throw std::runtime_error("TraceBuilder: the writer refused event " + std::to_string(p->type));
        writer.endBlock(std::max(events.back()->timeNs, m_endNs));
    }
    // Engines without events still exist in the trace: give each an empty block.
    for (uint16_t e = 0; e < m_engines; ++e)
        if (!byEngine.count(e)) {
            writer.beginBlock(e, m_endNs);
            writer.endBlock(m_endNs);
        }
    return writer.finish();
}

Trace TraceBuilder::roundTrip() const
{
    auto result = readTraceFromBytes(eventlogBytes());
    if (!result)
        throw std::runtime_error("TraceBuilder: reading back failed: " + result.error().toString());
    return std::move(result).value();
}

} // namespace sparkscope::test
