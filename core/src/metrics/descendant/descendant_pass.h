#pragma once
// Internal to core (not installed): the descendant pass behind PARCONJ_RUNNABLE/RUNNING_SELF_AND_DESC,
// PARCONJ_AVAIL_CPUS and OUT_OF_ORDER_*. Two forms give the same figures: the sweep over time, which
// descendantPass runs (descendant_sweep.cpp: the algorithm and its cost), and the segment-tree
// reference (descendant_reference.cpp), which the tests check the sweep against and which computes
// one instance alone. descendant_pass.cpp says why each is used where it is.
#include "sparkscope/core/par_model.h"
#include "sparkscope/core/step_function.h"

#include <algorithm>
#include <boost/iterator/counting_iterator.hpp>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace sparkscope::core::detail {

// Per conjunction instance, over [START_PAR_CONJ, END_PAR_CONJ): maximum and time-weighted average of
// RUNNABLE_SELF_AND_DESC (rd), RUNNING_SELF_AND_DESC (nd) and AVAIL_CPUS (av), and the integrals of
// the scheduling-order pair counts split at this instance. `done` is false for an instance that was
// not measured (incomplete, or outside the range); its values are then 0.
struct DescValues {
    double rdMax = 0, rdAvg = 0, ndMax = 0, ndAvg = 0, avMax = 0, avAvg = 0;
    double outOfOrder = 0, eitherRunning = 0, blocking = 0, blockingTc = 0;
    bool done = false;
};

using Interval = std::pair<uint64_t, uint64_t>;

// Time spans per conjunct in one array: of(k) is empty for most conjuncts. Each conjunct's spans are
// sorted and disjoint (overlapping ones merged), so "some context is blocked" is counted once. Built
// from (conjunct index value, span) pairs: raw integers, sorted as plain pairs.
class SpansByConjunct {
public:
    SpansByConjunct() = default;
    SpansByConjunct(size_t conjuncts, std::vector<std::pair<uint32_t, Interval>> spans);
    std::span<const Interval> of(ConjunctIndex k) const noexcept
    {
        const size_t i = k.value(); // the CSR offsets are raw positions
        if (i + 1 >= m_offsets.size())
            return {};
        return { m_spans.data() + m_offsets[i], m_offsets[i + 1] - m_offsets[i] };
    }

private:
    std::vector<uint32_t> m_offsets;
    std::vector<Interval> m_spans;
};

// When conjunct k (of conjunction instance g) was bound to its context: the start of its first top
// piece (it is pushed on its context's stack, as the innermost conjunct, when bound).
uint64_t bindTime(const ParModel& m, const ConjunctInstance& g, ConjunctIndex k);

// Calls piece(from, to, running, runnable) for each of item (conjunct) k's own pieces, in time order:
// its spark phase and its unbound start (waiting), then the pieces during which it is its context's
// innermost conjunct (running when Running, waiting when Runnable, neither when Blocked), all cut at
// its end, or at `endLimit` if it never ended. Both forms build their changes from these.
// [fromNs, toNs): a caller that keeps only the changes in that window (the sweep's rounds) gets
// its top pieces from the first that ends there (by bisection: they are sorted and disjoint) to
// the last that starts before its end; the others could only give changes outside it.
template <class Piece>
void forEachItemPiece(const ParModel& m, ConjunctIndex k, uint64_t endLimit, Piece piece, uint64_t fromNs = 0,
    uint64_t toNs = UINT64_MAX)
{
    const ConjunctInstance& g = m.conjunct(k);
    const uint64_t end = g.ended ? g.endNs : endLimit;
    if (g.fromSpark)
        piece(g.sparkCreateNs, g.started ? std::min(g.startNs, end) : end, false, true);
    if (!g.started)
        return;
    const uint64_t bound = std::min(bindTime(m, g, k), end);
    piece(g.startNs, bound, false, true);
    if (!g.context.valid())
        return;
    const auto pieces = m.topPieces(k);
    size_t i = 0;
    if (fromNs > 0) // (by position: clang 14 cannot compile libstdc++ 12's std::views::iota)
        i = *std::partition_point(boost::counting_iterator<size_t>(0), boost::counting_iterator<size_t>(pieces.size()),
            [&](size_t x) { return pieces[x].endNs < fromNs; });
    for (; i < pieces.size(); ++i) {
        const ParModel::TopPiece p = pieces[i];
        if (p.startNs >= toNs)
            break;
        piece(std::max(bound, p.startNs), std::min(end, p.endNs), p.state == ContextState::Running,
            p.state != ContextState::Blocked);
    }
}

// For each conjunct that signals a future: when some context was suspended on it (the "blocks
// another context" part of OUT_OF_ORDER_*), directly and through the transitive closure.
//   direct:     the [wait, signal) spans of suspended waits on futures the conjunct signals.
//   transitive: also the waits on futures signalled by conjuncts that were themselves suspended on
//               one of those (and so on), each counted from when its chain began: a conjunct X
//               suspended at w on a future of the chain is blamed from max(w, the blame of the
//               future's signaller), and a wait on a future X signals counts from max(wait, X's
//               blame) until the signal. The conjunct itself is blamed from the start of time.
// Both are cut to the producer's life (its changes end there). Parallel over producers.
struct Producers {
    SpansByConjunct direct, transitive;
};
Producers suspendedWaitsByProducer(const ParModel& m);

// Where a pass puts the values of each instance it measures: put(j, values) once per measured
// instance (done set; zeros for an instance of no length), from several threads at once, never
// for an instance not measured. What the summaries give it folds the values into their Stats as
// they come, instead of holding 88 bytes per instance until the pass ends.
class DescSink {
public:
    virtual void put(uint32_t j, const DescValues& values) = 0;

protected:
    ~DescSink() = default;
};

// Every instance: measured when complete and starting in [fromNs, toNs). Parallel (TBB). The sweep.
std::vector<DescValues> descendantPass(
    const ParModel& m, const StepFunction& cpus, size_t engines, uint64_t fromNs, uint64_t toNs);
// The same values, into `sink` (instances not measured get none).
void descendantPassInto(
    const ParModel& m, const StepFunction& cpus, size_t engines, uint64_t fromNs, uint64_t toNs, DescSink& sink);
// The sweep itself, which cuts time into `slices` and sweeps them `perRound` at a time, holding only
// one round's changes (descendant_sweep.cpp). 0 for either: as many as the trace needs (one slice
// per worker thread in each round, for traces big enough to gain from it; rounds enough to bound the
// changes held); slices alone: all in one round. The tests cut it in several ways.
std::vector<DescValues> descendantPassSweep(const ParModel& m, const StepFunction& cpus, size_t engines,
    uint64_t fromNs, uint64_t toNs, size_t slices = 0, size_t perRound = 0);
void descendantSweepInto(const ParModel& m, const StepFunction& cpus, size_t engines, uint64_t fromNs, uint64_t toNs,
    DescSink& sink, size_t slices = 0, size_t perRound = 0);
// The segment-tree reference over every instance, as descendantPass: the tests' second, independent
// computation of the same figures (exactly). Not run by the app.
std::vector<DescValues> referenceDescendantPass(
    const ParModel& m, const StepFunction& cpus, size_t engines, uint64_t fromNs, uint64_t toNs);

// One instance (measured when complete), by the segment-tree reference walking only its subtree:
// what the app's hover menu shows. Cost: O(subtree changes x log) plus the CPUS steps within the
// instance.
DescValues referenceDescendantValues(const ParModel& m, const StepFunction& cpus, size_t engines, ConjunctionIndex j);

} // namespace sparkscope::core::detail
