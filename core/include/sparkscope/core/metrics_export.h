#pragma once
// The metrics file (docs/metrics.md "The metrics file"): what `sparkscope-cli metrics` writes and
// what the app exports, byte for byte the same because both call these functions.
//
// JSON: {"format_version": N, "trace": {...}, "range": {...}, "program": {...}, "engines": {...},
//        "conjunctions": {...}, "conjuncts": {...}, "futures": {...}, "scheduling": {...}}
// where each section maps group id -> metric key -> value; a Stat is
// {"count","min","max","mean","variance","sum"}. CSV: the same data in long form, one row per
// number: `scope,id,metric,statistic,value` (sub-statistics as metric "KEY.sub").
//
// Determinism: keys in insertion order (sections, then groups sorted by id as computeMetrics made
// them), numbers printed by nlohmann-json (integers exactly, doubles in the shortest form that
// reads back to the same value), "\n" line ends, a final newline. Pure functions; thread-safe.
#include "sparkscope/core/metrics.h"

#include <string>

namespace sparkscope::core {

// Bumped whenever a key is renamed or removed, or a value changes meaning. Adding keys keeps it.
inline constexpr int kMetricsFormatVersion = 1;

enum class MetricsFormat { Json, Csv };

std::string metricsToJson(const Metrics& metrics);
std::string metricsToCsv(const Metrics& metrics);
inline std::string formatMetrics(const Metrics& metrics, MetricsFormat format)
{
    return format == MetricsFormat::Json ? metricsToJson(metrics) : metricsToCsv(metrics);
}

} // namespace sparkscope::core
