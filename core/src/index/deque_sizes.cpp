// Spark deque sizes per engine (see deque_sizes.h for the rules).
//
// Why a sequential walk per engine rather than StepFunction::fromDeltas: the count is clamped at 0
// and reset at SPARK_COUNTERS and SPARK_OVERFLOW, none of which is a sum of deltas. An engine with
// overflows is walked twice: once to find its pool's capacity, once for the sizes. So each engine's own events
// (already in time order) are merged with the steals taken from it (sorted once) and applied in
// order. Ties at one timestamp: the engine's own events first (in file order), then steals.
// Memory: nothing per event is copied; the result is ~25 bytes per change of size (a GHC trace
// with millions of spark events changes size millions of times: parfib-4-37, 6.4 million).
#include "sparkscope/core/deque_sizes.h"

#include "sparkscope/core/event_types.h"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <functional>
#include <queue>
#include <set>

namespace sparkscope::core {

namespace {

    // What an engine's own event does to its own deque: +1, -1, a reset to `value`, or nothing.
    struct Change {
        enum Kind : uint8_t { None, Add, Remove, Reset, Full } kind = None;
        int64_t value = 0;
    };

    Change changeOf(const Trace& trace, const Event& e, const DequeSizeOptions& options)
    {
        switch (e.type) {
        case ev::SparkCreate:
        case ev::MerSparkCreate:
            return { Change::Add };
        case ev::SparkRun:
        case ev::MerSparkRun:
        case ev::SparkFizzle:
        case ev::SparkGc:
            return { Change::Remove };
        case ev::SparkCounters:
            if (options.resetAtCounters)
                return { Change::Reset, int64_t(trace.payload(e).u64(48)) };
            return {};
        case ev::SparkOverflow:
            if (options.resetAtOverflow)
                return { Change::Full };
            return {};
        default:
            return {};
        }
    }

} // namespace

void forEachSparkDequeSize(const Trace& trace, size_t engine, const SparkPoolTransfers& transfers,
    const std::function<void(uint64_t, int64_t)>& changed, DequeSizeOptions options)
{
    if (engine >= trace.engines.size())
        return;
    static const std::vector<uint64_t> none;
    const std::vector<uint64_t>& lost = engine < transfers.takenFrom.size() ? transfers.takenFrom[engine] : none;
    const std::vector<uint64_t>& away
        = engine < transfers.fizzledElsewhere.size() ? transfers.fizzledElsewhere[engine] : none;
    // One walk applies the rules; `full` is the pool's capacity: an overflow sets the count to it and
    // the count never exceeds it (-1: unknown, no such limit).
    auto walk = [&](int64_t full, auto&& atOverflow, bool report) {
        int64_t value = 0;
        // Reported once per instant, its last value: several changes at one time (an engine's own event
        // and a removal by another at the same nanosecond) are one step, with no passing value between.
        int64_t reported = 0;
        uint64_t pendingAt = 0;
        bool pending = false;
        auto flush = [&] {
            if (pending && value != reported)
                changed(pendingAt, reported = value);
            pending = false;
        };
        auto apply = [&](uint64_t t, int64_t next) {
            next = std::max<int64_t>(0, full >= 0 ? std::min(full, next) : next); // a pool holds 0..C
            if (next == value)
                return;
            if (report && pending && pendingAt != t)
                flush();
            value = next;
            pendingAt = t;
            pending = report;
        };
        size_t j = 0, k = 0;
        forEachEngineEvent(trace, engine, [&](const Event& ev) {
            while (j < lost.size() && lost[j] < ev.timeNs)
                apply(lost[j++], value - 1);
            // A fizzle of another pool's spark (sparkPoolTransfers): that pool's count goes down instead.
            if (ev.type == ev::SparkFizzle && k < away.size() && away[k] == ev.timeNs) {
                ++k;
                return;
            }
            const Change c = changeOf(trace, ev, options);
            switch (c.kind) {
            case Change::None:
                break;
            case Change::Full:
                atOverflow(value);
                if (full >= 0)
                    apply(ev.timeNs, full);
                break;
            default:
                apply(ev.timeNs, c.kind == Change::Reset ? c.value : value + (c.kind == Change::Add ? 1 : -1));
            }
        });
        while (j < lost.size())
            apply(lost[j++], value - 1);
        flush();
    };
    // The capacity: the smallest count at an overflow, counting without overflow resets (the count
    // only ever runs above the truth through removals GHC did not post).
    int64_t capacity = -1;
    bool overflows = false;
    if (options.resetAtOverflow)
        forEachEngineEvent(trace, engine, [&](const Event& e) { overflows = overflows || e.type == ev::SparkOverflow; });
    if (overflows)
        walk(
            -1, [&](int64_t value) { capacity = capacity < 0 ? value : std::min(capacity, value); }, false);
    walk(
        capacity, [](int64_t) {}, true);
}

namespace {

    // One engine's events in its order, marks included (as forEachEngineEvent hands them out), as a
    // cursor: the walk in time order below merges every engine's.
    class EngineCursor {
    public:
        EngineCursor(const Trace& trace, size_t engine)
            : m_event(trace.engines[engine].data())
            , m_eventsEnd(trace.engines[engine].data() + trace.engines[engine].size())
            , m_engine(uint16_t(engine))
        {
            if (engine < trace.marks.size() && !trace.marks[engine].marks.empty()) {
                const EngineMarks& m = trace.marks[engine];
                m_mark = m.marks.begin();
                m_marksEnd = m.marks.end();
                m_before = m.before.data();
            }
            load();
        }
        bool done() const noexcept { return m_done; }
        uint64_t timeNs() const noexcept { return m_time; }
        uint16_t type() const noexcept { return m_type; }
        // The current Event (not a mark: only marks' time and type are read).
        const Event& event() const noexcept { return *m_event; }
        void next() noexcept
        {
            if (m_onMark) {
                ++m_mark;
                ++m_marksSeen;
            } else {
                ++m_event;
                if (m_before)
                    ++m_before;
            }
            load();
        }
        uint16_t engine() const noexcept { return m_engine; }

    private:
        // Marks come before the engine's i-th Event while fewer than before[i] have been handed out.
        void load() noexcept
        {
            m_onMark = m_mark != m_marksEnd && (m_event == m_eventsEnd || m_marksSeen < *m_before);
            m_done = !m_onMark && m_event == m_eventsEnd;
            if (m_onMark)
                m_time = m_mark->timeNs(), m_type = m_mark->type();
            else if (!m_done)
                m_time = m_event->timeNs, m_type = m_event->type;
        }
        const Event* m_event;
        const Event* m_eventsEnd;
        std::deque<Mark>::const_iterator m_mark {}, m_marksEnd {};
        const uint64_t* m_before = nullptr; // before[i] of the current Event
        uint64_t m_marksSeen = 0;
        uint64_t m_time = 0;
        uint16_t m_type = 0;
        uint16_t m_engine;
        bool m_onMark = false, m_done = true;
    };

    // The fizzles posted on a capability whose pool was empty, each taken off the lowest-numbered other
    // pool that was not (deque_sizes.h): one walk of every engine's events in time order (ties: engine
    // number, then each engine's order), counting by the rules without the capacity. The engine with
    // the earliest next event runs on until another engine's next event comes first, so the heap is
    // touched once per such run, not once per event (an engine's sparks come in bursts).
    void moveFizzles(const Trace& trace, DequeSizeOptions options, SparkPoolTransfers& out)
    {
        const size_t n = trace.engines.size();
        std::vector<int64_t> count(n, 0);
        // The pools that hold sparks, by number: a fizzle on an empty pool takes the first other one
        // without looking at every engine (a damaged trace can name tens of thousands).
        std::set<size_t> holding;
        auto set = [&](size_t e, int64_t c) {
            if ((count[e] > 0) != (c > 0))
                c > 0 ? void(holding.insert(e)) : void(holding.erase(e));
            count[e] = c;
        };
        std::vector<EngineCursor> cursors;
        cursors.reserve(n);
        using Head = std::pair<uint64_t, size_t>; // (time, engine): the order of the walk
        std::priority_queue<Head, std::vector<Head>, std::greater<>> heads;
        for (size_t e = 0; e < n; ++e) {
            cursors.emplace_back(trace, e);
            if (!cursors[e].done())
                heads.push({ cursors[e].timeNs(), e });
        }
        auto take = [&](size_t e) { set(e, std::max<int64_t>(0, count[e] - 1)); };
        auto step = [&](EngineCursor& cursor) {
            const size_t e = cursor.engine();
            switch (cursor.type()) {
            case ev::SparkCreate:
            case ev::MerSparkCreate:
                set(e, count[e] + 1);
                break;
            case ev::SparkRun:
            case ev::MerSparkRun:
            case ev::SparkGc:
                take(e);
                break;
            case ev::SparkSteal:
            case ev::MerSparkSteal:
                if (const uint16_t victim = trace.payload(cursor.event()).u16(0); victim < n)
                    take(victim);
                break;
            case ev::SparkCounters:
                if (options.resetAtCounters)
                    set(e, int64_t(std::min<uint64_t>(trace.payload(cursor.event()).u64(48), INT64_MAX)));
                break;
            case ev::SparkFizzle:
                if (count[e] > 0) {
                    take(e);
                    break;
                }
                // (e itself holds none: the first pool holding sparks is another's.)
                if (!holding.empty()) {
                    const size_t v = *holding.begin();
                    take(v);
                    out.takenFrom[v].push_back(cursor.timeNs());
                    out.fizzledElsewhere[e].push_back(cursor.timeNs());
                }
                break;
            default:
                break;
            }
        };
        while (!heads.empty()) {
            const size_t e = heads.top().second;
            heads.pop();
            const Head bound = heads.empty() ? Head { UINT64_MAX, SIZE_MAX } : heads.top();
            EngineCursor& cursor = cursors[e];
            do {
                step(cursor);
                cursor.next();
            } while (!cursor.done() && Head { cursor.timeNs(), e } < bound);
            if (!cursor.done())
                heads.push({ cursor.timeNs(), e });
        }
    }

} // namespace

SparkPoolTransfers sparkPoolTransfers(const Trace& trace, DequeSizeOptions options)
{
    const size_t n = trace.engines.size();
    // Steals are rare next to the other spark events: collected per thief, then grouped by victim.
    std::vector<std::vector<std::pair<uint16_t, uint64_t>>> byThief(n);
    std::vector<uint8_t> fizzles(n, 0);
    tbb::parallel_for(size_t(0), n, [&](size_t e) {
        for (const Event& ev : trace.engines[e]) {
            if (ev.type == ev::SparkSteal || ev.type == ev::MerSparkSteal)
                byThief[e].emplace_back(trace.payload(ev).u16(0), ev.timeNs);
            fizzles[e] |= ev.type == ev::SparkFizzle;
        }
        if (e < trace.marks.size()) // (steals have a payload: never marks)
            for (const Mark& m : trace.marks[e].marks)
                if (m.type() == ev::SparkFizzle) {
                    fizzles[e] = 1;
                    break;
                }
    });
    SparkPoolTransfers out;
    out.takenFrom.resize(n);
    out.fizzledElsewhere.resize(n);
    // The walk's moves come in time order, the steals after them: only the few steals are sorted, and
    // merged in (sorting the whole was ~3 % of `metrics` on parfib-4-37, for millions of moves).
    if (std::find(fizzles.begin(), fizzles.end(), 1) != fizzles.end())
        moveFizzles(trace, options, out);
    std::vector<size_t> moves(n);
    for (size_t e = 0; e < n; ++e)
        moves[e] = out.takenFrom[e].size();
    for (const auto& thief : byThief)
        for (const auto& [victim, t] : thief)
            if (victim < n)
                out.takenFrom[victim].push_back(t);
    byThief = {};
    tbb::parallel_for(size_t(0), n, [&](size_t e) {
        auto& taken = out.takenFrom[e];
        const auto steals = taken.begin() + std::ptrdiff_t(moves[e]);
        std::sort(steals, taken.end());
        std::inplace_merge(taken.begin(), steals, taken.end());
    });
    return out;
}

std::vector<StepFunction> computeSparkDequeSizes(const Trace& trace, DequeSizeOptions options)
{
    const size_t n = trace.engines.size();
    SparkPoolTransfers transfers = sparkPoolTransfers(trace, options);
    // Each engine's own events are walked (no copy of them), merged with its losses.
    const int64_t begin = int64_t(trace.firstTimeNs), end = int64_t(trace.lastTimeNs);
    std::vector<StepFunction> out(n);
    tbb::parallel_for(size_t(0), n, [&](size_t e) {
        // Sized exactly (an upper bound) up front: growing by doubling would hold up to 3 copies.
        size_t changes = transfers.takenFrom[e].size();
        forEachEngineEvent(
            trace, e, [&](const Event& ev) { changes += changeOf(trace, ev, options).kind != Change::None; });
        std::vector<StepFunction::Step> steps;
        if (changes)
            steps.reserve(changes + 1);
        forEachSparkDequeSize(
            trace, e, transfers,
            [&](uint64_t t, int64_t size) {
                if (steps.empty())
                    steps.push_back({ begin, 0 });
                steps.push_back({ int64_t(t), size });
            },
            options);
        // The constructor keeps the last value of equal times and merges equal neighbours.
        if (!steps.empty())
            out[e] = StepFunction(std::move(steps), end);
    });
    return out;
}

} // namespace sparkscope::core
