// The contention coefficient calibrated from a pair of traces (calibration.h; the rule in
// docs/analysis.md "A coefficient from a pair of traces").
#include "sparkscope/core/calibration.h"

#include "analysis/analysis_json.h"
#include "sparkscope/core/compare.h"
#include "sparkscope/core/reader.h"
#include "export/json_document.h"

#include <charconv>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>

namespace sparkscope::core {

namespace {

    Error usage(std::string message) { return Error { ErrorCode::Usage, std::move(message), std::nullopt }; }

    // The prediction of `in`'s trace at P engines with `costs`.
    uint64_t predicted(const CalibrationInput& in, uint32_t engines, const CostModel& costs)
    {
        WhatIfOptions options;
        options.engines = { engines };
        options.costs = costs;
        const std::vector<Prediction> p = in.session->predict(options);
        return p.empty() ? 0 : p.front().wallNs;
    }

    CostModel withContention(CostModel costs, double c)
    {
        costs.contention = c;
        return costs;
    }

    // Conjunction site -> instances, as the model names them.
    std::map<std::string, uint64_t> sitesOf(const AnalysisSession& session)
    {
        const ParModel& m = session.model();
        std::map<uint32_t, uint64_t> byId;
        for (const ConjunctionInstance& j : m.conjunctions)
            ++byId[j.staticId];
        std::map<std::string, uint64_t> out;
        for (const auto& [id, n] : byId)
            out[m.staticName(id)] += n;
        return out;
    }

    // Up to three names of `a` not in `b`, quoted and joined.
    std::string missingFrom(const std::map<std::string, uint64_t>& a, const std::map<std::string, uint64_t>& b)
    {
        std::string out;
        size_t n = 0;
        for (const auto& [site, count] : a) {
            if (b.count(site))
                continue;
            if (n < 3)
                out += (n ? ", '" : "'") + site + "'";
            ++n;
        }
        if (n > 3)
            out += " and " + std::to_string(n - 3) + " more";
        return out;
    }

    // The bisection of whatif_accuracy.py as it was before this command (so its table is unchanged):
    // predict(c) falls as c grows; the c with predict(c) = wall, to 1/4096 of the bracket [2^(k−1), 2^k]
    // that holds it (or of [0, 1]).
    double bisect(const std::function<uint64_t(double)>& predict, uint64_t wall, bool& reached)
    {
        reached = true;
        if (predict(0.0) <= wall)
            return 0.0;
        double lo = 0.0, hi = 1.0;
        while (predict(hi) > wall && hi < kMaxCalibratedContention) {
            lo = hi;
            hi *= 2;
        }
        if (hi >= kMaxCalibratedContention && predict(hi) > wall)
            reached = false;
        for (int i = 0; i < 12; ++i) {
            const double mid = (lo + hi) / 2;
            if (predict(mid) > wall)
                lo = mid;
            else
                hi = mid;
        }
        return (lo + hi) / 2;
    }

    // What the calibration reads of a trace before predicting; an error when it cannot be used.
    Result<CalibrationRun> runOf(const CalibrationInput& in)
    {
        const Analysis a = in.session->analyze();
        if (!a.recordsJoins)
            return usage(in.path + ": the trace records no parallel conjunctions (a GHC eventlog?): the what-if "
                                   "has no DAG to re-simulate, so it cannot calibrate");
        CalibrationRun r;
        r.path = in.path;
        r.engines = in.engines;
        r.recordedWallNs = in.session->recordedWallNs();
        if (r.recordedWallNs == 0)
            return usage(in.path + ": no context ran in the trace");
        r.workNs = a.workSpan.workNs;
        r.costs = in.session->measuredCosts();
        return r;
    }

    std::string shortest(double v)
    {
        char buf[32];
        const auto end = std::to_chars(buf, buf + sizeof buf, v).ptr;
        return std::string(buf, end);
    }

} // namespace

CalibrationInput calibrationInput(const Trace& trace)
{
    return CalibrationInput { trace.path, engineCountOf(trace), std::make_unique<AnalysisSession>(trace) };
}

Result<CalibrationInput> loadCalibrationInput(const std::string& path)
{
    auto trace = readTrace(path);
    if (!trace)
        return Error { trace.error().code, path + ": " + trace.error().toString(), std::nullopt };
    return calibrationInput(trace.value());
}

Result<ContentionCalibration> calibrateContention(const CalibrationInput& a, const CalibrationInput& b)
{
    auto runA = runOf(a);
    if (!runA)
        return runA.error();
    auto runB = runOf(b);
    if (!runB)
        return runB.error();
    if (a.engines == b.engines)
        return usage("both traces were recorded on " + std::to_string(a.engines)
            + " engine(s): calibrate needs one recorded on 1 engine (pinned to one core: taskset -c 0) and one "
              "on more");
    const CalibrationInput& one = a.engines < b.engines ? a : b;
    const CalibrationInput& many = a.engines < b.engines ? b : a;
    if (one.engines != 1)
        return usage("neither trace was recorded on 1 engine (" + one.path + ": " + std::to_string(one.engines) + ", "
            + many.path + ": " + std::to_string(many.engines)
            + "): calibrate needs one on 1 engine (pinned to one core: taskset -c 0) and one on more");
    // Runs of one program, on one input, start the same conjunction sites (the same number of times).
    const auto sitesOne = sitesOf(*one.session), sitesMany = sitesOf(*many.session);
    const std::string onlyOne = missingFrom(sitesOne, sitesMany), onlyMany = missingFrom(sitesMany, sitesOne);
    if (!onlyOne.empty() || !onlyMany.empty())
        return usage("the traces look like runs of different programs (conjunction site(s) "
            + (onlyOne.empty() ? onlyMany + " only in " + many.path
                               : onlyOne + " only in " + one.path
                       + (onlyMany.empty() ? "" : "; " + onlyMany + " only in " + many.path))
            + "): calibrate needs two runs of one program");

    ContentionCalibration out;
    out.one = std::move(a.engines < b.engines ? runA : runB).value();
    out.many = std::move(a.engines < b.engines ? runB : runA).value();
    out.one.predictsEngines = many.engines;
    out.many.predictsEngines = 1;
    const uint64_t wall1 = out.one.recordedWallNs;
    out.coefficient = bisect(
        [&](double c) { return predicted(many, 1, withContention(out.many.costs, c)); }, wall1, out.reached);
    for (auto [run, in] : { std::pair { &out.one, &one }, std::pair { &out.many, &many } }) {
        run->predictedNs = predicted(*in, run->predictsEngines, run->costs);
        run->predictedWithNs = predicted(*in, run->predictsEngines, withContention(run->costs, out.coefficient));
    }

    for (const auto& [site, n] : sitesOne)
        if (const uint64_t m = sitesMany.at(site); m != n) {
            out.notes.push_back("conjunction site '" + site + "' started " + std::to_string(n) + " instance(s) in "
                + one.path + " but " + std::to_string(m) + " in " + many.path
                + ": the same program on other input? The coefficient then measures the input too");
            break;
        }
    if (out.coefficient == 0)
        out.notes.push_back(many.path + " predicts " + one.path
            + "'s wall time or less without contention: the coefficient is 0 (contention only makes recorded work "
              "smaller)");
    if (!out.reached)
        out.notes.push_back("no coefficient up to " + shortest(kMaxCalibratedContention) + " makes " + many.path
            + " predict a run as short as " + one.path
            + "'s: its engines seldom ran together, or the 1-engine run did less work; the coefficient is the bound and "
              "means little");
    if (out.coefficient > 0.5 && out.reached)
        out.notes.push_back("a coefficient above 0.5 is more often the machine's load during the recordings (other "
                            "processes slowing two engines down together) than the program's contention: record "
                            "both on a quiet machine");
    return out;
}

std::string calibrationToJson(const ContentionCalibration& c)
{
    using Json = nlohmann::ordered_json;
    auto error = [](uint64_t predicted, uint64_t recorded) -> Json {
        return recorded ? Json((double(predicted) - double(recorded)) / double(recorded)) : Json(nullptr);
    };
    // The other run's recorded wall: what this one's predictions are compared with.
    auto runJson = [&](const CalibrationRun& r, const CalibrationRun& other) {
        Json costs = detail::costModelJson(r.costs, true);
        return Json { { "path", r.path }, { "engines", r.engines }, { "recorded_wall_ns", r.recordedWallNs },
            { "work_ns", r.workNs }, { "costs", std::move(costs) },
            { "predicts",
                Json { { "engines", r.predictsEngines }, { "recorded_wall_ns", other.recordedWallNs },
                    { "without", Json { { "wall_ns", r.predictedNs }, { "error", error(r.predictedNs, other.recordedWallNs) } } },
                    { "with", Json { { "wall_ns", r.predictedWithNs },
                                  { "error", error(r.predictedWithNs, other.recordedWallNs) } } } } } };
    };
    Json root = Json { { "format_version", 1 }, { "coefficient", c.coefficient }, { "reached", c.reached },
        { "one", runJson(c.one, c.many) }, { "many", runJson(c.many, c.one) }, { "notes", c.notes } };
    return detail::jsonDocument(root);
}

std::string calibrationCostsText(const ContentionCalibration& c)
{
    std::string out = "# The costs " + c.many.path + " measured (medians of its latencies, ns) and the contention\n"
                      "# coefficient calibrated with " + c.one.path + ":\n";
    for (size_t k = 0; k < kCostKindCount; ++k)
        out += std::string(costKey(CostKind(k))) + "=" + std::to_string(c.many.costs.ns[k]) + "\n";
    out += "contention=" + shortest(c.coefficient) + "\n";
    return out;
}

} // namespace sparkscope::core
