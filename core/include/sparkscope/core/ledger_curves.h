#pragma once
// LedgerCurves: the loss ledger (analysis.h) over time, as one step function per category: how many
// engines were in that category at each instant. The integral of a category's curve over [a, b) is
// the ledger's engine-nanoseconds of that category for the range [a, b), exactly, so the timeline's
// utilisation row shows any pixel's split with one prefix-integral lookup per category and column
// (StepFunction::integral), whatever the zoom, as the CPUs curve does — without sweeping the ledger
// per frame.
//
// Built from AnalysisSession::forEachLedgerPiece: a category's curve gets a step only where its engine
// count changes. Immutable once built; safe to query from many threads. Memory: ~17 bytes per step
// (StepFunction), about two steps per change of any engine's category.
#include "sparkscope/core/analysis.h"
#include "sparkscope/core/step_function.h"

#include <array>
#include <cstddef>
#include <cstdint>

namespace sparkscope::core {

struct LedgerCurves {
    size_t engines = 0;
    int64_t beginNs = 0, endNs = 0; // the range the curves cover (outside it they are 0)
    std::array<StepFunction, kLossCategoryCount> curves; // indexed by LossCategory

    // The engine-ns of each category over [a, b) ∩ [beginNs, endNs): the ledger of that range.
    LossLedger ledger(int64_t a, int64_t b) const noexcept;
    size_t memoryBytes() const noexcept;
};

// The curves over the session's trace, [fromNs, toNs) clipped to it (by default the whole trace:
// the range AnalysisSession::analyze() analyses by default). O(ledger pieces × engines).
LedgerCurves computeLedgerCurves(const AnalysisSession& session, uint64_t fromNs = 0, uint64_t toNs = UINT64_MAX);

} // namespace sparkscope::core
