#pragma once
// Traces more than one test file reads: the hand-built scenarios whose figures the metrics, analysis
// and findings tests each work out by hand (the scenario is described here once; each test's comments
// say what its own figures are), the demo workloads' traces recorded at test time, and the shared GHC
// eventlogs.
#include "sparkscope/core/trace.h"

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace sparkscope::test {

// Two engines with a steal, 2 engines, [0, 400), static id 1 = "fib.m:10":
// ctx 1 runs on engine 0 from 0; it starts conjunction 0xA at 100 (G1 in ctx 1) and sparks G2 (spark
// 5) at 110. Engine 1 searches from 105 (local deque, then a steal at 115) and steals spark 5 at 120;
// ctx 2 is created at 125 and runs G2 from 130. G1 ends at 200; ctx 1 parks at A's barrier at 210.
// G2 ends at 300 and wakes ctx 1 at 305; ctx 2 finishes at 310. ctx 1 runs again on engine 0 at 330,
// ends A at 340 and finishes at 400.
core::Trace stealTrace();

// A future whose first wait suspends, 2 engines, [0, 230), static id 1 = "fib.m:10", name 2 = "X":
// ctx 1 on engine 0 creates future X (0xF) at 90, starts B (0xB) at 100 (G1 in ctx 1) and sparks G2
// (spark 7) at 105. Engine 1 steals G2 at 110; ctx 2 runs it from 112 and waits on X at 120 before the
// signal (suspends; STOP_THREAD blocked at 125). G1 signals X at 150 and wakes ctx 2 at 152; ctx 2 runs
// again at 160, waits on X again at 170 (no suspend), ends G2 at 200 and finishes at 205. G1 ends at
// 180, ctx 1 parks at 185, is woken at 202, runs at 210, ends B at 220 and finishes at 230.
core::Trace futureTrace();

// A nested conjunction with a context that waits runnable, 2 engines, [0, 250), static ids 1 =
// "outer", 3 = "inner". Engine 0, ctx 1: outer A (0xA) from 100 (G1 in ctx 1), G2's spark s1 at 105;
// inside G1, inner B (0xB) from 110 (H1), H2's spark s2 at 115; H1 ends 150; ctx 1 takes s2 itself at
// 155, H2 runs to 175; B ends 180; G1 ends 190; ctx 1 parks at A's barrier at 195; engine 0 searches
// [196, 198) and sleeps. Engine 1 searches from 112, steals s1 at 120; ctx 2 (created 122) runs G2
// [125, 200) and wakes ctx 1 at 200. ctx 1 stays runnable until engine 1, after searching [210, 215),
// runs it at 215; ctx 1 ends A at 220 and finishes at 240.
core::Trace nestedTrace();

// Contention, 2 engines, [0, 260000), static id 1 = "sort.cpp:10": three instances of one conjunction
// (two conjuncts each, nesting depth 0) from ctx 1's root, which runs on engine 0 throughout. The first: G1 on engine 0 [100, 50130), G2 stolen by engine 1 and run by ctx 2 [130, 50120),
// so both run 49,990 ns side by side (G1 also 40 ns alone). The other two run both conjuncts one after
// the other on engine 0, alone: 40,000 ns each. So with two engines the same work took about 1.25× as
// long: c ≈ 0.25.
core::Trace contentionTrace();

// `trace` cut at a random instant (std::mt19937_64 seeded with `seed`), as a file that ends early:
// the events after it dropped, the trace's end moved there and marked truncated.
core::Trace truncatedAtRandom(core::Trace trace, uint64_t seed);
// `trace` with `count` random events (seeded with `seed`) lost or posted twice.
core::Trace damagedAtRandom(core::Trace trace, uint64_t seed, int count = 6);

struct NamedTrace {
    std::string name; // the workload's name, or the eventlog's file name
    core::Trace trace;
};

// Each workload ("parfib --n 24 --cutoff 12", …) recorded by the built sparkscope-demo on `engines`
// engines into the scratch directory `scratch`, and read back. Empty (with a WARN "NOT RUN") when the
// demo is not built; a demo that fails or a trace that does not read fails the test.
std::vector<NamedTrace> demoTraces(
    const std::string& scratch, const std::vector<std::string>& workloads, unsigned engines = 2);

// The shared eventlogs ../shared/testdata/ghc/<name> that exist (each missing one WARNs "NOT RUN"), read.
std::vector<NamedTrace> sharedGhcTraces(std::initializer_list<const char*> names);

} // namespace sparkscope::test
