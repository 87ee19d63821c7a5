// StepRangeSummary: the max / integral / average of a curve over one range, streamed from its deltas,
// must equal what StepFunction::fromDeltas builds and answers (computeMetrics relies on it for
// SPARK_DEQUE_SIZE, byte for byte).
#include "sparkscope/core/step_function.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <random>

using sparkscope::core::StepFunction;
using sparkscope::core::StepRangeSummary;

namespace {

StepRangeSummary summarise(
    const std::vector<StepFunction::Step>& sortedDeltas, int64_t begin, int64_t end, int64_t from, int64_t to)
{
    StepRangeSummary s(begin, end, from, to);
    for (const auto& d : sortedDeltas)
        s.add(d.timeNs, d.value); // a delta here, as for fromDeltas
    return s;
}

} // namespace

TEST_CASE("step range summary gives the max, integral and average of a hand-worked deque", "[core][metrics]")
{
    // Domain [10, 50). Deltas: +1 at 5 (before the domain: counts at 10), +1 at 20, +1 at 20, -1 at
    // 30, -2 at 40, +5 at 50 (at the end: ignored). Curve: 1 on [10,20), 3 on [20,30), 2 on
    // [30,40), 0 on [40,50).
    const std::vector<StepFunction::Step> deltas { { 5, 1 }, { 20, 1 }, { 20, 1 }, { 30, -1 }, { 40, -2 }, { 50, 5 } };
    {
        // Whole domain: integral 1*10 + 3*10 + 2*10 + 0 = 60, max 3, average 60 / 40.
        auto s = summarise(deltas, 10, 50, 10, 50);
        CHECK(s.max() == 3);
        CHECK(s.integral() == 60);
        CHECK(s.average() == Approx(1.5));
    }
    {
        // [32, 45): 2 on [32,40) and 0 on [40,45): integral 16, max 2, average 16 / 13.
        auto s = summarise(deltas, 10, 50, 32, 45);
        CHECK(s.max() == 2);
        CHECK(s.integral() == 16);
        CHECK(s.average() == Approx(16.0 / 13.0));
    }
    {
        // [0, 100) reaches past both ends of the domain: the same integral, averaged over 100 ns.
        auto s = summarise(deltas, 10, 50, 0, 100);
        CHECK(s.max() == 3);
        CHECK(s.integral() == 60);
        CHECK(s.average() == Approx(0.6));
    }
    {
        // A range outside the domain, and an empty one: all 0.
        auto outside = summarise(deltas, 10, 50, 60, 70);
        CHECK(outside.max() == 0);
        CHECK(outside.integral() == 0);
        auto empty = summarise(deltas, 10, 50, 30, 30);
        CHECK(empty.max() == 0);
        CHECK(empty.average() == 0.0);
    }
    {
        // No deltas at all: the curve is 0 over the domain.
        auto none = summarise({}, 10, 50, 10, 50);
        CHECK(none.max() == 0);
        CHECK(none.integral() == 0);
    }
}

TEST_CASE("step range summary agrees with StepFunction on random delta streams", "[core][metrics]")
{
    std::mt19937_64 rng(7);
    for (int round = 0; round < 300; ++round) {
        const int64_t begin = int64_t(rng() % 50), end = begin + int64_t(rng() % 2000);
        std::vector<StepFunction::Step> deltas;
        const int n = int(rng() % 300);
        for (int i = 0; i < n; ++i) // times may fall before begin and after end; values may go negative
            deltas.push_back({ int64_t(rng() % 2100), int64_t(rng() % 5) - 2 });
        std::sort(deltas.begin(), deltas.end(), [](const auto& a, const auto& b) { return a.timeNs < b.timeNs; });
        const StepFunction f = StepFunction::fromDeltas(deltas, begin, end);
        for (int q = 0; q < 10; ++q) {
            int64_t from = int64_t(rng() % 2200) - 50, to = int64_t(rng() % 2200) - 50;
            if (q == 0)
                from = begin, to = end;
            if (from > to)
                std::swap(from, to);
            auto s = summarise(deltas, begin, end, from, to);
            INFO("round " << round << " range [" << from << ", " << to << ") domain [" << begin << ", " << end << ")");
            CHECK(s.max() == f.max(from, to));
            CHECK(s.integral() == f.integral(from, to));
            CHECK(s.average() == f.average(from, to));
        }
    }
}
