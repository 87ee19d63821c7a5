// The model's instances and waits that the findings point at (see findings_sites.h).
#include "analysis/findings_sites.h"

#include <algorithm>
#include <iterator>
#include <map>

namespace sparkscope::core::detail {

namespace {

    // Keeps the `limit` longest ranges seen, clipped to [clipFrom, clipTo) (ties: the earlier first).
    class LongestRanges {
    public:
        LongestRanges(size_t limit, uint64_t clipFrom, uint64_t clipTo)
            : m_limit(limit)
            , m_clipFrom(clipFrom)
            , m_clipTo(clipTo)
        {
        }
        void add(uint64_t fromNs, uint64_t toNs)
        {
            fromNs = std::max(fromNs, m_clipFrom);
            toNs = std::min(toNs, m_clipTo);
            if (toNs <= fromNs)
                return;
            m_ranges.push_back({ fromNs, toNs });
            if (m_ranges.size() >= 4 * m_limit + 4)
                prune();
        }
        std::vector<TimeRange> take()
        {
            prune();
            return std::move(m_ranges);
        }

    private:
        void prune()
        {
            std::sort(m_ranges.begin(), m_ranges.end(), [](const TimeRange& a, const TimeRange& b) {
                const uint64_t la = a.toNs - a.fromNs, lb = b.toNs - b.fromNs;
                return la != lb ? la > lb : a.fromNs < b.fromNs;
            });
            if (m_ranges.size() > m_limit)
                m_ranges.resize(m_limit);
        }
        size_t m_limit;
        uint64_t m_clipFrom, m_clipTo;
        std::vector<TimeRange> m_ranges;
    };

    bool counts(const ConjunctionInstance& j, uint32_t staticId, uint64_t fromNs, uint64_t toNs)
    {
        return j.staticId == staticId && j.complete && j.startNs >= fromNs && j.startNs < toNs;
    }

} // namespace

SequentialSites::SequentialSites(const ParModel& model)
    : m_starts(model.contexts.size())
    , m_ends(model.contexts.size())
{
    for (const ConjunctionInstance& j : model.conjunctions) // in start order: each list comes out sorted
        if (j.startContext.value() < m_starts.size())
            m_starts[j.startContext.value()].emplace_back(j.startNs, j.staticId);
    // Ends, by time; of those at one instant the first started last (the outermost, which a nested
    // one ends with): taken in reverse start order, which a stable sort by time keeps among equals.
    for (auto j = model.conjunctions.rbegin(); j != model.conjunctions.rend(); ++j)
        if (j->ended && j->startContext.value() < m_ends.size())
            m_ends[j->startContext.value()].emplace_back(j->endNs, j->staticId);
    for (auto& ends : m_ends)
        std::stable_sort(ends.begin(), ends.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
}

SequentialSites::Site SequentialSites::at(uint32_t context, uint64_t timeNs) const
{
    if (context >= m_starts.size() || m_starts[context].empty())
        return {};
    const auto& starts = m_starts[context];
    auto next = std::lower_bound(starts.begin(), starts.end(), std::pair<uint64_t, uint32_t>(timeNs, 0));
    if (next != starts.end())
        return { next->second, Relation::Before };
    const auto& ends = m_ends[context];
    auto after = std::upper_bound(ends.begin(), ends.end(), timeNs,
        [](uint64_t t, const std::pair<uint64_t, uint32_t>& e) { return t < e.first; });
    if (after != ends.begin())
        return { std::prev(after)->second, Relation::After };
    return { starts.back().second, Relation::After };
}

std::vector<uint32_t> recursiveSites(const ParModel& model)
{
    std::vector<uint32_t> out; // sorted
    auto known = [&](uint32_t s) { return std::binary_search(out.begin(), out.end(), s); };
    for (const ConjunctionInstance& j : model.conjunctions) {
        if (known(j.staticId))
            continue;
        for (uint32_t k = j.parentConjunct.value(); k < model.conjuncts.size();) {
            const uint32_t parent = model.conjuncts[k].conjunction.value();
            if (parent >= model.conjunctions.size())
                break;
            if (model.conjunctions[parent].staticId == j.staticId) {
                out.insert(std::upper_bound(out.begin(), out.end(), j.staticId), j.staticId);
                break;
            }
            k = model.conjunctions[parent].parentConjunct.value();
        }
    }
    return out;
}

std::vector<TimeRange> longestInstances(
    const ParModel& model, uint32_t staticId, uint64_t fromNs, uint64_t toNs, size_t limit)
{
    LongestRanges out(limit, fromNs, toNs);
    for (const ConjunctionInstance& j : model.conjunctions)
        if (counts(j, staticId, fromNs, toNs))
            out.add(j.startNs, j.endNs);
    return out.take();
}

std::vector<TimeRange> longestTimesAfter(
    const ParModel& model, uint32_t staticId, uint64_t fromNs, uint64_t toNs, size_t limit)
{
    LongestRanges out(limit, fromNs, toNs);
    for (const ConjunctionInstance& j : model.conjunctions) {
        if (!counts(j, staticId, fromNs, toNs) || j.conjuncts.empty())
            continue;
        uint64_t firstEnd = j.endNs;
        for (const ConjunctIndex k : j.conjuncts)
            firstEnd = std::min(firstEnd, model.conjunct(k).endNs);
        out.add(firstEnd, j.endNs);
    }
    return out.take();
}

std::vector<FirstWaitSuspensions> firstWaitSuspensions(
    const ParModel& model, uint64_t fromNs, uint64_t toNs, size_t limit)
{
    struct Group {
        FirstWaitSuspensions sums;
        LongestRanges longest;
    };
    std::map<std::pair<uint32_t, uint32_t>, Group> groups; // (static id, variable name id)
    std::vector<uint32_t> seen; // the consumers of the current future so far
    for (const FutureInstance& f : model.futures) {
        if (!f.complete || !f.conjunction.valid())
            continue;
        const ConjunctionInstance& j = model.conjunction(f.conjunction);
        if (j.startNs < fromNs || j.startNs >= toNs)
            continue;
        seen.clear();
        Group* group = nullptr;
        for (const FutureWait& w : f.waits) {
            const uint32_t who = w.conjunct.valid() ? w.conjunct.value() : kNoIndex - 1 - w.context.value();
            if (std::find(seen.begin(), seen.end(), who) != seen.end())
                continue; // not this consumer's first wait
            seen.push_back(who);
            if (!w.suspended || w.timeNs >= f.signalNs)
                continue;
            if (!group) {
                auto [it, added]
                    = groups.try_emplace({ j.staticId, f.nameId }, Group { {}, LongestRanges(limit, fromNs, toNs) });
                group = &it->second;
                if (added) {
                    group->sums.staticId = j.staticId;
                    group->sums.variable = model.stringOr(f.nameId, "var#");
                    group->sums.group = model.staticName(j.staticId) + "/" + group->sums.variable;
                }
            }
            ++group->sums.suspensions;
            group->sums.suspendedNs += f.signalNs - w.timeNs;
            group->longest.add(w.timeNs, f.signalNs);
        }
    }
    std::vector<FirstWaitSuspensions> out;
    for (auto& [key, g] : groups) {
        g.sums.longest = g.longest.take();
        out.push_back(std::move(g.sums));
    }
    std::sort(out.begin(), out.end(),
        [](const FirstWaitSuspensions& a, const FirstWaitSuspensions& b) { return a.group < b.group; });
    return out;
}

} // namespace sparkscope::core::detail
