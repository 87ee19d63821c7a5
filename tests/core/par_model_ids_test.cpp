// buildParModel does not depend on what ids look like. Our runtime writes dense spark and context
// ids and addresses 0x40 apart, which the model pass's id maps (id_maps.h) keep in plain vectors;
// other writers and damaged files may not. Renaming every spark, context, conjunction and future id
// of a random runtime-like trace by a bijection that scatters them over the whole 32- or 64-bit
// range must give the same model with only the ids renamed.
#include "metrics_sim.h"
#include "sparkscope/core/byte_order.h"
#include "sparkscope/core/par_model.h"

#include <catch2/catch.hpp>

#include <memory>

using namespace sparkscope::core;

namespace {

// Bijections: an odd multiplier is invertible modulo 2^n, and so is xor with a constant.
uint32_t scatter32(uint32_t id) { return (id * 0x9E3779B1u) ^ 0x5BD1E995u; }
uint64_t scatter64(uint64_t id) { return (id * 0xD6E8FEB86659FD93ull) ^ 0x0123456789ABCDEFull; }

// The same trace with every id field rewritten in place.
Trace withScatteredIds(const Trace& trace)
{
    auto bytes = std::make_shared<std::vector<uint8_t>>(trace.bytes().begin(), trace.bytes().end());
    auto rewrite = [&](const Event& e) {
        uint8_t* p = bytes->data() + e.payloadOffset();
        auto id32 = [&](size_t at) { storeBE32(p + at, scatter32(loadBE32(p + at))); };
        auto id64 = [&](size_t at) { storeBE64(p + at, scatter64(loadBE64(p + at))); };
        switch (e.type) {
        case ev::CreateThread:
        case ev::CreateSparkThread:
        case ev::RunThread:
        case ev::StopThread:
        case ev::ThreadRunnable:
        case ev::ThreadWakeup:
        case ev::MerReleaseContext:
        case ev::MerSparkRun:
            id32(0);
            break;
        case ev::MerReuseContext:
            id32(0), id32(4);
            break;
        case ev::MerSparkSteal:
            id32(2);
            break;
        case ev::MerSparkCreate:
            id64(0), id32(8);
            break;
        case ev::MerStartParConj:
        case ev::MerEndParConj:
        case ev::MerEndParConjunct:
        case ev::MerFutCreate:
        case ev::MerFutWaitNoSuspend:
        case ev::MerFutWaitSuspended:
        case ev::MerFutSignal:
            id64(0);
            break;
        default:
            break;
        }
    };
    for (const Event& e : trace.global)
        rewrite(e);
    for (const auto& engine : trace.engines)
        for (const Event& e : engine)
            rewrite(e);
    Trace out = trace;
    out.setBytes(bytes);
    return out;
}

void checkSameModel(const ParModel& a, const ParModel& b)
{
    REQUIRE(a.conjunctions.size() == b.conjunctions.size());
    for (size_t j = 0; j < a.conjunctions.size(); ++j) {
        const auto &x = a.conjunctions[j], &y = b.conjunctions[j];
        CHECK(scatter64(x.dynId) == y.dynId);
        CHECK((x.staticId == y.staticId && x.startNs == y.startNs && x.endNs == y.endNs
            && x.startEngine == y.startEngine && x.endEngine == y.endEngine && x.startContext == y.startContext
            && x.parentConjunct == y.parentConjunct && x.depth == y.depth && x.ended == y.ended
            && x.complete == y.complete));
        CHECK(std::equal(x.conjuncts.begin(), x.conjuncts.end(), y.conjuncts.begin(), y.conjuncts.end()));
        const auto xf = a.futuresOf(ConjunctionIndex(uint32_t(j))), yf = b.futuresOf(ConjunctionIndex(uint32_t(j)));
        CHECK(std::equal(xf.begin(), xf.end(), yf.begin(), yf.end()));
    }
    REQUIRE(a.conjuncts.size() == b.conjuncts.size());
    for (size_t k = 0; k < a.conjuncts.size(); ++k) {
        const auto &x = a.conjuncts[k], &y = b.conjuncts[k];
        if (x.fromSpark)
            CHECK(scatter32(x.sparkId) == y.sparkId);
        CHECK((x.conjunction == y.conjunction && x.position == y.position && x.fromSpark == y.fromSpark
            && x.sparkCreateNs == y.sparkCreateNs && x.sparkEngine == y.sparkEngine && x.started == y.started
            && x.stolen == y.stolen && x.startNs == y.startNs && x.startEngine == y.startEngine && x.ended == y.ended
            && x.endNs == y.endNs && x.endEngine == y.endEngine && x.context == y.context && x.complete == y.complete));
        const auto pa = a.topPieces(ConjunctIndex(uint32_t(k))), pb = b.topPieces(ConjunctIndex(uint32_t(k)));
        CHECK(std::equal(pa.begin(), pa.end(), pb.begin(), pb.end(), [](const auto& p, const auto& q) {
            return p.startNs == q.startNs && p.endNs == q.endNs && p.state == q.state;
        }));
    }
    REQUIRE(a.futures.size() == b.futures.size());
    for (size_t f = 0; f < a.futures.size(); ++f) {
        const auto &x = a.futures[f], &y = b.futures[f];
        CHECK(scatter64(x.futureId) == y.futureId);
        CHECK((x.nameId == y.nameId && x.conjunction == y.conjunction && x.createNs == y.createNs
            && x.signalled == y.signalled && x.signalNs == y.signalNs && x.signalConjunct == y.signalConjunct
            && x.signalCount == y.signalCount && x.complete == y.complete && x.waits.size() == y.waits.size()));
    }
    REQUIRE(a.contexts.size() == b.contexts.size());
    for (size_t c = 0; c < a.contexts.size(); ++c) {
        const auto &x = a.contexts[c], &y = b.contexts[c];
        CHECK(scatter32(x.id) == y.id);
        CHECK(std::equal(x.segments.begin(), x.segments.end(), y.segments.begin(), y.segments.end(),
            [](const ContextSegment& p, const ContextSegment& q) {
                return p.startNs == q.startNs && p.state == q.state && p.engine == q.engine && p.top == q.top;
            }));
    }
    CHECK(a.problems.size() == b.problems.size());
    CHECK(a.resumes.size() == b.resumes.size());
    CHECK(a.incompleteConjunctions == b.incompleteConjunctions);
    CHECK(a.incompleteConjuncts == b.incompleteConjuncts);
    CHECK(a.incompleteFutures == b.incompleteFutures);
}

} // namespace

TEST_CASE("the model of a trace with scattered ids is the model of the dense trace, ids renamed", "[core][model]")
{
    size_t conjunctions = 0, futures = 0;
    for (uint64_t seed = 1; seed <= 40; ++seed) {
        INFO("seed " << seed);
        const Trace dense = sparkscope::test::simulateRandomProgram(seed).build();
        const ParModel a = buildParModel(dense);
        const ParModel b = buildParModel(withScatteredIds(dense));
        checkSameModel(a, b);
        conjunctions += a.conjunctions.size();
        futures += a.futures.size();
    }
    CHECK(conjunctions > 100); // the traces exercise the maps
    CHECK(futures > 10);
}

TEST_CASE("a truncated trace with scattered ids reports the same damage", "[core][model]")
{
    // Cut the trace halfway through its events: conjunctions are left open and sparks unrun, so the
    // never-ended reports (in start order) and the incomplete counts must match, ids aside.
    const auto builder = sparkscope::test::simulateRandomProgram(5);
    Trace dense = builder.build();
    const uint64_t cut = (dense.firstTimeNs + dense.lastTimeNs) / 2;
    for (auto& engine : dense.engines)
        engine.erase(
            std::find_if(engine.begin(), engine.end(), [&](const Event& e) { return e.timeNs > cut; }), engine.end());
    const ParModel a = buildParModel(dense);
    const ParModel b = buildParModel(withScatteredIds(dense));
    CHECK(a.incompleteConjunctions > 0);
    checkSameModel(a, b);
    for (size_t i = 0; i < a.problems.size(); ++i)
        CHECK((a.problems[i].timeNs == b.problems[i].timeNs && a.problems[i].engine == b.problems[i].engine));
}
