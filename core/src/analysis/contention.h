#pragma once
// Internal to core (not installed). Contention: how much slower the same code runs while other
// engines run too (shared caches, memory bandwidth), measured from one trace, for the what-if
// simulation (simulate.h). The cost rule, for readers: docs/analysis.md "What-if", "Contention".
//
// The model: an engine running a node while k engines run (itself included) does its work at rate
// 1 / (1 + c × (k − 1)); c is the contention coefficient. A recorded node's running time is then its
// work times 1 + c × (the mean number of other engines running while it ran).
//
// Measuring c. The trace records each conjunct's running time and, from every engine's activity, how
// many other engines ran meanwhile (u: their mean number over its running time). Conjuncts that do
// the same work — the same static id, position and nesting depth, so the same code at the same level
// of a recursion — ran under different loads: some while the other engines searched or slept, some
// while they ran. The slope b of log(running time) against u, within those groups (a fixed-effects
// least-squares fit: each group's own mean size drops out), is log(1 + c) per other engine for two
// engines, so c = e^b − 1. Conjuncts shorter than kMinConjunctNs are left out (their time is mostly
// the runtime's and the tracer's), and so are groups where u does not vary. A negative slope (code
// that ran faster beside others) gives 0: the model has no speed-up from company. A trace on one
// engine, or one whose conjuncts always ran under the same load, cannot measure c: 0, with 0 samples.
//
// Cost: one walk over every engine's activity intervals together, one pass over the contexts'
// segments (parallel over contexts), one over the conjunctions.
#include "analysis/engine_activity.h"
#include "sparkscope/core/par_model.h"

#include <cstdint>
#include <vector>

namespace sparkscope::core::detail {

struct Contention {
    double coefficient = 0; // c, ≥ 0
    uint64_t samples = 0; // conjuncts the fit used (0: not measurable, c = 0)
    // Engine-ns of running while k engines ran, at index k − 1 (k = 1 … engines): the recorded load.
    std::vector<uint64_t> runningAt;
};

// Conjuncts that ran less than this are left out of the fit: a traced event and the runtime's own
// steps cost tens to hundreds of ns, so below 10 µs they would be a few per cent of the time measured.
inline constexpr uint64_t kMinConjunctNs = 10'000;

Contention measureContention(const ParModel& model, const EngineActivity& activity);

// The recorded run's mean work rate under coefficient c: Σ_k runningAt[k] / (1 + c(k − 1)) over
// Σ_k runningAt[k] (1 when nothing ran or c = 0). The simulation divides by it so that recorded running
// times, which include the recorded load's slowdown, become work.
double recordedRate(const std::vector<uint64_t>& runningAt, double c);

} // namespace sparkscope::core::detail
