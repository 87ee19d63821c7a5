// Spark deque sizes per engine (see deque_sizes.h for the rules).
//
// Why a sequential walk per engine rather than StepFunction::fromDeltas: the count is clamped at 0
// and reset at SPARK_COUNTERS, neither of which is a sum of deltas. So each engine's own changes
// (already in time order) are merged with the steals taken from it (sorted once) and applied in
// order. Ties at one timestamp: the engine's own events first (in file order), then steals.
#include "sparkscope/core/deque_sizes.h"

#include "sparkscope/core/event_types.h"

#include <tbb/parallel_for.h>

#include <algorithm>

namespace sparkscope::core {

namespace {

    struct Change {
        uint64_t timeNs;
        int64_t delta; // +1 / -1, or the new value when isReset
        bool isReset;
    };

    // The deque changes an engine posts about its own deque, and the steals it made (victim, time).
    void scanEngine(const Trace& trace, size_t engine, bool resets, std::vector<Change>& own,
        std::vector<std::pair<uint16_t, uint64_t>>& steals)
    {
        for (const Event& e : trace.engines[engine]) {
            switch (e.type) {
            case ev::SparkCreate:
            case ev::MerSparkCreate:
                own.push_back({ e.timeNs, +1, false });
                break;
            case ev::SparkRun:
            case ev::MerSparkRun:
            case ev::SparkFizzle:
            case ev::SparkGc:
                own.push_back({ e.timeNs, -1, false });
                break;
            case ev::SparkSteal:
            case ev::MerSparkSteal:
                steals.emplace_back(trace.payload(e).u16(0), e.timeNs);
                break;
            case ev::SparkCounters:
                if (resets)
                    own.push_back({ e.timeNs, int64_t(trace.payload(e).u64(48)), true });
                break;
            default:
                break;
            }
        }
    }

} // namespace

std::vector<StepFunction> computeSparkDequeSizes(const Trace& trace, DequeSizeOptions options)
{
    const size_t n = trace.engines.size();
    std::vector<std::vector<Change>> own(n);
    std::vector<std::vector<std::pair<uint16_t, uint64_t>>> steals(n);
    tbb::parallel_for(
        size_t(0), n, [&](size_t e) { scanEngine(trace, e, options.resetAtCounters, own[e], steals[e]); });

    // Steals grouped by victim, in time order.
    std::vector<std::vector<uint64_t>> stolenFrom(n);
    for (const auto& thief : steals)
        for (const auto& [victim, t] : thief)
            if (victim < n)
                stolenFrom[victim].push_back(t);

    const int64_t begin = int64_t(trace.firstTimeNs), end = int64_t(trace.lastTimeNs);
    std::vector<StepFunction> out(n);
    tbb::parallel_for(size_t(0), n, [&](size_t e) {
        std::vector<uint64_t>& lost = stolenFrom[e];
        std::sort(lost.begin(), lost.end());
        const std::vector<Change>& mine = own[e];
        if (mine.empty() && lost.empty())
            return;
        std::vector<StepFunction::Step> steps;
        steps.reserve(mine.size() + lost.size() + 1);
        steps.push_back({ begin, 0 });
        int64_t value = 0;
        auto apply = [&](const Change& c) {
            const int64_t next = c.isReset ? c.delta : std::max<int64_t>(0, value + c.delta);
            if (next == value)
                return;
            value = next;
            steps.push_back({ int64_t(c.timeNs), value });
        };
        size_t i = 0, j = 0;
        while (i < mine.size() || j < lost.size()) {
            if (j == lost.size() || (i < mine.size() && mine[i].timeNs <= lost[j]))
                apply(mine[i++]);
            else
                apply({ lost[j++], -1, false });
        }
        // The constructor keeps the last value of equal times and merges equal neighbours.
        out[e] = StepFunction(std::move(steps), end);
    });
    return out;
}

} // namespace sparkscope::core
