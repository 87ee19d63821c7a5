#pragma once
// TraceBuilder: hand-built traces for tests, event by event, with one helper per SparkScope/Mercury
// event so a test reads like the scenario it describes.
//   build()     encodes every event's bytes itself and assembles the Trace directly (no reader);
//   roundTrip() writes a real eventlog with core::EventlogWriter (mercuryHeader) and reads it back
//               with core::readTraceFromBytes, so tests exercise the whole pipeline.
// Events may be added in any order; both paths sort each engine's events stably by time.
#include "sparkscope/core/trace.h"

#include <cstdint>
#include <string>
#include <vector>

namespace sparkscope::test {

class TraceBuilder {
public:
    explicit TraceBuilder(uint16_t engines = 2);

    // Any event; engine = core::kNoEngine for the global buffer.
    TraceBuilder& event(uint16_t engine, uint64_t timeNs, uint16_t type, std::vector<uint8_t> payload = {});
    // Declares a known event type mercuryHeader() leaves out (a GHC one, e.g. GC_WORK) in the eventlog
    // eventlogBytes and roundTrip write, so events of it can be added.
    TraceBuilder& declare(uint16_t type);
    // The trace's last time (else the last event's time).
    TraceBuilder& endAt(uint64_t timeNs);

    TraceBuilder& internString(uint64_t timeNs, uint32_t id, const std::string& text);
    TraceBuilder& createThread(uint16_t engine, uint64_t timeNs, uint32_t context);
    TraceBuilder& createSparkThread(uint16_t engine, uint64_t timeNs, uint32_t context);
    // GHC's THREAD_LABEL (declared in the eventlog the builder writes): the context, then the text.
    TraceBuilder& threadLabel(uint16_t engine, uint64_t timeNs, uint32_t context, const std::string& text);
    TraceBuilder& runThread(uint16_t engine, uint64_t timeNs, uint32_t context);
    TraceBuilder& stopThread(uint16_t engine, uint64_t timeNs, uint32_t context, uint16_t status);
    TraceBuilder& threadRunnable(uint16_t engine, uint64_t timeNs, uint32_t context);
    TraceBuilder& gcStart(uint16_t engine, uint64_t timeNs);
    TraceBuilder& gcEnd(uint16_t engine, uint64_t timeNs);
    TraceBuilder& startParConj(uint16_t engine, uint64_t timeNs, uint64_t dynId, uint32_t staticId);
    TraceBuilder& endParConj(uint16_t engine, uint64_t timeNs, uint64_t dynId);
    TraceBuilder& endParConjunct(uint16_t engine, uint64_t timeNs, uint64_t dynId);
    TraceBuilder& sparkCreate(uint16_t engine, uint64_t timeNs, uint64_t dynId, uint32_t sparkId);
    TraceBuilder& futureCreate(uint16_t engine, uint64_t timeNs, uint64_t futureId, uint32_t nameId);
    TraceBuilder& futureWaitNoSuspend(uint16_t engine, uint64_t timeNs, uint64_t futureId);
    TraceBuilder& futureWaitSuspended(uint16_t engine, uint64_t timeNs, uint64_t futureId);
    TraceBuilder& futureSignal(uint16_t engine, uint64_t timeNs, uint64_t futureId);
    TraceBuilder& lookingForGlobal(uint16_t engine, uint64_t timeNs);
    TraceBuilder& workStealing(uint16_t engine, uint64_t timeNs);
    TraceBuilder& lookingForLocal(uint16_t engine, uint64_t timeNs);
    TraceBuilder& sleeping(uint16_t engine, uint64_t timeNs);
    TraceBuilder& sparkRun(uint16_t engine, uint64_t timeNs, uint32_t sparkId);
    TraceBuilder& sparkSteal(uint16_t engine, uint64_t timeNs, uint16_t victim, uint32_t sparkId);
    TraceBuilder& releaseContext(uint16_t engine, uint64_t timeNs, uint32_t context);
    TraceBuilder& reuseContext(uint16_t engine, uint64_t timeNs, uint32_t context, uint32_t oldContext);

    core::Trace build() const;
    core::Trace roundTrip() const;
    std::vector<uint8_t> eventlogBytes() const; // the eventlog roundTrip reads back
    size_t size() const noexcept { return m_events.size(); }

private:
    struct Pending {
        uint16_t engine;
        uint64_t timeNs;
        uint16_t type;
        std::vector<uint8_t> payload;
    };
    uint16_t m_engines;
    uint64_t m_endNs = 0;
    std::vector<Pending> m_events;
    std::vector<uint16_t> m_declared; // beyond mercuryHeader()
};

} // namespace sparkscope::test
