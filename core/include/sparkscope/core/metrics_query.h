#pragma once
// Metric queries for interactive views: which conjunction, conjunct or future a trace event belongs
// to (ParEventIndex), the metric values of ONE instance keyed exactly like the report's summaries
// (instanceMetrics), the set of instances and events that belong to an instance (instanceMembers),
// and the instances of a static id. The app's hover menus and conjunction list are built on these,
// so the UI never derives a metric itself.
//
// Why an index by (type, time, engine): the timeline hit-tests an Event it drew (a tick at a time on
// an engine row); the parallel model records, for every instance, the time and engine of each event
// that made it (START/END_PAR_CONJ, SPARK_CREATE/RUN/STEAL, END_PAR_CONJUNCT, FUT_CREATE/WAIT/SIGNAL).
// Sorting those records once (O(n log n)) makes every hover lookup a binary search: O(log n), well
// inside one frame on 10-million-event traces. The index keeps only the instances' positions, 4 bytes
// an event, and reads times and engines from the model: the app holds it beside the model for as long
// as a trace is open, and copies of the times took 24 bytes an event (418 MB of the 13 M-event demo
// parfib's, where the positions take 52 MB).
//
// Thread safety: every function is pure; ParEventIndex is immutable after build.
#include "sparkscope/core/metrics.h"
#include "sparkscope/core/par_model.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace sparkscope::core {

enum class OwnerKind : uint8_t { None, Conjunction, Conjunct, Future };

// What an event belongs to: one conjunction, conjunct or future instance (or none), made from and
// read as its typed index, so the kind and the index cannot disagree. For a future's wait or
// signal, inConjunct() is the conjunct it happened in (none if none).
class EventOwner {
public:
    EventOwner() noexcept = default; // None
    explicit EventOwner(ConjunctionIndex j) noexcept
        : m_kind(OwnerKind::Conjunction)
        , m_index(j.value())
    {
    }
    explicit EventOwner(ConjunctIndex k) noexcept
        : m_kind(OwnerKind::Conjunct)
        , m_index(k.value())
    {
    }
    explicit EventOwner(FutureIndex f, ConjunctIndex in = {}) noexcept
        : m_kind(OwnerKind::Future)
        , m_index(f.value())
        , m_in(in)
    {
    }

    OwnerKind kind() const noexcept { return m_kind; }
    // The instance as an index of its kind; none when the owner is of another kind.
    ConjunctionIndex conjunction() const noexcept { return ConjunctionIndex(of(OwnerKind::Conjunction)); }
    ConjunctIndex conjunct() const noexcept { return ConjunctIndex(of(OwnerKind::Conjunct)); }
    FutureIndex future() const noexcept { return FutureIndex(of(OwnerKind::Future)); }
    ConjunctIndex inConjunct() const noexcept { return m_in; }

    bool operator==(const EventOwner&) const = default;

private:
    uint32_t of(OwnerKind kind) const noexcept { return m_kind == kind ? m_index : kNoIndex; }

    OwnerKind m_kind = OwnerKind::None;
    uint32_t m_index = kNoIndex; // the value of the index of m_kind's type
    ConjunctIndex m_in;
};

class ParEventIndex {
public:
    static ParEventIndex build(const ParModel& model);
    // The owner of the event of `type` at `timeNs` on `engine` (kNoEngine: any engine), or None.
    // `model` is the one the index was built from (None for a model of other sizes). An event recorded
    // on `engine` wins (kNoEngine matching an event of unknown engine); else the first, by engine then
    // instance, whose engine is unknown (kNoEngine), or the first of all when `engine` is kNoEngine. FUT_CREATE and FUT_SIGNAL match on time and type
    // only (the model does not keep their engine).
    EventOwner ownerOf(const ParModel& model, uint16_t type, uint64_t timeNs, uint16_t engine) const noexcept;
    size_t size() const noexcept; // events indexed

private:
    // The conjunction and conjunct events, each kept as the position of its instance.
    // In the order of kKindTypes (metrics_query.cpp), which gives each kind its event type.
    enum Kind : uint8_t { kStartConj, kEndConj, kSparkCreate, kSparkRun, kSparkSteal, kEndConjunct, kKinds };
    static std::pair<uint64_t, uint16_t> timeAndEngine(const ParModel& m, Kind kind, uint32_t i) noexcept;
    // Per kind, the positions of the instances that have the event, by (its time, engine, position).
    std::array<std::vector<uint32_t>, kKinds> m_byTime;
    // Futures' events, copied: a wait is one of several of its future's, and there are few.
    struct FutureEvent {
        uint64_t timeNs;
        FutureIndex future;
        ConjunctIndex conjunct; // a wait's or signal's conjunct
        uint16_t type;
        uint16_t engine;
    };
    std::vector<FutureEvent> m_futureEvents; // by (time, type, engine, future)
    size_t m_conjunctions = 0, m_conjuncts = 0; // the model's sizes, to refuse another model
};

// One per-instance figure: (metric key, statistic) e.g. ("PARCONJ_RUNNABLE_SELF", "max").
struct InstanceFigure {
    std::string key;
    std::string statistic; // "value", "max", "average", "count", ...
    double value = 0;
};

// The per-instance values of an owner, with the same keys the report summarises per static id
// (conjunctions), per (static id, position) (conjuncts) or per (static id, variable) (futures).
// Empty for incomplete instances, as the summaries leave them out. Conjunction curves are computed
// here (O(events of the instance's subtree)); everything else is O(waits).
std::vector<InstanceFigure> instanceMetrics(const Metrics& metrics, EventOwner owner);

// The report group (section, id) whose summaries an owner's instance takes part in:
// ("conjunctions", "f.m:12"), ("conjuncts", "f.m:12/2") or ("futures", "f.m:12/x").
std::pair<std::string, std::string> summaryGroupOf(const ParModel& model, EventOwner owner);

// Curve metric keys of a conjunction instance, in the order of ConjunctionCurves' members.
inline constexpr const char* kConjunctionCurveKeys[] = { "PARCONJ_RUNNABLE_SELF", "PARCONJ_RUNNABLE_SELF_AND_DESC",
    "PARCONJ_RUNNING_SELF", "PARCONJ_RUNNING_SELF_AND_DESC", "PARCONJ_AVAIL_CPUS" };
// The curve of `key` (one of kConjunctionCurveKeys) among `curves`, or nullptr.
const StepFunction* curveOf(const ConjunctionCurves& curves, const std::string& key);

// Everything that belongs to an instance, for highlighting: the conjunctions (the instance's own,
// or a conjunct's / future's conjunction), the conjuncts (a conjunction's own and those of nested
// conjunctions started inside them), and the futures of those conjunctions.
struct InstanceMembers {
    std::vector<ConjunctionIndex> conjunctions;
    std::vector<ConjunctIndex> conjuncts;
    std::vector<FutureIndex> futures;
    bool truncated = false;
};
// At most about `limit` conjuncts are collected (the walk of nested conjunctions stops there), so a
// root conjunction of a huge trace costs O(limit), not O(trace); `truncated` says it stopped.
struct InstanceMembersLimit {
    size_t conjuncts = SIZE_MAX;
};
InstanceMembers instanceMembers(const ParModel& model, EventOwner owner, InstanceMembersLimit limit = {});

// Conjunction instances of one static id (by name as ParModel::staticName gives it), in start order.
std::vector<ConjunctionIndex> conjunctionsOfStatic(const ParModel& model, const std::string& staticName);

// True when the trace declares SparkScope/Mercury parallel-conjunction events (100-116); GHC
// eventlogs do not, and have no conjunctions or futures.
bool declaresConjunctionEvents(const Trace& trace) noexcept;

} // namespace sparkscope::core
