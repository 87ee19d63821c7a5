#include "ui/timeline/timeline_rows.h"

#include "sparkscope/core/deque_sizes.h"

#include <algorithm>

namespace sparkscope::ui {

QString CriticalPathRows::siteName(uint32_t staticId) const
{
    const auto it = std::lower_bound(
        sites.begin(), sites.end(), staticId, [](const auto& site, uint32_t id) { return site.first < id; });
    return it != sites.end() && it->first == staticId ? QString::fromStdString(it->second)
                                                      : QStringLiteral("static id %1").arg(staticId);
}

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
