// The metrics file: JSON layout and keys, CSV long form agreeing with the JSON digit for digit,
// options (--instances, --csc, --from/--to), determinism.
#include "metrics_sim.h"
#include "sparkscope/core/metrics.h"
#include "sparkscope/core/metrics_export.h"
#include "sparkscope/core/reader.h"
#include "support/test_data.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
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

TEST_CASE("metrics file JSON has the documented layout and CSV carries the same numbers", "[core][metrics]")
{
    uint64_t seed = 7; // the first random program from 7 on with a few conjunctions
    while (buildParModel(sparkscope::test::simulateRandomProgram(seed).build()).conjunctions.size() < 4)
        ++seed;
    const Trace trace = sparkscope::test::simulateRandomProgram(seed).build();
    MetricsOptions options;
    options.instances = true;
    options.callCount = 1000;
    const Metrics m = computeMetrics(trace, options);
    const std::string json = metricsToJson(m);
    CHECK(json == metricsToJson(computeMetrics(trace, options))); // deterministic
    const Json j = Json::parse(json);
    std::vector<std::string> keys;
    for (const auto& [k, v] : j.items())
        keys.push_back(k);
    CHECK(keys
        == std::vector<std::string> { "format_version", "trace", "range", "program", "engines", "conjunctions",
            "conjuncts", "futures", "scheduling" });
    CHECK(j["format_version"] == kMetricsFormatVersion);
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

    const std::string csv = metricsToCsv(m);
    std::istringstream in(csv);
    std::string line;
    std::getline(in, line);
    CHECK(line == "scope,id,metric,statistic,value");
    size_t rows = 0, matched = 0;
    while (std::getline(in, line)) {
        const auto f = splitCsv(line);
        REQUIRE(f.size() == 5);
        ++rows;
        if (!j.contains(f[0]) || f[0] == "trace" || f[0] == "range")
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
        const Metrics m = computeMetrics(loaded.value(), options);
        CHECK(written == (std::string(format) == "json" ? metricsToJson(m) : metricsToCsv(m)));
    }
    // Bad usage is exit code 2, never a crash.
    CHECK(std::system((cli.string() + " metrics " + path + " --format xml > /dev/null 2>&1").c_str()) != 0);
    CHECK(std::system((cli.string() + " metrics " + path + " --from 5 --to 5 > /dev/null 2>&1").c_str()) != 0);
}
