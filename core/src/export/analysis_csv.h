#pragma once
// Internal to core (not installed). The metrics file's `analysis` section in CSV's long form: every
// number and string of the section's JSON object (findings_json.h) as one row `analysis,id,metric,
// statistic,value`, so the CSV carries exactly the JSON's values (docs/metrics.md lists the mapping):
//   id         `all`, `engine:<n>` (ledger per engine), the static id (per-conjunction figures), or
//              `finding:<rank>`;
//   metric     the key inside the section, with `.` for what lies below it (`ledger`,
//              `critical_path.waiting`, `speedup_bounds.<P>`, `finding.range:<n>`, …);
//   statistic  the leaf's key (`value` for a plain top-level figure).
// Absent figures (JSON null) have no row.
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

namespace sparkscope::core::detail {

using AnalysisCsvRow = std::function<void(const std::string& id, const std::string& metric,
    const std::string& statistic, const nlohmann::ordered_json& value)>;

void forEachAnalysisCsvRow(const nlohmann::ordered_json& analysis, const AnalysisCsvRow& row);

} // namespace sparkscope::core::detail
