// The analysis report as JSON (see findings_json.h; keys in docs/analysis.md and docs/metrics.md).
#include "analysis/findings_json.h"

#include "analysis/analysis_json.h"

namespace sparkscope::core {

namespace detail {

    nlohmann::ordered_json analysisReportJson(const AnalysisReport& report, bool instances)
    {
        using Json = nlohmann::ordered_json;
        Json j = analysisSectionJson(report.analysis, instances);
        // With the what-if run, analysisSectionJson wrote its full `predictions` (ledger, bounds, …); else
        // the summaries, or [] when none was run.
        if (!j.contains("predictions")) {
            Json predictions = Json::array();
            for (const PredictionSummary& p : report.predictions)
                predictions.push_back(
                    Json { { "engines", p.engines }, { "wall_ns", p.wallNs }, { "speedup", p.speedup } });
            j["predictions"] = std::move(predictions);
        }
        // What the findings' shares of "the run" are of (findingsRun); null when no engine ran a context.
        j["findings_run"]
            = report.run ? Json { { "from_ns", report.run->fromNs }, { "to_ns", report.run->toNs } } : Json();
        Json findings = Json::array();
        for (const Finding& f : report.findings) {
            Json ranges = Json::array();
            for (const TimeRange& r : f.ranges)
                ranges.push_back(Json { { "from_ns", r.fromNs }, { "to_ns", r.toNs } });
            Json finding = Json { { "rule", f.rule }, { "text", f.text } };
            finding["site"] = f.site.empty() ? Json() : Json(f.site);
            finding["ranges"] = std::move(ranges);
            finding["recoverable_ns"] = f.recoverableNs;
            findings.push_back(std::move(finding));
        }
        j["findings"] = std::move(findings);
        return j;
    }

} // namespace detail

std::string analysisReportToJson(const AnalysisReport& report, bool instances)
{
    return detail::analysisDocument(report.analysis, detail::analysisReportJson(report, instances));
}

} // namespace sparkscope::core
