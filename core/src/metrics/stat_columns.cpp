// StatAccumulator and StatColumns (stat_columns.h). Every loop here performs, per accumulator and in
// value order, exactly Stat::of's operations — sum += v, min = std::min(min, v), max = std::max(max, v),
// then squares += (v - mean) * (v - mean) — with the sums in long double locals (registers), so
// buffering and pairing change the speed, never a bit of the result.
#include "metrics/stat_columns.h"

#include <algorithm>

namespace sparkscope::core::detail {

void StatAccumulator::add(std::span<const double> values)
{
    if (values.empty())
        return;
    if (m_count == 0)
        m_min = m_max = values.front();
    long double sum = m_sum;
    double min = m_min, max = m_max;
    for (double v : values) {
        sum += v;
        min = std::min(min, v);
        max = std::max(max, v);
    }
    m_sum = sum, m_min = min, m_max = max;
    m_count += values.size();
}

void StatAccumulator::endFirstPass()
{
    if (m_count > 0)
        m_mean = m_sum / static_cast<long double>(m_count);
}

void StatAccumulator::addDeviations(std::span<const double> values)
{
    const long double mean = m_mean;
    long double squares = m_squares;
    for (double v : values)
        squares += (v - mean) * (v - mean);
    m_squares = squares;
}

void StatAccumulator::addSideBySide(
    StatAccumulator& a, std::span<const double> x, StatAccumulator& b, std::span<const double> y)
{
    const size_t common = std::min(x.size(), y.size());
    if (common > 0) {
        if (a.m_count == 0)
            a.m_min = a.m_max = x.front();
        if (b.m_count == 0)
            b.m_min = b.m_max = y.front();
        long double sumA = a.m_sum, sumB = b.m_sum;
        double minA = a.m_min, maxA = a.m_max, minB = b.m_min, maxB = b.m_max;
        for (size_t i = 0; i < common; ++i) {
            const double u = x[i], v = y[i];
            sumA += u;
            sumB += v;
            minA = std::min(minA, u);
            maxA = std::max(maxA, u);
            minB = std::min(minB, v);
            maxB = std::max(maxB, v);
        }
        a.m_sum = sumA, a.m_min = minA, a.m_max = maxA, a.m_count += common;
        b.m_sum = sumB, b.m_min = minB, b.m_max = maxB, b.m_count += common;
    }
    a.add(x.subspan(common));
    b.add(y.subspan(common));
}

void StatAccumulator::addDeviationsSideBySide(
    StatAccumulator& a, std::span<const double> x, StatAccumulator& b, std::span<const double> y)
{
    const size_t common = std::min(x.size(), y.size());
    const long double meanA = a.m_mean, meanB = b.m_mean;
    long double squaresA = a.m_squares, squaresB = b.m_squares;
    for (size_t i = 0; i < common; ++i) {
        const double u = x[i], v = y[i];
        squaresA += (u - meanA) * (u - meanA);
        squaresB += (v - meanB) * (v - meanB);
    }
    a.m_squares = squaresA, b.m_squares = squaresB;
    a.addDeviations(x.subspan(common));
    b.addDeviations(y.subspan(common));
}

Stat StatAccumulator::stat() const
{
    Stat s;
    if (m_count == 0)
        return s;
    s.count = m_count;
    s.min = m_min;
    s.max = m_max;
    s.sum = static_cast<double>(m_sum);
    s.mean = static_cast<double>(m_mean);
    s.variance = static_cast<double>(m_squares / static_cast<long double>(m_count));
    return s;
}

StatAccumulator StatAccumulator::afterFirstPass(uint64_t count, double min, double max, long double sum)
{
    StatAccumulator a;
    a.m_count = count;
    a.m_min = min;
    a.m_max = max;
    a.m_sum = sum;
    a.endFirstPass();
    return a;
}

void ExactFirstPass::merge(const ExactFirstPass& other)
{
    m_min = std::min(m_min, other.m_min);
    m_max = std::max(m_max, other.m_max);
    m_count += other.m_count;
    m_sum += other.m_sum;
    m_exact = m_exact && other.m_exact;
}

StatAccumulator ExactFirstPass::accumulator() const
{
    if (m_count == 0)
        return StatAccumulator::afterFirstPass(0, 0, 0, 0);
    return StatAccumulator::afterFirstPass(
        m_count, double(m_min), double(m_max), static_cast<long double>(uint64_t(m_sum)));
}

StatColumns::StatColumns(size_t columns)
    : m_accumulators(columns)
    , m_buffer(columns * kRun)
    , m_sizes(columns, 0)
{
}

void StatColumns::flush()
{
    addRuns(
        m_accumulators, [&](size_t c) { return std::span<const double>(m_buffer.data() + c * kRun, m_sizes[c]); },
        m_secondPass);
    std::fill(m_sizes.begin(), m_sizes.end(), 0);
}

void StatColumns::endFirstPass()
{
    flush();
    for (auto& a : m_accumulators)
        a.endFirstPass();
    m_secondPass = true;
}

void StatColumns::skipFirstPass(std::span<const StatAccumulator> accumulators)
{
    m_accumulators.assign(accumulators.begin(), accumulators.end());
    m_secondPass = true;
}

void StatColumns::endSecondPass() { flush(); }

} // namespace sparkscope::core::detail
