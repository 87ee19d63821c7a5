#include "sparkscope/core/lod_index.h"

#include <catch2/catch.hpp>

#include <array>
#include <random>

using sparkscope::core::LodIndex;
using sparkscope::core::LodSpan;

namespace {

// Busy time per state by walking every span: the definition the index must agree with.
std::array<uint64_t, LodIndex::kMaxStates> bruteForce(std::span<const LodSpan> spans, uint64_t from, uint64_t to)
{
    std::array<uint64_t, LodIndex::kMaxStates> out {};
    for (const LodSpan& s : spans) {
        const uint64_t a = std::max(s.startNs, from), b = std::min(s.endNs, to);
        if (a < b)
            out[s.state] += b - a;
    }
    return out;
}

std::vector<LodSpan> randomSpans(std::mt19937_64& rng, uint64_t origin, uint64_t end, unsigned states)
{
    std::vector<LodSpan> spans;
    std::uniform_int_distribution<uint64_t> gap(0, 40), len(1, 300), longLen(1000, 20000);
    std::uniform_int_distribution<unsigned> state(0, states - 1), coin(0, 20);
    for (uint64_t t = origin + gap(rng); t < end;) {
        const uint64_t l = coin(rng) == 0 ? longLen(rng) : len(rng);
        spans.push_back({ t, std::min(t + l, end), uint32_t(t % 97), uint8_t(state(rng)) });
        t += l + gap(rng);
    }
    std::shuffle(spans.begin(), spans.end(), rng); // build() must sort
    return spans;
}

} // namespace

TEST_CASE("lod index answers every range exactly like a brute-force sum on random traces", "[core][lod]")
{
    std::mt19937_64 rng(20260521);
    for (int round = 0; round < 20; ++round) {
        const unsigned states = 1 + round % 5;
        const uint64_t origin = 1000 * round, end = origin + 50'000 + 7919 * round;
        std::vector<std::vector<LodSpan>> engines;
        for (int e = 0; e < 1 + round % 4; ++e)
            engines.push_back(randomSpans(rng, origin, end, states));
        auto copy = engines;
        // Small maxBuckets in some rounds so the raw ends and the bucket cap both get exercised.
        const size_t maxBuckets = round % 2 ? 64 : LodIndex::kDefaultMaxBuckets;
        const LodIndex index = LodIndex::build(std::move(copy), states, origin, end, maxBuckets);
        REQUIRE(index.engineCount() == engines.size());
        std::uniform_int_distribution<uint64_t> at(origin > 500 ? origin - 500 : 0, end + 500);
        for (size_t e = 0; e < engines.size(); ++e) {
            for (int q = 0; q < 300; ++q) {
                uint64_t a = at(rng), b = at(rng);
                if (a > b)
                    std::swap(a, b);
                std::array<uint64_t, LodIndex::kMaxStates> got {};
                index.busy(e, a, b, std::span(got).first(states));
                const auto want = bruteForce(engines[e], a, b);
                for (unsigned s = 0; s < states; ++s)
                    REQUIRE(got[s] == want[s]);
                index.busyBefore(e, b, std::span(got).first(states));
                const auto before = bruteForce(engines[e], 0, b);
                for (unsigned s = 0; s < states; ++s)
                    REQUIRE(got[s] == before[s]);
            }
        }
    }
}

TEST_CASE("every level of the lod pyramid sums exactly to the raw spans", "[core][lod]")
{
    std::mt19937_64 rng(7);
    std::vector<std::vector<LodSpan>> engines { randomSpans(rng, 0, 100'000, 5) };
    auto copy = engines;
    const LodIndex index = LodIndex::build(std::move(copy), 5, 0, 100'000, 1000);
    const auto total = bruteForce(engines[0], 0, 100'000);
    REQUIRE(index.levelCount(0) > 5);
    for (size_t level = 0; level < index.levelCount(0); ++level) {
        std::array<uint64_t, 5> sum {};
        for (size_t k = 0; k < index.bucketCount(0, level); ++k) {
            auto cell = index.bucket(0, level, k);
            // Each bucket also matches brute force over its own time range.
            const uint64_t from = k * index.bucketWidthNs(level);
            const auto want = bruteForce(engines[0], from, from + index.bucketWidthNs(level));
            for (unsigned s = 0; s < 5; ++s) {
                REQUIRE(cell[s] == want[s]);
                sum[s] += cell[s];
            }
        }
        for (unsigned s = 0; s < 5; ++s)
            REQUIRE(sum[s] == total[s]);
    }
}

TEST_CASE("lod index clips overlapping spans and finds the span at a time", "[core][lod]")
{
    // Engine 0: [10,20) state 0, then [15,30) state 1 which overlaps and is clipped to [20,30),
    // then an empty span [40,40) that is dropped, then [50,200) state 2 clipped to the end 100.
    // Worked by hand: busy over [0,100) = {10, 10, 50}; over [18,55) = {2, 10, 5}.
    std::vector<std::vector<LodSpan>> engines { { { 15, 30, 7, 1 }, { 10, 20, 3, 0 }, { 40, 40, 0, 0 },
        { 50, 200, 0, 2 } } };
    const LodIndex index = LodIndex::build(std::move(engines), 3, 0, 100);
    REQUIRE(index.spans(0).size() == 3);
    std::array<uint64_t, 3> got {};
    index.busy(0, 0, 100, got);
    CHECK(got == std::array<uint64_t, 3> { 10, 10, 50 });
    index.busy(0, 18, 55, got);
    CHECK(got == std::array<uint64_t, 3> { 2, 10, 5 });
    REQUIRE(index.spanAt(0, 12) != nullptr);
    CHECK(index.spanAt(0, 12)->label == 3);
    CHECK(index.spanAt(0, 20)->label == 7);
    CHECK(index.spanAt(0, 35) == nullptr);
    CHECK(index.spanAt(0, 100) == nullptr);
}

TEST_CASE("lod index of an empty engine reports no busy time", "[core][lod]")
{
    const LodIndex index = LodIndex::build({ {}, {} }, 5, 0, 0);
    std::array<uint64_t, 5> got { 1, 1, 1, 1, 1 };
    index.busy(1, 0, 1000, got);
    CHECK(got == std::array<uint64_t, 5> {});
}
