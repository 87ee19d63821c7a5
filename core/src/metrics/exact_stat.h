#pragma once
// Internal to core (not installed). ExactStat: a Stat (metrics.h) fed one value at a time, in any
// order and in pieces merged in any order, whose result does not depend on either: the sum of the
// values and the sum of their squares are kept exactly, and only the report's figures are rounded,
// each once, to the nearest double (docs/metrics.md, "Stats"). That is what lets the summaries fold
// each instance's figures as they come — from parallel tasks, and one day as instances end — rather
// than keep every instance's values to read twice in one fixed order, as a two-pass long double sum
// (the mean, then the squared deviations from it) had to.
//
// How the sums stay exact: a finite double is m * 2^e with m a whole number below 2^53 and e in
// [-1074, 971], and its square m^2 * 2^(2e) with m^2 below 2^106. So both are whole multiples of
// 2^-1074 (2^-2148 for squares), and a fixed-point number wide enough for every double holds their
// sum exactly (a "long accumulator"). Its digits are 32 bits each, held in 64-bit signed limbs: an
// addition puts less than 2^33 into any limb, so carries can wait for 2^28 additions (2^29 after a
// merge) and an addition is a few integer adds into the limbs where the value lies, no carry chain.
//
// Most values are whole numbers from 0 to 2^64 (nanoseconds, counts, flags): those go to plain
// 128-bit and 256-bit integer sums instead, a couple of instructions each, and join the fixed-point
// sums only when the Stat is read. Non-finite values (infinities, NaN) are summed apart as doubles;
// a Stat with any has the IEEE result as its sum and mean and NaN as its variance. O(1) per value;
// 1.7 KB per ExactStat; not thread-safe (one per task, then merge()).
#include "sparkscope/core/metrics.h"

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>

namespace sparkscope::core::detail {

__extension__ using UInt128 = unsigned __int128; // GCC / Clang; __extension__: not ISO C++

// An exact sum of +-v * 2^p for whole v below 2^128, in units of 2^0 (the caller picks what 2^0
// stands for and keeps p + 128 within the limbs, with room for the total's growth and sign).
// 32-bit digits in signed 64-bit limbs, carried every CarryEvery additions and on demand (the
// tests pick a small CarryEvery to watch the carries happen).
template <size_t Limbs, uint32_t CarryEvery = (uint32_t(1) << 28)> class FixedPointSum {
    // An addition puts less than 2^32 into each limb it touches, twice into one: less than 2^33. A
    // merge of two sums, each short of 2^28 additions, stays below 2^29 of them: below 2^62.
    static_assert(CarryEvery >= 2 && CarryEvery <= (uint32_t(1) << 28));

public:
    void add(UInt128 v, unsigned position, bool negative)
    {
        const unsigned limb = position / 32, shift = position % 32;
        addShifted(uint64_t(v), limb, shift, negative);
        if (const uint64_t high = uint64_t(v >> 64))
            addShifted(high, limb + 2, shift, negative);
        if (++m_uncarried >= CarryEvery)
            carry();
    }
    void merge(const FixedPointSum& other)
    {
        for (size_t i = 0; i < Limbs; ++i)
            m_limbs[i] += other.m_limbs[i];
        // Each side's limbs are bounded by its own additions since its last carry: the counts add up.
        m_uncarried += other.m_uncarried;
        if (m_uncarried >= CarryEvery)
            carry();
    }
    // The 32-bit digits after carrying, least significant first; the last limb takes the sign
    // (every lower digit is in [0, 2^32)).
    std::array<int64_t, Limbs> digits() const
    {
        FixedPointSum copy = *this;
        copy.carry();
        return copy.m_limbs;
    }
    // The bound below, which stays under CarryEvery between calls (for the tests).
    uint32_t uncarried() const noexcept { return m_uncarried; }

private:
    void addShifted(uint64_t v, unsigned limb, unsigned shift, bool negative)
    {
        const UInt128 shifted = UInt128(v) << shift; // below 2^96
        const int64_t d0 = int64_t(uint32_t(shifted)), d1 = int64_t(uint32_t(shifted >> 32)),
                      d2 = int64_t(uint64_t(shifted >> 64));
        if (negative) {
            m_limbs[limb] -= d0, m_limbs[limb + 1] -= d1, m_limbs[limb + 2] -= d2;
        } else {
            m_limbs[limb] += d0, m_limbs[limb + 1] += d1, m_limbs[limb + 2] += d2;
        }
    }
    void carry()
    {
        for (size_t i = 0; i + 1 < Limbs; ++i) {
            m_limbs[i + 1] += m_limbs[i] >> 32; // arithmetic shift: a negative limb borrows
            m_limbs[i] &= 0xffffffff;
        }
        // Every limb but the top, which holds only the sign (the limbs leave room for the total), is
        // now below 2^32: as after one addition.
        m_uncarried = 1;
    }

    std::array<int64_t, Limbs> m_limbs {};
    // A bound: each limb's magnitude is below 2^33 times this (additions since the last carry).
    uint32_t m_uncarried = 0;
};

// A finite double as m * 2^e: the whole number m below 2^53, its sign, and e in [-1074, 971]
// (m = 0 for zeros). False for infinities and NaN.
struct DoubleParts {
    uint64_t m;
    int e;
    bool negative;
};
bool splitDouble(double v, DoubleParts& out) noexcept;

// The sum alone, exactly, of any finite doubles (as ExactStat's), rounded once when read; any
// infinity or NaN makes it the IEEE sum of those.
class ExactSum {
public:
    void add(double v);
    void merge(const ExactSum& other);
    double value() const;

private:
    FixedPointSum<72> m_sum;
    double m_nonFinite = 0;
    bool m_anyNonFinite = false;
};

class ExactStat {
public:
    void add(double v)
    {
        // A whole number from 0 to 2^64 takes the integer sums (a double that large has no fraction).
        if (v >= 0 && v < 0x1p64 && v == double(uint64_t(v)))
            add(uint64_t(v));
        else
            addOther(v);
    }
    // A whole number (nanoseconds, a count), exactly, even at 2^53 or more where its double is not.
    void add(uint64_t v)
    {
        addBounds(double(v));
        m_wholeSum += v;
        const UInt128 square = UInt128(v) * v;
        m_wholeSquaresLow += square;
        m_wholeSquaresHigh += m_wholeSquaresLow < square; // the carry
    }
    void merge(const ExactStat& other);
    uint64_t count() const noexcept { return m_count; }
    // count, min and max of the values (a NaN left out of min and max unless all are NaN; -0 taken
    // as 0); sum, mean and population variance each the exact value rounded once to the nearest
    // double (ties to even). All zeros with no values.
    Stat stat() const;

    // The limbs' units: the sum counts in 2^-kSumScale, the squares in 2^-kSquareScale.
    static constexpr int kSumScale = 1074, kSquareScale = 2148;

private:
    void addOther(double v);
    // fmin and fmax leave a NaN out (NaN only while every value is), so that min and max do not
    // depend on the order either, as plain comparisons would with a NaN among the values.
    void addBounds(double v)
    {
        if (m_count == 0) {
            m_min = m_max = v;
        } else {
            m_min = std::fmin(m_min, v);
            m_max = std::fmax(m_max, v);
        }
        ++m_count;
    }

    // Sum: m * 2^e at position e + 1074, in [0, 2045]: below 2^2098 per value and, with up to 2^64
    // values, 2^2162 in all (68 digits); the limbs beyond leave room for the sign.
    FixedPointSum<72> m_sum;
    // Squares: m^2 * 2^(2e) at position 2e + 2148, in [0, 4090]: below 2^4196 per value and 2^4260
    // in all (134 digits).
    FixedPointSum<138> m_squares;
    // The whole numbers' sums, in units of 1: below 2^64 each, so with up to 2^64 of them the sum
    // stays below 2^128 and the sum of squares below 2^192 (two 128-bit halves).
    UInt128 m_wholeSum = 0, m_wholeSquaresLow = 0;
    uint64_t m_wholeSquaresHigh = 0;
    uint64_t m_count = 0;
    double m_min = 0, m_max = 0;
    double m_nonFinite = 0; // the sum of the infinities and NaNs, when there are any
    bool m_anyNonFinite = false;
};

// The same Stat through the same arithmetic, for values already in a vector.
Stat exactStat(std::span<const double> values);

} // namespace sparkscope::core::detail
