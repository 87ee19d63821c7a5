#pragma once
// readTraceCompact: a Trace for the one-shot passes over a big eventlog (the metrics and the
// analysis: sparkscope-cli metrics and analyze, and the app's for a streamed trace). It reads the file
// by streaming (trace_stream.h), so the file is never held, and keeps GHC's payload-free spark events
// as 8-byte marks (event_marks.h) and every other event as an Event with its record copied into a
// buffer of its own. On a spark-heavy GHC log that is 8 bytes per event where readTrace holds 24
// plus the file (docs/performance.md, "Metrics of big traces").
//
// Every pass of the metrics and the analysis gives the same result on it as on readTrace's trace
// (tests/core/compact_trace_test.cpp). What it is not for: passes that need each event's bytes or
// place in the file (writing, cutting, the checks, the Chrome export) — marks have neither.
//
// A compressed file cannot be mapped: it is decompressed into a temporary file first
// (decompressed_file.h; the copy is removed once read) and streamed from there, so its memory is a
// plain file's. A file with an inversion longer than the stream's hold-back would not give
// readTrace's order: it is read whole with readTrace, then its marks are folded (so later passes
// still gain, though the peak is readTrace's); so is a compressed file when its copy cannot be
// written (a full disk) or only its first part is asked for.
#include "sparkscope/core/decompressed_file.h"
#include "sparkscope/core/result.h"
#include "sparkscope/core/trace.h"
#include "sparkscope/core/trace_stream.h"

#include <algorithm>
#include <cstdint>
#include <string>

namespace sparkscope::core {

Result<Trace> readTraceCompact(const std::string& path, const StreamOptions& options = {});

// The same of a compressed trace's decompressed copy (the app's, kept for its timeline), named after
// the compressed file as readTrace names it.
Result<Trace> readTraceCompact(const DecompressedFile& copy, const StreamOptions& options = {});

// Moves the events of `trace` that can be marks into trace.marks (trace.engines keeps the rest). A
// trace that has marks already is left as it is.
void foldMarks(Trace& trace);

// About the peak memory of computing the metrics and the analysis of a trace read by
// readTraceCompact, of which `marks` of `events` can be marks (Mark::fits). The rates are measured
// (docs/performance.md, "Metrics of big traces: a compact read"): about 10 bytes per mark on a
// spark-heavy GHC log (the 8-byte mark, and the streaming window and the passes' working memory
// spread over the events), about 165 bytes per other event on SparkScope's demo traces: what the app
// holds for them beside its timeline, measured at 157 and 165 at 13 M and 21 M events (the compact
// trace, the model, the hover index, the analysis' DAG and the what-if's graph; "The app's metrics
// of a streamed trace: the hover index"). The CLI, which gives the events up, takes less.
constexpr uint64_t compactMetricsBytes(uint64_t events, uint64_t marks)
{
    return marks * 10 + (events - std::min(events, marks)) * 165;
}
// The same for a trace read by readTraceCompact (its marks counted).
uint64_t compactMetricsBytes(const Trace& trace);

} // namespace sparkscope::core
