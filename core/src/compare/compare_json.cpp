// The comparison and the scaling series as JSON and CSV (compare.h; keys in docs/cli.md "compare" and
// "scaling"). nlohmann::ordered_json keeps insertion order, so the output is fixed; an absent figure
// is null (JSON) or an empty cell (CSV), never a number. A figure whose value is a whole number is
// written as an integer. The CSV's number text is the JSON's.
#include "sparkscope/core/compare.h"

#include "analysis/analysis_json.h"
#include "export/csv_field.h"
#include "export/json_document.h"

#include <cmath>
#include <nlohmann/json.hpp>

namespace sparkscope::core {

namespace {

    using Json = nlohmann::ordered_json;

    Json number(std::optional<double> v)
    {
        if (!v || !std::isfinite(*v))
            return nullptr;
        if (*v == std::trunc(*v) && std::fabs(*v) < 9.0e15)
            return int64_t(*v);
        return *v;
    }

    Json figuresJson(const std::vector<FigureComparison>& figures)
    {
        Json out = Json::object();
        for (const FigureComparison& f : figures)
            out[f.key] = Json { { "a", number(f.a) }, { "b", number(f.b) }, { "difference", number(f.difference) },
                { "ratio", number(f.ratio) } };
        return out;
    }

    Json runJson(const RunInput& in)
    {
        Json j = Json { { "path", in.path }, { "read", in.profile.has_value() } };
        j["error"] = in.profile ? Json(nullptr) : Json(in.error);
        j["engines"] = in.profile ? Json(in.profile->engines) : Json(nullptr);
        j["records_joins"] = in.profile ? Json(in.profile->recordsJoins) : Json(nullptr);
        j["notes"] = in.profile ? Json(in.profile->notes) : Json::array();
        return j;
    }

    using detail::csvField;

    std::string csvNumber(std::optional<double> v)
    {
        const Json j = number(v);
        return j.is_null() ? std::string() : j.dump();
    }

    void csvFigures(std::string& out, const std::string& section, const std::string& id, Presence presence,
        const std::vector<FigureComparison>& figures)
    {
        for (const FigureComparison& f : figures)
            out += section + "," + csvField(id) + "," + std::string(presenceKey(presence)) + "," + f.key + ","
                + csvNumber(f.a) + "," + csvNumber(f.b) + "," + csvNumber(f.difference) + "," + csvNumber(f.ratio)
                + "\n";
    }

    Json scalingJson(const Scaling& s)
    {
        return Json { { "speedup", number(s.speedup) }, { "efficiency", number(s.efficiency) },
            { "serial_fraction", number(s.serialFraction) } };
    }

    // A point's keys, flat: scaling's keys merged in after the wall time.
    void addScaling(Json& j, const Scaling& s)
    {
        const Json keys = scalingJson(s); // named: items() must not outlive it
        for (const auto& [k, v] : keys.items())
            j[k] = v;
    }

    std::optional<double> maybe(std::optional<uint64_t> v)
    {
        return v ? std::optional<double>(double(*v)) : std::nullopt;
    }

} // namespace

std::string comparisonToJson(const RunComparison& c)
{
    Json root = Json::object();
    root["format_version"] = kCompareFormatVersion;
    root["a"] = runJson(c.a);
    root["b"] = runJson(c.b);
    root["warnings"] = c.warnings;
    root["program"] = figuresJson(c.program);
    root["ledger"] = figuresJson(c.ledger);
    Json sites = Json::array();
    for (const SiteComparison& s : c.sites) {
        Json conjuncts = Json::array();
        for (const ConjunctComparison& k : s.conjuncts)
            conjuncts.push_back(Json { { "position", k.position }, { "presence", presenceKey(k.presence) },
                { "figures", figuresJson(k.figures) } });
        sites.push_back(Json { { "site", s.site }, { "presence", presenceKey(s.presence) },
            { "time_difference_ns", s.timeDifferenceNs }, { "figures", figuresJson(s.figures) },
            { "conjuncts", std::move(conjuncts) } });
    }
    root["sites"] = std::move(sites);
    return detail::jsonDocument(root);
}

std::string comparisonToCsv(const RunComparison& c)
{
    std::string out = "section,id,presence,figure,a,b,difference,ratio\n";
    out += "run,path,both,path," + csvField(c.a.path) + "," + csvField(c.b.path) + ",,\n";
    csvFigures(out, "program", "all", Presence::Both, c.program);
    csvFigures(out, "ledger", "all", Presence::Both, c.ledger);
    for (const SiteComparison& s : c.sites) {
        csvFigures(out, "site", s.site, s.presence, s.figures);
        for (const ConjunctComparison& k : s.conjuncts)
            csvFigures(out, "conjunct", s.site + "/" + std::to_string(k.position), k.presence, k.figures);
    }
    return out;
}

std::string scalingToJson(const ScalingReport& r)
{
    Json root = Json::object();
    root["format_version"] = kCompareFormatVersion;
    root["base"] = r.points.empty()
        ? Json(nullptr)
        : Json { { "path", r.points[r.base].path }, { "engines", r.points[r.base].engines } };
    root["failed"] = r.failed;
    root["warnings"] = r.warnings;
    Json points = Json::array();
    for (const ScalingPoint& p : r.points) {
        Json j = Json { { "path", p.path }, { "engines", p.engines }, { "wall_ns", p.wallNs } };
        addScaling(j, p.scaling);
        j["work_ns"] = p.workNs;
        j["work_growth"] = number(p.workGrowth);
        j["span_ns"] = number(maybe(p.spanNs));
        j["parallelism"] = number(p.parallelism);
        j["ledger"] = detail::ledgerJson(p.ledger);
        Json predictions = Json::array();
        for (const PointPrediction& pr : p.predictions)
            predictions.push_back(Json { { "from", r.points[pr.from].path },
                { "from_engines", r.points[pr.from].engines }, { "wall_ns", pr.wallNs }, { "error", number(pr.error) } });
        j["predictions"] = std::move(predictions);
        points.push_back(std::move(j));
    }
    root["points"] = std::move(points);
    Json sites = Json::array();
    for (const SiteScaling& s : r.sites) {
        Json list = Json::array();
        for (size_t i = 0; i < s.points.size(); ++i) {
            const SitePoint& p = s.points[i];
            Json j = Json { { "engines", r.points[i].engines }, { "covered_ns", p.coveredNs } };
            addScaling(j, p.scaling);
            j["instances"] = p.instances;
            j["work_mean_ns"] = number(p.workMeanNs);
            j["span_mean_ns"] = number(p.spanMeanNs);
            j["parallelism_mean"] = number(p.parallelismMean);
            j["ledger"] = detail::ledgerJson(p.ledger);
            list.push_back(std::move(j));
        }
        sites.push_back(Json { { "site", s.site }, { "points", std::move(list) } });
    }
    root["sites"] = std::move(sites);
    return detail::jsonDocument(root);
}

std::string scalingToCsv(const ScalingReport& r)
{
    std::string out = "section,id,engines,path,figure,value\n";
    auto row = [&](const std::string& section, const std::string& id, const ScalingPoint& p, const std::string& figure,
                   std::optional<double> v) {
        out += section + "," + csvField(id) + "," + std::to_string(p.engines) + "," + csvField(p.path) + "," + figure
            + "," + csvNumber(v) + "\n";
    };
    auto ledgerRows
        = [&](const std::string& section, const std::string& id, const ScalingPoint& p, const LossLedger& l) {
              for (const Figure& f : ledgerFigures(l))
                  row(section, id, p, "ledger." + f.key, f.value);
          };
    for (const ScalingPoint& p : r.points) {
        row("point", "all", p, "wall_ns", double(p.wallNs));
        row("point", "all", p, "speedup", p.scaling.speedup);
        row("point", "all", p, "efficiency", p.scaling.efficiency);
        row("point", "all", p, "serial_fraction", p.scaling.serialFraction);
        row("point", "all", p, "work_ns", double(p.workNs));
        row("point", "all", p, "work_growth", p.workGrowth);
        row("point", "all", p, "span_ns", maybe(p.spanNs));
        row("point", "all", p, "parallelism", p.parallelism);
        ledgerRows("point", "all", p, p.ledger);
        for (const PointPrediction& pr : p.predictions) {
            row("prediction", r.points[pr.from].path, p, "wall_ns", double(pr.wallNs));
            row("prediction", r.points[pr.from].path, p, "error", pr.error);
        }
    }
    for (const SiteScaling& s : r.sites) {
        for (size_t i = 0; i < s.points.size(); ++i) {
            const SitePoint& sp = s.points[i];
            const ScalingPoint& p = r.points[i];
            row("site", s.site, p, "covered_ns", double(sp.coveredNs));
            row("site", s.site, p, "speedup", sp.scaling.speedup);
            row("site", s.site, p, "efficiency", sp.scaling.efficiency);
            row("site", s.site, p, "serial_fraction", sp.scaling.serialFraction);
            row("site", s.site, p, "instances", double(sp.instances));
            row("site", s.site, p, "work_mean_ns", sp.workMeanNs);
            row("site", s.site, p, "span_mean_ns", sp.spanMeanNs);
            row("site", s.site, p, "parallelism_mean", sp.parallelismMean);
            ledgerRows("site", s.site, p, sp.ledger);
        }
    }
    return out;
}

} // namespace sparkscope::core
