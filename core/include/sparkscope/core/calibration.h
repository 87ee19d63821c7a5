#pragma once
// Calibrating the what-if's contention coefficient from a pair of traces of one program: one recorded
// on 1 engine (pinned to one core, `taskset -c 0`) and one on more. The rule, for readers:
// docs/analysis.md "A coefficient from a pair of traces".
//
// The many-engine trace's prediction of 1 engine falls as the coefficient c grows (the recorded load
// is divided out of its running time, analysis.h WhatIfOptions, CostModel::contention), so there is one
// c with which it predicts the 1-engine run's recorded wall time: found by bisection, with that trace's
// own measured costs and c in place of the contention its own fit found. It is 0 when the trace
// predicts that wall or less with c = 0 (contention only makes recorded work smaller). Each trace then
// predicts the other's engine count with its measured costs, without and with c: what `sparkscope-cli
// analyze TRACE` and `analyze TRACE --contention C` print.
//
// Thread safety: pure functions of their inputs. Cost: reading and analysing each trace (an
// AnalysisSession each; both are held, the traces' events are not), then about twenty what-if runs
// at P = 1 of the many-engine trace (docs/performance.md, "What-if").
#include "sparkscope/core/analysis.h"
#include "sparkscope/core/result.h"
#include "sparkscope/core/trace.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace sparkscope::core {

// One trace of the pair, analysed: what the calibration reads of it.
struct CalibrationInput {
    std::string path;
    uint32_t engines = 0; // engineCountOf (compare.h): STARTUP's engine count
    std::unique_ptr<AnalysisSession> session;
};

// The session of `trace` (which may be freed afterwards: the session keeps what it needs).
CalibrationInput calibrationInput(const Trace& trace);
// Reads `path` and analyses it; the trace is freed before returning. Error: "<path>: <reason>".
Result<CalibrationInput> loadCalibrationInput(const std::string& path);

// The bisection's upper end: a larger coefficient is the machine's load, not contention.
inline constexpr double kMaxCalibratedContention = 64;

// One trace of the pair, as calibrated.
struct CalibrationRun {
    std::string path;
    uint32_t engines = 0;
    uint64_t recordedWallNs = 0; // its first context's start to its last context's end
    uint64_t workNs = 0; // T1
    CostModel costs; // as it measured them (costs.contention: its own fit, often 0)
    uint32_t predictsEngines = 0; // the other trace's engine count
    uint64_t predictedNs = 0; // its what-if at predictsEngines with its measured costs (`analyze`)
    uint64_t predictedWithNs = 0; // the same with the calibrated coefficient (`analyze --contention C`)
};

struct ContentionCalibration {
    double coefficient = 0; // c ≥ 0
    // False when even kMaxCalibratedContention leaves the many-engine trace predicting more than the
    // 1-engine run's wall: the coefficient is then that bound, and a note says why it means little.
    bool reached = true;
    CalibrationRun one, many; // the 1-engine trace and the other
    std::vector<std::string> notes; // what a reader must know to trust the coefficient
};

// Calibrates c from two traces given in either order. Errors (ErrorCode::Usage, with a message naming
// the trace): a trace without parallel conjunctions (a GHC eventlog: no DAG to re-simulate) or in which
// no context ran; not exactly one trace on 1 engine (both on the same count, or neither on 1); traces of
// different programs (their conjunction sites differ).
Result<ContentionCalibration> calibrateContention(const CalibrationInput& a, const CalibrationInput& b);

// As JSON ({"format_version", "coefficient", "reached", "one", "many", "notes"}; keys in
// docs/cli.md, `calibrate`). Deterministic; "\n" line ends and a final newline.
std::string calibrationToJson(const ContentionCalibration& c);

// A costs file (parseCostModel) holding the many-engine trace's measured costs and the coefficient,
// after '#' comment lines saying where they come from; `contention=` is written so that it reads back
// as exactly the same number.
std::string calibrationCostsText(const ContentionCalibration& c);

} // namespace sparkscope::core
