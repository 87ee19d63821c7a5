// The analysis as JSON (see analysis_json.h; keys in docs/analysis.md). nlohmann::ordered_json keeps
// insertion order, so the output order is fixed; an absent figure is null, never a number.
#include "analysis/analysis_json.h"

#include "export/json_object_builder.h"
#include "export/stat_json.h"
#include "export/json_document.h"

namespace sparkscope::core {

namespace detail {

    using Json = nlohmann::ordered_json;

    Json ledgerJson(const LossLedger& l)
    {
        Json j = Json::object();
        for (size_t i = 0; i < kLossCategoryCount; ++i) {
            const std::string key(lossCategoryKey(LossCategory(i)));
            j[key + "_ns"] = l.ns[i];
            j[key + "_fraction"] = l.fraction(LossCategory(i));
        }
        j["running_ns"] = l.runningNs();
        j["running_fraction"] = l.totalNs() ? double(l.runningNs()) / double(l.totalNs()) : 0.0;
        j["total_ns"] = l.totalNs();
        return j;
    }

    namespace {

        Json ledgerReportJson(const LedgerReport& r)
        {
            Json j = ledgerJson(r.total);
            detail::JsonObjectBuilder engines;
            for (size_t e = 0; e < r.perEngine.size(); ++e)
                engines.set(std::to_string(e), ledgerJson(r.perEngine[e]));
            j["per_engine"] = engines.take();
            detail::JsonObjectBuilder sites;
            for (const SiteLedger& s : r.perConjunction) {
                Json site = Json { { "instances", s.instances }, { "covered_ns", s.coveredNs } };
                const Json ledger = ledgerJson(s.ledger); // named: items() must not outlive it
                for (const auto& [k, v] : ledger.items())
                    site[k] = v;
                sites.set(s.site, std::move(site));
            }
            j["per_conjunction"] = sites.take();
            return j;
        }

        Json workSpanSitesJson(const std::vector<SiteWorkSpan>& sites, bool instances)
        {
            detail::JsonObjectBuilder out;
            for (const SiteWorkSpan& s : sites) {
                Json j
                    = Json { { "complete", s.complete }, { "incomplete", s.incomplete }, { "work", statJson(s.work) },
                          { "span", statJson(s.span) }, { "parallelism", statJson(s.parallelism) } };
                if (instances) {
                    Json list = Json::array();
                    for (const InstanceWorkSpan& i : s.instances)
                        list.push_back(Json { { "instance", i.instance }, { "start_ns", i.startNs },
                            { "end_ns", i.endNs }, { "work_ns", i.workNs }, { "span_ns", i.spanNs } });
                    j["instances"] = std::move(list);
                }
                out.set(s.site, std::move(j));
            }
            return out.take();
        }

        Json criticalPathJson(const CriticalPathReport& p, bool instances)
        {
            Json waiting = Json::object();
            for (size_t k = 1; k < kPathKindCount; ++k)
                waiting[std::string(pathKindKey(PathKind(k))) + "_ns"] = p.byKind[k];
            detail::JsonObjectBuilder sites;
            for (const PathSiteShare& s : p.perConjunction)
                sites.set(s.site, Json { { "ns", s.ns }, { "running_ns", s.runningNs },
                    { "fraction", p.lengthNs ? double(s.ns) / double(p.lengthNs) : 0.0 } });
            Json j = Json { { "from_ns", p.fromNs }, { "to_ns", p.toNs }, { "length_ns", p.lengthNs },
                { "running_ns", p.runningNs }, { "waiting_ns", p.waitingNs }, { "waiting", std::move(waiting) },
                { "outside_conjunct_ns", p.outsideConjunctNs }, { "per_conjunction", sites.take() } };
            if (instances) {
                Json list = Json::array();
                for (const PathSegment& s : p.segments) {
                    Json seg = Json { { "kind", std::string(pathKindKey(s.kind)) }, { "from_ns", s.fromNs },
                        { "to_ns", s.toNs }, { "context", s.context } };
                    seg["engine"] = s.engine == kNoEngine ? Json() : Json(s.engine);
                    seg["static_id"] = s.position ? Json(s.staticId) : Json();
                    seg["position"] = s.position ? Json(s.position) : Json();
                    list.push_back(std::move(seg));
                }
                j["segments"] = std::move(list);
            }
            return j;
        }

    } // namespace

    nlohmann::ordered_json analysisSectionJson(const Analysis& a, bool instances)
    {
        const WorkSpanReport& ws = a.workSpan;
        Json j = Json::object();
        j["engines"] = a.ledger.engines;
        j["ledger"] = ledgerReportJson(a.ledger);
        j["work_ns"] = ws.workNs;
        j["span_ns"] = ws.spanNs ? Json(*ws.spanNs) : Json();
        j["parallelism"] = ws.parallelism ? Json(*ws.parallelism) : Json();
        if (!ws.note.empty())
            j["span_note"] = ws.note;
        Json bounds = Json::array();
        for (const SpeedupBound& b : ws.bounds)
            bounds.push_back(Json { { "engines", b.engines }, { "lower", b.lower }, { "upper", b.upper } });
        j["speedup_bounds"] = std::move(bounds);
        j["work_span_per_conjunction"] = workSpanSitesJson(ws.perConjunction, instances);
        j["critical_path"] = a.criticalPath ? criticalPathJson(*a.criticalPath, instances) : Json();
        if (a.whatIf)
            addWhatIfJson(j, *a.whatIf);
        j["incomplete_conjunctions"] = a.incompleteConjunctions;
        j["broken_dependencies"] = ws.brokenDependencies;
        j["notes"] = a.notes;
        return j;
    }

    std::string analysisDocument(const Analysis& a, nlohmann::ordered_json analysis)
    {
        using Json = nlohmann::ordered_json;
        Json root = Json::object();
        root["format_version"] = 1;
        root["trace"] = Json { { "path", a.trace.path }, { "size", a.trace.fileSize }, { "engines", a.trace.engines },
            { "first_ns", a.trace.firstNs }, { "last_ns", a.trace.lastNs }, { "event_count", a.trace.eventCount },
            { "warnings", a.trace.warnings } };
        root["range"] = Json { { "from_ns", a.fromNs }, { "to_ns", a.toNs } };
        root["analysis"] = std::move(analysis);
        return detail::jsonDocument(root);
    }

} // namespace detail

std::string analysisToJson(const Analysis& a, bool instances)
{
    return detail::analysisDocument(a, detail::analysisSectionJson(a, instances));
}

} // namespace sparkscope::core
