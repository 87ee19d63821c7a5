#include "sparkscope/core/step_function.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <random>

using sparkscope::core::StepFunction;

TEST_CASE("step function answers value, integral, max and average by hand", "[core][metrics]")
{
    // value 2 on [10,20), 5 on [20,30), 1 on [30,40), domain [10,40)
    StepFunction f({ { 10, 2 }, { 20, 5 }, { 30, 1 } }, 40);
    CHECK(f.valueAt(9) == 0);
    CHECK(f.valueAt(10) == 2);
    CHECK(f.valueAt(25) == 5);
    CHECK(f.valueAt(39) == 1);
    CHECK(f.valueAt(40) == 0);
    // integral [15,35) = 2*5 + 5*10 + 1*5 = 65
    CHECK(f.integral(15, 35) == 65);
    CHECK(f.integral(0, 100) == 2 * 10 + 5 * 10 + 1 * 10);
    CHECK(f.integral(35, 15) == 0);
    CHECK(f.max(10, 20) == 2);
    CHECK(f.max(15, 21) == 5);
    CHECK(f.max(30, 40) == 1);
    CHECK(f.max(50, 60) == 0);
    CHECK(f.average(15, 35) == Approx(65.0 / 20.0));
    auto levels = f.timeAtEachValue(0, 100);
    CHECK(levels.size() == 3);
    CHECK(levels[5] == 10);
}

TEST_CASE("step function built from deltas merges equal times and equal values", "[core][metrics]")
{
    // +1 at 0, +1 at 5, -1 at 5 (net 0 change at 5), -1 at 8; domain [0,10)
    auto f = StepFunction::fromDeltas({ { 5, 1 }, { 0, 1 }, { 5, -1 }, { 8, -1 } }, 0, 10);
    REQUIRE(f.steps().size() == 2);
    CHECK(f.steps()[0] == StepFunction::Step { 0, 1 });
    CHECK(f.steps()[1] == StepFunction::Step { 8, 0 });
    CHECK(f.integral(0, 10) == 8);
}

TEST_CASE("step function queries agree with brute force on random curves", "[core][metrics]")
{
    std::mt19937_64 rng(42);
    for (int round = 0; round < 50; ++round) {
        std::vector<StepFunction::Step> steps;
        int64_t t = static_cast<int64_t>(rng() % 10);
        const int n = 1 + static_cast<int>(rng() % 400); // long enough for whole blocks of the max index
        for (int i = 0; i < n; ++i) {
            steps.push_back({ t, static_cast<int64_t>(rng() % 7) - 2 });
            t += 1 + static_cast<int64_t>(rng() % 9);
        }
        const int64_t end = t;
        StepFunction f(steps, end);
        auto brute = [&](int64_t x) {
            int64_t v = 0;
            if (x < steps.front().timeNs || x >= end)
                return int64_t(0);
            for (auto& s : steps)
                if (s.timeNs <= x)
                    v = s.value;
            return v;
        };
        for (int q = 0; q < 30; ++q) {
            int64_t a = static_cast<int64_t>(rng() % static_cast<uint64_t>(end + 10)) - 5;
            int64_t b = a + static_cast<int64_t>(rng() % 3000);
            int64_t sum = 0, mx = INT64_MIN;
            bool any = false;
            for (int64_t x = a; x < b; ++x) {
                sum += brute(x);
                if (x >= steps.front().timeNs && x < end) {
                    mx = std::max(mx, brute(x));
                    any = true;
                }
            }
            CHECK(f.valueAt(a) == brute(a));
            CHECK(f.integral(a, b) == sum);
            CHECK(f.max(a, b) == (any ? mx : 0));
        }
    }
}

TEST_CASE("sum of step functions adds them pointwise", "[core][metrics]")
{
    StepFunction a({ { 0, 1 }, { 10, 0 } }, 20);
    StepFunction b({ { 5, 2 } }, 15);
    auto s = StepFunction::sum({ &a, &b });
    CHECK(s.valueAt(0) == 1);
    CHECK(s.valueAt(7) == 3);
    CHECK(s.valueAt(12) == 2);
    CHECK(s.valueAt(16) == 0);
    CHECK(s.integral(0, 20) == a.integral(0, 20) + b.integral(0, 20));
}
