// Engine-state derivation (rules in engine_states.h). One forward scan per engine produces raw
// intervals (possibly empty, possibly equal to their neighbour); a second linear pass drops empty
// ones and merges equal neighbours, which keeps the state machine itself free of special cases.
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

namespace {

    struct Current {
        EngineState state = EngineState::Idle;
        uint32_t context = kNoContext;
    };

    std::vector<StateInterval> scanEngine(const Trace& trace, const std::vector<Event>& events)
    {
        const uint64_t first = trace.firstTimeNs, last = trace.lastTimeNs;
        std::vector<StateInterval> raw;
        raw.reserve(events.size() / 2 + 2);
        Current cur, savedBeforeGc;
        bool inGc = false;
        uint64_t curStart = first;
        auto switchTo = [&](uint64_t t, EngineState state, uint32_t context) {
            t = std::clamp(t, curStart, last);
            raw.push_back({ curStart, t, cur.context, cur.state });
            cur = { state, state == EngineState::Running ? context : kNoContext };
            curStart = t;
        };
        for (const Event& e : events) {
            const uint64_t t = e.timeNs;
            // Woken: the next event ends the sleep. Block markers do not: they are the tracer's
            // bookkeeping (a runtime flushes its buffer as the engine goes to sleep).
            if (!inGc && cur.state == EngineState::Sleeping && e.type != ev::MerEngineSleeping
                && e.type != ev::BlockMarker)
                switchTo(t, EngineState::Idle, kNoContext);
            switch (e.type) {
            case ev::RunThread: {
                const uint32_t context = trace.payload(e).u32(0);
                if (inGc)
                    savedBeforeGc = { EngineState::Running, context };
                else
                    switchTo(t, EngineState::Running, context);
                break;
            }
            case ev::StopThread:
                if (inGc) {
                    if (savedBeforeGc.state == EngineState::Running)
                        savedBeforeGc = {};
                } else if (cur.state == EngineState::Running) {
                    switchTo(t, EngineState::Idle, kNoContext);
                }
                break;
            case ev::GcStart:
            case ev::GcWork:
            case ev::GcIdle:
            case ev::GcDone:
                if (!inGc) {
                    savedBeforeGc = cur;
                    inGc = true;
                    switchTo(t, EngineState::Gc, kNoContext);
                }
                break;
            case ev::GcEnd:
                if (inGc) {
                    inGc = false;
                    switchTo(t, savedBeforeGc.state, savedBeforeGc.context);
                }
                break;
            case ev::MerLookingForGlobalContext:
            case ev::MerWorkStealing:
            case ev::MerLookingForLocalSpark:
                if (!inGc && cur.state != EngineState::Running && cur.state != EngineState::Searching)
                    switchTo(t, EngineState::Searching, kNoContext);
                break;
            case ev::MerSparkRun:
            case ev::MerSparkSteal:
                if (!inGc && cur.state == EngineState::Searching)
                    switchTo(t, EngineState::Idle, kNoContext);
                break;
            case ev::MerEngineSleeping:
                if (!inGc && cur.state != EngineState::Running)
                    switchTo(t, EngineState::Sleeping, kNoContext);
                break;
            default:
                break;
            }
        }
        if (last > curStart)
            raw.push_back({ curStart, last, cur.context, cur.state });

        std::vector<StateInterval> out;
        out.reserve(raw.size());
        for (const StateInterval& r : raw) {
            if (r.endNs <= r.startNs)
                continue;
            if (!out.empty() && out.back().state == r.state && out.back().context == r.context
                && out.back().endNs == r.startNs)
                out.back().endNs = r.endNs;
            else
                out.push_back(r);
        }
        return out;
    }

} // namespace

EngineStates computeEngineStates(const Trace& trace)
{
    EngineStates states;
    states.firstNs = trace.firstTimeNs;
    states.lastNs = std::max(trace.lastTimeNs, trace.firstTimeNs);
    states.engines.resize(trace.engines.size());
    tbb::parallel_for(
        size_t(0), trace.engines.size(), [&](size_t e) { states.engines[e] = scanEngine(trace, trace.engines[e]); });
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
