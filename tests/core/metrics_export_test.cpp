// The metrics file: JSON layout and keys, CSV long form agreeing with the JSON digit for digit,
// options (--instances, --csc, --from/--to), determinism; the analysis section: its keys, its ledger
// summing exactly, its CSV rows, and the sections before it written exactly as without it.
#include "metrics_sim.h"
#include "scenario_traces.h"
#include "sparkscope/core/analysis.h"
#include "sparkscope/core/event_types.h"
#include "sparkscope/core/findings.h"
#include "sparkscope/core/metrics.h"
#include "sparkscope/core/metrics_export.h"
#include "sparkscope/core/reader.h"
#include "support/test_data.h"
#include "support/trace_builder.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

using namespace sparkscope::core;
using Json = nlohmann::ordered_json;

namespace {

std::vector<std::string> splitCsv(const std::string& line)
{
    std::vector<std::string> out(1);
    bool quoted = false;
    for (size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted) {
            if (c == '"' && i + 1 < line.size() && line[i + 1] == '"')
                out.back() += '"', ++i;
            else if (c == '"')
                quoted = false;
            else
                out.back() += c;
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            out.emplace_back();
        } else {
            out.back() += c;
        }
    }
    return out;
}

} // namespace

TEST_CASE("a trace records an engine's search when its header declares 108, 109 or 112", "[core][metrics]")
{
    // Written and read back, with the header our runtime writes (mercuryHeader).
    Trace trace = sparkscope::test::TraceBuilder(1).createThread(0, 0, 1).endAt(100).roundTrip();
    CHECK(recordsEngineSearch(trace));
    const Metrics ours = computeMetrics(trace);
    CHECK(ours.trace.engineSearch);
    CHECK(Json::parse(metricsToJson(ours))["trace"]["engine_search_events"] == true);
    CHECK(metricsToCsv(ours).find("\ntrace,trace,engine_search_events,value,true\n") != std::string::npos);
    // Each of the three alone is enough; without them (GHC's eventlogs) the search is not measured.
    std::vector<EventTypeDecl> types = trace.header.types;
    std::erase_if(types, [](const EventTypeDecl& d) { return isSearchEvent(d.number); });
    REQUIRE(types.size() + 3 == trace.header.types.size());
    for (const uint16_t only : { ev::MerLookingForGlobalContext, ev::MerWorkStealing, ev::MerLookingForLocalSpark }) {
        trace.header.types = types;
        trace.header.types.push_back({ only, 0, "search", "" });
        CHECK(recordsEngineSearch(trace));
    }
    trace.header.types = types;
    CHECK_FALSE(recordsEngineSearch(trace));
    const Metrics ghcLike = computeMetrics(trace);
    CHECK_FALSE(ghcLike.trace.engineSearch);
    CHECK(Json::parse(metricsToJson(ghcLike))["trace"]["engine_search_events"] == false);
}

TEST_CASE("metrics file JSON has the documented layout and CSV carries the same numbers", "[core][metrics]")
{
    uint64_t seed = 7; // the first random program from 7 on with a few conjunctions
    while (buildParModel(sparkscope::test::simulateRandomProgram(seed).build()).conjunctions.size() < 4)
        ++seed;
    const Trace trace = sparkscope::test::simulateRandomProgram(seed).build();
    MetricsOptions options;
    options.instances = true;
    options.callCount = 1000;
    const MetricsFile file = computeMetricsFile(trace, options);
    const Metrics& m = file.metrics;
    const std::string json = formatMetricsFile(file, MetricsFormat::Json);
    CHECK(json == formatMetricsFile(computeMetricsFile(trace, options), MetricsFormat::Json)); // deterministic
    const Json j = Json::parse(json);
    std::vector<std::string> keys;
    for (const auto& [k, v] : j.items())
        keys.push_back(k);
    CHECK(keys
        == std::vector<std::string> { "format_version", "trace", "range", "program", "engines", "conjunctions",
            "conjuncts", "futures", "scheduling", "analysis" });
    CHECK(j["format_version"] == kMetricsFormatVersion);
    CHECK(kMetricsFormatVersion == 2);
    CHECK(j["trace"]["event_count"] == trace.eventCount());
    CHECK(j["trace"]["engines"] == trace.engineCount());
    const auto& gc = j["program"]["all"]["GC_STATS"];
    for (const char* s : { "count", "min", "max", "mean", "variance", "sum" })
        CHECK(gc.contains(s));
    // NANOSECS_PER_CALL = user time on all engines / n.
    const double user = double(m.cpusOverTime.integral(int64_t(trace.firstTimeNs), int64_t(trace.lastTimeNs)));
    CHECK(j["program"]["all"]["NANOSECS_PER_CALL"]["value"].get<double>() == Approx(user / 1000));
    bool anyInstance = false;
    for (const auto& [id, g] : j["conjunctions"].items())
        anyInstance = anyInstance || id.rfind("instance:", 0) == 0;
    CHECK(anyInstance);

    const std::string csv = formatMetricsFile(file, MetricsFormat::Csv);
    std::istringstream in(csv);
    std::string line;
    std::getline(in, line);
    CHECK(line == "scope,id,metric,statistic,value");
    size_t rows = 0, matched = 0;
    while (std::getline(in, line)) {
        const auto f = splitCsv(line);
        REQUIRE(f.size() == 5);
        ++rows;
        if (!j.contains(f[0]) || f[0] == "trace" || f[0] == "range" || f[0] == "analysis")
            continue;
        const auto& group = j[f[0]][f[1]];
        const auto dot = f[2].find('.');
        const Json* v = nullptr;
        if (dot == std::string::npos)
            v = &group[f[2]][f[3]];
        else
            v = &group[f[2].substr(0, dot)][f[2].substr(dot + 1)][f[3]];
        const std::string text = v->is_string() ? v->get<std::string>() : v->dump();
        INFO(line);
        CHECK(text == f[4]);
        ++matched;
    }
    CHECK(rows > 100);
    CHECK(matched > 100);
}

TEST_CASE(
    "metrics without --csc have no NANOSECS_PER_CALL and --from/--to restrict the program figures", "[core][metrics]")
{
    const Trace trace = sparkscope::test::simulateRandomProgram(3).build();
    const Metrics whole = computeMetrics(trace);
    CHECK(whole.find("program", "all", "NANOSECS_PER_CALL") == nullptr); // absent, not zero
    MetricsOptions options;
    options.fromNs = trace.firstTimeNs + 100;
    options.toNs = trace.firstTimeNs + 600;
    const Metrics part = computeMetrics(trace, options);
    const Json j = Json::parse(metricsToJson(part));
    CHECK(j["range"]["from_ns"] == options.fromNs);
    CHECK(j["program"]["all"]["MUTATOR_VS_GC_TIME"]["total_ns"] == 500);
    // The engines' state times within the range add up to the range on every engine.
    for (size_t e = 0; e < trace.engineCount(); ++e) {
        int64_t sum = 0;
        for (const auto& [k, v] : j["engines"][std::to_string(e)]["ENGINE_STATE_TIME"].items())
            sum += v.get<int64_t>();
        CHECK(sum == 500);
    }
    CHECK(j["program"]["all"]["CPUS_OVER_TIME"]["average"].get<double>()
        == Approx(double(part.cpusOverTime.integral(int64_t(options.fromNs), int64_t(options.toNs))) / 500));
}

TEST_CASE("sparkscope-cli metrics writes byte for byte what the core functions produce", "[core][metrics]")
{
    const std::filesystem::path cli = std::filesystem::path(SPARKSCOPE_BINARY_DIR) / "app" / "sparkscope-cli";
    auto trace = sparkscope::test::sharedTestData("ghc/parfib-12-30.eventlog");
    if (!trace)
        return;
    if (!std::filesystem::exists(cli)) {
        WARN("NOT RUN: " << cli.string() << " is not built");
        return;
    }
    const auto dir = sparkscope::test::scratchDir("metrics-cli");
    const std::string path = trace->string();
    auto loaded = readTrace(path);
    REQUIRE(loaded);
    MetricsOptions options;
    options.callCount = 7;
    options.fromNs = 1000000;
    options.toNs = 20000000;
    for (const char* format : { "json", "csv" }) {
        const auto out = dir / (std::string("out.") + format);
        const std::string cmd = cli.string() + " metrics " + path + " --format " + format
            + " --csc 7 --from 1000000 --to 20000000 -o " + out.string();
        REQUIRE(std::system(cmd.c_str()) == 0);
        std::ifstream in(out, std::ios::binary);
        const std::string written((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        const MetricsFile file = computeMetricsFile(loaded.value(), options);
        CHECK(written
            == formatMetricsFile(file, std::string(format) == "json" ? MetricsFormat::Json : MetricsFormat::Csv));
    }
    // Bad usage is exit code 2, never a crash.
    CHECK(std::system((cli.string() + " metrics " + path + " --format xml > /dev/null 2>&1").c_str()) != 0);
    CHECK(std::system((cli.string() + " metrics " + path + " --from 5 --to 5 > /dev/null 2>&1").c_str()) != 0);
}

namespace {

uint64_t sumOfCategories(const Json& ledger)
{
    uint64_t sum = 0;
    for (size_t c = 0; c < kLossCategoryCount; ++c)
        sum += ledger[std::string(lossCategoryKey(LossCategory(c))) + "_ns"].get<uint64_t>();
    return sum;
}

} // namespace

TEST_CASE(
    "the metrics file's analysis section has the documented keys and its ledger sums", "[core][analysis][findings]")
{
    // The future trace: a future whose first wait suspends, a steal, a barrier; findings fire on it.
    const Trace trace = sparkscope::test::futureTrace();
    MetricsOptions options;
    options.instances = true;
    const MetricsFile file = computeMetricsFile(trace, options);
    const Json j = Json::parse(formatMetricsFile(file, MetricsFormat::Json));
    const Json& a = j["analysis"];
    for (const char* key :
        { "ledger", "work_ns", "span_ns", "parallelism", "speedup_bounds", "critical_path", "predictions", "findings" })
        CHECK(a.contains(key));
    // The ledger: each category with _ns and _fraction; sums to engines x range, each engine to the
    // range, each site to engines x its covered time.
    const uint64_t range = j["range"]["to_ns"].get<uint64_t>() - j["range"]["from_ns"].get<uint64_t>();
    const Json& ledger = a["ledger"];
    for (size_t c = 0; c < kLossCategoryCount; ++c) {
        CHECK(ledger.contains(std::string(lossCategoryKey(LossCategory(c))) + "_ns"));
        CHECK(ledger.contains(std::string(lossCategoryKey(LossCategory(c))) + "_fraction"));
    }
    CHECK(sumOfCategories(ledger) == ledger["total_ns"].get<uint64_t>());
    CHECK(ledger["total_ns"].get<uint64_t>() == 2 * range);
    REQUIRE(ledger["per_engine"].size() == 2);
    for (const auto& [engine, l] : ledger["per_engine"].items())
        CHECK(sumOfCategories(l) == range);
    REQUIRE(ledger["per_conjunction"].contains("fib.m:10"));
    for (const auto& [site, l] : ledger["per_conjunction"].items())
        CHECK(sumOfCategories(l) == 2 * l["covered_ns"].get<uint64_t>());
    CHECK(a["work_ns"] == ledger["running_ns"]);
    // Bounds per P, the critical path with its segments (--instances), no predictions yet.
    CHECK(a["speedup_bounds"].size() == 7);
    CHECK(a["critical_path"].contains("segments"));
    CHECK(a["predictions"] == Json::array());
    // Findings: rule, text, site, ranges, recoverable_ns, ranked.
    REQUIRE(a["findings"].size() == file.analysis.findings.size());
    REQUIRE(!a["findings"].empty());
    for (size_t i = 0; i < a["findings"].size(); ++i) {
        const Json& f = a["findings"][i];
        std::vector<std::string> fkeys;
        for (const auto& [k, v] : f.items())
            fkeys.push_back(k);
        CHECK(fkeys == std::vector<std::string> { "rule", "text", "site", "ranges", "recoverable_ns" });
        CHECK(f["rule"] == file.analysis.findings[i].rule);
        CHECK(f["recoverable_ns"] == file.analysis.findings[i].recoverableNs);
        for (const Json& r : f["ranges"])
            CHECK(r["from_ns"].get<uint64_t>() < r["to_ns"].get<uint64_t>());
    }
    // Without --instances, no segments.
    const Json plain = Json::parse(formatMetricsFile(computeMetricsFile(trace), MetricsFormat::Json));
    CHECK_FALSE(plain["analysis"]["critical_path"].contains("segments"));

    // CSV: scope analysis, the same numbers as the JSON.
    std::istringstream in(formatMetricsFile(file, MetricsFormat::Csv));
    std::string line;
    std::map<std::string, std::string> rows; // "id,metric,statistic" -> value
    while (std::getline(in, line)) {
        const auto f = splitCsv(line);
        REQUIRE(f.size() == 5);
        if (f[0] == "analysis")
            rows[f[1] + "," + f[2] + "," + f[3]] = f[4];
    }
    CHECK(rows.at("all,ledger,total_ns") == ledger["total_ns"].dump());
    CHECK(rows.at("engine:1,ledger,idle_blocked_future_ns")
        == ledger["per_engine"]["1"]["idle_blocked_future_ns"].dump());
    CHECK(rows.at("fib.m:10,ledger,covered_ns") == ledger["per_conjunction"]["fib.m:10"]["covered_ns"].dump());
    CHECK(rows.at("all,work_ns,value") == a["work_ns"].dump());
    CHECK(rows.at("all,speedup_bounds.2,upper") == a["speedup_bounds"][1]["upper"].dump());
    CHECK(rows.at("all,critical_path,length_ns") == a["critical_path"]["length_ns"].dump());
    CHECK(rows.at("all,critical_path.waiting,spark_queued_ns")
        == a["critical_path"]["waiting"]["spark_queued_ns"].dump());
    CHECK(rows.at("all,critical_path.segment:1,kind") == a["critical_path"]["segments"][0]["kind"].get<std::string>());
    CHECK(rows.at("fib.m:10,work_span.span,sum") == a["work_span_per_conjunction"]["fib.m:10"]["span"]["sum"].dump());
    CHECK(rows.at("finding:1,finding,rule") == a["findings"][0]["rule"].get<std::string>());
    CHECK(rows.at("finding:1,finding,recoverable_ns") == a["findings"][0]["recoverable_ns"].dump());
    CHECK(rows.at("finding:1,finding.range:1,from_ns") == a["findings"][0]["ranges"][0]["from_ns"].dump());
}

TEST_CASE("adding the analysis section leaves every other section of the metrics file as it was",
    "[core][analysis][findings]")
{
    for (uint64_t seed : { 3, 11, 17 }) {
        const Trace trace = sparkscope::test::simulateRandomProgram(seed).build();
        for (bool instances : { false, true }) {
            INFO("seed " << seed << ", instances " << instances);
            MetricsOptions options;
            options.instances = instances;
            const MetricsFile file = computeMetricsFile(trace, options);
            // The metrics computed with the analysis (lending it their model) are computeMetrics' own.
            const Metrics alone = computeMetrics(trace, options);
            const std::string without = metricsToJson(alone);
            const std::string with = metricsToJson(file.metrics, &file.analysis);
            // The file with the section is the file without it, with `"analysis": {...}` before its last "}".
            REQUIRE(without.size() > 3);
            CHECK(with.compare(0, without.size() - 3, without, 0, without.size() - 3) == 0);
            CHECK(with.compare(without.size() - 3, 14, ",\n  \"analysis\"") == 0);
            Json parsed = Json::parse(with);
            parsed.erase("analysis");
            CHECK(parsed.dump(2) + "\n" == without);
            // CSV: the rows of the file without it, then the analysis rows.
            const std::string csvWithout = metricsToCsv(alone);
            const std::string csvWith = metricsToCsv(file.metrics, &file.analysis);
            CHECK(csvWith.compare(0, csvWithout.size(), csvWithout) == 0);
            CHECK(csvWith.compare(csvWithout.size(), 9, "analysis,") == 0);
        }
    }
}

TEST_CASE("a metrics file from a trace given up is the same file, and the trace keeps its summary only",
    "[core][metrics][analysis]")
{
    size_t conjuncts = 0;
    for (uint64_t seed : { 3, 11 }) {
        INFO("seed " << seed);
        Trace trace = sparkscope::test::simulateRandomProgram(seed).build();
        const size_t events = trace.eventCount(), engines = trace.engineCount();
        const uint64_t first = trace.firstTimeNs, last = trace.lastTimeNs;
        REQUIRE(events > 0);
        MetricsOptions options;
        options.instances = true;
        const std::string kept = formatMetricsFile(computeMetricsFile(trace, options), MetricsFormat::Json);
        CHECK(trace.eventCount() == events); // (the const& form leaves the trace alone)
        const MetricsFile file = computeMetricsFile(std::move(trace), options);
        const std::string givenUp = formatMetricsFile(file, MetricsFormat::Json);
        CHECK(givenUp == kept);
        // The model's top-piece index went before the analysis' DAG, which reads the segments alone.
        CHECK_FALSE(file.metrics.model.hasTopPieces());
        conjuncts += file.metrics.model.conjuncts.size();
        CHECK(Json::parse(givenUp)["trace"]["event_count"] == events); // the figures were taken before
        // Released: no events, no bytes; the engine count and time span stay.
        CHECK(trace.eventCount() == 0); // NOLINT(bugprone-use-after-move): computeMetricsFile released, not moved
        CHECK(trace.bytes().empty());
        CHECK(trace.engineCount() == engines);
        CHECK(trace.firstTimeNs == first);
        CHECK(trace.lastTimeNs == last);
    }
    CHECK(conjuncts > 0);
}

// The session read in two steps (computeMetricsFile and `analyze` release the events in between):
// its analysis, what-if and measured costs are the one-step session's, whether the reading was lent
// the model (lent again after it moved) or built its own, with the events released before the
// second step. The second step refuses a model other than the reading's.
TEST_CASE("an analysis session read in two steps is the session read in one", "[core][analysis]")
{
    std::vector<sparkscope::test::NamedTrace> traces;
    for (uint64_t seed : { 5, 17 })
        traces.push_back({ "seed " + std::to_string(seed), sparkscope::test::simulateRandomProgram(seed).build() });
    for (auto& t : sparkscope::test::demoTraces("session-two-steps", { "parfib --n 18 --cutoff 10" }))
        traces.push_back(std::move(t));
    for (auto& t : sparkscope::test::sharedGhcTraces({ "parfib-8-32.eventlog" }))
        traces.push_back(std::move(t));
    AnalysisOptions options;
    options.instances = true;
    options.whatIf = WhatIfOptions {};
    options.whatIf->engines = { 1, 3, 8 };
    auto report = [&](const AnalysisSession& session, const Metrics& metrics) {
        return analysisReportToJson(analysisReport(session, options, metrics), true)
            + Json(session.measuredCosts().contention).dump();
    };
    for (auto& [name, trace] : traces) {
        INFO(name);
        const Metrics metrics = computeMetrics(trace);
        const AnalysisSession oneStep(trace, { &metrics.engineStates, &metrics.model });
        const std::string once = report(oneStep, metrics);
        // A session without its DAG would predict nothing: the traces with joins must predict.
        CHECK(analysisReport(oneStep, options, metrics).predictions.size()
            == (metrics.model.conjunctions.empty() ? 0 : 3));

        ParModel model = buildParModel(trace);
        std::optional<AnalysisSession::Reading> lent;
        {
            Trace copy = trace;
            const EngineStates states = computeEngineStates(copy);
            lent.emplace(copy, AnalysisInputs { &states, &model });
            copy.releaseEvents();
        }
        const ParModel moved = std::move(model);
        CHECK(report(AnalysisSession(std::move(*lent), { nullptr, &moved }), metrics) == once);

        std::optional<AnalysisSession::Reading> own;
        {
            Trace copy = trace;
            own.emplace(copy, AnalysisInputs {});
            copy.releaseEvents();
        }
        CHECK(report(AnalysisSession(std::move(*own), {}), metrics) == once);

        AnalysisSession::Reading wrong(trace, { &metrics.engineStates, &metrics.model });
        const ParModel other = buildParModel(sparkscope::test::simulateRandomProgram(99).build());
        CHECK_THROWS_AS(AnalysisSession(std::move(wrong), { nullptr, &other }), std::logic_error);
    }
}

// `analyze` runs its what-if after the report's other parts, with the metrics and their model let go
// (analysisReportReleasing): the report must be analysisReport's, byte for byte, for the whole run and
// a range, on traces with and without joins; with scales, which read the model, nothing is let go.
// Afterwards the session predicts as before and refuses what would read the model.
TEST_CASE(
    "the what-if run after the model is let go reports what the session with its model reports", "[core][analysis]")
{
    std::vector<sparkscope::test::NamedTrace> traces;
    for (uint64_t seed : { 5, 17, 23 })
        traces.push_back({ "seed " + std::to_string(seed), sparkscope::test::simulateRandomProgram(seed).build() });
    for (auto& t : sparkscope::test::demoTraces("whatif-released", { "parfib --n 18 --cutoff 10" }))
        traces.push_back(std::move(t));
    for (auto& t : sparkscope::test::sharedGhcTraces({ "parfib-8-32.eventlog" }))
        traces.push_back(std::move(t));
    size_t released = 0;
    for (auto& [name, trace] : traces) {
        INFO(name);
        const uint64_t third = (trace.lastTimeNs - trace.firstTimeNs) / 3;
        for (const bool range : { false, true }) {
            INFO("range " << range);
            AnalysisOptions options;
            options.instances = true;
            if (range) {
                options.fromNs = trace.firstTimeNs + third;
                options.toNs = trace.lastTimeNs - third;
            }
            options.whatIf = WhatIfOptions {};
            options.whatIf->engines = { 1, 3, 8 };
            MetricsOptions metricsOptions;
            metricsOptions.fromNs = options.fromNs;
            metricsOptions.toNs = options.toNs;
            MetricsWithSession kept = computeMetricsWithSession(Trace(trace), metricsOptions);
            const std::string expected
                = analysisReportToJson(analysisReport(*kept.session, options, *kept.metrics), true);
            MetricsWithSession both = computeMetricsWithSession(Trace(trace), metricsOptions);
            const bool joins = !both.metrics->model.conjunctions.empty();
            CHECK(analysisReportToJson(analysisReportReleasing(both, options), true) == expected);
            CHECK(!both.metrics); // let go, with or without joins
            if (joins) {
                ++released;
                CHECK(both.session->predict(*options.whatIf).size() == 3);
                CHECK(both.session->predict(*options.whatIf)[2].wallNs
                    == kept.session->predict(*options.whatIf)[2].wallNs);
                CHECK(both.session->measuredCosts().contention == kept.session->measuredCosts().contention);
                // The latencies alone (what `analyze --contention C` starts from): the measured costs
                // but for the fit.
                const CostModel latencies = both.session->measuredLatencies();
                CHECK(latencies.ns == kept.session->measuredCosts().ns);
                CHECK(latencies.samples == kept.session->measuredCosts().samples);
                CHECK(latencies.contention == 0);
                CHECK(latencies.contentionSamples == 0);
            }
            CHECK_THROWS_AS(both.session->analyze(options), std::logic_error);
            CHECK_THROWS_AS(both.session->model(), std::logic_error);
            CHECK_THROWS_AS(both.session->matchSite("1"), std::logic_error);
            WhatIfOptions scaled = *options.whatIf;
            scaled.scales.push_back({ 1, 2.0, "" });
            if (joins)
                CHECK_THROWS_AS(both.session->predict(scaled), std::logic_error);

            // Scales are read through the model: then the model stays, and the report is the same.
            options.whatIf = scaled;
            MetricsWithSession withScales = computeMetricsWithSession(Trace(trace), metricsOptions);
            const std::string scaledExpected
                = analysisReportToJson(analysisReport(*kept.session, options, *kept.metrics), true);
            CHECK(analysisReportToJson(analysisReportReleasing(withScales, options), true) == scaledExpected);
            CHECK(bool(withScales.metrics));
        }
    }
    CHECK(released >= 6); // the three random programs, each for the whole run and a range
}

TEST_CASE("a site name that is not UTF-8 is written as U+FFFD in the metrics file and the analysis", "[core][metrics]")
{
    // stealTrace's conjunction, its static id named by a damaged INTERN_STRING ("fib.m:10" then the
    // bytes 0xFF 0xFE): nlohmann::json throws on such a string unless told to replace it.
    sparkscope::test::TraceBuilder b(2);
    b.internString(0, 1, std::string("fib.m:10\xff\xfe"));
    b.runThread(0, 0, 1).startParConj(0, 100, 0xA, 1).sparkCreate(0, 110, 0xA, 5);
    b.sparkSteal(1, 120, 0, 5).createThread(1, 125, 2).runThread(1, 130, 2);
    b.endParConjunct(0, 200, 0xA).stopThread(0, 210, 1, kStopBlocked);
    b.endParConjunct(1, 300, 0xA).threadRunnable(1, 305, 1).stopThread(1, 310, 2, kStopFinished);
    b.runThread(0, 330, 1).endParConj(0, 340, 0xA).stopThread(0, 400, 1, kStopFinished).endAt(400);
    const Trace trace = b.roundTrip();
    const std::string replaced = "fib.m:10\xEF\xBF\xBD\xEF\xBF\xBD"; // two U+FFFD
    std::string metrics, analysis;
    REQUIRE_NOTHROW(metrics = formatMetricsFile(computeMetricsFile(trace, {}), MetricsFormat::Json));
    CHECK(metrics.find(replaced) != std::string::npos);
    CHECK_NOTHROW(Json::parse(metrics));
    REQUIRE_NOTHROW(analysis = analysisReportToJson(computeAnalysisReport(trace)));
    CHECK(analysis.find(replaced) != std::string::npos);
    CHECK_NOTHROW(Json::parse(analysis));
}
