#pragma once
// Internal to core (not installed). An AnalysisReport (findings.h) as JSON: the "analysis" object of
// analysis_json.h followed by `predictions` ([{engines, wall_ns, speedup}]) and `findings` ([{rule,
// text, site, ranges: [{from_ns, to_ns}], recoverable_ns}], ranked; `site` null for the whole
// program). The metrics file's `analysis` section and `sparkscope-cli analyze --format json` write
// this same object. Pure function; thread-safe.
#include "sparkscope/core/findings.h"

#include <nlohmann/json.hpp>

namespace sparkscope::core::detail {

nlohmann::ordered_json analysisReportJson(const AnalysisReport& report, bool instances);

} // namespace sparkscope::core::detail
