#include "ui/timeline/timeline_rows.h"

#include "sparkscope/core/deque_sizes.h"

#include <algorithm>

namespace sparkscope::ui {

std::shared_ptr<const core::ContextLanes> computeContextLaneRows(const core::Trace& trace)
{
    return std::make_shared<const core::ContextLanes>(core::computeContextLanes(trace));
}

std::shared_ptr<const DequeRows> computeDequeRows(const core::Trace& trace)
{
    auto rows = std::make_shared<DequeRows>();
    rows->engines = core::computeSparkDequeSizes(trace);
    for (const core::StepFunction& f : rows->engines)
        rows->maxValue = std::max(rows->maxValue, f.max(f.beginNs(), f.endNs()));
    return rows;
}

} // namespace sparkscope::ui
