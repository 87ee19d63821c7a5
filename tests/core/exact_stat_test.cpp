// ExactStat and ExactSum (core/src/metrics/exact_stat.h): a Stat whose sum, mean and variance are
// the exact values rounded once, whatever the order of the values and however they were split into
// pieces and merged. The expected values are worked by hand (the comments say how), or computed
// another way: on small whole numbers every exact figure is a quotient of two whole numbers below
// 2^53, which IEEE division rounds correctly, so double(S) / double(n) is the rounded mean.
#include "metrics/exact_stat.h"

#include <algorithm>
#include <boost/multiprecision/cpp_int.hpp>
#include <catch2/catch.hpp>
#include <cfloat>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

using sparkscope::core::Stat;
using sparkscope::core::detail::ExactStat;
using sparkscope::core::detail::exactStat;
using sparkscope::core::detail::ExactSum;

namespace {

void requireSameBits(const Stat& a, const Stat& b)
{
    CHECK(a.count == b.count);
    CHECK(a.min == b.min);
    CHECK(a.max == b.max);
    CHECK(a.sum == b.sum);
    CHECK(a.mean == b.mean);
    CHECK(a.variance == b.variance);
}

const double kTwo53 = 9007199254740992.0; // 2^53: the first double whose successor is 2 away

} // namespace

TEST_CASE("ExactStat gives count, min, max, sum, mean and population variance worked by hand", "[core]")
{
    // 1, 2, 4: sum 7, mean 7/3; squared deviations 16/9, 1/9 and 25/9 sum to 42/9, so the
    // population variance is 14/9. Each is a quotient of whole numbers, rounded once: exactly what
    // IEEE division gives.
    const Stat s = exactStat(std::vector<double> { 1, 2, 4 });
    CHECK(s.count == 3);
    CHECK(s.min == 1);
    CHECK(s.max == 4);
    CHECK(s.sum == 7);
    CHECK(s.mean == 7.0 / 3.0);
    CHECK(s.variance == 14.0 / 9.0);
    requireSameBits(s, Stat::of({ 4, 1, 2 }));

    // -3 and 5: sum 2, mean 1, deviations -4 and 4: variance 16.
    const Stat negative = exactStat(std::vector<double> { -3, 5 });
    CHECK(negative.min == -3);
    CHECK(negative.sum == 2);
    CHECK(negative.mean == 1);
    CHECK(negative.variance == 16);
}

TEST_CASE("ExactStat with no values gives an all-zero Stat", "[core]")
{
    const Stat s = ExactStat {}.stat();
    CHECK(s.count == 0);
    CHECK(s.min == 0);
    CHECK(s.max == 0);
    CHECK(s.sum == 0);
    CHECK(s.mean == 0);
    CHECK(s.variance == 0);
}

TEST_CASE("ExactStat keeps what a double sum loses, in every order", "[core]")
{
    // x, 1, -x, 1 with x = 1e30: the sum is 2 exactly, though a double sum gives 0, 1 or 2 by order.
    // Variance: n = 4, S = 2, Q = 2x^2 + 2, so (nQ - S^2) / n^2 = (8x^2 + 4) / 16 = x^2 / 2 + 1/4,
    // whose nearest double is that of x^2 / 2 (1/4 is far below its last bit): (x * x) / 2.
    const double x = 1e30;
    std::vector<double> values { -x, 1, 1, x };
    int orders = 0;
    do {
        const Stat s = exactStat(values);
        CHECK(s.sum == 2);
        CHECK(s.mean == 0.5);
        CHECK(s.variance == (x * x) / 2);
        ++orders;
    } while (std::next_permutation(values.begin(), values.end()));
    CHECK(orders == 12); // 4! / 2! orders of four values with two equal
}

TEST_CASE("ExactStat rounds the exact sum once, ties to even", "[core]")
{
    // 2^53 + 1 lies halfway between 2^53 and 2^53 + 2: to even, 2^53. A double sum in order gives
    // 2^53 for 2^53 + 1 + 1 too, where the exact 2^53 + 2 is a double.
    CHECK(exactStat(std::vector<double> { kTwo53, 1 }).sum == kTwo53);
    CHECK(exactStat(std::vector<double> { kTwo53, 1, 1 }).sum == kTwo53 + 2);
    // 2^53 + 3 lies halfway between 2^53 + 2 (odd last bit) and 2^53 + 4: up.
    CHECK(exactStat(std::vector<double> { kTwo53 + 2, 1 }).sum == kTwo53 + 4);
    // A little above halfway (the sticky bit): up, though the part above is 2^-10.
    CHECK(exactStat(std::vector<double> { kTwo53, 1, std::ldexp(1.0, -10) }).sum == kTwo53 + 2);
    // 1 + 2^-53 + 2^-53 = 1 + 2^-52, the successor of 1, which a double sum in order loses.
    CHECK(exactStat(std::vector<double> { 1, std::ldexp(1.0, -53), std::ldexp(1.0, -53) }).sum
        == 1 + std::ldexp(1.0, -52));
}

TEST_CASE("ExactStat is exact at the ends of the doubles' range", "[core]")
{
    const double tiny = std::numeric_limits<double>::denorm_min(); // 2^-1074
    const Stat two = exactStat(std::vector<double> { tiny, tiny });
    CHECK(two.sum == 2 * tiny);
    CHECK(two.mean == tiny);
    CHECK(two.variance == 0);
    // Mean 2^-1075, halfway between 0 and 2^-1074: to even, 0. Mean 1.5 * 2^-1074: halfway between
    // 2^-1074 (odd) and 2^-1073: up.
    CHECK(exactStat(std::vector<double> { tiny, 0 }).mean == 0);
    CHECK(exactStat(std::vector<double> { 3 * tiny, 0 }).mean == 2 * tiny);
    // DBL_MAX twice: the sum is beyond the doubles (infinity), the mean DBL_MAX exactly.
    const Stat big = exactStat(std::vector<double> { DBL_MAX, DBL_MAX });
    CHECK(std::isinf(big.sum));
    CHECK(big.mean == DBL_MAX);
    CHECK(big.variance == 0);
    // DBL_MAX and -DBL_MAX: the sum is 0 exactly, the variance DBL_MAX^2, an infinity.
    const Stat opposite = exactStat(std::vector<double> { DBL_MAX, -DBL_MAX });
    CHECK(opposite.sum == 0);
    CHECK(std::isinf(opposite.variance));
}

TEST_CASE("ExactStat takes whole numbers of 64 bits exactly", "[core]")
{
    // (2^64 - 1) twice: sum 2^65 - 2, whose nearest double is 2^65; mean 2^64 - 1, nearest 2^64;
    // variance 0 exactly (a double of each would be 2^64 too, but not by the same route).
    const uint64_t top = std::numeric_limits<uint64_t>::max();
    ExactStat a;
    a.add(top);
    a.add(top);
    const Stat s = a.stat();
    CHECK(s.sum == std::ldexp(1.0, 65));
    CHECK(s.mean == std::ldexp(1.0, 64));
    CHECK(s.variance == 0);
    // The same two merged from two Stats: the squares' 128-bit halves carry in the merge too.
    ExactStat one, other;
    one.add(top);
    other.add(top);
    one.merge(other);
    CHECK(one.stat().sum == std::ldexp(1.0, 65));
    CHECK(one.stat().variance == 0);
    // 2^64 - 1 and 1: mean 2^63, variance (2^63 - 1)^2, whose nearest double is 2^126.
    ExactStat wrap;
    wrap.add(top);
    wrap.add(double(1));
    CHECK(wrap.stat().mean == std::ldexp(1.0, 63));
    CHECK(wrap.stat().variance == std::ldexp(1.0, 126));
    // 2^53 + 1 and 2^53 - 1 as integers: sum 2^54 exactly, mean 2^53, variance 1 — where their
    // doubles (2^53 and 2^53 - 1) would give a variance of 1/4.
    ExactStat b;
    b.add(uint64_t(kTwo53) + 1);
    b.add(uint64_t(kTwo53) - 1);
    CHECK(b.stat().sum == 2 * kTwo53);
    CHECK(b.stat().mean == kTwo53);
    CHECK(b.stat().variance == 1);
}

TEST_CASE("ExactStat gives IEEE's infinities and NaN for non-finite values", "[core]")
{
    const double inf = std::numeric_limits<double>::infinity();
    const Stat s = exactStat(std::vector<double> { 1, inf });
    CHECK(s.sum == inf);
    CHECK(s.mean == inf);
    CHECK(std::isnan(s.variance));
    CHECK(s.max == inf);
    CHECK(std::isnan(exactStat(std::vector<double> { inf, -inf }).sum));
}

TEST_CASE("ExactStat on small whole numbers matches the quotients of their exact sums", "[core]")
{
    // S, Q and nQ - S^2 stay below 2^53, so dividing their doubles rounds the exact quotient once.
    std::mt19937_64 random(7);
    for (int round = 0; round < 200; ++round) {
        const size_t n = 1 + random() % 1000;
        std::vector<double> values;
        uint64_t sum = 0, squares = 0;
        for (size_t i = 0; i < n; ++i) {
            const uint64_t v = random() % 1024;
            values.push_back(double(v));
            sum += v;
            squares += v * v;
        }
        const Stat s = exactStat(values);
        REQUIRE(s.count == n);
        CHECK(s.sum == double(sum));
        CHECK(s.mean == double(sum) / double(n));
        CHECK(s.variance == double(n * squares - sum * sum) / double(n * n));
        CHECK(s.min == *std::min_element(values.begin(), values.end()));
        CHECK(s.max == *std::max_element(values.begin(), values.end()));
    }
}

TEST_CASE("ExactStat fed in any order and merged from any pieces gives the same bits", "[core]")
{
    // Irregular values with long fractions and, now and then, +-1e30, which swallows the small ones
    // in a double sum: any dependence on order would show.
    std::vector<double> values;
    for (size_t i = 0; i < 3000; ++i)
        values.push_back(
            (i % 7 == 0 ? ((i / 7) % 2 == 0 ? 1e30 : -1e30) : 0.0) + double(i % 17) * 0.1 + 1.0 / double(i + 3));
    const Stat whole = exactStat(values);
    std::mt19937_64 random(11);
    for (int round = 0; round < 20; ++round) {
        std::shuffle(values.begin(), values.end(), random);
        // Split into pieces at random points, sum each, merge them in a random order.
        std::vector<ExactStat> pieces(1 + random() % 9);
        for (double v : values)
            pieces[random() % pieces.size()].add(v);
        std::shuffle(pieces.begin(), pieces.end(), random);
        ExactStat merged;
        for (const ExactStat& p : pieces)
            merged.merge(p);
        requireSameBits(merged.stat(), whole);
    }
}

TEST_CASE("ExactStat and ExactSum carry before their limbs overflow", "[core]")
{
    // Doubling by merging with itself 62 times: 2^62 additions of one value, each limb's part
    // doubling at each merge. The limbs must carry after 2^28 additions and again 2^28 doublings
    // after each carry: one carry only would leave 34 more doublings, past a limb's 63 bits. The
    // exact sum is 2^62 * v, and the variance 0.
    const double v = 4294967295.75; // digits in every 32-bit limb it touches
    ExactStat a;
    a.add(v);
    ExactSum sum;
    sum.add(-v);
    for (int i = 0; i < 62; ++i) {
        const ExactStat copy = a;
        a.merge(copy);
        const ExactSum sumCopy = sum;
        sum.merge(sumCopy);
    }
    const Stat s = a.stat();
    CHECK(s.count == (uint64_t(1) << 62));
    CHECK(s.sum == std::ldexp(v, 62));
    CHECK(s.mean == v);
    CHECK(s.variance == 0);
    CHECK(sum.value() == -std::ldexp(v, 62));
}

TEST_CASE("ExactSum sums exactly and rounds once", "[core]")
{
    ExactSum s;
    for (double v : { 1e30, 0.1, -1e30, 0.2 })
        s.add(v);
    // Exactly 0.1 + 0.2 (their doubles), rounded once: what one IEEE addition of the two gives, where
    // 1e30 + 0.1 - 1e30 + 0.2 in doubles gives 0.2.
    CHECK(s.value() == 0.1 + 0.2);
    ExactSum empty;
    CHECK(empty.value() == 0);
}

TEST_CASE("ExactStat's min and max leave NaN out and do not depend on order", "[core]")
{
    const double nan = std::numeric_limits<double>::quiet_NaN();
    for (const std::vector<double>& values : { std::vector<double> { nan, 3, -2 }, std::vector<double> { 3, nan, -2 },
             std::vector<double> { 3, -2, nan } }) {
        const Stat s = exactStat(values);
        CHECK(s.count == 3);
        CHECK(s.min == -2);
        CHECK(s.max == 3);
        CHECK(std::isnan(s.sum));
    }
    // Merged either way round.
    ExactStat a, b;
    a.add(nan);
    b.add(5.0);
    ExactStat ab = a, ba = b;
    ab.merge(b);
    ba.merge(a);
    CHECK(ab.stat().min == 5);
    CHECK(ba.stat().min == 5);
    CHECK(std::isnan(exactStat(std::vector<double> { nan }).min));
    // -0 counts as 0: the minimum of -0 and 0 is 0 in either order, its sign bit clear.
    CHECK(!std::signbit(exactStat(std::vector<double> { -0.0, 0.0 }).min));
    CHECK(!std::signbit(exactStat(std::vector<double> { 0.0, -0.0 }).min));
}

TEST_CASE("ExactStat takes doubles from 2^63 to 2^64 as whole numbers, and beyond as doubles", "[core]")
{
    // 2^63 + 2^11 (a double) and 2^64 - 2^11 (the largest double below 2^64): sum 3 * 2^63 exactly,
    // mean 3 * 2^62; variance ((2^64 - 2^12 - 2^63) / 2)^2 = (2^62 - 2^11)^2, whose nearest double
    // is 2^124 - 2^74 (exact: 2^124 - 2^74 + 2^22, the last part far below its last bit).
    const double low = 0x1p63 + 0x1p11, high = 0x1p64 - 0x1p11;
    const Stat s = exactStat(std::vector<double> { low, high });
    CHECK(s.sum == 3 * 0x1p63);
    CHECK(s.mean == 3 * 0x1p62);
    CHECK(s.variance == 0x1p124 - 0x1p74);
    // 2^64 itself is past the whole numbers' 64 bits: the fixed-point sums take it, exactly.
    const Stat past = exactStat(std::vector<double> { 0x1p64, 1 });
    CHECK(past.sum == 0x1p64); // 2^64 + 1 rounds to 2^64
    CHECK(past.mean == 0x1p63); // (2^64 + 1) / 2 rounds to 2^63
}

TEST_CASE("ExactSum gives the IEEE sum of non-finite values", "[core]")
{
    const double inf = std::numeric_limits<double>::infinity();
    ExactSum s;
    s.add(1);
    s.add(inf);
    CHECK(s.value() == inf);
    ExactSum both = s;
    ExactSum negative;
    negative.add(-inf);
    both.merge(negative);
    CHECK(std::isnan(both.value()));
}

TEST_CASE("ExactStat matches exact rational arithmetic on fractional, negative and subnormal values", "[core]")
{
    // The reference: the values as exact rationals (Boost.Multiprecision), the sum, mean and
    // variance computed exactly, then rounded once by Boost's conversion to the nearest double.
    using boost::multiprecision::cpp_rational;
    std::mt19937_64 random(19);
    std::uniform_real_distribution<double> unit(-1.0, 1.0);
    for (int round = 0; round < 200; ++round) {
        std::vector<double> values;
        const size_t n = 1 + random() % 50;
        const int scale = int(random() % 5);
        for (size_t i = 0; i < n; ++i) {
            double v = unit(random);
            if (scale == 1)
                v = std::ldexp(v, int(random() % 200) - 100); // magnitudes far apart
            else if (scale == 2)
                v = std::ldexp(v, -1060); // subnormal or near it
            else if (scale == 3)
                v = std::ldexp(v, 900); // near the top
            else if (scale == 4)
                v = std::round(v * 1e6); // whole, negative or not
            values.push_back(v);
        }
        cpp_rational sum = 0, squares = 0;
        for (double v : values) {
            const cpp_rational x(v);
            sum += x;
            squares += x * x;
        }
        const cpp_rational count(static_cast<unsigned long long>(n));
        const cpp_rational mean = sum / count;
        const cpp_rational variance = squares / count - mean * mean;
        const Stat s = exactStat(values);
        CHECK(s.sum == sum.convert_to<double>());
        CHECK(s.mean == mean.convert_to<double>());
        CHECK(s.variance == variance.convert_to<double>());
    }
}

TEST_CASE("FixedPointSum carries every CarryEvery additions and stays exact through the carries", "[core]")
{
    // A carry every 16 additions (the real sums wait 2^28): the bound stays under 16 after every
    // addition and merge, and the digits equal the exact sum of what was added, negative values
    // and 128-bit ones included (against Boost's big integers).
    using boost::multiprecision::cpp_int;
    using sparkscope::core::detail::FixedPointSum;
    using sparkscope::core::detail::UInt128;
    auto value = [](const auto& sum) {
        const auto digits = sum.digits();
        cpp_int out = digits.back();
        for (size_t i = digits.size() - 1; i-- > 0;)
            out = (out << 32) + uint32_t(digits[i]);
        return out;
    };
    std::mt19937_64 random(23);
    FixedPointSum<12, 16> sum, other;
    cpp_int expected = 0, expectedOther = 0;
    for (int i = 0; i < 5000; ++i) {
        const UInt128 v = (UInt128(random()) << 64) | random();
        const unsigned position = unsigned(random() % 96);
        const bool negative = random() % 3 == 0;
        const cpp_int exact = (cpp_int(uint64_t(v >> 64)) << 64 | cpp_int(uint64_t(v))) << position;
        auto& into = i % 2 ? sum : other;
        (i % 2 ? expected : expectedOther) += negative ? cpp_int(-exact) : exact;
        into.add(v, position, negative);
        REQUIRE(into.uncarried() < 16);
        if (i % 1000 == 999)
            REQUIRE(value(sum) == expected);
    }
    sum.merge(other);
    CHECK(sum.uncarried() < 16);
    CHECK(value(sum) == expected + expectedOther);
}
