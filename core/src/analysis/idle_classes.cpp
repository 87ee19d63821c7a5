// Idle classes (rules in idle_classes.h). The quantities the class depends on are step curves: each
// engine's spark deque size, and the number of contexts Runnable, blocked on a future, at a barrier,
// blocked otherwise. The deque curves are streamed and kept only inside the idle windows (a deque
// changes at every spark, millions of times on a large trace, where engines are nearly never idle);
// each window is then walked with one cursor per curve, and only the class changes are kept.
#include "analysis/idle_classes.h"

#include "sparkscope/core/deque_sizes.h"
#include "sparkscope/core/step_function.h"

#include <algorithm>
#include <array>
#include <optional>
#include <tbb/parallel_for.h>

namespace sparkscope::core::detail {

BlockReasons::BlockReasons(const ParModel& model)
{
    for (uint32_t c = 0; c < model.contexts.size(); ++c)
        for (const ContextStateChange& s : model.contexts[c].states)
            if (s.state == ContextState::Blocked)
                m_blocks.push_back({ c, s.startNs, BlockReason::Other });
    for (const FutureInstance& f : model.futures)
        for (const FutureWait& w : f.waits)
            if (const size_t i = lowerBound(w.context.value(), w.timeNs);
                w.suspended && startsAt(i, w.context.value(), w.timeNs))
                m_blocks[i].reason = BlockReason::Future;
    for (const ConjunctionInstance& j : model.conjunctions) {
        if (j.startContext.value() == kNoIndex || j.conjuncts.empty() || !model.conjunct(j.conjuncts.front()).ended)
            continue;
        const uint64_t end = j.ended ? j.endNs : UINT64_MAX;
        for (size_t i = lowerBound(j.startContext.value(), model.conjunct(j.conjuncts.front()).endNs);
             i < m_blocks.size() && m_blocks[i].context == j.startContext.value() && m_blocks[i].timeNs < end; ++i)
            if (m_blocks[i].reason == BlockReason::Other)
                m_blocks[i].reason = BlockReason::Barrier;
    }
}

size_t BlockReasons::lowerBound(uint32_t context, uint64_t timeNs) const noexcept
{
    auto it = std::lower_bound(m_blocks.begin(), m_blocks.end(), std::make_pair(context, timeNs),
        [](const Block& b, const std::pair<uint32_t, uint64_t>& key) {
            return b.context != key.first ? b.context < key.first : b.timeNs < key.second;
        });
    return size_t(it - m_blocks.begin());
}

bool BlockReasons::startsAt(size_t i, uint32_t context, uint64_t timeNs) const noexcept
{
    return i < m_blocks.size() && m_blocks[i].context == context && m_blocks[i].timeNs == timeNs;
}

BlockReason BlockReasons::at(uint32_t context, uint64_t blockedAtNs) const noexcept
{
    const size_t i = lowerBound(context, blockedAtNs);
    return startsAt(i, context, blockedAtNs) ? m_blocks[i].reason : BlockReason::Other;
}

namespace {

    // The curves of the number of contexts Runnable, blocked on a future, at a barrier, blocked
    // otherwise: one sorted run of deltas per context, merged.
    std::array<StepFunction, 4> contextCurves(const ParModel& model, const BlockReasons& reasons, const Trace& trace)
    {
        std::array<std::vector<std::vector<StepFunction::Step>>, 4> runs;
        for (auto& r : runs)
            r.resize(model.contexts.size());
        for (uint32_t c = 0; c < model.contexts.size(); ++c) {
            const auto& states = model.contexts[c].states;
            for (size_t i = 0; i < states.size(); ++i) {
                const ContextStateChange& s = states[i];
                size_t curve = 0;
                if (s.state == ContextState::Blocked)
                    curve = 1 + size_t(reasons.at(c, s.startNs));
                else if (s.state != ContextState::Runnable)
                    continue;
                const uint64_t end = i + 1 < states.size() ? states[i + 1].startNs : model.endNs;
                runs[curve][c].push_back({ int64_t(s.startNs), 1 });
                runs[curve][c].push_back({ int64_t(end), -1 });
            }
        }
        std::array<StepFunction, 4> out;
        for (size_t k = 0; k < 4; ++k)
            out[k] = StepFunction::fromSortedDeltaRuns(
                std::move(runs[k]), int64_t(trace.firstTimeNs), int64_t(trace.lastTimeNs));
        return out;
    }

    // One engine's spark deque size (deque_sizes.h), kept only within the idle windows: a step at
    // each window's start with the size then, and the changes inside. Streamed: a deque changes size
    // at every spark, millions of times on a large trace, nearly always while every engine is busy.
    StepFunction dequeInWindows(const Trace& trace, size_t engine, const SparkPoolTransfers& transfers,
        const std::vector<std::pair<uint64_t, uint64_t>>& idle)
    {
        std::vector<StepFunction::Step> steps;
        size_t w = 0;
        bool opened = false; // window w's start is emitted
        int64_t value = 0;
        auto reach = [&](uint64_t t) { // emit the starts of the windows that begin at or before t
            while (w < idle.size()) {
                if (!opened) {
                    if (idle[w].first > t)
                        return;
                    steps.push_back({ int64_t(idle[w].first), value });
                    opened = true;
                }
                if (idle[w].second > t)
                    return;
                ++w;
                opened = false;
            }
        };
        forEachSparkDequeSize(trace, engine, transfers, [&](uint64_t t, int64_t size) {
            reach(t);
            if (opened && idle[w].first <= t)
                steps.push_back({ int64_t(t), size });
            value = size;
        });
        reach(UINT64_MAX);
        return steps.empty() ? StepFunction() : StepFunction(std::move(steps), int64_t(trace.lastTimeNs));
    }

    // A position in a StepFunction's steps, moved forward in time.
    class StepCursor {
    public:
        explicit StepCursor(const StepFunction& f)
            : m_steps(f.steps())
            , m_endNs(f.endNs())
        {
        }
        void seek(int64_t t)
        {
            m_next = size_t(std::upper_bound(m_steps.begin(), m_steps.end(), t,
                                [](int64_t x, const StepFunction::Step& s) { return x < s.timeNs; })
                - m_steps.begin());
        }
        void advanceTo(int64_t t)
        {
            while (m_next < m_steps.size() && m_steps[m_next].timeNs <= t)
                ++m_next;
        }
        bool positiveAt(int64_t t) const { return m_next > 0 && t < m_endNs && m_steps[m_next - 1].value > 0; }
        int64_t nextChange(int64_t t) const
        {
            if (m_next < m_steps.size())
                return m_steps[m_next].timeNs;
            return t < m_endNs ? m_endNs : INT64_MAX;
        }

    private:
        const std::vector<StepFunction::Step>& m_steps;
        int64_t m_endNs;
        size_t m_next = 0; // the first step after the current time
    };

} // namespace

IdleClasses::IdleClasses(const Trace& trace, const ParModel& model, const BlockReasons& reasons,
    const std::vector<std::pair<uint64_t, uint64_t>>& idle, const SparkPoolTransfers* lent)
{
    if (idle.empty())
        return;
    std::optional<SparkPoolTransfers> own;
    if (!lent)
        own = sparkPoolTransfers(trace);
    const SparkPoolTransfers& transfers = lent ? *lent : *own;
    std::vector<StepFunction> deques(trace.engines.size());
    tbb::parallel_for(
        size_t(0), deques.size(), [&](size_t e) { deques[e] = dequeInWindows(trace, e, transfers, idle); });
    const std::array<StepFunction, 4> contexts = contextCurves(model, reasons, trace);
    std::vector<StepCursor> work; // deques and Runnable contexts: any positive means work available
    for (const StepFunction& d : deques)
        if (!d.empty())
            work.emplace_back(d);
    work.emplace_back(contexts[0]);
    std::array<StepCursor, 3> blocked { StepCursor(contexts[1]), StepCursor(contexts[2]), StepCursor(contexts[3]) };
    auto classAt = [&](int64_t t) {
        for (const StepCursor& c : work)
            if (c.positiveAt(t))
                return IdleClass::WorkAvailable;
        for (size_t k = 0; k < 3; ++k)
            if (blocked[k].positiveAt(t))
                return IdleClass(size_t(IdleClass::BlockedFuture) + k);
        return IdleClass::NoWork;
    };
    for (const auto& [from, to] : idle) {
        int64_t t = int64_t(from);
        for (StepCursor& c : work)
            c.seek(t);
        for (StepCursor& c : blocked)
            c.seek(t);
        while (t < int64_t(to)) {
            const IdleClass cls = classAt(t);
            if (m_changes.empty() || m_changes.back().idleClass != cls || t == int64_t(from))
                m_changes.push_back({ uint64_t(t), cls });
            int64_t next = int64_t(to);
            for (const StepCursor& c : work)
                next = std::min(next, c.nextChange(t));
            for (const StepCursor& c : blocked)
                next = std::min(next, c.nextChange(t));
            t = next; // > t: every cursor's next change lies after t
            for (StepCursor& c : work)
                c.advanceTo(t);
            for (StepCursor& c : blocked)
                c.advanceTo(t);
        }
    }
}

size_t IdleClasses::indexAt(uint64_t t) const noexcept
{
    auto it = std::upper_bound(
        m_changes.begin(), m_changes.end(), t, [](uint64_t x, const IdleClassChange& c) { return x < c.timeNs; });
    return it == m_changes.begin() ? 0 : size_t(it - m_changes.begin()) - 1;
}

} // namespace sparkscope::core::detail
