#pragma once
// Internal to core (not installed). Stat (metrics.h) over values that are read twice rather than
// copied into a vector per metric, and fast:
//   - StatAccumulator: Stat::of's arithmetic (long double sums, and the variance as the mean of
//     squared deviations from the first pass's mean: two passes, not a one-pass formula, which loses
//     digits when the mean is large against the spread) over values fed twice in the same order.
//     Stat::of is this class over its vector, so both give the same bits by construction.
//   - StatColumns: several accumulators fed one value at a time (say the 13 per-instance values of a
//     conjunction group), buffered per accumulator and added in runs. A run keeps its sums in x87
//     registers; adding one value at a time reloads and stores an 80-bit sum each time, which cost
//     more than the additions. Runs go two side by side: two independent sums double the additions
//     per cycle, while three or more spill x87's eight registers (the timings: docs/performance.md,
//     "Metrics: figures behind the code's choices").
//   - ExactFirstPass: the first pass over whole numbers (durations in ns) in any order, exactly, so
//     it can run inside a parallel loop and leave only the second pass to the ordered summary.
// Each accumulator sees its values in the order they were pushed whatever the buffering, so the
// result does not depend on it. Not thread-safe (one per task); O(columns x kRun) memory.
#include "sparkscope/core/metrics.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace sparkscope::core::detail {

class StatAccumulator {
public:
    // First pass: every value, in order. Then endFirstPass(), then the same values again to
    // addDeviations(), then stat().
    void add(std::span<const double> values);
    void endFirstPass();
    void addDeviations(std::span<const double> values);
    Stat stat() const;
    uint64_t count() const noexcept { return m_count; }

    // add() / addDeviations() on two accumulators at once (each with its own values).
    static void addSideBySide(
        StatAccumulator& a, std::span<const double> x, StatAccumulator& b, std::span<const double> y);
    static void addDeviationsSideBySide(
        StatAccumulator& a, std::span<const double> x, StatAccumulator& b, std::span<const double> y);

    // An accumulator whose first pass is done (endFirstPass() included): count values with that
    // minimum, maximum and long double sum.
    static StatAccumulator afterFirstPass(uint64_t count, double min, double max, long double sum);

private:
    uint64_t m_count = 0;
    double m_min = 0, m_max = 0;
    long double m_sum = 0, m_mean = 0, m_squares = 0;
};

// StatAccumulator's first pass over whole numbers below 2^53 (durations in nanoseconds, fed as
// integers: their doubles are exact), in any order and in pieces merged in any order, with the sum
// kept exactly in 128 bits. Why this gives the bits of the ordered long double pass over their
// doubles: every partial sum of non-negative whole numbers is a whole number no larger than the
// total, so with the total below 2^64 each one fits long double's 64-bit significand and no
// addition rounds, whatever the order; min and max do not depend on order either. Lets a first pass
// run inside a parallel loop. A value of 2^53 or more (its double would be rounded) or a total of
// 2^64 or more makes exact() false: the caller then runs the ordered pass instead. O(1); not
// thread-safe (one per thread, then merge()).
class ExactFirstPass {
public:
    void add(uint64_t v)
    {
        m_exact = m_exact && v < kExactLimit;
        m_min = std::min(m_min, v);
        m_max = std::max(m_max, v);
        ++m_count;
        m_sum += v;
    }
    void merge(const ExactFirstPass& other);
    bool exact() const noexcept { return m_exact && (m_sum >> 64) == 0; }
    uint64_t count() const noexcept { return m_count; }
    // StatAccumulator after its first pass over the values' doubles (requires exact()).
    StatAccumulator accumulator() const;

private:
    static constexpr uint64_t kExactLimit = uint64_t(1) << 53;
    __extension__ using Sum = unsigned __int128; // GCC / Clang; __extension__: not ISO C++
    Sum m_sum = 0;
    uint64_t m_count = 0;
    uint64_t m_min = UINT64_MAX, m_max = 0;
    bool m_exact = true;
};

// Columns 0..n-1, each a StatAccumulator. Usage: push every value (first pass), endFirstPass(),
// push the same values again in the same order, endSecondPass(), then stat(column).
class StatColumns {
public:
    static constexpr size_t kRun = 256; // values buffered per column: 2 KB, all columns stay in L1/L2

    explicit StatColumns(size_t columns);

    void push(size_t column, double value)
    {
        double* run = m_buffer.data() + column * kRun;
        run[m_sizes[column]++] = value;
        if (m_sizes[column] == kRun)
            flush();
    }
    void endFirstPass();
    // Instead of pushing the first pass: start the second with these accumulators, their first pass
    // done elsewhere (one per column).
    void skipFirstPass(std::span<const StatAccumulator> accumulators);
    void endSecondPass();
    // Values pushed to `column` in the first pass.
    uint64_t count(size_t column) const noexcept { return m_accumulators[column].count(); }
    Stat stat(size_t column) const { return m_accumulators[column].stat(); }

private:
    void flush(); // adds every column's buffered run to its accumulator

    std::vector<StatAccumulator> m_accumulators;
    std::vector<double> m_buffer; // column c's run: [c * kRun, c * kRun + m_sizes[c])
    std::vector<size_t> m_sizes;
    bool m_secondPass = false;
};

// Adds buffered runs to accumulators, two side by side: accumulator c gets run(c) (first pass) or
// its deviations (second pass).
template <class Run> void addRuns(std::span<StatAccumulator> accumulators, Run run, bool secondPass)
{
    size_t c = 0;
    for (; c + 1 < accumulators.size(); c += 2) {
        if (secondPass)
            StatAccumulator::addDeviationsSideBySide(accumulators[c], run(c), accumulators[c + 1], run(c + 1));
        else
            StatAccumulator::addSideBySide(accumulators[c], run(c), accumulators[c + 1], run(c + 1));
    }
    if (c < accumulators.size()) {
        if (secondPass)
            accumulators[c].addDeviations(run(c));
        else
            accumulators[c].add(run(c));
    }
}

// StatColumns for items that give every column a value (a row at a time): one count for all the
// columns' runs instead of one per column, which halves the cost of buffering a value.
template <size_t N> class StatRows {
public:
    static constexpr size_t kRun = StatColumns::kRun;

    StatRows()
        : m_buffer(N * kRun)
    {
    }
    void push(const std::array<double, N>& row)
    {
        for (size_t c = 0; c < N; ++c)
            m_buffer[c * kRun + m_rows] = row[c];
        if (++m_rows == kRun)
            flush();
    }
    void endFirstPass()
    {
        flush();
        for (auto& a : m_accumulators)
            a.endFirstPass();
        m_secondPass = true;
    }
    void skipFirstPass(const std::array<StatAccumulator, N>& accumulators)
    {
        m_accumulators = accumulators;
        m_secondPass = true;
    }
    void endSecondPass() { flush(); }
    Stat stat(size_t column) const { return m_accumulators[column].stat(); }

private:
    // Once per kRun rows: kept out of line so that the loops that push stay small.
    [[gnu::noinline]] void flush()
    {
        addRuns(
            m_accumulators, [&](size_t c) { return std::span<const double>(m_buffer.data() + c * kRun, m_rows); },
            m_secondPass);
        m_rows = 0;
    }

    std::array<StatAccumulator, N> m_accumulators;
    std::vector<double> m_buffer; // column c's run: [c * kRun, c * kRun + m_rows)
    size_t m_rows = 0;
    bool m_secondPass = false;
};

} // namespace sparkscope::core::detail
