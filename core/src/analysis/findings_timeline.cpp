// The ledger over time (see findings_timeline.h). Each engine's categories come from a cursor over
// its activity intervals, split where its idle class changes (as the ledger's sweep splits them);
// the cursors are merged by always cutting at the earliest end among them.
#include "analysis/findings_timeline.h"

#include "analysis/ledger.h"
#include "util/saturating.h"

#include <algorithm>

namespace sparkscope::core::detail {

namespace {

    // One engine's pieces of [from, to): its category is constant in each.
    class EngineCursor {
    public:
        EngineCursor(
            const EngineActivity& activity, size_t engine, const IdleClasses& classes, uint64_t fromNs, uint64_t toNs)
            : m_intervals(activity.intervals(engine))
            , m_classes(classes)
            , m_changes(classes.changes())
            , m_toNs(toNs)
        {
            if (m_intervals.empty()) { // an engine without intervals: idle with nothing to do throughout
                endNs = toNs;
                return;
            }
            m_index = activity.indexAt(engine, fromNs);
            load(fromNs, true);
        }

        uint64_t endNs = 0; // the current piece's end
        LossCategory category = LossCategory::IdleNoWork;
        uint32_t context = kNoIndex;

        void advance()
        {
            if (m_intervals.empty())
                return;
            const uint64_t t = endNs;
            const bool nextInterval = t >= m_intervals[m_index].endNs && m_index + 1 < m_intervals.size();
            if (nextInterval)
                ++m_index;
            load(t, nextInterval);
        }

    private:
        void load(uint64_t t, bool newInterval)
        {
            const ActivityInterval& a = m_intervals[m_index];
            endNs = std::min(std::max(a.endNs, t + 1), m_toNs);
            context = a.activity == Activity::RunningIn || a.activity == Activity::RunningOut ? a.context : kNoIndex;
            category = ledgerCategory(a.activity);
            if (a.activity != Activity::Idle || m_changes.empty())
                return;
            if (newInterval)
                m_change = m_classes.indexAt(t);
            while (m_change + 1 < m_changes.size() && m_changes[m_change + 1].timeNs <= t)
                ++m_change;
            category = ledgerCategory(m_changes[m_change].idleClass);
            if (m_change + 1 < m_changes.size())
                endNs = std::min(endNs, std::max(m_changes[m_change + 1].timeNs, t + 1));
        }
        const std::vector<ActivityInterval>& m_intervals;
        const IdleClasses& m_classes;
        const std::vector<IdleClassChange>& m_changes;
        uint64_t m_toNs;
        size_t m_index = 0;
        size_t m_change = 0;
    };

} // namespace

void forEachLedgerPiece(const EngineActivity& activity, const IdleClasses& classes, uint64_t fromNs, uint64_t toNs,
    const std::function<void(const LedgerPiece&)>& f)
{
    fromNs = std::max(fromNs, activity.firstNs());
    toNs = std::min(toNs, activity.lastNs());
    const size_t engines = activity.engineCount();
    if (toNs <= fromNs || engines == 0)
        return;
    std::vector<EngineCursor> cursors;
    cursors.reserve(engines);
    for (size_t e = 0; e < engines; ++e)
        cursors.emplace_back(activity, e, classes, fromNs, toNs);
    std::vector<LossCategory> categories(engines);
    std::vector<uint32_t> contexts(engines);
    uint64_t t = fromNs;
    while (t < toNs) {
        uint64_t next = toNs;
        for (size_t e = 0; e < engines; ++e) {
            categories[e] = cursors[e].category;
            contexts[e] = cursors[e].context;
            next = std::min(next, cursors[e].endNs);
        }
        f(LedgerPiece { t, next, categories, contexts });
        for (EngineCursor& c : cursors)
            if (c.endNs == next && next < toNs)
                c.advance();
        t = next;
    }
}

void Stretches::add(uint64_t fromNs, uint64_t toNs, uint64_t lostNs)
{
    if (lostNs == 0)
        return;
    m_lostNs = saturatingAdd(m_lostNs, lostNs); // (util/saturating.h: times near 2^64 in a damaged trace)
    if (m_open && fromNs <= m_current.toNs + m_gapNs) {
        m_current.toNs = toNs;
        m_current.lostNs = saturatingAdd(m_current.lostNs, lostNs);
        return;
    }
    close();
    m_current = { fromNs, toNs, lostNs };
    m_open = true;
}

void Stretches::close()
{
    if (!m_open)
        return;
    m_kept.push_back(m_current);
    m_open = false;
    if (m_kept.size() >= 4 * m_limit + 4) {
        std::nth_element(m_kept.begin(), m_kept.begin() + ptrdiff_t(m_limit), m_kept.end(),
            [](const Stretch& a, const Stretch& b) { return a.lostNs > b.lostNs; });
        m_kept.resize(m_limit);
    }
}

std::vector<TimeRange> Stretches::top() const
{
    std::vector<Stretch> all = m_kept;
    if (m_open)
        all.push_back(m_current);
    std::sort(all.begin(), all.end(), [](const Stretch& a, const Stretch& b) {
        return a.lostNs != b.lostNs ? a.lostNs > b.lostNs : a.fromNs < b.fromNs;
    });
    if (all.size() > m_limit)
        all.resize(m_limit);
    std::vector<TimeRange> out;
    out.reserve(all.size());
    for (const Stretch& s : all)
        out.push_back({ s.fromNs, s.toNs });
    return out;
}

} // namespace sparkscope::core::detail
