// Writing the metrics file as JSON (nlohmann::ordered_json keeps insertion order, so the output
// order is the order computeMetrics produced) and CSV (long form, RFC 4180 quoting). Number text in
// CSV is exactly what the JSON writer prints for the same value, so both files agree digit for digit.
#include "sparkscope/core/metrics_export.h"

#include "analysis/findings_json.h"
#include "export/analysis_csv.h"
#include "export/csv_field.h"
#include "export/json_object_builder.h"
#include "export/stat_json.h"
#include "export/json_document.h"

#include <nlohmann/json.hpp>

namespace sparkscope::core {

namespace {

    using Json = nlohmann::ordered_json;

    Json scalarJson(const Scalar& s)
    {
        return std::visit([](const auto& v) { return Json(v); }, s);
    }

    using detail::statJson;

    Json valueJson(const MetricValue& v)
    {
        if (v.stat && v.fields.empty() && v.subStats.empty())
            return statJson(*v.stat);
        Json j = Json::object();
        if (v.stat) {
            const Json st = statJson(*v.stat);
            for (const auto& [k, x] : st.items())
                j[k] = x;
        }
        for (const auto& [k, x] : v.fields)
            j[k] = scalarJson(x);
        for (const auto& [k, s] : v.subStats)
            j[k] = statJson(s);
        return j;
    }

    Json traceJson(const Metrics& m)
    {
        Json t = Json::object();
        t["path"] = m.trace.path;
        t["size"] = m.trace.fileSize;
        t["engines"] = m.trace.engines;
        t["first_ns"] = m.trace.firstNs;
        t["last_ns"] = m.trace.lastNs;
        t["event_count"] = m.trace.eventCount;
        t["warnings"] = m.trace.warnings;
        t["engine_search_events"] = m.trace.engineSearch;
        return t;
    }

    Json rangeJson(const Metrics& m)
    {
        Json r = Json::object();
        r["from_ns"] = std::max(m.options.fromNs, m.trace.firstNs);
        r["to_ns"] = std::min(m.options.toNs, m.trace.lastNs);
        if (m.options.callCount)
            r["csc"] = *m.options.callCount;
        return r;
    }

    using detail::csvField;

    std::string csvNumber(const Json& v) { return v.is_string() ? csvField(v.get<std::string>()) : v.dump(); }

} // namespace

std::string metricsToJson(const Metrics& m, const AnalysisReport* analysis)
{
    Json root = Json::object();
    root["format_version"] = kMetricsFormatVersion;
    root["trace"] = traceJson(m);
    root["range"] = rangeJson(m);
    for (const auto& section : m.sections) {
        detail::JsonObjectBuilder s;
        for (const auto& g : section.groups) {
            Json group = Json::object();
            for (const auto& [key, value] : g.metrics)
                group[key] = valueJson(value);
            s.set(g.id, std::move(group));
        }
        root[section.name] = s.take();
    }
    if (analysis)
        root["analysis"] = detail::analysisReportJson(*analysis, m.options.instances);
    return detail::jsonDocument(root);
}

std::string metricsToCsv(const Metrics& m, const AnalysisReport* analysis)
{
    std::string out = "scope,id,metric,statistic,value\n";
    auto row = [&](const std::string& scope, const std::string& id, const std::string& metric,
                   const std::string& statistic, const std::string& value) {
        out += csvField(scope) + "," + csvField(id) + "," + csvField(metric) + "," + csvField(statistic) + "," + value
            + "\n";
    };
    row("file", "file", "format_version", "value", std::to_string(kMetricsFormatVersion));
    const Json trace = traceJson(m), range = rangeJson(m); // named: items() must not outlive its object
    for (const auto& [k, v] : trace.items()) {
        if (v.is_array()) {
            for (size_t i = 0; i < v.size(); ++i)
                row("trace", "trace", k, std::to_string(i), csvNumber(v[i]));
        } else {
            row("trace", "trace", k, "value", csvNumber(v));
        }
    }
    for (const auto& [k, v] : range.items())
        row("range", "range", k, "value", csvNumber(v));
    for (const auto& section : m.sections)
        for (const auto& g : section.groups)
            for (const auto& [key, value] : g.metrics) {
                if (value.stat) {
                    const Json st = statJson(*value.stat);
                    for (const auto& [sk, sv] : st.items())
                        row(section.name, g.id, key, sk, csvNumber(sv));
                }
                for (const auto& [fk, fv] : value.fields)
                    row(section.name, g.id, key, fk, csvNumber(scalarJson(fv)));
                for (const auto& [sub, st] : value.subStats) {
                    const Json sj = statJson(st);
                    for (const auto& [sk, sv] : sj.items())
                        row(section.name, g.id, key + "." + sub, sk, csvNumber(sv));
                }
            }
    if (analysis) {
        const Json a = detail::analysisReportJson(*analysis, m.options.instances);
        detail::forEachAnalysisCsvRow(
            a, [&](const std::string& id, const std::string& metric, const std::string& statistic, const Json& value) {
                row("analysis", id, metric, statistic, csvNumber(value));
            });
    }
    return out;
}

} // namespace sparkscope::core
