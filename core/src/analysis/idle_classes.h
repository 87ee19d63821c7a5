#pragma once
// Internal to core (not installed). Why an idle engine was idle: the program-wide state the loss
// ledger tests, in its order, at every instant some engine is idle (analysis.md §1):
//   WorkAvailable   a spark sat in some deque or spark pool (deque_sizes.h, the same curves as the
//                   Spark Deque rows), or a context was Runnable (par_model.h) and not running;
//   BlockedFuture   else some context was blocked on a future;
//   BlockedBarrier  else some context was parked at a conjunction's barrier;
//   BlockedOther    else some context was blocked for another reason (GHC: MVar, black hole, STM,
//                   foreign call …: every blocking STOP_THREAD status);
//   NoWork          else: nothing existed to run or wait for.
//
// A context's Blocked stretch gets its reason where it starts (BlockReasons):
//   - Future: a FUT_WAIT_SUSPENDED of that context at that instant (the model blocks the context at
//     the wait, before the STOP_THREAD(blocked) our runtime posts right after it);
//   - Barrier: the context started a conjunction whose first conjunct had ended, and which had not
//     yet ended (END_PAR_CONJ): our runtime's STOP_THREAD(blocked) in runParConj after running its
//     conjuncts, Mercury's barrier suspension likewise. The Blocked stretches are few next to the
//     conjunctions, so they are listed first and each conjunction marks those of its context that
//     start within [G1 end, END_PAR_CONJ);
//   - Other: anything else (every GHC blocking status, and a damaged trace's unexplained blocks).
// Memory and time: the class is kept only over the union of the engines' idle time, as a list of
// changes; built by walking the deque and context-count curves window by window. O(n log n).
// Immutable after construction.
#include "sparkscope/core/deque_sizes.h"
#include "sparkscope/core/par_model.h"
#include "sparkscope/core/trace.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace sparkscope::core::detail {

enum class IdleClass : uint8_t { WorkAvailable, BlockedFuture, BlockedBarrier, BlockedOther, NoWork };
enum class BlockReason : uint8_t { Future, Barrier, Other };

class BlockReasons {
public:
    explicit BlockReasons(const ParModel& model);
    // The reason of a Blocked stretch of context `context` (index into ParModel::contexts) that
    // starts at `blockedAtNs` (Other for an instant where no stretch starts). O(log n).
    BlockReason at(uint32_t context, uint64_t blockedAtNs) const noexcept;

private:
    size_t lowerBound(uint32_t context, uint64_t timeNs) const noexcept; // first block at or after
    bool startsAt(size_t i, uint32_t context, uint64_t timeNs) const noexcept;

    struct Block {
        uint32_t context;
        uint64_t timeNs;
        BlockReason reason;
    };
    std::vector<Block> m_blocks; // the start of every Blocked stretch, sorted by (context, time)
};

struct IdleClassChange {
    uint64_t timeNs = 0;
    IdleClass idleClass = IdleClass::NoWork;
};

class IdleClasses {
public:
    IdleClasses() = default;
    // `idle`: the union of the engines' idle intervals, sorted and disjoint (EngineActivity::idleUnion).
    // `transfers`: sparkPoolTransfers(trace) if the caller has it (else computed here).
    IdleClasses(const Trace& trace, const ParModel& model, const BlockReasons& reasons,
        const std::vector<std::pair<uint64_t, uint64_t>>& idle, const SparkPoolTransfers* transfers = nullptr);

    // Changes in time order: the class holds from a change to the next one. Defined only within the
    // idle union (each idle window starts with a change).
    const std::vector<IdleClassChange>& changes() const noexcept { return m_changes; }
    // Index of the change in force at t (t within the idle union). O(log n).
    size_t indexAt(uint64_t t) const noexcept;

private:
    std::vector<IdleClassChange> m_changes;
};

} // namespace sparkscope::core::detail
