#pragma once
// TraceOverview: what `sparkscope-cli info` prints about a trace — its size and compression, the
// events per engine with their time span, the events per type, the reader's warnings — from a
// trace read whole, or from its file by one streaming pass (trace_stream.h) in memory bounded by
// the pass's window, not by the file: reading a 2 GB eventlog whole to count its events took ~7 GB.
// Both give the same overview of the same file (tests/core/trace_overview_test.cpp).
#include "sparkscope/core/result.h"
#include "sparkscope/core/trace.h"

#include <atomic>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace sparkscope::core {

struct TraceOverview {
    std::string path;
    uint64_t fileSize = 0;
    Compression compression = Compression::None;
    bool truncated = false;
    uint64_t events = 0;
    size_t declaredTypes = 0;
    uint64_t firstNs = 0, lastNs = 0; // the trace's span (Trace::firstTimeNs, lastTimeNs)

    struct Source {
        uint16_t engine = kNoEngine; // kNoEngine: the events outside every engine's blocks
        uint64_t events = 0;
        uint64_t firstNs = 0, lastNs = 0; // of its events (0, 0 without any)
        friend bool operator==(const Source&, const Source&) = default;
    };
    std::vector<Source> engines; // the engines with events, by number
    // The engines of the run, as every other command counts them (Trace::engineCount): up to the
    // highest engine with events, and those STARTUP declares, with events or not.
    size_t engineCount = 0;
    Source global;
    std::vector<std::pair<uint16_t, uint64_t>> types; // (event type, count), by type, counts > 0
    std::vector<Warning> warnings;
};

TraceOverview overviewOf(const Trace& trace);

// The overview of the file at `path` (plain or compressed: a compressed one is decompressed to a
// temporary copy first, DecompressedFile), streamed. Errors as streamTrace's.
Result<TraceOverview> overviewOfFile(const std::string& path, const std::atomic<bool>* cancel = nullptr);

} // namespace sparkscope::core
