// ExactStat (exact_stat.h): the values' bits into the fixed-point sums, and the report's figures
// rounded once from them, with Boost.Multiprecision's integers for the few big-number steps at the
// end (per Stat, not per value).
#include "metrics/exact_stat.h"

#include <algorithm>
#include <bit>
#include <boost/multiprecision/cpp_int.hpp>
#include <cmath>
#include <limits>

namespace sparkscope::core::detail {

namespace {

    using boost::multiprecision::cpp_int;

    cpp_int toInteger(UInt128 v) { return (cpp_int(uint64_t(v >> 64)) << 64) + uint64_t(v); }

    template <size_t Limbs> cpp_int toInteger(const FixedPointSum<Limbs>& sum)
    {
        const auto digits = sum.digits();
        cpp_int out = digits[Limbs - 1]; // the signed top digit
        for (size_t i = Limbs - 1; i-- > 0;) {
            out <<= 32;
            out += uint32_t(digits[i]);
        }
        return out;
    }

    // The double nearest to num / den * 2^scale (den > 0), ties to even: a quotient of 55 bits or
    // more and whether a remainder is left (the sticky bit) decide the rounding exactly, down to the
    // subnormals; beyond the largest double, an infinity.
    double nearest(cpp_int num, const cpp_int& den, int scale)
    {
        if (num == 0)
            return 0.0;
        const bool negative = num < 0;
        if (negative)
            num = -num;
        // num / den lies in [2^b, 2^(b+2)) with b = msb(num) - msb(den) - 1; scaled by 2^shift it has
        // at least 55 whole bits.
        const long b = long(msb(num)) - long(msb(den)) - 1;
        const long shift = 54 - b;
        cpp_int q, r;
        if (shift >= 0)
            divide_qr(cpp_int(num << unsigned(shift)), den, q, r);
        else
            divide_qr(num, cpp_int(den << unsigned(-shift)), q, r);
        const long exponent = long(scale) - shift; // the value is (q + r / den') * 2^exponent
        const long qBits = long(msb(q)) + 1;
        const long top = qBits - 1 + exponent; // the value's leading bit
        // 53 bits, fewer where the leading bit falls below the normal doubles' range.
        const long keep = std::min<long>(53, top + 1075);
        if (keep < 0)
            return negative ? -0.0 : 0.0; // below half the smallest subnormal
        if (top > 1023)
            return negative ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
        const unsigned drop = unsigned(qBits - keep);
        cpp_int kept = q >> drop;
        const cpp_int rest = q - (kept << drop);
        const cpp_int half = cpp_int(1) << (drop - 1);
        if (rest > half || (rest == half && (r != 0 || bit_test(kept, 0))))
            ++kept;
        // kept has at most 54 bits (53 and a carry to a power of two): exact as a double, and
        // ldexp scales it exactly unless it overflows.
        const double v = std::ldexp(kept.convert_to<double>(), int(exponent + long(drop)));
        return negative ? -v : v;
    }

} // namespace

bool splitDouble(double v, DoubleParts& out) noexcept
{
    const uint64_t bits = std::bit_cast<uint64_t>(v);
    const int biased = int((bits >> 52) & 0x7ff);
    const uint64_t fraction = bits & ((uint64_t(1) << 52) - 1);
    if (biased == 0x7ff)
        return false;
    out.negative = bits >> 63;
    if (biased == 0) {
        out.m = fraction, out.e = -1074; // zero or subnormal
    } else {
        out.m = fraction | (uint64_t(1) << 52), out.e = biased - 1075;
    }
    return true;
}

void ExactSum::add(double v)
{
    DoubleParts p;
    if (!splitDouble(v, p)) {
        m_nonFinite += v;
        m_anyNonFinite = true;
    } else if (p.m != 0) {
        m_sum.add(p.m, unsigned(p.e + ExactStat::kSumScale), p.negative);
    }
}

void ExactSum::merge(const ExactSum& other)
{
    m_sum.merge(other.m_sum);
    m_nonFinite += other.m_nonFinite;
    m_anyNonFinite = m_anyNonFinite || other.m_anyNonFinite;
}

double ExactSum::value() const
{
    return m_anyNonFinite ? m_nonFinite : nearest(toInteger(m_sum), 1, -ExactStat::kSumScale);
}

void ExactStat::addOther(double v)
{
    addBounds(v);
    DoubleParts p;
    if (!splitDouble(v, p)) {
        m_nonFinite += v;
        m_anyNonFinite = true;
    } else if (p.m != 0) {
        m_sum.add(p.m, unsigned(p.e + kSumScale), p.negative);
        m_squares.add(UInt128(p.m) * p.m, unsigned(2 * p.e + kSquareScale), false);
    }
}

void ExactStat::merge(const ExactStat& other)
{
    if (other.m_count == 0)
        return;
    if (m_count == 0) {
        *this = other;
        return;
    }
    m_sum.merge(other.m_sum);
    m_squares.merge(other.m_squares);
    m_wholeSum += other.m_wholeSum;
    m_wholeSquaresLow += other.m_wholeSquaresLow;
    m_wholeSquaresHigh += other.m_wholeSquaresHigh + (m_wholeSquaresLow < other.m_wholeSquaresLow);
    m_count += other.m_count;
    m_min = std::fmin(m_min, other.m_min);
    m_max = std::fmax(m_max, other.m_max);
    m_nonFinite += other.m_nonFinite;
    m_anyNonFinite = m_anyNonFinite || other.m_anyNonFinite;
}

Stat ExactStat::stat() const
{
    Stat s;
    if (m_count == 0)
        return s;
    s.count = m_count;
    s.min = m_min;
    s.max = m_max;
    if (m_anyNonFinite) {
        s.sum = m_nonFinite;
        s.mean = m_nonFinite;
        s.variance = std::numeric_limits<double>::quiet_NaN();
        return s;
    }
    // The whole numbers' sums joined to the fixed-point ones, in their units.
    cpp_int wholeSum = toInteger(m_wholeSum);
    cpp_int wholeSquares = (cpp_int(m_wholeSquaresHigh) << 128) + toInteger(m_wholeSquaresLow);
    const cpp_int sum = toInteger(m_sum) + (wholeSum << kSumScale);
    const cpp_int squares = toInteger(m_squares) + (wholeSquares << kSquareScale);
    const cpp_int n = m_count;
    s.sum = nearest(sum, 1, -kSumScale);
    s.mean = nearest(sum, n, -kSumScale);
    // Population variance: (n * sum of squares - sum^2) / n^2, both in units of 2^-2148.
    s.variance = nearest(n * squares - sum * sum, n * n, -kSquareScale);
    return s;
}

Stat exactStat(std::span<const double> values)
{
    ExactStat a;
    for (double v : values)
        a.add(v);
    return a.stat();
}

} // namespace sparkscope::core::detail
