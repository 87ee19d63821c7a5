// Engine-state derivation (rules in engine_states.h). One forward scan per engine produces raw
// intervals (possibly empty, possibly equal to their neighbour), which push() drops or merges with
// the previous one as they come; that keeps the state machine itself free of special cases.
// Engines are independent, so they are scanned in parallel with TBB.
#include "sparkscope/core/engine_states.h"

#include <algorithm>
#include <tbb/parallel_for.h>

namespace sparkscope::core {

std::string_view engineStateName(EngineState state) noexcept
{
    switch (state) {
    case EngineState::Idle:
        return "idle";
    case EngineState::Running:
        return "running";
    case EngineState::Gc:
        return "gc";
    case EngineState::Searching:
        return "searching";
    case EngineState::Sleeping:
        return "sleeping";
    }
    return "idle";
}

void EngineStateScanner::push(const StateInterval& r)
{
    if (r.endNs <= r.startNs || !m_keep)
        return;
    if (!m_out.empty() && m_out.back().state == r.state && m_out.back().context == r.context
        && m_out.back().endNs == r.startNs)
        m_out.back().endNs = r.endNs;
    else
        m_out.push_back(r);
}

void EngineStateScanner::switchTo(uint64_t t, EngineState state, uint32_t context)
{
    t = std::max(t, m_curStart);
    push({ m_curStart, t, m_cur.context, m_cur.state });
    m_cur = { state, state == EngineState::Running ? context : kNoContext };
    m_curStart = t;
}

void EngineStateScanner::add(const Event& e, std::span<const uint8_t> stream)
{
    const uint64_t t = e.timeNs;
    // Woken: the next event ends the sleep. Block markers do not: they are the tracer's
    // bookkeeping (a runtime flushes its buffer as the engine goes to sleep).
    if (!m_inGc && m_cur.state == EngineState::Sleeping && e.type != ev::MerEngineSleeping && e.type != ev::BlockMarker)
        switchTo(t, EngineState::Idle, kNoContext);
    switch (e.type) {
    case ev::RunThread: {
        const uint32_t context = payloadIn(stream, e).u32(0);
        if (m_inGc)
            m_savedBeforeGc = { EngineState::Running, context };
        else
            switchTo(t, EngineState::Running, context);
        break;
    }
    case ev::StopThread:
        if (m_inGc) {
            if (m_savedBeforeGc.state == EngineState::Running)
                m_savedBeforeGc = {};
        } else if (m_cur.state == EngineState::Running) {
            switchTo(t, EngineState::Idle, kNoContext);
        }
        break;
    case ev::GcStart:
    case ev::GcWork:
    case ev::GcIdle:
    case ev::GcDone:
        if (!m_inGc) {
            m_savedBeforeGc = m_cur;
            m_inGc = true;
            switchTo(t, EngineState::Gc, kNoContext);
        }
        break;
    case ev::GcEnd:
        if (m_inGc) {
            m_inGc = false;
            switchTo(t, m_savedBeforeGc.state, m_savedBeforeGc.context);
        }
        break;
    case ev::MerLookingForGlobalContext:
    case ev::MerWorkStealing:
    case ev::MerLookingForLocalSpark:
        if (!m_inGc && m_cur.state != EngineState::Running && m_cur.state != EngineState::Searching)
            switchTo(t, EngineState::Searching, kNoContext);
        break;
    case ev::MerSparkRun:
    case ev::MerSparkSteal:
        if (!m_inGc && m_cur.state == EngineState::Searching)
            switchTo(t, EngineState::Idle, kNoContext);
        break;
    case ev::MerEngineSleeping:
        if (!m_inGc && m_cur.state != EngineState::Running)
            switchTo(t, EngineState::Sleeping, kNoContext);
        break;
    case ev::Shutdown:
        // The engine stops: it looks for nothing any more. Our runtime's engines search once more
        // before they stop, and stopped engines are idle to the trace's end (as the ledger reads them).
        if (!m_inGc && m_cur.state == EngineState::Searching)
            switchTo(t, EngineState::Idle, kNoContext);
        break;
    default:
        break;
    }
}

std::vector<StateInterval> EngineStateScanner::finish(uint64_t firstNs, uint64_t lastNs)
{
    if (lastNs > m_curStart)
        push({ m_curStart, lastNs, m_cur.context, m_cur.state });
    // The first interval began at 0 in place of the trace's first time, which no event precedes.
    if (!m_out.empty()) {
        m_out.front().startNs = std::max(m_out.front().startNs, firstNs);
        if (m_out.front().endNs <= m_out.front().startNs)
            m_out.erase(m_out.begin());
    }
    std::vector<StateInterval> out = std::move(m_out);
    *this = EngineStateScanner(m_keep);
    return out;
}

EngineStates computeEngineStates(const Trace& trace)
{
    EngineStates states;
    states.firstNs = trace.firstTimeNs;
    states.lastNs = std::max(trace.lastTimeNs, trace.firstTimeNs);
    states.engines.resize(trace.engines.size());
    tbb::parallel_for(size_t(0), trace.engines.size(), [&](size_t e) {
        EngineStateScanner scanner;
        const std::span<const uint8_t> stream = trace.bytes();
        // Marks too: any event but a few ends an engine's sleep (EngineStateScanner::add).
        forEachEngineEvent(trace, e, [&](const Event& event) { scanner.add(event, stream); });
        states.engines[e] = scanner.finish(states.firstNs, states.lastNs);
    });
    return states;
}

std::array<uint64_t, kEngineStateCount> EngineStates::timeInStates(size_t engine, uint64_t fromNs, uint64_t toNs) const
{
    std::array<uint64_t, kEngineStateCount> out {};
    if (engine >= engines.size())
        return out;
    const auto& v = engines[engine];
    auto it
        = std::upper_bound(v.begin(), v.end(), fromNs, [](uint64_t t, const StateInterval& s) { return t < s.endNs; });
    for (; it != v.end() && it->startNs < toNs; ++it) {
        const uint64_t a = std::max(it->startNs, fromNs), b = std::min(it->endNs, toNs);
        if (b > a)
            out[static_cast<size_t>(it->state)] += b - a;
    }
    return out;
}

const StateInterval* EngineStates::at(size_t engine, uint64_t t) const noexcept
{
    if (engine >= engines.size())
        return nullptr;
    const auto& v = engines[engine];
    auto it = std::upper_bound(v.begin(), v.end(), t, [](uint64_t x, const StateInterval& s) { return x < s.endNs; });
    if (it == v.end() || it->startNs > t)
        return nullptr;
    return &*it;
}

StepFunction cpusOverTime(const EngineStates& states)
{
    // One sorted run of deltas per engine, merged (O(n log engines)).
    std::vector<std::vector<StepFunction::Step>> runs(states.engines.size());
    tbb::parallel_for(size_t(0), states.engines.size(), [&](size_t e) {
        for (const StateInterval& s : states.engines[e])
            if (s.state == EngineState::Running) {
                runs[e].push_back({ static_cast<int64_t>(s.startNs), 1 });
                runs[e].push_back({ static_cast<int64_t>(s.endNs), -1 });
            }
    });
    return StepFunction::fromSortedDeltaRuns(
        std::move(runs), static_cast<int64_t>(states.firstNs), static_cast<int64_t>(states.lastNs));
}

} // namespace sparkscope::core
