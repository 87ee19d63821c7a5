// Engine activity (rules in engine_activity.h). Each source is turned into a sorted list of disjoint
// spans per engine (Gc from the engine states, search episodes from a scan of the engine's events,
// running pieces from the model's context segments), then one merge walk over the three lists cuts
// the engine's time into intervals and labels each by the highest-priority source active there.
// Why a merge rather than an event sweep with counters: each list is already disjoint and sorted
// (running pieces after one sort), so three cursors give every boundary in order without
// materialising and sorting the boundaries themselves.
#include "analysis/engine_activity.h"

#include <algorithm>
#include <tbb/parallel_for.h>

namespace sparkscope::core::detail {

namespace {

    struct Span {
        uint64_t startNs = 0, endNs = 0;
        uint32_t context = kNoIndex;
        bool inConjunct = false;
    };

    bool excluded(Activity a) noexcept { return a == Activity::Gc || a == Activity::Searching; }

    std::vector<Span> gcSpans(const std::vector<StateInterval>& states)
    {
        std::vector<Span> out;
        for (const StateInterval& s : states)
            if (s.state == EngineState::Gc)
                out.push_back({ s.startNs, s.endNs });
        return out;
    }

    // Search episodes of one engine (engine_activity.h, source 2).
    std::vector<Span> searchEpisodes(const std::vector<Event>& events, uint64_t lastNs)
    {
        std::vector<Span> out;
        bool searching = false, running = false;
        uint64_t since = 0;
        auto close = [&](uint64_t t) {
            if (searching && t > since)
                out.push_back({ since, t });
            searching = false;
        };
        for (const Event& e : events) {
            switch (e.type) {
            case ev::MerLookingForGlobalContext:
            case ev::MerLookingForLocalSpark:
            case ev::MerWorkStealing:
                if (!searching) {
                    searching = true;
                    since = e.timeNs;
                }
                break;
            case ev::RunThread:
                close(e.timeNs);
                running = true;
                break;
            case ev::StopThread:
                running = false;
                break;
            case ev::MerSparkRun:
            case ev::MerSparkSteal:
                if (running)
                    close(e.timeNs);
                break;
            case ev::MerEngineSleeping:
            case ev::Shutdown: // the engine stops: it looks for nothing any more
                close(e.timeNs);
                break;
            default:
                break;
            }
        }
        close(lastNs);
        return out;
    }

    // Running pieces per engine: each context's Running segments, with neighbours on the same engine
    // and on the same side of "inside a conjunct" merged, clipped to [first, last) and sorted.
    std::vector<std::vector<Span>> runningPieces(const ParModel& model, size_t engines, uint64_t first, uint64_t last)
    {
        std::vector<std::vector<Span>> out(engines);
        for (uint32_t c = 0; c < model.contexts.size(); ++c) {
            const auto& segs = model.contexts[c].segments;
            for (size_t i = 0; i < segs.size(); ++i) {
                const ContextSegment& s = segs[i];
                if (s.state != ContextState::Running || s.engine >= engines)
                    continue;
                const uint64_t end = std::min(i + 1 < segs.size() ? segs[i + 1].startNs : model.endNs, last);
                const uint64_t start = std::max(s.startNs, first);
                if (end <= start)
                    continue;
                auto& v = out[s.engine];
                const bool in = s.top.valid();
                if (!v.empty() && v.back().context == c && v.back().inConjunct == in && v.back().endNs == start)
                    v.back().endNs = end;
                else
                    v.push_back({ start, end, c, in });
            }
        }
        tbb::parallel_for(size_t(0), engines, [&](size_t e) {
            auto& v = out[e];
            std::sort(v.begin(), v.end(), [](const Span& a, const Span& b) {
                return a.startNs != b.startNs ? a.startNs < b.startNs : a.context < b.context;
            });
            // The model runs one context per engine at a time; should a damaged trace say otherwise,
            // the earlier piece keeps the overlap.
            uint64_t until = first;
            size_t kept = 0;
            for (Span s : v) {
                s.startNs = std::max(s.startNs, until);
                if (s.endNs <= s.startNs)
                    continue;
                until = s.endNs;
                v[kept++] = s;
            }
            v.resize(kept);
        });
        return out;
    }

    // The merge walk: [first, last) cut at every boundary of the three lists, each piece labelled by
    // the highest-priority list active there.
    std::vector<ActivityInterval> mergeSources(uint64_t first, uint64_t last, const std::vector<Span>& gc,
        const std::vector<Span>& search, const std::vector<Span>& running)
    {
        struct Cursor {
            const std::vector<Span>& spans;
            size_t i = 0;
            const Span* activeAt(uint64_t t)
            {
                while (i < spans.size() && spans[i].endNs <= t)
                    ++i;
                return i < spans.size() && spans[i].startNs <= t ? &spans[i] : nullptr;
            }
            uint64_t nextEdge(uint64_t t, uint64_t last) const
            {
                if (i >= spans.size())
                    return last;
                return spans[i].startNs > t ? spans[i].startNs : spans[i].endNs;
            }
        };
        Cursor cg { gc }, cs { search }, cr { running };
        std::vector<ActivityInterval> out;
        for (uint64_t t = first; t < last;) {
            const Span* g = cg.activeAt(t);
            const Span* s = cs.activeAt(t);
            const Span* r = cr.activeAt(t);
            const uint64_t next = std::min({ cg.nextEdge(t, last), cs.nextEdge(t, last), cr.nextEdge(t, last), last });
            ActivityInterval piece { t, next, kNoIndex, Activity::Idle };
            if (g)
                piece.activity = Activity::Gc;
            else if (s)
                piece.activity = Activity::Searching;
            else if (r)
                piece = { t, next, r->context, r->inConjunct ? Activity::RunningIn : Activity::RunningOut };
            if (!out.empty() && out.back().activity == piece.activity && out.back().context == piece.context)
                out.back().endNs = next;
            else
                out.push_back(piece);
            t = next;
        }
        return out;
    }

    std::vector<Span> clipped(std::vector<Span> spans, uint64_t first, uint64_t last)
    {
        size_t kept = 0;
        for (Span s : spans) {
            s.startNs = std::max(s.startNs, first);
            s.endNs = std::min(s.endNs, last);
            if (s.endNs > s.startNs)
                spans[kept++] = s;
        }
        spans.resize(kept);
        return spans;
    }

} // namespace

EngineActivity::EngineActivity(const Trace& trace, const EngineStates& states, const ParModel& model)
    : m_firstNs(states.firstNs)
    , m_lastNs(std::max(states.firstNs, states.lastNs))
{
    const size_t engines = states.engineCount();
    auto running = runningPieces(model, engines, m_firstNs, m_lastNs);
    m_engines.resize(engines);
    m_excludedBefore.resize(engines);
    tbb::parallel_for(size_t(0), engines, [&](size_t e) {
        static const std::vector<Event> kNone;
        const auto& events = e < trace.engines.size() ? trace.engines[e] : kNone;
        const auto gc = clipped(gcSpans(states.engines[e]), m_firstNs, m_lastNs);
        const auto search = clipped(searchEpisodes(events, m_lastNs), m_firstNs, m_lastNs);
        m_engines[e] = mergeSources(m_firstNs, m_lastNs, gc, search, running[e]);
        std::vector<Span>().swap(running[e]);
        auto& before = m_excludedBefore[e];
        before.reserve(m_engines[e].size());
        uint64_t sum = 0;
        for (const ActivityInterval& a : m_engines[e]) {
            before.push_back(sum);
            if (excluded(a.activity))
                sum += a.endNs - a.startNs;
        }
    });
}

size_t EngineActivity::indexAt(size_t engine, uint64_t t) const noexcept
{
    const auto& v = m_engines[engine];
    auto it
        = std::upper_bound(v.begin(), v.end(), t, [](uint64_t x, const ActivityInterval& a) { return x < a.startNs; });
    return it == v.begin() ? 0 : size_t(it - v.begin()) - 1;
}

uint64_t EngineActivity::excludedBefore(size_t engine, uint64_t t, size_t i) const noexcept
{
    const ActivityInterval& a = m_engines[engine][i];
    uint64_t sum = m_excludedBefore[engine][i];
    if (excluded(a.activity) && t > a.startNs)
        sum += std::min(t, a.endNs) - a.startNs;
    return sum;
}

uint64_t EngineActivity::excludedIn(size_t engine, uint64_t a, uint64_t b, size_t& hint) const noexcept
{
    if (engine >= m_engines.size() || b <= a || m_engines[engine].empty())
        return 0;
    const auto& v = m_engines[engine];
    // The interval containing t, from the hint when t lies at or after it (a short forward walk).
    auto find = [&](uint64_t t) {
        if (hint >= v.size() || v[hint].startNs > t)
            hint = indexAt(engine, t);
        while (hint + 1 < v.size() && v[hint].endNs <= t)
            ++hint;
        return hint;
    };
    const uint64_t before = excludedBefore(engine, a, find(a));
    return excludedBefore(engine, b, find(b)) - before;
}

std::vector<std::pair<uint64_t, uint64_t>> EngineActivity::idleUnion() const
{
    std::vector<std::pair<uint64_t, uint64_t>> idle;
    for (const auto& engine : m_engines)
        for (const ActivityInterval& a : engine)
            if (a.activity == Activity::Idle)
                idle.emplace_back(a.startNs, a.endNs);
    std::sort(idle.begin(), idle.end());
    std::vector<std::pair<uint64_t, uint64_t>> out;
    for (const auto& span : idle) {
        if (!out.empty() && span.first <= out.back().second)
            out.back().second = std::max(out.back().second, span.second);
        else
            out.push_back(span);
    }
    return out;
}

} // namespace sparkscope::core::detail
