#pragma once
// Internal to core (not installed). The loss ledger over time, for the findings (findings.h):
//   - forEachLedgerPiece: the range cut into pieces during which no engine changes category, each
//     with every engine's category and running context. It is the ledger's sweep (ledger.h) done for
//     all engines at once: the sum over the pieces of (piece length × engines in a category) is the
//     ledger's figure for that category, exactly.
//   - Stretches: the places a finding is about, from pieces: consecutive pieces that lose engine time
//     to the finding's cause are merged into stretches (also across gaps shorter than `gapNs`), and
//     only the few that lost the most are kept.
// Cost: O(pieces × engines) for the sweep (pieces: the engines' activity intervals and idle-class
// changes in the range); a Stretches keeps O(limit) stretches whatever the number of pieces.
#include "analysis/engine_activity.h"
#include "analysis/idle_classes.h"
#include "sparkscope/core/analysis.h"
#include "sparkscope/core/findings.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace sparkscope::core::detail {

void forEachLedgerPiece(const EngineActivity& activity, const IdleClasses& classes, uint64_t fromNs, uint64_t toNs,
    const std::function<void(const LedgerPiece&)>& f);

// Time ranges that lost engine time, merged and ranked by what they lost.
class Stretches {
public:
    Stretches(uint64_t gapNs, size_t limit)
        : m_gapNs(gapNs)
        , m_limit(limit)
    {
    }
    // A piece [from, to) that lost `lostNs` engine-ns (to ≥ every earlier call's to).
    void add(uint64_t fromNs, uint64_t toNs, uint64_t lostNs);
    uint64_t lostNs() const noexcept { return m_lostNs; } // over every piece added
    // The `limit` stretches that lost the most, most first (ties: the earlier first).
    std::vector<TimeRange> top() const;

private:
    struct Stretch {
        uint64_t fromNs, toNs, lostNs;
    };
    void close();

    uint64_t m_gapNs;
    size_t m_limit;
    uint64_t m_lostNs = 0;
    bool m_open = false;
    Stretch m_current {};
    std::vector<Stretch> m_kept; // pruned to the `limit` largest whenever it holds 4 × limit
};

} // namespace sparkscope::core::detail
