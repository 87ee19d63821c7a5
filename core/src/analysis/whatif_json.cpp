// The what-if's part of the analysis JSON (keys in docs/analysis.md, "JSON"): `predictions` (per
// engine count: engines, wall_ns, speedup, bound, ledger, what the simulated engines did, and the CPUs
// curve when asked for), `costs` (the costs used, where they came from and, when measured, how many
// latencies each is the median of) and `what_if` (the recorded wall time to compare with, the virtual
// speed-ups, a note when absent).
#include "analysis/analysis_json.h"

namespace sparkscope::core::detail {

nlohmann::ordered_json costModelJson(const CostModel& costs, bool samples)
{
    using Json = nlohmann::ordered_json;
    Json out = Json::object(), counts = Json::object();
    for (size_t k = 0; k < kCostKindCount; ++k) {
        const std::string key(costKey(CostKind(k)));
        out[key] = costs.ns[k];
        counts[key] = costs.samples[k];
    }
    out["contention"] = costs.contention;
    counts["contention"] = costs.contentionSamples;
    if (samples)
        out["samples"] = std::move(counts);
    return out;
}

void addWhatIfJson(nlohmann::ordered_json& analysis, const WhatIfReport& r)
{
    using Json = nlohmann::ordered_json;
    Json predictions = Json::array();
    for (const Prediction& p : r.predictions) {
        Json j = Json { { "engines", p.engines }, { "wall_ns", p.wallNs }, { "speedup", p.speedup },
            { "bound", Json { { "lower", p.bound.lower }, { "upper", p.bound.upper } } },
            { "ledger", ledgerJson(p.ledger) }, { "steals", p.steals }, { "contexts", p.contexts },
            { "switches", p.switches }, { "wakeups", p.wakeups }, { "broken_dependencies", p.brokenDependencies } };
        if (p.cpus) {
            Json steps = Json::array();
            for (const StepFunction::Step& st : p.cpus->steps())
                steps.push_back(Json::array({ st.timeNs, st.value }));
            j["cpus"] = std::move(steps);
        }
        predictions.push_back(std::move(j));
    }
    analysis["predictions"] = std::move(predictions);
    Json costs = Json { { "source", r.costs.source } };
    // The sample counts only for measured costs (also "measured, contention given").
    costs.update(costModelJson(r.costs, r.costs.source.starts_with("measured")));
    analysis["costs"] = std::move(costs);
    Json scales = Json::array();
    for (const SiteScale& s : r.scales)
        scales.push_back(Json { { "site", s.site }, { "static_id", s.staticId }, { "factor", s.factor } });
    Json whatIf = Json { { "recorded_wall_ns", r.recordedWallNs }, { "scales", std::move(scales) } };
    if (!r.note.empty())
        whatIf["note"] = r.note;
    analysis["what_if"] = std::move(whatIf);
}

} // namespace sparkscope::core::detail
