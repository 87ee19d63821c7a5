// The analysis section as CSV rows (see analysis_csv.h): a walk over the section's JSON object, key
// by key, in its order.
#include "export/analysis_csv.h"

namespace sparkscope::core::detail {

namespace {

    using Json = nlohmann::ordered_json;

    // Every leaf of `object` as (statistic = its key, or `prefix.key` below a nested object).
    void leaves(const Json& object, const std::string& id, const std::string& metric, const AnalysisCsvRow& row)
    {
        for (const auto& [k, v] : object.items()) {
            if (v.is_object())
                leaves(v, id, metric + "." + k, row);
            else if (!v.is_null())
                row(id, metric, k, v);
        }
    }

} // namespace

void forEachAnalysisCsvRow(const Json& a, const AnalysisCsvRow& row)
{
    for (const auto& [key, v] : a.items()) {
        if (key == "ledger") {
            for (const auto& [k, x] : v.items()) {
                if (k == "per_engine")
                    for (const auto& [engine, l] : x.items())
                        leaves(l, "engine:" + engine, "ledger", row);
                else if (k == "per_conjunction")
                    for (const auto& [site, l] : x.items())
                        leaves(l, site, "ledger", row);
                else
                    row("all", "ledger", k, x);
            }
        } else if (key == "speedup_bounds") {
            for (const Json& b : v)
                for (const char* k : { "lower", "upper" })
                    row("all", "speedup_bounds." + b["engines"].dump(), k, b[k]);
        } else if (key == "work_span_per_conjunction") {
            for (const auto& [site, s] : v.items())
                for (const auto& [k, x] : s.items()) {
                    if (k == "instances")
                        for (const Json& i : x)
                            leaves(i, site, "work_span.instance:" + i["instance"].dump(), row);
                    else if (x.is_object())
                        leaves(x, site, "work_span." + k, row);
                    else
                        row(site, "work_span", k, x);
                }
        } else if (key == "critical_path") {
            if (v.is_null())
                continue;
            for (const auto& [k, x] : v.items()) {
                if (k == "per_conjunction")
                    for (const auto& [site, s] : x.items())
                        leaves(s, site, "critical_path", row);
                else if (k == "segments")
                    for (size_t i = 0; i < x.size(); ++i)
                        leaves(x[i], "all", "critical_path.segment:" + std::to_string(i + 1), row);
                else if (x.is_object())
                    leaves(x, "all", "critical_path." + k, row);
                else
                    row("all", "critical_path", k, x);
            }
        } else if (key == "predictions") {
            for (const Json& p : v)
                for (const char* k : { "wall_ns", "speedup" })
                    row("all", "predictions." + p["engines"].dump(), k, p[k]);
        } else if (key == "findings") {
            for (size_t i = 0; i < v.size(); ++i) {
                const std::string id = "finding:" + std::to_string(i + 1);
                for (const auto& [k, x] : v[i].items()) {
                    if (k == "ranges")
                        for (size_t r = 0; r < x.size(); ++r)
                            leaves(x[r], id, "finding.range:" + std::to_string(r + 1), row);
                    else if (!x.is_null())
                        row(id, "finding", k, x);
                }
            }
        } else if (key == "findings_run") {
            if (!v.is_null())
                leaves(v, "all", "findings_run", row);
        } else if (key == "notes") {
            for (size_t i = 0; i < v.size(); ++i)
                row("all", "notes", std::to_string(i + 1), v[i]);
        } else if (!v.is_null()) {
            row("all", key, "value", v);
        }
    }
}

} // namespace sparkscope::core::detail
