#pragma once
// Internal to core (not installed). The what-if simulation's costs (simulate.h) as a trace measured
// them: each is the median of one kind of latency read off the engines' events, the model's conjuncts
// and the engines' activity (engine_activity.h: search episodes):
//   spark_ns   a stolen spark whose thief was already searching when the spark was created (its search
//              episode began at or before the SPARK_CREATE): SPARK_STEAL − SPARK_CREATE;
//   steal_ns   every other stolen spark: SPARK_STEAL − the start of the thief's search episode;
//   context_ns a RUN_THREAD right after a decision to run something, with only context bookkeeping
//              between (STOP_THREAD, RELEASE_CONTEXT, REUSE_CONTEXT, CREATE_THREAD, CREATE_SPARK_THREAD,
//              CALLING_MAIN), when the decision was a SPARK_RUN or SPARK_STEAL (an engine without a
//              context took a spark) or the bookkeeping made a context (CREATE_THREAD,
//              CREATE_SPARK_THREAD, REUSE_CONTEXT): RUN_THREAD − the decision. A context from the pool
//              costs little, a new one a stack;
//   switch_ns  the same for the other decisions, which resume a context: RUN_THREAD − the
//              THREAD_RUNNABLE this engine posted for another context (the last conjunct waking its
//              parent at the barrier), or − the LOOKING_FOR_GLOBAL_CONTEXT that found it in the runnable
//              queue. (A wait that finds its future signalled meanwhile posts THREAD_RUNNABLE and
//              RUN_THREAD of itself: no switch, no sample.) Our runtime posts RUN_THREAD before the
//              stack switch itself, so that is in the context's running time;
//   wake_ns    an ENGINE_SLEEPING after which another engine made work (SPARK_CREATE or THREAD_RUNNABLE)
//              before the sleeper's next event: that next event − the first such work;
//   spin_ns    an ENGINE_SLEEPING that ends a search episode: ENGINE_SLEEPING − the episode's start.
// A kind with no sample costs 0, and its sample count (0) says so. The median (the lower middle one of
// an even count) keeps the rare outlier out: a context's first stack, an engine descheduled by the OS.
// Cost: one scan of every engine's events (in parallel) and of the conjuncts; memory for the samples
// and the times of SPARK_CREATE and THREAD_RUNNABLE (8 bytes each).
#include "analysis/engine_activity.h"
#include "sparkscope/core/analysis.h"
#include "sparkscope/core/par_model.h"
#include "sparkscope/core/trace.h"

namespace sparkscope::core::detail {

CostModel measureCosts(const Trace& trace, const ParModel& model, const EngineActivity& activity);

} // namespace sparkscope::core::detail
