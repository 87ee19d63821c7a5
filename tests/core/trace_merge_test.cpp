// Trace::forEachInTimeOrder (trace_merge.h): events in time order, ties broken by source (global
// first, then engine number) and then by file order, both in the linear-scan merge used for few
// engines and in the heap merge used for many.
#include "sparkscope/core/trace.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <tuple>

using namespace sparkscope::core;

namespace {

// Events carry their identity in `offset` (forEachInTimeOrder reads only times).
Event at(uint64_t timeNs, uint64_t id)
{
    Event e;
    e.timeNs = timeNs;
    e.offset = id;
    return e;
}

std::vector<uint64_t> visitOrder(const Trace& t)
{
    std::vector<uint64_t> ids;
    t.forEachInTimeOrder([&](const Event& e) { ids.push_back(e.offset); });
    return ids;
}

} // namespace

TEST_CASE("events with equal times come global first, then by engine, then in file order", "[core][trace]")
{
    Trace t;
    t.global = { at(5, 100), at(9, 101) };
    t.engines.resize(3);
    t.engines[0] = { at(1, 0), at(5, 1), at(5, 2), at(9, 3) };
    t.engines[1] = {}; // an engine without events
    t.engines[2] = { at(5, 20), at(7, 21), at(9, 22) };
    // By hand: t=1: e0's 0; t=5: global 100, then e0's 1 and 2, then e2's 20; t=7: 21;
    // t=9: global 101, e0's 3, e2's 22.
    CHECK(visitOrder(t) == std::vector<uint64_t> { 0, 100, 1, 2, 20, 21, 101, 3, 22 });
}

TEST_CASE("the merge of few and of many engines agrees with a stable sort by time and source", "[core][trace]")
{
    std::mt19937_64 rng(3);
    // 1..20 engines covers both merges (linear scan up to 7 engines plus global, heap beyond).
    for (size_t engines = 1; engines <= 20; ++engines)
        for (int round = 0; round < 5; ++round) {
            Trace t;
            t.engines.resize(engines);
            std::vector<std::tuple<uint64_t, uint32_t, uint64_t>> expected; // (time, source, id)
            uint64_t id = 0;
            const uint64_t span = round % 2 ? 20 : 100000; // small spans make many ties
            for (size_t src = 0; src <= engines; ++src) {
                auto& list = src == 0 ? t.global : t.engines[src - 1];
                const size_t n = src == 0 && round < 2 ? 0 : rng() % 300;
                std::vector<uint64_t> times(n);
                for (auto& time : times)
                    time = rng() % span;
                std::sort(times.begin(), times.end());
                for (uint64_t time : times) {
                    list.push_back(at(time, id));
                    expected.emplace_back(time, uint32_t(src), id++);
                }
            }
            std::sort(expected.begin(), expected.end()); // ids grow in file order within a source
            std::vector<uint64_t> want;
            for (const auto& [time, src, i] : expected)
                want.push_back(i);
            INFO(engines << " engines, round " << round);
            CHECK(visitOrder(t) == want);
        }
}

TEST_CASE("the merge visits every event of a trace with one source or none", "[core][trace]")
{
    Trace empty;
    CHECK(visitOrder(empty).empty());
    Trace one;
    one.engines.resize(2);
    one.engines[1] = { at(1, 0), at(1, 1), at(2, 2) };
    CHECK(visitOrder(one) == std::vector<uint64_t> { 0, 1, 2 });
}
