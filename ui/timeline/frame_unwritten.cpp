// The part of a trace still being written that an engine's events do not cover yet: our runtime
// writes an engine's events when its buffer fills, GHC at its flush interval, so an engine busy with
// one long computation may have written nothing for seconds. Its bar shows nothing there, which would
// read as idle; a hatch over the row says "not known yet" instead (and describeAt says why). The
// CPUs curve and the utilisation row, the analysis of what was written, are hatched from where the
// first engine's events stop: after that, they count the engines behind in their last known state.
#include "ui/timeline/frame_builders.h"

#include <algorithm>

namespace sparkscope::ui {

void addUnwritten(Frame& f, const TraceData& data, const TimelineRows* rows)
{
    if (!rows || !rows->unwritten || rows->unwritten->empty())
        return;
    const TimeAxis& axis = f.axis;
    const FrameLayout& L = f.layout;
    const double right = std::min(axis.left + axis.width, axis.xOf(data.endNs));
    const size_t engines = std::min(f.engines, rows->unwritten->size());
    for (size_t e = 0; e < engines; ++e) {
        const int64_t from = (*rows->unwritten)[e];
        if (from == INT64_MAX || from >= axis.endNs || from >= data.endNs)
            continue;
        const double left = std::max(axis.left, axis.xOf(from));
        if (right > left)
            f.unwritten.emplace_back(left, L.barTop(e), right - left, L.barHeight);
    }
    // The CPUs curve and the utilisation row count every engine from where the first one's events
    // stop: an engine behind is counted in its last known state there, so both are hatched from it.
    const int64_t horizon = writtenByAllUntil(*rows->unwritten);
    if (horizon < axis.endNs && horizon < data.endNs) {
        const double left = std::max(axis.left, axis.xOf(horizon));
        if (right > left) {
            f.unwritten.emplace_back(left, L.curveTop(), right - left, L.curveHeight);
            if (L.hasUtilisation())
                f.unwritten.emplace_back(left, L.utilisationTop(), right - left, L.utilisationHeight);
        }
    }
}

} // namespace sparkscope::ui
