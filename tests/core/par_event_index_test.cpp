// ParEventIndex (metrics_query.h): the owner of a parallel event, as the app's hover asks for it. The
// index keeps positions and reads times and engines from the model, so it is checked against a
// plain map of (type, time) to the model's records, built here the obvious way, on every event of
// random programs and of the demo's traces; and by hand where two instances' events share a time.
#include "metrics_sim.h"
#include "scenario_traces.h"

#include "sparkscope/core/event_types.h"
#include "sparkscope/core/metrics_query.h"
#include "sparkscope/core/par_model.h"
#include "support/trace_builder.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <tuple>
#include <vector>

using namespace sparkscope::core;

namespace {

// Every record of the model that names an event: (type, time) -> [(engine, owner)], each list by
// (engine, position) as ownerOf's rule reads it.
struct Reference {
    struct At {
        uint16_t engine;
        uint32_t position;
        EventOwner owner;
    };
    std::map<std::pair<uint16_t, uint64_t>, std::vector<At>> events;

    explicit Reference(const ParModel& m)
    {
        for (uint32_t j = 0; j < m.conjunctions.size(); ++j) {
            const ConjunctionInstance& c = m.conjunctions[j];
            add(ev::MerStartParConj, c.startNs, c.startEngine, j, EventOwner(ConjunctionIndex(j)));
            if (c.ended)
                add(ev::MerEndParConj, c.endNs, c.endEngine, j, EventOwner(ConjunctionIndex(j)));
        }
        for (uint32_t k = 0; k < m.conjuncts.size(); ++k) {
            const ConjunctInstance& g = m.conjuncts[k];
            const EventOwner owner { ConjunctIndex(k) };
            if (g.fromSpark) {
                add(ev::MerSparkCreate, g.sparkCreateNs, g.sparkEngine, k, owner);
                if (g.started)
                    add(g.stolen ? ev::MerSparkSteal : ev::MerSparkRun, g.startNs, g.startEngine, k, owner);
            }
            if (g.ended)
                add(ev::MerEndParConjunct, g.endNs, g.endEngine, k, owner);
        }
        for (uint32_t f = 0; f < m.futures.size(); ++f) {
            const FutureInstance& fi = m.futures[f];
            add(ev::MerFutCreate, fi.createNs, kNoEngine, f, EventOwner(FutureIndex(f)));
            if (fi.signalled)
                add(ev::MerFutSignal, fi.signalNs, kNoEngine, f, EventOwner(FutureIndex(f), fi.signalConjunct));
            for (const FutureWait& w : fi.waits)
                add(w.suspended ? ev::MerFutWaitSuspended : ev::MerFutWaitNoSuspend, w.timeNs, w.engine, f,
                    EventOwner(FutureIndex(f), w.conjunct));
        }
        for (auto& [key, list] : events)
            std::stable_sort(list.begin(), list.end(),
                [](const At& a, const At& b) { return std::tie(a.engine, a.position) < std::tie(b.engine, b.position); });
    }

    void add(uint16_t type, uint64_t t, uint16_t engine, uint32_t position, EventOwner owner)
    {
        events[{ type, t }].push_back({ engine, position, owner });
    }

    // The owner by the documented rule: the event on `engine`; else the first whose engine is unknown,
    // or the first of all when `engine` is unknown.
    EventOwner ownerOf(uint16_t type, uint64_t t, uint16_t engine) const
    {
        const auto it = events.find({ type, t });
        if (it == events.end())
            return {};
        for (const At& a : it->second)
            if (a.engine == engine)
                return a.owner;
        for (const At& a : it->second)
            if (a.engine == kNoEngine || engine == kNoEngine)
                return a.owner;
        return {};
    }
};

bool indexed(uint16_t type)
{
    switch (type) {
    case ev::MerStartParConj:
    case ev::MerEndParConj:
    case ev::MerSparkCreate:
    case ev::MerSparkRun:
    case ev::MerSparkSteal:
    case ev::MerEndParConjunct:
    case ev::MerFutCreate:
    case ev::MerFutSignal:
    case ev::MerFutWaitSuspended:
    case ev::MerFutWaitNoSuspend:
        return true;
    default:
        return false;
    }
}

// Every parallel event of `trace` asked for on its engine, on no engine and on another: the index
// answers as the reference does. Returns how many of them found an owner.
size_t checkAgainstReference(const Trace& trace)
{
    const ParModel m = buildParModel(trace);
    const ParEventIndex index = ParEventIndex::build(m);
    const Reference reference(m);
    size_t found = 0, records = 0;
    for (const auto& [key, list] : reference.events)
        records += list.size();
    CHECK(index.size() == records);
    for (uint16_t e = 0; e < trace.engines.size(); ++e)
        for (const Event& event : trace.engines[e]) {
            if (!indexed(event.type))
                continue;
            for (const uint16_t asked : { e, kNoEngine, uint16_t(e + 1) }) {
                const EventOwner got = index.ownerOf(m, event.type, event.timeNs, asked);
                const EventOwner want = reference.ownerOf(event.type, event.timeNs, asked);
                if (got != want) {
                    FAIL_CHECK("type " << event.type << " at " << event.timeNs << " asked on engine " << asked
                                       << ": kind " << int(got.kind()) << " where the reference has kind "
                                       << int(want.kind()));
                }
                found += asked == e && got.kind() != OwnerKind::None;
            }
        }
    // A time between events finds nothing.
    CHECK(index.ownerOf(m, ev::MerStartParConj, UINT64_MAX, 0).kind() == OwnerKind::None);
    return found;
}

} // namespace

TEST_CASE("event owners: the event on the engine asked for wins, and asked on no engine, the lowest "
          "engine's",
    "[core][metrics][query]")
{
    // Context 1 on engine 1 starts conjunction A at 90, context 2 on engine 0 starts B at 100, so the
    // model holds A before B. Each one's first conjunct ends at 200 and the conjunction at 300, both on
    // the engine that started it: at 200 and 300 the instances' order (A, B) and their engines' order
    // (B on 0, A on 1) disagree, and the lowest engine must win.
    sparkscope::test::TraceBuilder b(2);
    b.internString(0, 1, "a.m:1");
    b.createThread(1, 0, 1).runThread(1, 1, 1).createThread(0, 0, 2).runThread(0, 2, 2);
    b.startParConj(1, 90, 0xA, 1).startParConj(0, 100, 0xB, 1);
    b.endParConjunct(1, 200, 0xA).endParConjunct(0, 200, 0xB);
    b.endParConj(1, 300, 0xA).endParConj(0, 300, 0xB);
    const ParModel m = buildParModel(b.build());
    REQUIRE(m.conjunctions.size() == 2);
    REQUIRE(m.conjunctions[0].startEngine == 1); // A
    REQUIRE(m.conjunctions[1].startEngine == 0); // B
    const ParEventIndex index = ParEventIndex::build(m);
    const EventOwner a { ConjunctionIndex(0) }, bOn0 { ConjunctionIndex(1) };
    CHECK(index.ownerOf(m, ev::MerStartParConj, 90, 1) == a);
    CHECK(index.ownerOf(m, ev::MerStartParConj, 90, kNoEngine) == a);
    CHECK(index.ownerOf(m, ev::MerStartParConj, 90, 0).kind() == OwnerKind::None); // A started on 1
    CHECK(index.ownerOf(m, ev::MerStartParConj, 100, 0) == bOn0);
    CHECK(index.ownerOf(m, ev::MerEndParConj, 300, 1) == a);
    CHECK(index.ownerOf(m, ev::MerEndParConj, 300, 0) == bOn0);
    CHECK(index.ownerOf(m, ev::MerEndParConj, 300, kNoEngine) == bOn0); // the lowest engine, not the first
    CHECK(index.ownerOf(m, ev::MerEndParConj, 300, 5).kind() == OwnerKind::None); // no such engine
    // The conjuncts run by the starting contexts have no spark events; their ends are theirs.
    CHECK(index.ownerOf(m, ev::MerSparkCreate, 100, 0).kind() == OwnerKind::None);
    CHECK(index.ownerOf(m, ev::MerEndParConjunct, 200, 1) == EventOwner(m.conjunctions[0].conjuncts[0]));
    CHECK(index.ownerOf(m, ev::MerEndParConjunct, 200, 0) == EventOwner(m.conjunctions[1].conjuncts[0]));
    CHECK(index.ownerOf(m, ev::MerEndParConjunct, 200, kNoEngine) == EventOwner(m.conjunctions[1].conjuncts[0]));
    CHECK(index.ownerOf(m, ev::MerStartParConj, 101, 0).kind() == OwnerKind::None);
    CHECK(index.ownerOf(m, ev::RunThread, 1, 1).kind() == OwnerKind::None);
    CHECK(index.size() == 6);
    // Asked with another model (of other sizes) it finds nothing rather than read past its records.
    const ParModel empty;
    CHECK(index.ownerOf(empty, ev::MerStartParConj, 90, 1).kind() == OwnerKind::None);
}

TEST_CASE("event owners: the index answers as a map of the model's records, on random programs",
    "[core][metrics][query]")
{
    for (uint64_t seed = 1; seed <= 40; ++seed) {
        INFO("seed " << seed);
        const Trace trace = sparkscope::test::simulateRandomProgram(seed, seed % 2 ? 4 : 8).build();
        size_t parallel = 0;
        for (const auto& events : trace.engines)
            parallel += size_t(std::count_if(events.begin(), events.end(), [](const Event& e) { return indexed(e.type); }));
        // Every parallel event of a whole simulated run has its owner.
        CHECK(checkAgainstReference(trace) == parallel);
    }
}

TEST_CASE("event owners: the index answers as a map of the model's records, on the demo's traces",
    "[core][metrics][query][demo]")
{
    const auto traces = sparkscope::test::demoTraces("event-owners",
        { "parfib --n 24 --cutoff 12", "pipeline --items 200 --work 2000", "quicksort --n 100000 --cutoff 5000" });
    for (const auto& t : traces) {
        INFO(t.name);
        CHECK(checkAgainstReference(t.trace) > 0);
    }
}
