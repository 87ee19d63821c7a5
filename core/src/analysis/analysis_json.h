#pragma once
// Internal to core (not installed). The analysis as JSON: the "analysis" object with the keys of
// analysis.md §6 (ledger, work_ns, span_ns, parallelism, speedup_bounds, critical_path) plus
// work_span_per_conjunction, incomplete_conjunctions, broken_dependencies and notes. The CLI's
// document wraps it (analysisToJson); the metrics file's `analysis` section is meant to be this same
// object. Keys are documented in docs/analysis.md. Pure function; thread-safe.
#include "sparkscope/core/analysis.h"

#include <nlohmann/json.hpp>

namespace sparkscope::core::detail {

// `instances`: also each instance's work and span, and the critical path's segments.
nlohmann::ordered_json analysisSectionJson(const Analysis& analysis, bool instances);

// The document `sparkscope-cli analyze --format json` writes: {"format_version", "trace", "range",
// "analysis"} with `analysis` as given; "\n" line ends and a final newline.
std::string analysisDocument(const Analysis& analysis, nlohmann::ordered_json analysisObject);

// `<key>_ns` and `<key>_fraction` for each category, then running and the total.
nlohmann::ordered_json ledgerJson(const LossLedger& ledger);

// A cost model's keys (docs/analysis.md, "costs"): one `<kind>_ns` per cost kind, `contention`, and
// with `samples` their sample counts under `samples` (whatif_json.cpp).
nlohmann::ordered_json costModelJson(const CostModel& costs, bool samples);

// The what-if's keys into the analysis object (whatif_json.cpp): `predictions`, `costs`, `what_if`.
void addWhatIfJson(nlohmann::ordered_json& analysis, const WhatIfReport& report);

} // namespace sparkscope::core::detail
