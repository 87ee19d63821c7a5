// StatAccumulator, StatColumns and StatRows (core/src/metrics/stat_columns.h): Stat over values read twice
// instead of copied into vectors. Their promise is Stat's very bits whatever the buffering, so
// besides hand-worked values the tests compare every field with == against Stat's definition
// written out plainly (referenceStat) over the same values.
#include "metrics/stat_columns.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

using sparkscope::core::Stat;
using sparkscope::core::detail::StatAccumulator;
using sparkscope::core::detail::StatColumns;
using sparkscope::core::detail::StatRows;

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

// Stat's definition written out plainly, one value at a time (the arithmetic Stat::of had before it
// was built on StatAccumulator): long double sum, min and max in one pass, then the mean of squared
// deviations from that mean in a second. Everything here must give these bits.
Stat referenceStat(const std::vector<double>& values)
{
    Stat s;
    if (values.empty())
        return s;
    s.count = values.size();
    s.min = values.front();
    s.max = values.front();
    long double sum = 0;
    for (double v : values) {
        sum += v;
        s.min = std::min(s.min, v);
        s.max = std::max(s.max, v);
    }
    s.sum = static_cast<double>(sum);
    const long double mean = sum / static_cast<long double>(values.size());
    s.mean = static_cast<double>(mean);
    long double squares = 0;
    for (double v : values)
        squares += (v - mean) * (v - mean);
    s.variance = static_cast<double>(squares / static_cast<long double>(values.size()));
    return s;
}

// Irregular values with long fractions, and now and then +-1e30, which swallows the small ones
// added to it: a sum in another order comes out different (1e30 + 1 - 1e30 is 0, 1 - 1e30 + 1e30
// is 0 too but 1 + 1e30 - 1e30 + 1 is 1), so a change of order would show.
double valueAt(size_t i)
{
    const double big = i % 7 == 0 ? ((i / 7) % 2 == 0 ? 1e30 : -1e30) : 0.0;
    return big + double(i % 17) * 0.1 + 1.0 / double(i + 3);
}
} // namespace

TEST_CASE("StatAccumulator gives count, min, max, sum, mean and population variance worked by hand", "[core]")
{
    // Values 1, 2, 4: sum 7, mean 7/3; squared deviations 16/9, 1/9, 25/9 sum to 42/9, so the
    // population variance is 42/27 = 14/9.
    const std::vector<double> values { 1, 2, 4 };
    StatAccumulator a;
    a.add(values);
    a.endFirstPass();
    a.addDeviations(values);
    const Stat s = a.stat();
    CHECK(s.count == 3);
    CHECK(s.min == 1);
    CHECK(s.max == 4);
    CHECK(s.sum == 7);
    CHECK(s.mean == Approx(7.0 / 3.0));
    CHECK(s.variance == Approx(14.0 / 9.0));
    requireSameBits(s, Stat::of(values));
    requireSameBits(s, referenceStat(values));
}

TEST_CASE("StatAccumulator with no values gives an all-zero Stat", "[core]")
{
    StatAccumulator a;
    a.endFirstPass();
    const Stat s = a.stat();
    CHECK(s.count == 0);
    CHECK(s.min == 0);
    CHECK(s.max == 0);
    CHECK(s.sum == 0);
    CHECK(s.mean == 0);
    CHECK(s.variance == 0);
}

TEST_CASE("StatAccumulator fed in pieces, alone or side by side with another, gives Stat::of's bits", "[core]")
{
    std::vector<double> x, y;
    for (size_t i = 0; i < 1000; ++i)
        x.push_back(valueAt(i));
    for (size_t i = 0; i < 700; ++i)
        y.push_back(valueAt(3 * i + 1));
    StatAccumulator a, b;
    // Pieces of different lengths for the two, so the side-by-side loop also runs their tails alone.
    StatAccumulator::addSideBySide(a, std::span(x).first(300), b, std::span(y).first(100));
    a.add(std::span(x).subspan(300, 1));
    StatAccumulator::addSideBySide(a, std::span(x).subspan(301), b, std::span(y).subspan(100));
    a.endFirstPass();
    b.endFirstPass();
    StatAccumulator::addDeviationsSideBySide(a, std::span(x).first(650), b, std::span(y).first(10));
    StatAccumulator::addDeviationsSideBySide(a, std::span(x).subspan(650), b, std::span(y).subspan(10));
    requireSameBits(a.stat(), referenceStat(x));
    requireSameBits(b.stat(), referenceStat(y));
    requireSameBits(Stat::of(x), referenceStat(x));
}

TEST_CASE("StatColumns gives each column Stat::of's bits over the values pushed to it", "[core]")
{
    // Column 0 gets every value, column 1 every third, column 2 none, column 3 one: more values than
    // a buffered run holds, so the columns are flushed while partly filled and at different lengths.
    constexpr size_t kValues = 3 * StatColumns::kRun + 17;
    StatColumns columns(4);
    std::vector<std::vector<double>> expected(4);
    auto feed = [&](bool record) {
        for (size_t i = 0; i < kValues; ++i) {
            columns.push(0, valueAt(i));
            if (record)
                expected[0].push_back(valueAt(i));
            if (i % 3 == 0) {
                columns.push(1, -valueAt(i));
                if (record)
                    expected[1].push_back(-valueAt(i));
            }
            if (i == 42) {
                columns.push(3, 5.5);
                if (record)
                    expected[3].push_back(5.5);
            }
        }
    };
    feed(true);
    columns.endFirstPass();
    feed(false);
    columns.endSecondPass();
    for (size_t c = 0; c < 4; ++c) {
        CHECK(columns.count(c) == expected[c].size());
        requireSameBits(columns.stat(c), referenceStat(expected[c]));
    }
}

TEST_CASE("StatRows gives each column Stat::of's bits over its values, an odd number of columns included", "[core]")
{
    constexpr size_t kRowCount = 2 * StatRows<3>::kRun + 5;
    StatRows<3> rows;
    std::vector<std::vector<double>> expected(3);
    for (int pass = 0; pass < 2; ++pass) {
        for (size_t i = 0; i < kRowCount; ++i) {
            const std::array<double, 3> row { valueAt(i), valueAt(i) * 1e9, std::sqrt(double(i)) };
            rows.push(row);
            if (pass == 0)
                for (size_t c = 0; c < 3; ++c)
                    expected[c].push_back(row[c]);
        }
        if (pass == 0)
            rows.endFirstPass();
    }
    rows.endSecondPass();
    for (size_t c = 0; c < 3; ++c)
        requireSameBits(rows.stat(c), referenceStat(expected[c]));
}

TEST_CASE("ExactFirstPass over whole numbers in pieces, in any order, gives the ordered pass's bits", "[core]")
{
    // 3, 1, 4, 1, 5: count 5, min 1, max 5, sum 14, mean 2.8; squared deviations 0.04, 3.24, 1.44,
    // 3.24, 4.84 sum to 12.8, so the population variance is 2.56.
    const std::vector<uint64_t> values { 3, 1, 4, 1, 5 };
    sparkscope::core::detail::ExactFirstPass first, second;
    first.add(5);
    first.add(1);
    second.add(4);
    second.add(3);
    second.add(1);
    first.merge(second);
    REQUIRE(first.exact());
    CHECK(first.count() == 5);
    StatAccumulator a = first.accumulator();
    std::vector<double> doubles(values.begin(), values.end());
    a.addDeviations(doubles);
    const Stat s = a.stat();
    CHECK(s.count == 5);
    CHECK(s.min == 1);
    CHECK(s.max == 5);
    CHECK(s.sum == 14);
    CHECK(s.mean == Approx(2.8));
    CHECK(s.variance == Approx(2.56));
    requireSameBits(s, referenceStat(doubles));
}

TEST_CASE("ExactFirstPass matches the ordered pass on large whole numbers summed in another order", "[core]")
{
    // Values just below 2^53 and small ones: the sum (about 2^62) needs all of long double's
    // 64-bit significand, and is still exact whatever the order.
    std::vector<uint64_t> values;
    for (uint64_t i = 0; i < 500; ++i)
        values.push_back(i % 3 == 0 ? (uint64_t(1) << 53) - 1 - i * 7919 : i * 104729 % 1000003);
    sparkscope::core::detail::ExactFirstPass forward, backward;
    for (uint64_t v : values)
        forward.add(v);
    for (size_t i = values.size(); i-- > 0;)
        backward.add(values[i]);
    REQUIRE(forward.exact());
    REQUIRE(backward.exact());
    const std::vector<double> doubles(values.begin(), values.end());
    for (auto* pass : { &forward, &backward }) {
        StatAccumulator a = pass->accumulator();
        a.addDeviations(doubles);
        requireSameBits(a.stat(), referenceStat(doubles));
    }
}

TEST_CASE("ExactFirstPass is not exact for a value of 2^53 or more, nor for a total of 2^64 or more", "[core]")
{
    sparkscope::core::detail::ExactFirstPass big;
    big.add(1);
    big.add(uint64_t(1) << 53); // its double would be exact, but 2^53 + 1 would not: the domain stops here
    CHECK_FALSE(big.exact());
    // 4096 values of 2^52 - 1 sum to just below 2^64: exact; one more value of 2^52 passes 2^64.
    sparkscope::core::detail::ExactFirstPass total;
    for (int i = 0; i < 4096; ++i)
        total.add((uint64_t(1) << 52) - 1);
    CHECK(total.exact());
    total.add(uint64_t(1) << 52);
    CHECK_FALSE(total.exact());
    // An empty pass is exact and gives the all-zero Stat.
    const sparkscope::core::detail::ExactFirstPass none;
    CHECK(none.exact());
    CHECK(none.accumulator().stat().count == 0);
}
