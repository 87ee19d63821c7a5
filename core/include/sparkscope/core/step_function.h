#pragma once
// StepFunction: a piecewise-constant integer curve over time, such as CPUS_OVER_TIME, RUNNABLE_SELF
// or SPARK_DEQUE_SIZE, with fast range queries for the metrics and the timeline.
//
// Representation: sorted breakpoints (timeNs, value) with strictly increasing times; value v_i holds
// on [t_i, t_{i+1}) and the last value on [t_last, endNs). Outside [beginNs, endNs) the function is 0.
// Beside the breakpoints it keeps, per block of 32 steps,
//   - the integral from beginNs to the block's first step, so integral(a, b) is two binary searches
//     and at most 2 x 32 multiply-adds over contiguous steps: O(log n + 32), and an average over any
//     pixel is a lookup; 0.25 byte per step (a prefix per step would cost 8, a third of a curve whose
//     only use is drawing its maxima, such as a GHC spark pool's millions of steps);
//   - the block maxima in an implicit segment tree, so max(a, b) is O(log n + 64) and costs 0.5 byte
//     per step.
// Integrals are exact int64 (value x ns); callers keep value x duration below 2^63 (a 64-engine
// curve over 4 years of nanoseconds still fits).
//
// Immutable after construction; safe to query from many threads. Memory: ~17 bytes per breakpoint,
// and building one holds no second copy of its steps (vectors passed in are compacted in place).
#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

namespace sparkscope::core {

class StepFunction {
public:
    struct Step {
        int64_t timeNs = 0;
        int64_t value = 0;
        bool operator==(const Step&) const = default;
    };

    StepFunction() = default;
    // `steps` sorted by time (equal times: the last one wins); steps at or after endNs are dropped,
    // and consecutive equal values are merged. beginNs is the first step's time.
    StepFunction(std::vector<Step> steps, int64_t endNs);
    // From changes: each Step is a (time, delta). Deltas need not be sorted; the function starts at
    // value 0 at beginNs and ends at endNs. O(n log n) for the sort.
    static StepFunction fromDeltas(std::vector<Step> deltas, int64_t beginNs, int64_t endNs);
    // The same from several runs of deltas, each already sorted by time (e.g. one per engine or per
    // context): runs are merged pairwise, in parallel, in O(n log k) instead of sorting everything.
    static StepFunction fromSortedDeltaRuns(std::vector<std::vector<Step>> runs, int64_t beginNs, int64_t endNs);
    // Pointwise sum of several functions (e.g. per-engine curves into one). O(total log k).
    static StepFunction sum(const std::vector<const StepFunction*>& parts);

    bool empty() const noexcept { return m_steps.empty(); }
    int64_t beginNs() const noexcept { return m_steps.empty() ? 0 : m_steps.front().timeNs; }
    int64_t endNs() const noexcept { return m_endNs; }
    const std::vector<Step>& steps() const noexcept { return m_steps; }

    // Value at t (0 outside [beginNs, endNs)). O(log n).
    int64_t valueAt(int64_t t) const noexcept;
    // Integral over [a, b) (0 when b <= a). O(log n).
    int64_t integral(int64_t a, int64_t b) const noexcept;
    // Maximum over [a, b) intersected with the domain (0 when that is empty). O(log n).
    int64_t max(int64_t a, int64_t b) const noexcept;
    // Time-weighted average over [a, b): integral / (b - a); 0 when b <= a.
    double average(int64_t a, int64_t b) const noexcept;
    // Time spent at each value over [a, b) ∩ domain. O(log n + steps in range).
    std::map<int64_t, int64_t> timeAtEachValue(int64_t a, int64_t b) const;

private:
    void buildIndexes();
    // Index of the step whose interval contains t (t within the domain).
    size_t stepIndex(int64_t t) const noexcept;
    int64_t integralFromBegin(int64_t t) const noexcept; // t clamped into the domain

    std::vector<Step> m_steps;
    int64_t m_endNs = 0;
    static constexpr size_t kBlock = 32;
    std::vector<int64_t> m_blockPrefix; // m_blockPrefix[b] = integral over [beginNs, t_{b x kBlock})
    std::vector<int64_t> m_maxTree; // implicit segment tree over block maxima: leaves at [blocks, 2 blocks)
};

// StepRangeSummary: max and integral over one range of the curve StepFunction::fromDeltas(deltas,
// beginNs, endNs) would build, computed from its deltas as they stream past, without building it.
// For curves only ever summarised once (SPARK_DEQUE_SIZE: millions of steps on a GHC log, of which a
// metric needs two numbers) this replaces ~40 bytes per step (deltas, merged runs, steps, prefix
// integrals) by O(1) memory.
//
// Feed add() deltas in non-decreasing time order (equal times are summed, times before beginNs count
// at beginNs, times at or after endNs are ignored), then read max(), integral() and average(): they
// equal fromDeltas(deltas, beginNs, endNs).max / .integral / .average over [fromNs, toNs), 0 for an
// empty range. Not thread-safe (one per thread); O(1) per add.
class StepRangeSummary {
public:
    StepRangeSummary(int64_t beginNs, int64_t endNs, int64_t fromNs, int64_t toNs) noexcept;
    void add(int64_t timeNs, int64_t delta) noexcept;
    int64_t max() noexcept;
    int64_t integral() noexcept;
    double average() noexcept; // integral / (toNs - fromNs); 0 when toNs <= fromNs

private:
    void close(int64_t untilNs) noexcept; // the current value held on [m_currentNs, untilNs)
    int64_t m_endNs, m_rangeFromNs, m_rangeToNs, m_fromNs, m_toNs;
    int64_t m_currentNs, m_value = 0;
    int64_t m_max = 0, m_integral = 0;
    bool m_seen = false, m_finished = false;
};

} // namespace sparkscope::core
