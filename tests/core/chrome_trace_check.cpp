#include "chrome_trace_check.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

namespace sparkscope::test {

ChromeExport exportChrome(const core::Trace& trace, const core::ChromeTraceOptions& options)
{
    std::ostringstream out;
    auto written = core::writeChromeTrace(trace, out, options);
    REQUIRE(written);
    ChromeExport result;
    result.text = out.str();
    result.summary = written.value();
    CHECK(result.summary.bytes == result.text.size());
    // Strict parse: invalid UTF-8 or a bad escape throws, and the test fails here.
    REQUIRE_NOTHROW(result.document = nlohmann::json::parse(result.text));
    return result;
}

uint64_t chromeNs(const nlohmann::json& microseconds)
{
    REQUIRE(microseconds.is_number());
    REQUIRE(microseconds.get<double>() >= 0);
    return uint64_t(std::llround(microseconds.get<double>() * 1000.0));
}

namespace {

    const nlohmann::json& events(const nlohmann::json& document)
    {
        REQUIRE(document.is_object());
        REQUIRE(document.contains("traceEvents"));
        REQUIRE(document["traceEvents"].is_array());
        return document["traceEvents"];
    }

    std::string ph(const nlohmann::json& e) { return e.value("ph", std::string()); }

} // namespace

std::vector<ChromeSlice> chromeSlices(const nlohmann::json& document)
{
    std::vector<ChromeSlice> out;
    for (const auto& e : events(document))
        if (ph(e) == "X") {
            const uint64_t start = chromeNs(e["ts"]);
            out.push_back({ e["tid"].get<uint32_t>(), start, start + chromeNs(e["dur"]), e["name"].get<std::string>(),
                e.contains("args") ? e["args"] : nlohmann::json() });
        }
    return out;
}

std::vector<ChromeFlow> chromeFlows(const nlohmann::json& document)
{
    std::map<uint64_t, const nlohmann::json*> starts, ends;
    std::vector<uint64_t> order;
    for (const auto& e : events(document)) {
        if (ph(e) == "s") {
            starts[e["id"].get<uint64_t>()] = &e;
            order.push_back(e["id"].get<uint64_t>());
        } else if (ph(e) == "f")
            ends[e["id"].get<uint64_t>()] = &e;
    }
    std::vector<ChromeFlow> out;
    for (uint64_t id : order) {
        INFO("flow id " << id);
        REQUIRE(ends.count(id));
        const auto& s = *starts[id];
        const auto& f = *ends[id];
        out.push_back({ s["cat"].get<std::string>(), s["name"].get<std::string>(), s["tid"].get<uint32_t>(),
            chromeNs(s["ts"]), f["tid"].get<uint32_t>(), chromeNs(f["ts"]) });
    }
    return out;
}

std::vector<ChromeSample> chromeSamples(const nlohmann::json& document)
{
    std::vector<ChromeSample> out;
    for (const auto& e : events(document))
        if (ph(e) == "C") {
            REQUIRE(e["args"].size() == 1);
            out.push_back({ e["name"].get<std::string>(), e["args"].begin().key(), chromeNs(e["ts"]),
                e["args"].begin().value().get<int64_t>() });
        }
    return out;
}

std::vector<std::pair<std::string, std::string>> chromeThreadNames(const nlohmann::json& document)
{
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& e : events(document))
        if (ph(e) == "M" && e["name"] == "thread_name")
            out.push_back({ std::to_string(e["pid"].get<uint32_t>()) + "/" + std::to_string(e["tid"].get<uint32_t>()),
                e["args"]["name"].get<std::string>() });
    return out;
}

void checkWellFormed(const nlohmann::json& document, const std::string& context)
{
    INFO(context);
    REQUIRE(document.is_object());
    CHECK(document.value("displayTimeUnit", std::string()) == "ns");
    CHECK(document["otherData"].is_object());
    const auto& all = events(document);

    std::map<uint32_t, std::string> threadNames; // tid -> name
    std::map<uint32_t, std::vector<std::pair<uint64_t, uint64_t>>> slices; // tid -> [start, end)
    struct FlowEnd {
        const nlohmann::json* s = nullptr;
        const nlohmann::json* f = nullptr;
        int starts = 0, ends = 0;
    };
    std::map<uint64_t, FlowEnd> flows;
    std::map<std::string, uint64_t> lastSample; // counter name -> time of its last sample
    size_t counted = 0;
    for (const auto& e : all) {
        INFO(e.dump());
        REQUIRE(e.is_object());
        const std::string p = ph(e);
        REQUIRE(!p.empty());
        REQUIRE(e["pid"].is_number_unsigned());
        REQUIRE(e["tid"].is_number_unsigned());
        CHECK(e["tid"].get<uint32_t>() != 0);
        if (p != "M")
            REQUIRE(e["ts"].is_number());
        if (p == "M") {
            if (e["name"] == "thread_name")
                threadNames[e["tid"].get<uint32_t>()] = e["args"]["name"].get<std::string>();
        } else if (p == "X") {
            CHECK(e["name"].is_string());
            CHECK(chromeNs(e["dur"]) > 0);
            const uint64_t start = chromeNs(e["ts"]);
            slices[e["tid"].get<uint32_t>()].push_back({ start, start + chromeNs(e["dur"]) });
        } else if (p == "s" || p == "f") {
            auto& flow = flows[e["id"].get<uint64_t>()];
            (p == "s" ? flow.s : flow.f) = &e;
            ++(p == "s" ? flow.starts : flow.ends);
            if (p == "f")
                CHECK(e.value("bp", std::string()) == "e");
        } else if (p == "C") {
            REQUIRE(e["args"].is_object());
            CHECK(e["args"].size() == 1);
            const std::string name = e["name"].get<std::string>();
            const uint64_t t = chromeNs(e["ts"]);
            if (lastSample.count(name))
                CHECK(t > lastSample[name]);
            lastSample[name] = t;
            ++counted;
        } else if (p == "i") {
            CHECK(e.value("s", std::string()) == "g");
            CHECK(e["name"].is_string());
        } else
            FAIL("unexpected phase " << p);
    }

    for (auto& [tid, list] : slices) {
        INFO("tid " << tid);
        CHECK(threadNames.count(tid));
        std::sort(list.begin(), list.end());
        for (size_t i = 1; i < list.size(); ++i)
            CHECK(list[i].first >= list[i - 1].second);
    }
    // Inside a slice of the thread: a slice with start <= t < end (or t == start for `atStart`).
    auto inSlice = [&](const nlohmann::json& e) {
        const auto it = slices.find(e["tid"].get<uint32_t>());
        if (it == slices.end())
            return false;
        const uint64_t t = chromeNs(e["ts"]);
        auto after = std::upper_bound(it->second.begin(), it->second.end(), std::pair { t, UINT64_MAX });
        return after != it->second.begin() && std::prev(after)->second > t;
    };
    for (const auto& [id, flow] : flows) {
        INFO("flow id " << id);
        CHECK(flow.starts == 1);
        CHECK(flow.ends == 1);
        if (!flow.s || !flow.f)
            continue;
        CHECK((*flow.s)["cat"] == (*flow.f)["cat"]);
        CHECK((*flow.s)["name"] == (*flow.f)["name"]);
        CHECK(chromeNs((*flow.s)["ts"]) <= chromeNs((*flow.f)["ts"]));
        CHECK(inSlice(*flow.s));
        CHECK(inSlice(*flow.f));
    }
    CHECK(counted > 0);
}

} // namespace sparkscope::test
