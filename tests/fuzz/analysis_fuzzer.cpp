// libFuzzer target for everything built on a read trace: the parallel model, the metrics, the
// analysis (ledger, work and span, critical path, findings), the what-if re-simulation on 1 to 3
// engines, and the JSON of it all. Any bytes the reader accepts (damaged, truncated, events in
// impossible orders) must give figures that keep the analysis' sums, never a crash, a hang or an
// ASan/UBSan report, and the same metrics file with its spark events folded into marks. Built only with clang and
// SPARKSCOPE_BUILD_FUZZERS=ON (preset "fuzz"); scripts/fuzz builds and runs it (`scripts/fuzz analysis ...`).
#include "sparkscope/core/compact_trace.h"
#include "sparkscope/core/findings.h"
#include "sparkscope/core/metrics_export.h"
#include "sparkscope/core/reader.h"

#include "fuzz_input.h"

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

using namespace sparkscope::core;
using sparkscope::fuzz::compressedMagic;
using sparkscope::fuzz::require;

namespace {
// The sums that hold on any input (tests/core/analysis_invariants_test.cpp checks more on intact traces).
void checkSums(const Analysis& a)
{
    // Whole-run totals saturate at UINT64_MAX (a damaged trace's times can come near 2^64).
    auto times = [](uint64_t x, uint64_t y) { return x != 0 && y > UINT64_MAX / x ? UINT64_MAX : x * y; };
    const uint64_t range = a.toNs - a.fromNs;
    const LedgerReport& l = a.ledger;
    require(l.total.totalNs() == times(l.engines, range));
    for (const LossLedger& e : l.perEngine)
        require(e.totalNs() == range);
    for (const SiteLedger& s : l.perConjunction)
        require(s.ledger.totalNs() == times(l.engines, s.coveredNs) && s.coveredNs <= range);
    const WorkSpanReport& ws = a.workSpan;
    require(ws.workNs == l.total.runningNs());
    if (ws.spanNs)
        require(*ws.spanNs <= ws.workNs && *ws.spanNs <= range);
    if (a.criticalPath) {
        const CriticalPathReport& p = *a.criticalPath;
        require(p.lengthNs == p.runningNs + p.waitingNs && p.lengthNs == p.toNs - p.fromNs);
        for (size_t i = 0; i + 1 < p.segments.size(); ++i)
            require(p.segments[i].toNs == p.segments[i + 1].fromNs);
    }
    if (a.whatIf)
        for (const Prediction& p : a.whatIf->predictions)
            require(p.ledger.totalNs() == times(p.engines, p.wallNs));
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    if (compressedMagic(data, size))
        return 0;
    ReadOptions read;
    read.threads = 1;
    auto trace = readTraceFromBytes(std::vector<uint8_t>(data, data + size), read);
    // A damaged block marker can name any engine up to 65,535; every per-engine figure is then
    // computed and written for that many engines: honest work, but under the sanitizers and coverage
    // a trace naming engine 3,440 took 55 s (most of it the metrics file's JSON), close to the 60 s
    // after which an input counts as a hang. 256 engines still exercise every per-engine path.
    if (!trace || trace.value().engines.size() > 256)
        return 0;
    AnalysisOptions options;
    options.instances = true;
    options.whatIf = WhatIfOptions { .engines = { 1, 2, 3 } };
    const AnalysisReport report = computeAnalysisReport(trace.value(), options);
    checkSums(report.analysis);
    require(!analysisReportToJson(report, true).empty());
    // The metrics file (metrics and the analysis of the whole trace) in both formats.
    MetricsOptions metrics;
    metrics.instances = true;
    const MetricsFile file = computeMetricsFile(trace.value(), metrics);
    checkSums(file.analysis.analysis);
    const std::string json = formatMetricsFile(file, MetricsFormat::Json);
    require(!json.empty());
    require(!formatMetricsFile(file, MetricsFormat::Csv).empty());
    // With GHC's spark events held as marks (readTraceCompact's form, compact_trace.h), the same
    // trace gives the same metrics file, however damaged it is.
    Trace folded = trace.value();
    foldMarks(folded);
    if (folded.hasMarks())
        require(formatMetricsFile(computeMetricsFile(folded, metrics), MetricsFormat::Json) == json);
    return 0;
}
