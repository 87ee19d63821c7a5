// buildParModel counts top pieces and children and builds the contexts' state lists while it walks
// the events; ParModel::indexChildren() builds the same indexes from the finished instances and
// segments. Both must agree on random runtime-like traces (nesting, futures, reused ids) and on a
// hand-built trace whose pieces are worked out by hand; so must the top-piece index released and
// built again (ParModel::releaseTopPieces, indexTopPieces).
#include "metrics_sim.h"
#include "sparkscope/core/engine_states.h"
#include "sparkscope/core/metrics.h"
#include "sparkscope/core/par_model.h"
#include "support/trace_builder.h"

#include <catch2/catch.hpp>

#include <stdexcept>
#include <tuple>
#include <vector>

using namespace sparkscope::core;
using sparkscope::test::TraceBuilder;

namespace {

void checkSameIndexes(const ParModel& a, const ParModel& b)
{
    REQUIRE(a.conjuncts.size() == b.conjuncts.size());
    for (uint32_t i = 0; i < a.conjuncts.size(); ++i) {
        const ConjunctIndex k(i);
        const auto pa = a.topPieces(k), pb = b.topPieces(k);
        REQUIRE(std::equal(pa.begin(), pa.end(), pb.begin(), pb.end(), [](const auto& p, const auto& q) {
            return p.startNs == q.startNs && p.endNs == q.endNs && p.state == q.state;
        }));
        const auto ca = a.childConjunctions(k), cb = b.childConjunctions(k);
        REQUIRE(std::equal(ca.begin(), ca.end(), cb.begin(), cb.end()));
    }
    REQUIRE(a.conjunctions.size() == b.conjunctions.size());
    for (uint32_t i = 0; i < a.conjunctions.size(); ++i) {
        const auto fa = a.futuresOf(ConjunctionIndex(i)), fb = b.futuresOf(ConjunctionIndex(i));
        REQUIRE(std::equal(fa.begin(), fa.end(), fb.begin(), fb.end()));
    }
    REQUIRE(a.contexts.size() == b.contexts.size());
    for (size_t c = 0; c < a.contexts.size(); ++c)
        REQUIRE(std::equal(a.contexts[c].states.begin(), a.contexts[c].states.end(), b.contexts[c].states.begin(),
            b.contexts[c].states.end(), [](const ContextStateChange& p, const ContextStateChange& q) {
                return p.startNs == q.startNs && p.state == q.state;
            }));
}

} // namespace

TEST_CASE("the indexes built during the model pass equal those indexChildren rebuilds", "[core][model]")
{
    size_t pieces = 0, children = 0;
    for (uint64_t seed = 1; seed <= 20; ++seed) {
        INFO("seed " << seed);
        const ParModel built = buildParModel(sparkscope::test::simulateRandomProgram(seed, seed % 2 ? 4 : 12).build());
        ParModel rebuilt = built;
        rebuilt.indexChildren();
        checkSameIndexes(built, rebuilt);
        for (uint32_t i = 0; i < built.conjuncts.size(); ++i) {
            const ConjunctIndex k(i);
            pieces += built.topPieces(k).size();
            children += built.childConjunctions(k).size();
        }
    }
    CHECK(pieces > 500);
    CHECK(children > 50);
}

TEST_CASE("the top-piece index released and built again from the segments is the walk's", "[core][model]")
{
    size_t pieces = 0;
    for (uint64_t seed = 1; seed <= 10; ++seed) {
        INFO("seed " << seed);
        const Trace trace = sparkscope::test::simulateRandomProgram(seed, seed % 2 ? 4 : 9).build();
        const ParModel built = buildParModel(trace);
        REQUIRE(built.hasTopPieces());
        ParModel released = built;
        released.releaseTopPieces();
        CHECK_FALSE(released.hasTopPieces());
        for (uint32_t i = 0; i < released.conjuncts.size(); ++i) {
            CHECK(released.topPieces(ConjunctIndex(i)).empty());
            pieces += built.topPieces(ConjunctIndex(i)).size();
        }
        // What reads the pieces refuses the released model rather than reading nothing as nothing run.
        const EngineStates states = computeEngineStates(trace);
        const StepFunction cpus = cpusOverTime(states);
        if (!released.conjunctions.empty()) {
            const ConjunctionIndex j(0);
            CHECK_THROWS_AS(conjunctionCurves(released, cpus, trace.engineCount(), j), std::logic_error);
            CHECK_THROWS_AS(conjunctionFigures(released, cpus, trace.engineCount(), j), std::logic_error);
            CHECK_THROWS_AS(conjunctTimeSplit(released, released.conjunctions[0].conjuncts[0]), std::logic_error);
        }
        released.indexTopPieces();
        CHECK(released.hasTopPieces());
        checkSameIndexes(built, released);
    }
    CHECK(pieces > 200);
}

TEST_CASE("a conjunct's top pieces split where a nested conjunction runs and where its context stops", "[core][model]")
{
    // One engine, context 1. By hand:
    //   t=10 RUN_THREAD(1): running, no conjunct.
    //   t=20 START_PAR_CONJ A: conjunct A1 (index 0) on top.          piece A1 [20, 30) running
    //   t=30 START_PAR_CONJ B (nested): B1 (index 1) on top.          piece B1 [30, 40) running
    //   t=40 STOP_THREAD(1, yield): still B1 on top, runnable.        piece B1 [40, 50) runnable
    //   t=50 RUN_THREAD(1): running again.                           piece B1 [50, 60) running
    //   t=60 END_PAR_CONJUNCT B: B1 ends, A1 on top again.           piece A1 [60, 70) running
    //   t=70 END_PAR_CONJUNCT A: A1 ends, nothing on top.
    // States of context 1: runnable from 10 (created), running 10, runnable 40, running 50.
    sparkscope::test::TraceBuilder b(1);
    b.createThread(0, 10, 1)
        .runThread(0, 10, 1)
        .startParConj(0, 20, 0xA0, 1)
        .startParConj(0, 30, 0xB0, 1)
        .stopThread(0, 40, 1, 3)
        .runThread(0, 50, 1)
        .endParConjunct(0, 60, 0xB0)
        .endParConjunct(0, 70, 0xA0)
        .endAt(100);
    const ParModel m = buildParModel(b.build());
    REQUIRE(m.conjuncts.size() == 2);
    auto pieces = [&](uint32_t k) {
        std::vector<std::tuple<uint64_t, uint64_t, ContextState>> out;
        for (const auto& p : m.topPieces(ConjunctIndex(k)))
            out.emplace_back(p.startNs, p.endNs, p.state);
        return out;
    };
    using P = std::vector<std::tuple<uint64_t, uint64_t, ContextState>>;
    CHECK(pieces(0) == P { { 20, 30, ContextState::Running }, { 60, 70, ContextState::Running } });
    CHECK(pieces(1)
        == P {
            { 30, 40, ContextState::Running }, { 40, 50, ContextState::Runnable }, { 50, 60, ContextState::Running } });
    REQUIRE(m.childConjunctions(ConjunctIndex(0)).size() == 1);
    CHECK(m.childConjunctions(ConjunctIndex(0))[0] == ConjunctionIndex(1));
    CHECK(m.childConjunctions(ConjunctIndex(1)).empty());
    REQUIRE(m.contexts.size() == 1);
    std::vector<std::pair<uint64_t, ContextState>> states;
    for (const auto& s : m.contexts[0].states)
        states.emplace_back(s.startNs, s.state);
    // The creation segment at t=10 is replaced by the running one at the same time.
    CHECK(states
        == std::vector<std::pair<uint64_t, ContextState>> {
            { 10, ContextState::Running }, { 40, ContextState::Runnable }, { 50, ContextState::Running } });
    ParModel rebuilt = m;
    rebuilt.indexChildren();
    checkSameIndexes(m, rebuilt);
}

TEST_CASE("a conjunction's futures are those its context created since its previous conjunction", "[core][model]")
{
    // Two engines, contexts 1 and 2. By hand:
    //   context 1 creates futures 0xF1 (t=20) and 0xF2 (t=25), context 2 creates 0xF3 (t=22);
    //   context 1 starts A (t=30): A's futures are the two it created (future indexes 0 and 2);
    //   context 2 starts B (t=35): B's future is 0xF3 (index 1);
    //   A ends (t=50), which retires 0xF1, so 0xF1 created again (t=60) is a new future (index 3),
    //   and context 1's next conjunction C (t=70) gets it; B ends without its futures at t=80, and
    //   a conjunction with no futures before it (D, context 2, t=90) gets none.
    sparkscope::test::TraceBuilder b(2);
    b.createThread(0, 10, 1)
        .runThread(0, 10, 1)
        .createThread(1, 11, 2)
        .runThread(1, 11, 2)
        .futureCreate(0, 20, 0xF1, 7)
        .futureCreate(1, 22, 0xF3, 7)
        .futureCreate(0, 25, 0xF2, 7)
        .startParConj(0, 30, 0xA0, 1)
        .startParConj(1, 35, 0xB0, 1)
        .futureSignal(0, 40, 0xF1)
        .endParConjunct(0, 45, 0xA0)
        .endParConj(0, 50, 0xA0)
        .futureCreate(0, 60, 0xF1, 7)
        .startParConj(0, 70, 0xC0, 1)
        .endParConjunct(1, 75, 0xB0)
        .endParConj(1, 80, 0xB0)
        .startParConj(1, 90, 0xD0, 1)
        .endAt(100);
    const ParModel m = buildParModel(b.build());
    REQUIRE(m.conjunctions.size() == 4);
    REQUIRE(m.futures.size() == 4);
    auto futuresOf = [&](uint32_t j) {
        std::vector<uint32_t> out;
        for (FutureIndex f : m.futuresOf(ConjunctionIndex(j)))
            out.push_back(f.value());
        return out;
    };
    CHECK(futuresOf(0) == std::vector<uint32_t> { 0, 2 });
    CHECK(futuresOf(1) == std::vector<uint32_t> { 1 });
    CHECK(futuresOf(2) == std::vector<uint32_t> { 3 });
    CHECK(futuresOf(3).empty());
    CHECK(m.futures[3].futureId == 0xF1);
    // A's first future was signalled once and A completed: complete. B's was never signalled.
    CHECK(m.futures[0].complete);
    CHECK_FALSE(m.futures[1].complete);
    ParModel rebuilt = m;
    rebuilt.indexChildren();
    checkSameIndexes(m, rebuilt);
}

TEST_CASE("events the model ignores change nothing, however many there are", "[core][model]")
{
    // A GHC-like trace is mostly events the model does not use; the pass then copies out the used
    // ones before merging (a different path from our runtime's traces). Padding a random program's
    // trace with three user messages after each of its events takes it down that path (GC events
    // would not: the model reads them).
    for (uint64_t seed = 1; seed <= 8; ++seed) {
        INFO("seed " << seed);
        auto builder = sparkscope::test::simulateRandomProgram(seed);
        const Trace plain = builder.build();
        for (uint16_t e = 0; e < plain.engines.size(); ++e)
            for (const Event& used : plain.engines[e])
                for (int i = 0; i < 3; ++i)
                    builder.event(e, used.timeNs + 1, ev::UserMsg, { 'x' });
        const Trace padded = builder.build();
        REQUIRE(padded.eventCount() > 3 * plain.eventCount());
        const ParModel a = buildParModel(plain), b = buildParModel(padded);
        REQUIRE(a.conjunctions.size() == b.conjunctions.size());
        for (size_t j = 0; j < a.conjunctions.size(); ++j)
            CHECK((a.conjunctions[j].startNs == b.conjunctions[j].startNs
                && a.conjunctions[j].endNs == b.conjunctions[j].endNs
                && a.conjunctions[j].complete == b.conjunctions[j].complete));
        REQUIRE(a.conjuncts.size() == b.conjuncts.size());
        for (size_t k = 0; k < a.conjuncts.size(); ++k)
            CHECK((a.conjuncts[k].startNs == b.conjuncts[k].startNs && a.conjuncts[k].endNs == b.conjuncts[k].endNs
                && a.conjuncts[k].context == b.conjuncts[k].context
                && a.conjuncts[k].complete == b.conjuncts[k].complete));
        CHECK(a.futures.size() == b.futures.size());
        CHECK(a.problems.size() == b.problems.size());
        checkSameIndexes(a, b);
    }
}

TEST_CASE(
    "a context made by CREATE_SPARK_THREAD alone is created there, on either path of the model pass", "[core][model]")
{
    // GHC creates a spark thread with CREATE_SPARK_THREAD (often after its own CREATE_THREAD; here
    // alone). Engine 0: spark thread 5 created at 10, run [40, 60). The model must hold the creation
    // at 10 and the context from 10 (Runnable), whether or not the pass copies out the events it uses
    // first: with 100 user messages beside them, it does.
    for (const bool padded : { false, true }) {
        INFO((padded ? "padded: the events the model uses are copied out first" : "plain"));
        TraceBuilder b(1);
        b.createSparkThread(0, 10, 5).runThread(0, 40, 5).stopThread(0, 60, 5, kStopFinished);
        if (padded)
            for (uint64_t t = 0; t < 100; ++t)
                b.event(0, t, ev::UserMsg, { 'x' });
        b.endAt(100);
        const ParModel m = buildParModel(b.build());
        CHECK(m.contextCreations == std::vector<uint64_t> { 10 });
        REQUIRE(m.contexts.size() == 1);
        CHECK(m.contexts[0].id == 5);
        const std::vector<ContextStateChange>& states = m.contexts[0].states;
        REQUIRE(states.size() == 3);
        CHECK((states[0].startNs == 10 && states[0].state == ContextState::Runnable));
        CHECK((states[1].startNs == 40 && states[1].state == ContextState::Running));
        CHECK((states[2].startNs == 60 && states[2].state == ContextState::Finished));
    }
}

TEST_CASE("a context blocked by a STOP_THREAD posted on another engine stays blocked when its engine runs another",
    "[core][model]")
{
    // Engine 0 runs ctx 1 from 10; its STOP_THREAD (blocked) comes from engine 1 at 20 (said: it is
    // not running there). Engine 0 runs ctx 2 at 30: ctx 1 is blocked still, not made runnable by a
    // "lost STOP_THREAD". Woken and run again on engine 1 at 50, it resumes after blocking: engine
    // 0 (where it last ran) to engine 1.
    TraceBuilder b(2);
    b.runThread(0, 10, 1).stopThread(1, 20, 1, kStopBlocked).runThread(0, 30, 2);
    b.threadRunnable(1, 45, 1)
        .runThread(1, 50, 1)
        .stopThread(1, 70, 1, kStopFinished)
        .stopThread(0, 80, 2, kStopFinished);
    b.endAt(100);
    const ParModel m = buildParModel(b.build());
    REQUIRE(!m.contexts.empty());
    REQUIRE(m.contexts[0].id == 1);
    std::vector<std::pair<uint64_t, ContextState>> states;
    for (const ContextStateChange& s : m.contexts[0].states)
        states.emplace_back(s.startNs, s.state);
    CHECK(states
        == std::vector<std::pair<uint64_t, ContextState>> { { 10, ContextState::Running },
            { 20, ContextState::Blocked }, { 45, ContextState::Runnable }, { 50, ContextState::Running },
            { 70, ContextState::Finished } });
    REQUIRE(m.resumes.size() == 1);
    CHECK((m.resumes[0].timeNs == 50 && m.resumes[0].fromEngine == 0 && m.resumes[0].toEngine == 1));
    REQUIRE(m.problems.size() == 1);
    CHECK(m.problems[0].timeNs == 20);
}
