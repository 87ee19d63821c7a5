#pragma once
// A Stat as the metrics file and the analysis JSON write it: count, min, max, mean, variance, sum,
// in that order (docs/metrics.md "Summaries").
#include "sparkscope/core/metrics.h"

#include <nlohmann/json.hpp>

namespace sparkscope::core::detail {

inline nlohmann::ordered_json statJson(const Stat& s)
{
    return nlohmann::ordered_json { { "count", s.count }, { "min", s.min }, { "max", s.max }, { "mean", s.mean },
        { "variance", s.variance }, { "sum", s.sum } };
}

} // namespace sparkscope::core::detail
