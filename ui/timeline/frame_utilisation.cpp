// The utilisation row under the CPUs curve: in every column, the engines' time split into the loss
// ledger's nine categories (docs/analysis.md §1) as a stacked bar — running at the bottom, then GC
// and searching, then the idle categories, "no work" on top — so that where the run lost time, and
// to what, reads at a glance at any zoom. Each column is exact: the ledger of its time range, from
// one prefix-integral lookup per category and column boundary (core/ledger_curves.h), as the CPUs
// curve is built from its step function.
#include "ui/timeline/frame_builders.h"
#include "ui/timeline/frame_strips.h"

#include <algorithm>
#include <array>

namespace sparkscope::ui {

using core::kLossCategoryCount;
using core::LossCategory;
using core::LossLedger;

std::vector<LossLedger> utilisationColumns(const core::LedgerCurves& curves, const FrameColumns& c)
{
    std::vector<LossLedger> out(size_t(c.count));
    // Prefix integrals at each boundary, shared by neighbouring columns: ledger(a, b) = P(b) − P(a).
    auto prefix = [&](int64_t t) { return curves.ledger(curves.beginNs, t); };
    LossLedger before = prefix(c.bounds[0]);
    for (long i = 0; i < c.count; ++i) {
        const LossLedger after = prefix(c.bounds[size_t(i) + 1]);
        LossLedger& col = out[size_t(i)];
        for (size_t k = 0; k < kLossCategoryCount; ++k)
            col.ns[k] = after.ns[k] - before.ns[k];
        if (c.bounds[size_t(i)] == c.bounds[size_t(i) + 1]) // below 1 ns per column: its middle nanosecond
            col = curves.ledger(c.mid(i), c.mid(i) + 1);
        before = after;
    }
    return out;
}

void addUtilisationRow(Frame& f, const TimelineRows* rows, const FrameColumns& c)
{
    const FrameLayout& L = f.layout;
    if (!L.hasUtilisation() || !rows)
        return;
    const double top = L.utilisationTop();
    f.texts.push_back(
        { QPointF(kNameX, top + L.utilisationHeight / 2 + 4), QStringLiteral("Utilisation"), FrameText::EngineName });
    if (!rows->ledger) {
        f.texts.push_back({ QPointF(f.axis.left + 8, top + L.utilisationHeight / 2 + 4),
            QStringLiteral("Computing the analysis…"), FrameText::Status });
        return;
    }
    // Stacked from the bottom in category order; with a highlighted category, the others are faded.
    std::array<uchar, kLossCategoryCount> inks {};
    for (size_t k = 0; k < kLossCategoryCount; ++k)
        inks[k] = uchar(f.viewport.ledgerHighlight < 0 || size_t(f.viewport.ledgerHighlight) == k
                ? inkOfLedger(LossCategory(k))
                : Ink::LedgerFaded);
    const int barDev = std::max(1, int(std::lround(L.utilisationHeight * c.dpr)));
    StackedStrip<kLossCategoryCount, decltype(f.rects)> strip(
        c.count, barDev, inks, f.rects, f.axis.left, c.width, top, c.dpr);
    const std::vector<LossLedger> columns = utilisationColumns(*rows->ledger, c);
    for (long i = 0; i < c.count; ++i) {
        const LossLedger& col = columns[size_t(i)];
        const uint64_t total = col.totalNs();
        if (total == 0) { // outside the analysed range
            strip.empty(i);
            continue;
        }
        // Every category present gets at least one device pixel; the largest takes what rounding
        // leaves, so the column is always full.
        const size_t largest = size_t(std::max_element(col.ns.begin(), col.ns.end()) - col.ns.begin());
        std::array<int, kLossCategoryCount> h {};
        int used = 0;
        for (size_t k = 0; k < kLossCategoryCount; ++k)
            if (k != largest) {
                h[k] = strip.heightOf(col.ns[k], total, used + 1);
                used += h[k];
            }
        h[largest] = barDev - used;
        strip.column(i, h);
    }
    f.utilisationStrip = { QRectF(f.axis.left, top, f.axis.width, double(barDev) / c.dpr), strip.finish(c.count) };
}

} // namespace sparkscope::ui
