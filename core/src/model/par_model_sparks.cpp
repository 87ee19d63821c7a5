// ParModelBuilder (par_model_builder.h): the spark events. A spark is a conjunct that another
// engine may run: SPARK_CREATE adds it to its open conjunction, and SPARK_RUN or SPARK_STEAL starts
// it wherever it runs. The spark id links the two, and a spark id may be reused once its spark ran.
#include "model/par_model_builder.h"

namespace sparkscope::core::detail {

// SPARK_CREATE(dyn, spark): the next conjunct (positions 2, 3, ... in creation order) of the open
// conjunction with that dyn id, waiting under its spark id until it runs.
void ParModelBuilder::onSparkCreate(const Event& e, Payload p)
{
    const uint64_t dyn = p.u64(0);
    const ConjunctionIndex j = openConjunction(e, dyn, "SPARK_CREATE");
    if (!j.valid())
        return;
    ConjunctionInstance& ci = m.conjunction(j);
    const ConjunctIndex k(static_cast<uint32_t>(m.conjuncts.size()));
    ConjunctInstance& g = m.conjuncts.emplace_back();
    g.conjunction = j;
    g.position = static_cast<uint32_t>(ci.conjuncts.size() + 1);
    g.fromSpark = true;
    g.sparkId = p.u32(8);
    g.sparkCreateNs = e.timeNs;
    g.sparkEngine = e.engine;
    ci.conjuncts.push_back(k);
    const uint32_t pending = m_sparks.exchange(g.sparkId, k.value());
    if (pending != kNoIndex && pending != kSparkRan)
        problem(e, "spark id " + std::to_string(g.sparkId) + " created again before it ran");
}

// SPARK_RUN(spark) / SPARK_STEAL(victim, spark): the conjunct starts on this engine, in the context
// running there or, if none runs yet, in the next one to RUN_THREAD there.
void ParModelBuilder::onSparkRun(const Event& e, Payload p)
{
    const bool stolen = e.type == ev::MerSparkSteal;
    const uint32_t spark = stolen ? p.u32(2) : p.u32(0);
    const uint32_t waiting = m_sparks.exchange(spark, kSparkRan); // raw: may be the kSparkRan mark
    if (waiting == kNoIndex || waiting == kSparkRan) {
        if (waiting == kNoIndex)
            m_sparks.set(spark, kNoIndex); // still unknown, not run
        problem(e,
            std::string(stolen ? "SPARK_STEAL" : "SPARK_RUN") + " of spark " + std::to_string(spark)
                + (waiting == kSparkRan ? ", which already ran" : ", which was never created"));
        return;
    }
    const ConjunctIndex k(waiting);
    ConjunctInstance& g = m.conjunct(k);
    // The spark sat in the deque of the engine that posted its SPARK_CREATE: a local run elsewhere,
    // or a steal naming another victim, contradicts that (the deques' sizes then never come down).
    const uint16_t from = stolen ? p.u16(0) : e.engine;
    if (g.sparkEngine != kNoEngine && from != g.sparkEngine)
        problem(e,
            std::string(stolen ? "SPARK_STEAL" : "SPARK_RUN") + " of spark " + std::to_string(spark) + " from engine "
                + std::to_string(from) + "'s deque, but engine " + std::to_string(g.sparkEngine) + " made it");
    g.started = true;
    g.stolen = stolen;
    g.startNs = e.timeNs;
    g.startEngine = e.engine;
    if (!e.hasEngine())
        return;
    const ContextIndex c = runningOn(e);
    if (c.valid())
        bindConjunct({ k, g.conjunction }, c, e.timeNs);
    else
        m_engines[e.engine].pending = { k, g.conjunction };
}

} // namespace sparkscope::core::detail
