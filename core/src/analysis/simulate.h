#pragma once
// Internal to core (not installed). The what-if simulation (analysis.md §4): the recorded run's DAG
// replayed on P engines under the scheduling rules of SparkScope's runtime (runtime/src/scheduler.cpp),
// as a discrete-event simulation. docs/analysis.md ("What-if") states the rules for readers; in short:
//
//   - Contexts. A simulated context carries a stack of strands, as a runtime context does: the strand
//     that forks a conjunction goes on in its first conjunct (same context, no cost); a spark taken by
//     an engine that has a context at hand runs in it; an engine without one takes a new one (Context).
//     Carrier strands (sim_graph.h: the release work a spark context did after each conjunct) run on
//     the engine that finished that conjunct, in whatever context it holds.
//   - A node starts when its strand has reached it and its cross dependencies are met, and runs for
//     its weight. What finishing a node releases (sim_graph.h) goes on the finishing engine's own
//     stack, run next: its own strand's next node, a forked first conjunct, a conjunct's return and
//     join (the barrier resumes the parked context on the engine of the last conjunct: Switch if that
//     engine held another context). A Create pushes a spark on the engine's deque (newest at the
//     back); a Signal makes the suspended waiters runnable (the global runnable queue, FIFO).
//   - When its stack is empty, the engine: after a conjunct that was not the last of its conjunction,
//     pops its deque if the newest spark is that conjunction's next conjunct (no cost); else, in the
//     context that started the conjunction, parks it at the barrier and searches without a context;
//     in any other context searches with it (the free context). A strand blocked on a suspended wait
//     parks its context; a finished one releases it.
//   - Searching: the runnable queue (Switch), its own deque's newest spark (no cost with a context,
//     Context without), the oldest spark of another engine (Steal, + Context without a context; the
//     victim scan starts at a pseudo-random engine, as the runtime's). Nothing: it spins for Spin, then
//     sleeps. New work (a spark pushed, a context made runnable) is taken by the lowest spinning
//     engine (after Spark for a spark, Switch for a context) and wakes the lowest sleeping engine,
//     which searches after Wake — as the runtime's wakeOne does on every push.
//
// Time starts at 0 at the first context's first node and ends when the last node finishes: that is
// the predicted wall time. The ledger integrates each engine's state: running (in a conjunct strand
// or not), searching (spinning, paying a cost), or idle (asleep or waking), the idle time classed
// by the simulated program's state as in the recorded ledger (a spark or runnable context exists;
// else a context parked on a future; else at a barrier; else nothing). It sums exactly to P × wall.
// With zero costs and P = 1 the single engine is never idle while a node remains, so the wall is the
// work exactly; no P beats the span, since no node starts before its dependencies are met.
//
// Contention (contention.h; costs.contention = c > 0): a node's weight is recorded running time, done
// at rate 1 / ((1 + c (k − 1)) × r) while k engines run nodes, r being the recorded run's own mean rate
// (so its running times become work: a recorded load is divided out, the simulated one applied). The
// rate is the same for every running engine, so one work clock, advanced between events, orders the
// running nodes' ends; it changes only when an engine starts or stops running. With c = 0 the work
// clock is the time and nothing changes.
//
// Shortcut (exact; off with `use` absent, as WhatIfOptions::shortcut = false does). Most of a big run's
// nodes are in sub-trees an engine runs alone, depth first, while nobody can see inside: it pays no
// cost, pushes and pops only its own sparks, waits for nothing outside. Such a run is one event here:
//   - Which sub-trees. A closed one (sim_graph.h) entered with nothing on the engine's stack and no
//     conjunct just ended (its spark popped or stolen: afterStack, search), whose run alone is learnt
//     by the P = 1 simulation (`learn`): it is run there in that state, and there it paid no cost,
//     called no search, parked nothing, and ended with its stack and deque as they began and every node
//     of the sub-tree done. Nothing outside the sub-tree takes part in that run, so it is the same run
//     at any P: its engine runs (in a conjunct) for the sub-tree's total weight, `work`.
//   - When. At P > 1, with costs.contention = 0 (under contention each event's rounding moves the work
//     clock), when the engine's deque holds an older spark and no engine spins or sleeps. While an older
//     spark stays below, a thief takes that one (the oldest), nobody's search fails (so nobody starts
//     to spin or sleep, and the engine's pushes wake nobody: notify() finds nobody), and the idle class
//     sees a spark either way: nothing outside reads the sub-tree's state.
//   - Then the engine runs one node of weight `work` (the work clock is the time when c = 0); at its
//     end every node of the sub-tree is marked done and its last node completes as usual.
//   - Replay. A steal that would take the last older spark first replays the sub-tree from its start
//     with the ordinary code, up to the events that come before the thief's (earlier, or at the same
//     instant on a lower engine: nothing else schedules an event at the current instant while the
//     sub-tree runs, since nobody spins or sleeps), and the steal then sees the deque as it is.
// So every prediction is the one the node-by-node run gives (tests compare both on random programs and
// demo traces). The 13 M-event parfib runs 93 % of its nodes inside such steps at P = 64, 100 % at P = 2.
//
// Events are node completions (on the work clock) and cost or spin timers (in ns), one pending per
// engine, in two tournament trees ordered by (time, engine): O(nodes log P) per run. Per run it owns a byte and a bit
// per node and 4 bytes per strand, beside the shared graph; nothing is allocated per node. Deterministic.
#include "analysis/sim_graph.h"
#include "sparkscope/core/analysis.h"

#include <cstdint>
#include <vector>

namespace sparkscope::core::detail {

// What the P = 1 run learns for the others ("Shortcut"): per strand, the running time of its sub-tree
// run alone, 0 where the shortcut does not apply.
struct SoloRuns {
    std::vector<uint64_t> work;
};

// What the shortcut did in one run (for the benchmark): steps taken, the nodes they stood for, and
// the steps replayed node by node (a thief came for the last older spark) with the nodes they replayed.
struct ShortcutStats {
    uint64_t steps = 0, stepNodes = 0, replays = 0, replayedNodes = 0;
};

// `nodes`: the graph's own (SimGraph::nodes) or scaled ones (SimGraph::scaled). `recordedRate`: the
// recorded run's mean work rate under costs.contention (contention.h, recordedRate); unused when the
// contention is 0. `learn` (P = 1 only): filled with the sub-trees' solo runs; `use`: what a P = 1 run
// of the same nodes learnt (the shortcut; ignored at P = 1 and under contention).
Prediction simulate(const SimGraph& graph, const SimNodes& nodes, uint32_t engines, const CostModel& costs, bool curve,
    double recordedRate = 1.0, SoloRuns* learn = nullptr, const SoloRuns* use = nullptr,
    ShortcutStats* stats = nullptr);

// Every engine count of `engines` (distinct, ascending, the first 1), as predict() runs them: P = 1
// first, learning the solo runs when `shortcut` (and the contention is 0), then the others in parallel.
std::vector<Prediction> simulateAll(const SimGraph& graph, const SimNodes& nodes, const std::vector<uint32_t>& engines,
    const CostModel& costs, bool curve, double recordedRate, bool shortcut);

} // namespace sparkscope::core::detail
