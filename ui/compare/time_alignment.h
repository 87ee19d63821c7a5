#pragma once
// Time alignment of two stacked timelines (StackedTimelines): which instant of trace B lies under which
// instant of trace A. A maps to B by bNs = bAnchorNs + (aNs − aAnchorNs) × scale: the anchors are the
// traces' starts (the default), the n-th occurrence of a marker label in each, or the n-th instance of
// a conjunction site (its source location) in each; scale is 1, or B's length / A's length when both
// are normalised to the same length (then the traces' ends line up too when anchored at the start).
// Pure values and functions; anchorsOf scans the trace's events (core/conjunction_starts.h), so call it
// on a worker thread.
#include "ui/loading/trace_data.h"
#include "ui/timeline/time_axis.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace sparkscope::ui {

// The instants of a trace one can align at: marker times by label, conjunction instance starts by
// site (ParModel::staticName), each in time order; and the trace's extent.
struct RunAnchors {
    int64_t startNs = 0, endNs = 1;
    std::map<std::string, std::vector<int64_t>> markers;
    std::map<std::string, std::vector<int64_t>> conjunctions;
};
RunAnchors anchorsOf(const TraceData& data);

struct Alignment {
    enum class At { Start, Marker, Conjunction } at = At::Start;
    std::string name; // the marker label or the conjunction site
    size_t occurrence = 0; // 0-based: the n-th marker with that label / instance of that site
    bool normalise = false; // scale B so that both traces have the same length
};

struct TimeMap {
    int64_t aAnchorNs = 0, bAnchorNs = 0;
    double scale = 1; // B ns per A ns
    int64_t toB(int64_t aNs) const noexcept;
    int64_t toA(int64_t bNs) const noexcept;
    TimeWindow toB(TimeWindow a) const noexcept { return { toB(a.startNs), toB(a.endNs) }; }
    TimeWindow toA(TimeWindow b) const noexcept { return { toA(b.startNs), toA(b.endNs) }; }
};

// The map for `alignment`; nullopt when one trace lacks the anchor (no such marker or instance).
std::optional<TimeMap> alignRuns(const RunAnchors& a, const RunAnchors& b, const Alignment& alignment);

// The names both traces have (markers or conjunction sites), sorted, with the occurrences both have.
std::vector<std::pair<std::string, size_t>> commonAnchors(
    const std::map<std::string, std::vector<int64_t>>& a, const std::map<std::string, std::vector<int64_t>>& b);

} // namespace sparkscope::ui
