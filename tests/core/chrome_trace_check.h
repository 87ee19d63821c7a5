#pragma once
// Reading back a Chrome Trace Event Format export (core/chrome_trace.h) in tests: the document
// exported and parsed with nlohmann-json, its events in plain structs (times in integer ns), and a
// check of the rules every export must keep whatever the trace (checkWellFormed).
#include "sparkscope/core/chrome_trace.h"
#include "sparkscope/core/trace.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace sparkscope::test {

struct ChromeExport {
    nlohmann::json document;
    core::ChromeTraceSummary summary;
    std::string text;
};
// Exports `trace` into memory and parses it (a parse error fails the test).
ChromeExport exportChrome(const core::Trace& trace, const core::ChromeTraceOptions& options = {});

// "12.345" microseconds (a JSON number) as 12345 ns.
uint64_t chromeNs(const nlohmann::json& microseconds);

struct ChromeSlice {
    uint32_t tid;
    uint64_t startNs, endNs;
    std::string name;
    nlohmann::json args; // null when absent
    bool operator==(const ChromeSlice&) const = default;
};
struct ChromeFlow {
    std::string cat, name;
    uint32_t fromTid;
    uint64_t fromNs;
    uint32_t toTid;
    uint64_t toNs;
    bool operator==(const ChromeFlow&) const = default;
};
struct ChromeSample {
    std::string name, key;
    uint64_t timeNs;
    int64_t value;
    bool operator==(const ChromeSample&) const = default;
};

// The events of the document by kind, in file order (flows paired by id, in order of their "s").
std::vector<ChromeSlice> chromeSlices(const nlohmann::json& document);
std::vector<ChromeFlow> chromeFlows(const nlohmann::json& document);
std::vector<ChromeSample> chromeSamples(const nlohmann::json& document);
// thread_name of every (pid, tid), as "pid/tid" -> name.
std::vector<std::pair<std::string, std::string>> chromeThreadNames(const nlohmann::json& document);

// The rules of every export (each broken one is a failed CHECK naming the event): the top-level
// keys; every event has ph, pid, tid and (but metadata) ts; slices have dur > 0 and never overlap
// on one thread, which has a thread_name; each flow id has one "s" and one "f" (bp "e") with the
// same cat and name, the "s" inside a slice of its thread and no later than the "f", which is at the
// start of or inside a slice of its thread; counter samples strictly increase in time per counter;
// instants are global. `context` names the trace in messages.
void checkWellFormed(const nlohmann::json& document, const std::string& context);

} // namespace sparkscope::test
