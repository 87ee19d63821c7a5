// ParModelBuilder (par_model_builder.h), the parts around the walk: sizing the model's arrays
// before it from a parallel count of their events, the walk itself, the problems left open at the
// end of the trace, and the interned strings (the one event the model keeps that belongs to no
// family of the parallel model).
#include "model/par_model_builder.h"

#include "model/intern_string.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <tbb/parallel_for.h>
#include <tbb/task_group.h>
#include <utility>

namespace sparkscope::core::detail {

ParModelBuilder::ParModelBuilder(const Trace& trace, ParModel& m)
    : m_trace(trace)
    , m_bytes(trace.bytes())
    , m(m)
{
    m.endNs = trace.lastTimeNs;
    m_engines.resize(trace.engines.size());
}

void ParModelBuilder::run(bool withTopPieces)
{
    reserve();
    // The instance arrays and counters are mapped in a task of their own while the walk starts
    // filling them: their first-touch page faults then cost the walk nothing (large_array.h).
    tbb::task_group prefault;
    prefault.run([this] {
        adviseHugePages(m.conjuncts, Prefault::Yes);
        adviseHugePages(m.conjunctions, Prefault::Yes);
        adviseHugePages(m.futures, Prefault::Yes);
        adviseHugePages(m_pieceCounts.get(), m_countsSize * sizeof(uint32_t), Prefault::Yes);
        adviseHugePages(m_childCounts.get(), m_countsSize * sizeof(uint32_t), Prefault::Yes);
        adviseHugePages(m_parentOf.get(), m_parentsSize * sizeof(uint32_t), Prefault::Yes);
    });
    m_walked->forEachInTimeOrder([this](const Event& e) { walk(e); });
    flushInstant();
    prefault.wait();
    finish();
    m.indexFromCounts(withTopPieces ? m_pieceCounts.get() : nullptr, m_childCounts.get(), m_parentOf.get());
    m.indexFutures();
}

// Whether e, handed to onEvent now, would contradict the model in a way another engine's event at
// the same instant may settle (par_model.h): an END_PAR_CONJ with a conjunct still open, a RUN_THREAD
// of a context still running on another engine, a SPARK_RUN/SPARK_STEAL of a spark not made yet.
bool ParModelBuilder::waitsForInstant(const Event& e) const
{
    const Payload p = payloadOf(e);
    switch (e.type) {
    case ev::MerEndParConj: {
        const ConjunctionIndex j(m_openConj.find(p.u64(0)));
        if (!j.valid())
            return false;
        for (ConjunctIndex k : m.conjunction(j).conjuncts)
            if (!m.conjunct(k).ended)
                return true;
        return false;
    }
    case ev::RunThread: {
        const ContextIndex c(m_contextById.get(p.u32(0)));
        return c.valid() && cursor(c).state == ContextState::Running && cursor(c).engine != e.engine;
    }
    case ev::MerSparkRun:
    case ev::MerSparkSteal:
        return m_sparks.get(e.type == ev::MerSparkSteal ? p.u32(2) : p.u32(0)) == kNoIndex;
    default:
        return false;
    }
}

// The merge hands out one instant's events source by source (global, then each engine in turn, in
// file order), so each source's are one run of m_instant. They go in that order, but for a run whose
// next event waits for the instant (waitsForInstant): the next run's goes first. When every run's
// next event waits, the first goes anyway (the trace contradicts itself; onEvent says so).
void ParModelBuilder::flushInstant()
{
    const Event* held = std::exchange(m_held, nullptr);
    if (m_instant.empty()) {
        if (held)
            onEvent(*held);
        return;
    }
    if (m_instant.front()->engine == m_instant.back()->engine) { // one engine's: its file order
        for (const Event* e : m_instant)
            onEvent(*e);
        m_instant.clear();
        return;
    }
    m_runs.clear();
    for (size_t i = 0; i < m_instant.size(); ++i)
        if (i == 0 || m_instant[i]->engine != m_instant[i - 1]->engine)
            m_runs.push_back({ i, i + 1 });
        else
            m_runs.back().second = i + 1;
    for (size_t left = m_instant.size(); left > 0; --left) {
        size_t pick = m_runs.size(), first = m_runs.size();
        for (size_t r = 0; r < m_runs.size() && pick == m_runs.size(); ++r)
            if (m_runs[r].first < m_runs[r].second) {
                first = std::min(first, r);
                if (!waitsForInstant(*m_instant[m_runs[r].first]))
                    pick = r;
            }
        if (pick == m_runs.size())
            pick = first;
        onEvent(*m_instant[m_runs[pick].first++]);
    }
    m_instant.clear();
}

bool ParModelBuilder::relevant(uint16_t type)
{
    // CREATE_SPARK_THREAD creates a context (a GHC spark thread) without being a state change of one.
    return isContextStateEvent(type) || type == ev::InternString || type == ev::CreateSparkThread
        || (type >= ev::MerStartParConj && type <= ev::MerReuseContext) || type == ev::GcStart || type == ev::GcWork
        || type == ev::GcIdle || type == ev::GcDone || type == ev::GcEnd;
}

// Counts, in parallel per engine, the events that create instances, to size their arrays exactly.
// In a GHC eventlog the events the model uses are a small fraction (most are spark and GC events):
// then they are first copied out per engine, in parallel, and the counting and the walk go over
// those only. In our runtime's traces nearly every event is used, and both go over the trace
// itself. Which case it is, a sample of each engine's first events tells.
void ParModelBuilder::reserve()
{
    const size_t lists = m_trace.engines.size() + 1;
    auto list = [&](size_t i) -> const std::vector<Event>& { return i == 0 ? m_trace.global : m_trace.engines[i - 1]; };
    constexpr size_t kSample = 4096;
    size_t sampled = 0, sampledRelevant = 0;
    for (size_t i = 0; i < lists; ++i) {
        const auto& events = list(i);
        const size_t n = std::min(events.size(), kSample);
        sampled += n;
        for (size_t j = 0; j < n; ++j)
            sampledRelevant += relevant(events[j].type);
    }
    const bool filter = sampledRelevant * 2 < sampled;
    if (filter) {
        m_filtered.engines.resize(m_trace.engines.size());
        tbb::parallel_for(size_t(0), lists, [&](size_t i) {
            auto& out = i == 0 ? m_filtered.global : m_filtered.engines[i - 1];
            for (const Event& e : list(i))
                if (relevant(e.type))
                    out.push_back(e);
        });
        m_walked = &m_filtered;
    }
    std::vector<std::array<size_t, 3>> counts(lists); // START_PAR_CONJ, SPARK_CREATE, FUT_CREATE
    tbb::parallel_for(size_t(0), lists, [&](size_t i) {
        std::array<size_t, 3> n {};
        for (const Event& e : i == 0 ? m_walked->global : m_walked->engines[i - 1]) {
            n[0] += e.type == ev::MerStartParConj;
            n[1] += e.type == ev::MerSparkCreate;
            n[2] += e.type == ev::MerFutCreate;
        }
        counts[i] = n;
    });
    std::array<size_t, 3> total {};
    for (const auto& n : counts)
        for (size_t k = 0; k < 3; ++k)
            total[k] += n[k];
    m.conjunctions.reserve(total[0]);
    m.conjuncts.reserve(total[0] + total[1]);
    m.futures.reserve(total[2]);
    // Piece and child counts per conjunct, kept as the walk goes. From calloc: a large block comes
    // as fresh zero pages with no memset, mapped in the prefault task (see run) while the walk
    // starts; zeroing them here would hold up the walk (docs/performance.md, "Model and reader").
    m_countsSize = total[0] + total[1];
    m_pieceCounts = zeroedArray<uint32_t>(m_countsSize);
    m_childCounts = zeroedArray<uint32_t>(total[0] + total[1]);
    m_parentsSize = total[0];
    m_parentOf = zeroedArray<uint32_t>(m_parentsSize);
    // Each conjunct makes about two segments (bound, ended) in the context that runs it, and in our
    // runtime the contexts created first, one per engine, do nearly all the work. Those get room
    // for all of them at once (address space only: untouched capacity is never mapped), capped so
    // that many engines cannot reserve an unreasonable amount.
    constexpr size_t kMaxReservedBytes = size_t(256) << 20;
    m_bigContexts = m_trace.engines.size();
    m_bigContextSegments = std::min(
        2 * (total[0] + total[1]), kMaxReservedBytes / sizeof(ContextSegment) / std::max<size_t>(1, m_bigContexts));
}

void ParModelBuilder::problem(const Event& e, std::string message)
{
    m.problems.push_back({ e.timeNs, e.engine, std::move(message), false });
}

std::string ParModelBuilder::hex(uint64_t v)
{
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
    return buf;
}

// INTERN_STRING(text, id): the names of static conjunctions and futures, looked up by id later.
void ParModelBuilder::onInternString(Payload p)
{
    if (auto s = internedString(p))
        m.strings[s->first] = std::move(s->second);
}

// What the walk leaves open at the end of the trace is a problem of the trace (truncated, or a
// runtime that lost events): conjunctions never ended, contexts suspended for good. Instances were
// marked complete as their conjunctions ended; the rest stay incomplete.
void ParModelBuilder::finish()
{
    Event none;
    none.timeNs = m.endNs;
    // Conjunctions still open at the end, in start order.
    std::vector<ConjunctionIndex> open;
    m_openConj.forEach([&](uint64_t, uint32_t j) { open.push_back(ConjunctionIndex(j)); });
    std::sort(open.begin(), open.end());
    for (ConjunctionIndex j : open)
        problem(none, "conjunction with dyn id " + hex(m.conjunction(j).dynId) + " never ended (truncated trace?)");
    for (size_t c = 0; c < m_ctx.size(); ++c)
        if (m_ctx[c].suspendedWait)
            m.problems.push_back({ m_ctx[c].suspendedAtNs, m_ctx[c].suspendedEngine,
                "context " + std::to_string(m.contexts[c].id) + " suspended on a future and never ran again", false });
    m.incompleteConjunctions = m.conjunctions.size() - m_completeConjunctions;
    m.incompleteConjuncts = m.conjuncts.size() - m_completeConjuncts;
    m.incompleteFutures = m.futures.size() - m_completeFutures;
    std::stable_sort(
        m.problems.begin(), m.problems.end(), [](const Problem& a, const Problem& b) { return a.timeNs < b.timeNs; });
}

} // namespace sparkscope::core::detail
