// The loss ledger over time as step functions (see ledger_curves.h): one pass over the session's
// ledger pieces, counting the engines of each category per piece and stepping a category's curve
// where its count changes.
#include "sparkscope/core/ledger_curves.h"

#include <algorithm>

namespace sparkscope::core {

LossLedger LedgerCurves::ledger(int64_t a, int64_t b) const noexcept
{
    LossLedger out;
    a = std::max(a, beginNs);
    b = std::min(b, endNs);
    if (b <= a)
        return out;
    for (size_t c = 0; c < kLossCategoryCount; ++c)
        out.ns[c] = uint64_t(curves[c].integral(a, b));
    return out;
}

size_t LedgerCurves::memoryBytes() const noexcept
{
    size_t bytes = sizeof(*this);
    for (const StepFunction& f : curves) // the steps and the per-block indexes (step_function.h)
        bytes += f.steps().capacity() * sizeof(StepFunction::Step) + f.steps().size() / 2;
    return bytes;
}

LedgerCurves computeLedgerCurves(const AnalysisSession& session, uint64_t fromNs, uint64_t toNs)
{
    LedgerCurves out;
    std::array<std::vector<StepFunction::Step>, kLossCategoryCount> steps;
    std::array<int64_t, kLossCategoryCount> last;
    last.fill(-1); // no step yet: the first piece steps every curve, so all begin at the range's start
    bool first = true;
    session.forEachLedgerPiece(fromNs, toNs, [&](const LedgerPiece& piece) {
        if (first) {
            out.beginNs = int64_t(piece.fromNs);
            out.engines = piece.categories.size();
            first = false;
        }
        out.endNs = int64_t(piece.toNs);
        std::array<int64_t, kLossCategoryCount> count {};
        for (LossCategory c : piece.categories)
            ++count[size_t(c)];
        for (size_t c = 0; c < kLossCategoryCount; ++c)
            if (count[c] != last[c]) {
                steps[c].push_back({ int64_t(piece.fromNs), count[c] });
                last[c] = count[c];
            }
    });
    for (size_t c = 0; c < kLossCategoryCount; ++c)
        out.curves[c] = StepFunction(std::move(steps[c]), out.endNs);
    return out;
}

} // namespace sparkscope::core
