// Per-context lanes (see context_lanes.h).
//
// The model's context segments change whenever state, engine or innermost conjunct changes; a lane
// only shows state and engine, so neighbouring segments that agree on both are merged. Timelines of
// one reused id are concatenated (they do not overlap: a context is created again only after it
// finished). Each lane gets its own LodIndex with at most as many level-0 buckets as the lane has
// spans (rounded up to a power of two), because LodIndex sizes its buckets by its busiest "engine".
#include "sparkscope/core/context_lanes.h"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <bit>
#include <numeric>

namespace sparkscope::core {

size_t ContextLanes::memoryBytes() const noexcept
{
    size_t bytes = ids.capacity() * sizeof(uint32_t) + lanes.capacity() * sizeof(LodIndex);
    for (const LodIndex& lane : lanes)
        bytes += lane.memoryBytes();
    return bytes;
}

ContextLanes computeContextLanes(const ParModel& model, uint64_t originNs, uint64_t endNs)
{
    ContextLanes out;
    out.originNs = originNs;
    out.endNs = std::max(endNs, originNs + 1);

    // Timelines grouped by id, each group in order of appearance (= time order).
    std::vector<uint32_t> order(model.contexts.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(),
        [&](uint32_t a, uint32_t b) { return model.contexts[a].id < model.contexts[b].id; });
    std::vector<size_t> groupStart;
    for (size_t i = 0; i < order.size(); ++i)
        if (i == 0 || model.contexts[order[i]].id != model.contexts[order[i - 1]].id) {
            groupStart.push_back(i);
            out.ids.push_back(model.contexts[order[i]].id);
        }
    groupStart.push_back(order.size());

    out.lanes.resize(out.ids.size());
    tbb::parallel_for(size_t(0), out.ids.size(), [&](size_t g) {
        std::vector<LodSpan> spans;
        for (size_t k = groupStart[g]; k < groupStart[g + 1]; ++k) {
            const auto& segs = model.contexts[order[k]].segments;
            for (size_t s = 0; s < segs.size(); ++s) {
                const ContextSegment& seg = segs[s];
                const uint64_t start = std::max(seg.startNs, out.originNs);
                const uint64_t end = std::min(s + 1 < segs.size() ? segs[s + 1].startNs : model.endNs, out.endNs);
                if (seg.state == ContextState::Finished || end <= start)
                    continue;
                const uint32_t label = seg.state == ContextState::Running ? seg.engine : kNoIndex;
                const uint8_t state = uint8_t(seg.state);
                if (!spans.empty() && spans.back().endNs == start && spans.back().state == state
                    && spans.back().label == label) {
                    spans.back().endNs = end;
                    continue;
                }
                spans.push_back({ start, end, label, state });
            }
        }
        const size_t buckets = std::bit_ceil(std::max<size_t>(spans.size(), 1));
        std::vector<std::vector<LodSpan>> one;
        one.push_back(std::move(spans));
        out.lanes[g] = LodIndex::build(std::move(one), kContextLaneStateCount, out.originNs, out.endNs, buckets);
    });
    return out;
}

ContextLanes computeContextLanes(const Trace& trace)
{
    const ParModel model = buildParModel(trace);
    return computeContextLanes(model, trace.firstTimeNs, trace.lastTimeNs);
}

} // namespace sparkscope::core
