#include "support/trace_builder.h"

#include "sparkscope/core/byte_order.h"

#include <algorithm>
#include <memory>

namespace sparkscope::test {

using namespace sparkscope::core;

namespace {
    struct Bytes {
        std::vector<uint8_t> v;
        Bytes& u16(uint16_t x)
        {
            v.resize(v.size() + 2);
            storeBE16(&v[v.size() - 2], x);
            return *this;
        }
        Bytes& u32(uint32_t x)
        {
            v.resize(v.size() + 4);
            storeBE32(&v[v.size() - 4], x);
            return *this;
        }
        Bytes& u64(uint64_t x)
        {
            v.resize(v.size() + 8);
            storeBE64(&v[v.size() - 8], x);
            return *this;
        }
    };
} // namespace

TraceBuilder::TraceBuilder(uint16_t engines)
    : m_engines(engines)
{
}

TraceBuilder& TraceBuilder::event(uint16_t engine, uint64_t timeNs, uint16_t type, std::vector<uint8_t> payload)
{
    m_events.push_back({ engine, timeNs, type, std::move(payload) });
    return *this;
}

TraceBuilder& TraceBuilder::declare(uint16_t type)
{
    m_declared.push_back(type);
    return *this;
}

TraceBuilder& TraceBuilder::endAt(uint64_t timeNs)
{
    m_endNs = timeNs;
    return *this;
}

TraceBuilder& TraceBuilder::internString(uint64_t t, uint32_t id, const std::string& text)
{
    Bytes b;
    b.v.assign(text.begin(), text.end());
    b.u32(id);
    return event(kNoEngine, t, ev::InternString, b.v);
}
TraceBuilder& TraceBuilder::createThread(uint16_t e, uint64_t t, uint32_t c)
{
    return event(e, t, ev::CreateThread, Bytes().u32(c).v);
}

TraceBuilder& TraceBuilder::createSparkThread(uint16_t e, uint64_t t, uint32_t c)
{
    return event(e, t, ev::CreateSparkThread, Bytes().u32(c).v);
}
TraceBuilder& TraceBuilder::runThread(uint16_t e, uint64_t t, uint32_t c)
{
    return event(e, t, ev::RunThread, Bytes().u32(c).v);
}
TraceBuilder& TraceBuilder::stopThread(uint16_t e, uint64_t t, uint32_t c, uint16_t status)
{
    return event(e, t, ev::StopThread, Bytes().u32(c).u16(status).u32(0).v);
}
TraceBuilder& TraceBuilder::threadRunnable(uint16_t e, uint64_t t, uint32_t c)
{
    return event(e, t, ev::ThreadRunnable, Bytes().u32(c).v);
}
TraceBuilder& TraceBuilder::gcStart(uint16_t e, uint64_t t) { return event(e, t, ev::GcStart); }
TraceBuilder& TraceBuilder::gcEnd(uint16_t e, uint64_t t) { return event(e, t, ev::GcEnd); }
TraceBuilder& TraceBuilder::startParConj(uint16_t e, uint64_t t, uint64_t dyn, uint32_t st)
{
    return event(e, t, ev::MerStartParConj, Bytes().u64(dyn).u32(st).v);
}
TraceBuilder& TraceBuilder::endParConj(uint16_t e, uint64_t t, uint64_t dyn)
{
    return event(e, t, ev::MerEndParConj, Bytes().u64(dyn).v);
}
TraceBuilder& TraceBuilder::endParConjunct(uint16_t e, uint64_t t, uint64_t dyn)
{
    return event(e, t, ev::MerEndParConjunct, Bytes().u64(dyn).v);
}
TraceBuilder& TraceBuilder::sparkCreate(uint16_t e, uint64_t t, uint64_t dyn, uint32_t spark)
{
    return event(e, t, ev::MerSparkCreate, Bytes().u64(dyn).u32(spark).v);
}
TraceBuilder& TraceBuilder::futureCreate(uint16_t e, uint64_t t, uint64_t f, uint32_t name)
{
    return event(e, t, ev::MerFutCreate, Bytes().u64(f).u32(name).v);
}
TraceBuilder& TraceBuilder::futureWaitNoSuspend(uint16_t e, uint64_t t, uint64_t f)
{
    return event(e, t, ev::MerFutWaitNoSuspend, Bytes().u64(f).v);
}
TraceBuilder& TraceBuilder::futureWaitSuspended(uint16_t e, uint64_t t, uint64_t f)
{
    return event(e, t, ev::MerFutWaitSuspended, Bytes().u64(f).v);
}
TraceBuilder& TraceBuilder::futureSignal(uint16_t e, uint64_t t, uint64_t f)
{
    return event(e, t, ev::MerFutSignal, Bytes().u64(f).v);
}
TraceBuilder& TraceBuilder::lookingForGlobal(uint16_t e, uint64_t t)
{
    return event(e, t, ev::MerLookingForGlobalContext);
}
TraceBuilder& TraceBuilder::workStealing(uint16_t e, uint64_t t) { return event(e, t, ev::MerWorkStealing); }
TraceBuilder& TraceBuilder::lookingForLocal(uint16_t e, uint64_t t) { return event(e, t, ev::MerLookingForLocalSpark); }
TraceBuilder& TraceBuilder::sleeping(uint16_t e, uint64_t t) { return event(e, t, ev::MerEngineSleeping); }
TraceBuilder& TraceBuilder::sparkRun(uint16_t e, uint64_t t, uint32_t spark)
{
    return event(e, t, ev::MerSparkRun, Bytes().u32(spark).v);
}
TraceBuilder& TraceBuilder::sparkSteal(uint16_t e, uint64_t t, uint16_t victim, uint32_t spark)
{
    return event(e, t, ev::MerSparkSteal, Bytes().u16(victim).u32(spark).v);
}
TraceBuilder& TraceBuilder::releaseContext(uint16_t e, uint64_t t, uint32_t c)
{
    return event(e, t, ev::MerReleaseContext, Bytes().u32(c).v);
}
TraceBuilder& TraceBuilder::threadLabel(uint16_t e, uint64_t t, uint32_t c, const std::string& text)
{
    if (std::find(m_declared.begin(), m_declared.end(), ev::ThreadLabel) == m_declared.end())
        declare(ev::ThreadLabel);
    Bytes b;
    b.u32(c);
    b.v.insert(b.v.end(), text.begin(), text.end());
    return event(e, t, ev::ThreadLabel, std::move(b.v));
}

TraceBuilder& TraceBuilder::reuseContext(uint16_t e, uint64_t t, uint32_t c, uint32_t old)
{
    return event(e, t, ev::MerReuseContext, Bytes().u32(c).u32(old).v);
}

Trace TraceBuilder::build() const
{
    Trace trace;
    trace.path = "<builder>";
    auto bytes = std::make_shared<std::vector<uint8_t>>();
    trace.engines.resize(m_engines);
    uint64_t first = UINT64_MAX, last = 0;
    for (const Pending& p : m_events) {
        const bool variable
            = p.type == ev::InternString || p.type == ev::LogMsg || p.type == ev::UserMsg || p.type == ev::ThreadLabel;
        Event e;
        e.timeNs = p.timeNs;
        e.offset = bytes->size();
        e.type = p.type;
        e.engine = p.engine;
        e.payloadSize = static_cast<uint16_t>(p.payload.size());
        e.headerSize = variable ? 12 : 10;
        Bytes b;
        b.u16(p.type).u64(p.timeNs);
        if (variable)
            b.u16(e.payloadSize);
        bytes->insert(bytes->end(), b.v.begin(), b.v.end());
        bytes->insert(bytes->end(), p.payload.begin(), p.payload.end());
        if (p.engine == kNoEngine) {
            trace.global.push_back(e);
        } else {
            if (p.engine >= trace.engines.size())
                trace.engines.resize(p.engine + 1u);
            trace.engines[p.engine].push_back(e);
        }
        first = std::min(first, p.timeNs);
        last = std::max(last, p.timeNs);
    }
    auto byTime = [](const Event& a, const Event& b) { return a.timeNs < b.timeNs; };
    std::stable_sort(trace.global.begin(), trace.global.end(), byTime);
    for (auto& v : trace.engines)
        std::stable_sort(v.begin(), v.end(), byTime);
    trace.firstTimeNs = m_events.empty() ? 0 : first;
    trace.lastTimeNs = std::max(m_events.empty() ? 0 : last, m_endNs);
    trace.setBytes(std::move(bytes));
    return trace;
}

} // namespace sparkscope::test
