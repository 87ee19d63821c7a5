// Building a StepFunction compacts its input in place (no second copy of a curve of millions of
// steps): these cases pin down the rules the compaction must keep, worked out by hand.
#include "sparkscope/core/step_function.h"

#include <catch2/catch.hpp>

using sparkscope::core::StepFunction;
using Step = StepFunction::Step;

TEST_CASE(
    "a step function keeps the last of equal times, merges equal neighbours and stops at its end", "[core][metrics]")
{
    // {0,1} kept; {5,2} kept; {5,1}: same time, last wins -> value 1, now equal to {0,1}, so the
    // step at 5 goes; {7,1}: equal value, skipped; {9,3} kept; {12,4}: at or after the end, dropped.
    StepFunction f({ { 0, 1 }, { 5, 2 }, { 5, 1 }, { 7, 1 }, { 9, 3 }, { 12, 4 } }, 10);
    CHECK(f.steps() == std::vector<Step> { { 0, 1 }, { 9, 3 } });
    CHECK(f.endNs() == 10);
    CHECK(f.integral(0, 10) == 1 * 9 + 3 * 1);
    CHECK(f.max(0, 9) == 1);
    // Everything at or after the end: an empty function, 0 everywhere.
    StepFunction none({ { 10, 1 }, { 11, 2 } }, 10);
    CHECK(none.empty());
    CHECK(none.valueAt(10) == 0);
}

TEST_CASE("a step function from deltas starts at 0 at its begin and counts earlier deltas there", "[core][metrics]")
{
    {
        // Deltas at 2 and 4 with begin 0: 0 on [0,2), 1 on [2,4), 3 on [4,10).
        auto f = StepFunction::fromDeltas({ { 4, 2 }, { 2, 1 } }, 0, 10);
        CHECK(f.steps() == std::vector<Step> { { 0, 0 }, { 2, 1 }, { 4, 3 } });
    }
    {
        // Deltas before and at begin 5 all count at 5: +1 at 1, +1 at 5, -1 at 7 -> 2 on [5,7), 1 on [7,10).
        auto f = StepFunction::fromDeltas({ { 1, 1 }, { 5, 1 }, { 7, -1 } }, 5, 10);
        CHECK(f.steps() == std::vector<Step> { { 5, 2 }, { 7, 1 } });
        CHECK(f.integral(0, 100) == 2 * 2 + 1 * 3);
    }
    {
        // No deltas: 0 over [3, 8).
        auto f = StepFunction::fromDeltas({}, 3, 8);
        CHECK(f.steps() == std::vector<Step> { { 3, 0 } });
        CHECK(f.max(0, 100) == 0);
    }
    {
        // Most deltas cancel out (+1 -1 at each time): one step left, the buffer is not kept.
        std::vector<Step> deltas;
        for (int64_t t = 1; t < 1000; ++t) {
            deltas.push_back({ t, 1 });
            deltas.push_back({ t, -1 });
        }
        auto f = StepFunction::fromDeltas(std::move(deltas), 0, 1000);
        CHECK(f.steps() == std::vector<Step> { { 0, 0 } });
        CHECK(f.steps().capacity() < 100);
    }
}

TEST_CASE("a step function's integral over a range is exact even when the integral from its begin overflows",
    "[core][metrics]")
{
    // 2 on [0, 8e18), 1 on [8e18, 8e18 + 100): the integral from 0 to 8e18 is 1.6e19, past int64's
    // 9.2e18 (a damaged trace's times can span that much), yet the last 100 ns integrate to 100 and
    // the 10 ns before 8e18 to 20.
    const int64_t late = 8'000'000'000'000'000'000;
    StepFunction f({ { 0, 2 }, { late, 1 } }, late + 100);
    CHECK(f.integral(late, late + 100) == 100);
    CHECK(f.integral(late - 10, late) == 20);
    CHECK(f.integral(late - 10, late + 10) == 30);
}
