// Spark deque sizes per engine (see deque_sizes.h for the rules).
//
// Why a sequential walk per engine rather than StepFunction::fromDeltas: the count is clamped at 0
// and reset at SPARK_COUNTERS and SPARK_OVERFLOW, none of which is a sum of deltas. An engine with
// overflows is walked twice: once to find its pool's capacity, once for the sizes. So each engine's own events
// (already in time order) are merged with the steals taken from it (sorted once) and applied in
// order. Ties at one timestamp: the engine's own events first (in file order), then steals.
// Memory: nothing per event is copied; the result is ~25 bytes per change of size (a GHC trace
// with millions of spark events changes size millions of times: parfib-4-37, 6.4 million).
#include "sparkscope/core/deque_sizes.h"

#include "sparkscope/core/event_types.h"

#include <tbb/parallel_for.h>

#include <algorithm>

namespace sparkscope::core {

namespace {

    // What an engine's own event does to its own deque: +1, -1, a reset to `value`, or nothing.
    struct Change {
        enum Kind : uint8_t { None, Add, Remove, Reset, Full } kind = None;
        int64_t value = 0;
    };

    Change changeOf(const Trace& trace, const Event& e, const DequeSizeOptions& options)
    {
        switch (e.type) {
        case ev::SparkCreate:
        case ev::MerSparkCreate:
            return { Change::Add };
        case ev::SparkRun:
        case ev::MerSparkRun:
        case ev::SparkFizzle:
        case ev::SparkGc:
            return { Change::Remove };
        case ev::SparkCounters:
            if (options.resetAtCounters)
                return { Change::Reset, int64_t(trace.payload(e).u64(48)) };
            return {};
        case ev::SparkOverflow:
            if (options.resetAtOverflow)
                return { Change::Full };
            return {};
        default:
            return {};
        }
    }

} // namespace

void forEachSparkDequeSize(const Trace& trace, size_t engine, const std::vector<uint64_t>& lost,
    const std::function<void(uint64_t, int64_t)>& changed, DequeSizeOptions options)
{
    if (engine >= trace.engines.size())
        return;
    // One walk applies the rules; `full` is the pool's capacity: an overflow sets the count to it and
    // the count never exceeds it (-1: unknown, no such limit).
    auto walk = [&](int64_t full, auto&& atOverflow, bool report) {
        int64_t value = 0;
        auto apply = [&](uint64_t t, int64_t next) {
            next = std::max<int64_t>(0, full >= 0 ? std::min(full, next) : next); // a pool holds 0..C
            if (next == value)
                return;
            value = next;
            if (report)
                changed(t, value);
        };
        size_t j = 0;
        forEachEngineEvent(trace, engine, [&](const Event& ev) {
            while (j < lost.size() && lost[j] < ev.timeNs)
                apply(lost[j++], value - 1);
            const Change c = changeOf(trace, ev, options);
            switch (c.kind) {
            case Change::None:
                break;
            case Change::Full:
                atOverflow(value);
                if (full >= 0)
                    apply(ev.timeNs, full);
                break;
            default:
                apply(ev.timeNs, c.kind == Change::Reset ? c.value : value + (c.kind == Change::Add ? 1 : -1));
            }
        });
        while (j < lost.size())
            apply(lost[j++], value - 1);
    };
    // The capacity: the smallest count at an overflow, counting without overflow resets (the count
    // only ever runs above the truth through removals GHC did not post).
    int64_t capacity = -1;
    bool overflows = false;
    if (options.resetAtOverflow)
        forEachEngineEvent(trace, engine, [&](const Event& e) { overflows = overflows || e.type == ev::SparkOverflow; });
    if (overflows)
        walk(
            -1, [&](int64_t value) { capacity = capacity < 0 ? value : std::min(capacity, value); }, false);
    walk(
        capacity, [](int64_t) {}, true);
}

std::vector<std::vector<uint64_t>> sparkStealTimesByVictim(const Trace& trace)
{
    const size_t n = trace.engines.size();
    // Steals are rare next to the other spark events: collected per thief, then grouped by victim.
    std::vector<std::vector<std::pair<uint16_t, uint64_t>>> byThief(n);
    tbb::parallel_for(size_t(0), n, [&](size_t e) {
        for (const Event& ev : trace.engines[e])
            if (ev.type == ev::SparkSteal || ev.type == ev::MerSparkSteal)
                byThief[e].emplace_back(trace.payload(ev).u16(0), ev.timeNs);
    });
    std::vector<std::vector<uint64_t>> out(n);
    for (const auto& thief : byThief)
        for (const auto& [victim, t] : thief)
            if (victim < n)
                out[victim].push_back(t);
    tbb::parallel_for(size_t(0), n, [&](size_t e) { std::sort(out[e].begin(), out[e].end()); });
    return out;
}

std::vector<StepFunction> computeSparkDequeSizes(const Trace& trace, DequeSizeOptions options)
{
    const size_t n = trace.engines.size();
    std::vector<std::vector<uint64_t>> stolenFrom = sparkStealTimesByVictim(trace);
    // Each engine's own events are walked (no copy of them), merged with its losses.
    const int64_t begin = int64_t(trace.firstTimeNs), end = int64_t(trace.lastTimeNs);
    std::vector<StepFunction> out(n);
    tbb::parallel_for(size_t(0), n, [&](size_t e) {
        std::vector<uint64_t>& lost = stolenFrom[e];
        // Sized exactly (an upper bound) up front: growing by doubling would hold up to 3 copies.
        size_t changes = lost.size();
        forEachEngineEvent(
            trace, e, [&](const Event& ev) { changes += changeOf(trace, ev, options).kind != Change::None; });
        std::vector<StepFunction::Step> steps;
        if (changes)
            steps.reserve(changes + 1);
        forEachSparkDequeSize(
            trace, e, lost,
            [&](uint64_t t, int64_t size) {
                if (steps.empty())
                    steps.push_back({ begin, 0 });
                steps.push_back({ int64_t(t), size });
            },
            options);
        std::vector<uint64_t>().swap(lost);
        // The constructor keeps the last value of equal times and merges equal neighbours.
        if (!steps.empty())
            out[e] = StepFunction(std::move(steps), end);
    });
    return out;
}

} // namespace sparkscope::core
