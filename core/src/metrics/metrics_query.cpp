// Metric queries for interactive views (see metrics_query.h). The per-instance values repeat, for one
// instance, exactly the per-instance step of computeMetrics (the values it then summarises per
// group), built from the same public pieces: conjunctionCurves, conjunctTimeSplit and the model's
// records. The tests compare them with the report's `--instances` groups and summaries.
#include "sparkscope/core/metrics_query.h"

#include "metrics/metrics_sections.h"
#include "sparkscope/core/event_types.h"

#include <tbb/parallel_sort.h>

#include <algorithm>
#include <tuple>
#include <unordered_map>

namespace sparkscope::core {

namespace {
    // The event type of each of ParEventIndex's kinds, in the order of its Kind (the size is checked
    // where it is read; the order, by the event-owner tests): which event type a kind indexes, said
    // once. What a kind reads of the model is timeAndEngine's and build's.
    constexpr uint16_t kKindTypes[] = { ev::MerStartParConj, ev::MerEndParConj, ev::MerSparkCreate, ev::MerSparkRun,
        ev::MerSparkSteal, ev::MerEndParConjunct };

    // Futures' events, which the index keeps as copied entries rather than by kind.
    bool isFutureEvent(uint16_t type) noexcept
    {
        return type == ev::MerFutCreate || type == ev::MerFutSignal || type == ev::MerFutWaitSuspended
            || type == ev::MerFutWaitNoSuspend;
    }
} // namespace

std::pair<uint64_t, uint16_t> ParEventIndex::timeAndEngine(const ParModel& m, Kind kind, uint32_t i) noexcept
{
    switch (kind) {
    case kStartConj:
        return { m.conjunctions[i].startNs, m.conjunctions[i].startEngine };
    case kEndConj:
        return { m.conjunctions[i].endNs, m.conjunctions[i].endEngine };
    case kSparkCreate:
        return { m.conjuncts[i].sparkCreateNs, m.conjuncts[i].sparkEngine };
    case kSparkRun:
    case kSparkSteal:
        return { m.conjuncts[i].startNs, m.conjuncts[i].startEngine };
    case kEndConjunct:
    case kKinds:
        break;
    }
    return { m.conjuncts[i].endNs, m.conjuncts[i].endEngine };
}

ParEventIndex ParEventIndex::build(const ParModel& m)
{
    ParEventIndex x;
    x.m_conjunctions = m.conjunctions.size();
    x.m_conjuncts = m.conjuncts.size();
    // Which instances have each event: the model's flags say (a conjunct run by the context that
    // started its conjunction has no spark events).
    auto has = [&m](Kind kind, uint32_t i) {
        if (kind == kStartConj)
            return true;
        if (kind == kEndConj)
            return m.conjunctions[i].ended;
        const ConjunctInstance& g = m.conjuncts[i];
        switch (kind) {
        case kSparkCreate:
            return bool(g.fromSpark);
        case kSparkRun:
            return g.fromSpark && g.started && !g.stolen;
        case kSparkSteal:
            return g.fromSpark && g.started && g.stolen;
        default:
            return bool(g.ended);
        }
    };
    // Sorted as (time, engine, position) keys side by side, then kept as positions: on the 13 M-event
    // demo parfib about half the time of the 24-byte entries' sort this index replaced (medians 1.3 s
    // and 2.5 s, alternated), where sorting the positions through the model's records (a cache miss
    // a comparison) took 1.3x that sort's time. One kind at a time, so the keys held at once are one
    // kind's (16 bytes an event: 70 MB there).
    struct Key {
        uint64_t timeNs;
        uint32_t position;
        uint16_t engine;
    };
    std::vector<Key> keys;
    for (int k = 0; k < kKinds; ++k) {
        const Kind kind = Kind(k);
        const size_t n = kind <= kEndConj ? m.conjunctions.size() : m.conjuncts.size();
        keys.clear();
        for (uint32_t i = 0; i < n; ++i)
            if (has(kind, i)) {
                const auto [t, e] = timeAndEngine(m, kind, i);
                keys.push_back({ t, i, e });
            }
        tbb::parallel_sort(keys.begin(), keys.end(), [](const Key& a, const Key& b) {
            return std::tie(a.timeNs, a.engine, a.position) < std::tie(b.timeNs, b.engine, b.position);
        });
        std::vector<uint32_t>& v = x.m_byTime[k];
        v.reserve(keys.size());
        for (const Key& key : keys)
            v.push_back(key.position);
    }
    for (uint32_t f = 0; f < m.futures.size(); ++f) {
        const FutureInstance& fi = m.futures[f];
        const FutureIndex i(f);
        x.m_futureEvents.push_back({ fi.createNs, i, ConjunctIndex(), ev::MerFutCreate, kNoEngine });
        if (fi.signalled)
            x.m_futureEvents.push_back({ fi.signalNs, i, fi.signalConjunct, ev::MerFutSignal, kNoEngine });
        for (const FutureWait& w : fi.waits)
            x.m_futureEvents.push_back(
                { w.timeNs, i, w.conjunct, w.suspended ? ev::MerFutWaitSuspended : ev::MerFutWaitNoSuspend, w.engine });
    }
    // Stable: two waits of one future at one time and engine keep the order the model has them in.
    std::stable_sort(x.m_futureEvents.begin(), x.m_futureEvents.end(), [](const FutureEvent& a, const FutureEvent& b) {
        return std::tie(a.timeNs, a.type, a.engine, a.future) < std::tie(b.timeNs, b.type, b.engine, b.future);
    });
    return x;
}

size_t ParEventIndex::size() const noexcept
{
    size_t n = m_futureEvents.size();
    for (const auto& v : m_byTime)
        n += v.size();
    return n;
}

namespace {
    // Among the events at one time (by engine), the one `engine` asks for (see ownerOf), or end.
    template <class It, class EngineOf> It pickByEngine(It first, It last, uint16_t engine, EngineOf engineOf)
    {
        It found = last;
        for (It it = first; it != last; ++it) {
            const uint16_t e = engineOf(*it);
            if (e == engine)
                return it;
            if (found == last && (e == kNoEngine || engine == kNoEngine))
                found = it;
        }
        return found;
    }
} // namespace

EventOwner ParEventIndex::ownerOf(const ParModel& m, uint16_t type, uint64_t timeNs, uint16_t engine) const noexcept
{
    if (m.conjunctions.size() != m_conjunctions || m.conjuncts.size() != m_conjuncts)
        return {};
    if (isFutureEvent(type)) {
        const auto& v = m_futureEvents;
        const auto key = std::make_pair(timeNs, type);
        auto lo = std::lower_bound(v.begin(), v.end(), key,
            [](const FutureEvent& e, const auto& k) { return std::make_pair(e.timeNs, e.type) < k; });
        auto hi = std::find_if(lo, v.end(), [&](const FutureEvent& e) { return e.timeNs != timeNs || e.type != type; });
        const auto it = pickByEngine(lo, hi, engine, [](const FutureEvent& e) { return e.engine; });
        return it == hi ? EventOwner() : EventOwner(it->future, it->conjunct);
    }
    static_assert(std::size(kKindTypes) == kKinds);
    const auto found = std::find(std::begin(kKindTypes), std::end(kKindTypes), type);
    if (found == std::end(kKindTypes))
        return {};
    const Kind kind = Kind(found - std::begin(kKindTypes));
    const std::vector<uint32_t>& v = m_byTime[kind];
    auto timeOf = [&](uint32_t i) { return timeAndEngine(m, kind, i).first; };
    auto lo = std::lower_bound(v.begin(), v.end(), timeNs, [&](uint32_t i, uint64_t t) { return timeOf(i) < t; });
    auto hi = std::find_if(lo, v.end(), [&](uint32_t i) { return timeOf(i) != timeNs; });
    const auto it = pickByEngine(lo, hi, engine, [&](uint32_t i) { return timeAndEngine(m, kind, i).second; });
    if (it == hi)
        return {};
    if (kind <= kEndConj)
        return EventOwner(ConjunctionIndex(*it));
    return EventOwner(ConjunctIndex(*it));
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
