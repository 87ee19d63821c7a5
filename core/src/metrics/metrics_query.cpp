// Metric queries for interactive views (see metrics_query.h). The per-instance values repeat, for one
// instance, exactly the per-instance step of computeMetrics (the values it then summarises per
// group), built from the same public pieces: conjunctionCurves, conjunctTimeSplit and the model's
// records. The tests compare them with the report's `--instances` groups and summaries.
#include "sparkscope/core/metrics_query.h"

#include "metrics/metrics_sections.h"
#include "sparkscope/core/event_types.h"

#include <algorithm>
#include <tuple>
#include <unordered_map>

namespace sparkscope::core {

namespace {
    auto entryKey(uint64_t t, uint16_t type, uint16_t engine) { return std::make_tuple(t, type, engine); }
} // namespace

ParEventIndex ParEventIndex::build(const ParModel& m)
{
    ParEventIndex x;
    auto& v = x.m_entries;
    // Entries per conjunction instance (start, end), per conjunct (spark created, run or stolen, end)
    // and per future (created, signalled, and typically one wait): a reservation, not a bound.
    constexpr size_t kPerConjunction = 2, kPerConjunct = 3, kPerFuture = 3;
    v.reserve(
        m.conjunctions.size() * kPerConjunction + m.conjuncts.size() * kPerConjunct + m.futures.size() * kPerFuture);
    // Entries keep the owner's index value: the event type says which array it indexes (ownerOf).
    const ConjunctIndex none;
    for (uint32_t j = 0; j < m.conjunctions.size(); ++j) {
        const ConjunctionInstance& c = m.conjunctions[j];
        v.push_back({ c.startNs, j, none, ev::MerStartParConj, c.startEngine });
        if (c.ended)
            v.push_back({ c.endNs, j, none, ev::MerEndParConj, c.endEngine });
    }
    for (uint32_t k = 0; k < m.conjuncts.size(); ++k) {
        const ConjunctInstance& g = m.conjuncts[k];
        if (g.fromSpark) {
            v.push_back({ g.sparkCreateNs, k, none, ev::MerSparkCreate, g.sparkEngine });
            if (g.started)
                v.push_back({ g.startNs, k, none, g.stolen ? ev::MerSparkSteal : ev::MerSparkRun, g.startEngine });
        }
        if (g.ended)
            v.push_back({ g.endNs, k, none, ev::MerEndParConjunct, g.endEngine });
    }
    for (uint32_t f = 0; f < m.futures.size(); ++f) {
        const FutureInstance& fi = m.futures[f];
        v.push_back({ fi.createNs, f, none, ev::MerFutCreate, kNoEngine });
        if (fi.signalled)
            v.push_back({ fi.signalNs, f, fi.signalConjunct, ev::MerFutSignal, kNoEngine });
        for (const FutureWait& w : fi.waits)
            v.push_back(
                { w.timeNs, f, w.conjunct, w.suspended ? ev::MerFutWaitSuspended : ev::MerFutWaitNoSuspend, w.engine });
    }
    std::sort(v.begin(), v.end(), [](const Entry& a, const Entry& b) {
        return entryKey(a.timeNs, a.type, a.engine) < entryKey(b.timeNs, b.type, b.engine);
    });
    return x;
}

EventOwner ParEventIndex::ownerOf(uint16_t type, uint64_t timeNs, uint16_t engine) const noexcept
{
    OwnerKind kind = OwnerKind::None;
    switch (type) {
    case ev::MerStartParConj:
    case ev::MerEndParConj:
        kind = OwnerKind::Conjunction;
        break;
    case ev::MerSparkCreate:
    case ev::MerSparkRun:
    case ev::MerSparkSteal:
    case ev::MerEndParConjunct:
        kind = OwnerKind::Conjunct;
        break;
    case ev::MerFutCreate:
    case ev::MerFutSignal:
    case ev::MerFutWaitSuspended:
    case ev::MerFutWaitNoSuspend:
        kind = OwnerKind::Future;
        break;
    default:
        return {};
    }
    auto lo = std::lower_bound(m_entries.begin(), m_entries.end(), entryKey(timeNs, type, 0),
        [](const Entry& e, const auto& key) { return entryKey(e.timeNs, e.type, e.engine) < key; });
    const Entry* found = nullptr;
    for (auto it = lo; it != m_entries.end() && it->timeNs == timeNs && it->type == type; ++it) {
        if (it->engine == engine) {
            found = &*it;
            break;
        }
        if (!found && (it->engine == kNoEngine || engine == kNoEngine))
            found = &*it;
    }
    if (!found)
        return {};
    switch (kind) {
    case OwnerKind::Conjunction:
        return EventOwner(ConjunctionIndex(found->index));
    case OwnerKind::Conjunct:
        return EventOwner(ConjunctIndex(found->index));
    case OwnerKind::Future:
        return EventOwner(FutureIndex(found->index), found->conjunct);
    case OwnerKind::None:
        break;
    }
    return {};
}

const StepFunction* curveOf(const ConjunctionCurves& c, const std::string& key)
{
    const StepFunction* all[]
        = { &c.runnableSelf, &c.runnableSelfAndDesc, &c.runningSelf, &c.runningSelfAndDesc, &c.availCpus };
    for (size_t i = 0; i < std::size(kConjunctionCurveKeys); ++i)
        if (key == kConjunctionCurveKeys[i])
            return all[i];
    return nullptr;
}

std::vector<InstanceFigure> instanceMetrics(const Metrics& metrics, EventOwner owner)
{
    const ParModel& m = metrics.model;
    std::vector<InstanceFigure> out;
    auto add = [&](const char* key, const char* stat, double value) { out.push_back({ key, stat, value }); };
    switch (owner.kind()) {
    case OwnerKind::None:
        break;
    case OwnerKind::Conjunction: {
        if (!m.contains(owner.conjunction()))
            break;
        const ConjunctionInstance& ci = m.conjunction(owner.conjunction());
        if (ci.conjuncts.empty())
            break;
        const auto f = conjunctionFigures(m, metrics.cpusOverTime, metrics.trace.engines, owner.conjunction());
        if (!f)
            break;
        add("PARCONJ_TIME", "value", f->time);
        const std::pair<double, double> curves[] = { { f->runnableSelfMax, f->runnableSelfAverage },
            { f->runnableSelfAndDescMax, f->runnableSelfAndDescAverage }, { f->runningSelfMax, f->runningSelfAverage },
            { f->runningSelfAndDescMax, f->runningSelfAndDescAverage }, { f->availCpusMax, f->availCpusAverage } };
        static_assert(std::size(curves) == std::size(kConjunctionCurveKeys));
        for (size_t i = 0; i < std::size(curves); ++i) {
            add(kConjunctionCurveKeys[i], "max", curves[i].first);
            add(kConjunctionCurveKeys[i], "average", curves[i].second);
        }
        add("PARCONJ_CONTINUE_ON_BEFORE", "value", f->continueOnBefore);
        add("PARCONJ_CONTINUE_ON_LAST", "value", f->continueOnLast);
        if (ci.conjuncts.size() >= 2) { // the scheduling-order pairs split at this instance
            using detail::ratio;
            add("OUT_OF_ORDER_PROBABILITY", "out_of_order_ns", f->outOfOrderNs);
            add("OUT_OF_ORDER_PROBABILITY", "either_running_ns", f->eitherRunningNs);
            add("OUT_OF_ORDER_PROBABILITY", "probability", ratio(f->outOfOrderNs, f->eitherRunningNs));
            add("OUT_OF_ORDER_SCHEDULING_BLOCKS_ANOTHER_CONTEXT", "blocking_ns", f->blockingNs);
            add("OUT_OF_ORDER_SCHEDULING_BLOCKS_ANOTHER_CONTEXT", "fraction", ratio(f->blockingNs, f->outOfOrderNs));
            add("OUT_OF_ORDER_SCHEDULING_BLOCKS_ANOTHER_CONTEXT_TC", "blocking_ns", f->blockingTcNs);
            add("OUT_OF_ORDER_SCHEDULING_BLOCKS_ANOTHER_CONTEXT_TC", "fraction",
                ratio(f->blockingTcNs, f->outOfOrderNs));
        }
        break;
    }
    case OwnerKind::Conjunct: {
        if (!m.contains(owner.conjunct()))
            break;
        const ConjunctInstance& g = m.conjunct(owner.conjunct());
        if (!g.conjunction.valid() || !m.conjunction(g.conjunction).complete || !g.started || !g.ended)
            break;
        const auto f = conjunctFigures(m, owner.conjunct());
        if (!f)
            break;
        if (f->timeAsSpark)
            add("CONJUNCT_TIME_AS_SPARK", "value", *f->timeAsSpark);
        add("CONJUNCT_TIME_AS_CONTEXT", "value", f->timeAsContext);
        add("CONJUNCT_TIME_BLOCKED", "value", f->timeBlocked);
        add("CONJUNCT_TIME_RUNNABLE", "value", f->timeRunnable);
        add("CONJUNCT_TIME_RUNNING", "value", f->timeRunning);
        add("CONJUNCT_TIME_AFTER", "value", f->timeAfter);
        break;
    }
    case OwnerKind::Future: {
        if (!m.contains(owner.future()))
            break;
        const FutureInstance& f = m.future(owner.future());
        if (!f.complete)
            break;
        std::vector<double> first, all;
        std::vector<uint32_t> seen;
        uint64_t firstSuspended = 0, allSuspended = 0;
        bool anySuspended = false;
        for (const FutureWait& w : f.waits) {
            const double d = double(int64_t(w.timeNs) - int64_t(f.signalNs));
            all.push_back(d);
            allSuspended += w.suspended;
            anySuspended = anySuspended || w.suspended;
            const uint32_t who = detail::waitConsumer(w);
            if (std::find(seen.begin(), seen.end(), who) == seen.end()) {
                seen.push_back(who);
                first.push_back(d);
                firstSuspended += w.suspended;
            }
        }
        auto addStat = [&](const char* key, const std::vector<double>& values) {
            const Stat s = Stat::of(values);
            add(key, "count", double(s.count));
            add(key, "min", s.min);
            add(key, "max", s.max);
            add(key, "mean", s.mean);
        };
        addStat("FUTURE_SUSPEND_TIME_FIRST_WAITS", first);
        addStat("FUTURE_SUSPEND_TIME_ALL_WAITS", all);
        add("FUTURE_SUSPEND_PROBABILITY_FIRST_WAIT", "suspended", double(firstSuspended));
        add("FUTURE_SUSPEND_PROBABILITY_FIRST_WAIT", "no_suspend", double(first.size() - firstSuspended));
        add("FUTURE_SUSPEND_PROBABILITY_ALL_WAITS", "suspended", double(allSuspended));
        add("FUTURE_SUSPEND_PROBABILITY_ALL_WAITS", "no_suspend", double(all.size() - allSuspended));
        if (f.signalConjunct.valid() && m.conjunct(f.signalConjunct).ended) {
            const double d = double(int64_t(m.conjunct(f.signalConjunct).endNs) - int64_t(f.signalNs));
            add("FUTURE_SIGNAL_TO_CONJUNCT_END_TIME", "value", d);
            if (anySuspended)
                add("WAITED_FUTURE_SIGNAL_TO_CONJUNCT_END_TIME", "value", d);
        }
        break;
    }
    }
    return out;
}

std::pair<std::string, std::string> summaryGroupOf(const ParModel& m, EventOwner owner)
{
    switch (owner.kind()) {
    case OwnerKind::Conjunction:
        if (m.contains(owner.conjunction()))
            return { "conjunctions", m.staticName(m.conjunction(owner.conjunction()).staticId) };
        break;
    case OwnerKind::Conjunct:
        if (m.contains(owner.conjunct()) && m.conjunct(owner.conjunct()).conjunction.valid()) {
            const ConjunctInstance& g = m.conjunct(owner.conjunct());
            return { "conjuncts",
                m.staticName(m.conjunction(g.conjunction).staticId) + "/" + std::to_string(g.position) };
        }
        break;
    case OwnerKind::Future:
        if (m.contains(owner.future()) && m.future(owner.future()).conjunction.valid()) {
            const FutureInstance& f = m.future(owner.future());
            return { "futures",
                m.staticName(m.conjunction(f.conjunction).staticId) + "/" + m.stringOr(f.nameId, "var#") };
        }
        break;
    case OwnerKind::None:
        break;
    }
    return {};
}

InstanceMembers instanceMembers(const ParModel& m, EventOwner owner, InstanceMembersLimit limit)
{
    InstanceMembers out;
    auto addConjunction = [&](ConjunctionIndex j, bool withDescendants) {
        std::vector<ConjunctionIndex> todo { j };
        while (!todo.empty()) {
            if (out.conjuncts.size() >= limit.conjuncts) {
                out.truncated = true;
                break;
            }
            const ConjunctionIndex x = todo.back();
            todo.pop_back();
            out.conjunctions.push_back(x);
            const ConjunctionInstance& ci = m.conjunction(x);
            const auto futures = m.futuresOf(x);
            out.futures.insert(out.futures.end(), futures.begin(), futures.end());
            for (ConjunctIndex k : ci.conjuncts) {
                out.conjuncts.push_back(k);
                if (withDescendants)
                    for (ConjunctionIndex child : m.childConjunctions(k))
                        todo.push_back(child);
            }
        }
    };
    switch (owner.kind()) {
    case OwnerKind::Conjunction:
        if (m.contains(owner.conjunction()))
            addConjunction(owner.conjunction(), true);
        break;
    case OwnerKind::Conjunct:
        if (const ConjunctIndex k = owner.conjunct(); m.contains(k)) {
            out.conjuncts.push_back(k);
            for (ConjunctionIndex child : m.childConjunctions(k))
                addConjunction(child, true);
            if (m.conjunct(k).conjunction.valid())
                out.conjunctions.insert(out.conjunctions.begin(), m.conjunct(k).conjunction);
        }
        break;
    case OwnerKind::Future:
        if (m.contains(owner.future())) {
            const FutureInstance& f = m.future(owner.future());
            out.futures.push_back(owner.future());
            if (f.signalConjunct.valid())
                out.conjuncts.push_back(f.signalConjunct);
            for (const FutureWait& w : f.waits)
                if (w.conjunct.valid())
                    out.conjuncts.push_back(w.conjunct);
            if (f.conjunction.valid())
                out.conjunctions.push_back(f.conjunction);
        }
        break;
    case OwnerKind::None:
        break;
    }
    auto unique = [](auto& v) {
        std::sort(v.begin(), v.end());
        v.erase(std::unique(v.begin(), v.end()), v.end());
    };
    unique(out.conjunctions), unique(out.conjuncts), unique(out.futures);
    return out;
}

std::vector<ConjunctionIndex> conjunctionsOfStatic(const ParModel& m, const std::string& staticName)
{
    std::vector<ConjunctionIndex> out;
    std::unordered_map<uint32_t, bool> match; // static id -> name matches (names are few, instances many)
    for (uint32_t j = 0; j < m.conjunctions.size(); ++j) {
        const uint32_t s = m.conjunctions[j].staticId;
        auto it = match.find(s);
        if (it == match.end())
            it = match.emplace(s, m.staticName(s) == staticName).first;
        if (it->second)
            out.push_back(ConjunctionIndex(j));
    }
    return out;
}

bool declaresConjunctionEvents(const Trace& trace) noexcept
{
    return trace.header.find(ev::MerStartParConj) != nullptr;
}

} // namespace sparkscope::core
