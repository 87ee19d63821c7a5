// StepFunction: breakpoints + per-block prefix integrals + max segment tree (see the header for the
// layout). Why block maxima in a segment tree and not a sparse table: a sparse table answers max in
// O(1) but costs n log n memory, too much for a 10-million-breakpoint curve (GHC logs give spark-pool
// curves that long); one maximum per block of 32 steps costs 0.5 byte per step, and a query is two
// partial blocks plus O(log n) tree nodes, plenty for the few thousand ranges the timeline asks per
// frame. Prefix integrals per block rather than per step for the same reason: 8 bytes per step was a
// third of the curve, and finishing an integral inside a block is at most 31 multiply-adds over steps
// the binary search has just brought into cache.
#include "sparkscope/core/step_function.h"

#include <algorithm>
#include <limits>
#include <tbb/parallel_for.h>
#include <tbb/parallel_sort.h>

namespace sparkscope::core {

namespace {
    // Integrals are summed in two's complement (unsigned arithmetic, defined on overflow): a prefix
    // integral can leave int64's range on a trace whose times span centuries (damaged ones do), and
    // a difference of two prefixes, which integral(a, b) is, stays exact whenever it fits itself.
    int64_t area(int64_t value, int64_t lengthNs) noexcept { return int64_t(uint64_t(value) * uint64_t(lengthNs)); }
    int64_t plus(int64_t a, int64_t b) noexcept { return int64_t(uint64_t(a) + uint64_t(b)); }
    int64_t minus(int64_t a, int64_t b) noexcept { return int64_t(uint64_t(a) - uint64_t(b)); }
} // namespace

StepFunction::StepFunction(std::vector<Step> steps, int64_t endNs)
    : m_steps(std::move(steps))
    , m_endNs(endNs)
{
    // Compacted in place: the kept steps never outrun the ones read, so building a curve of millions
    // of steps (GHC spark pools) holds one copy of them, not two.
    size_t kept = 0;
    for (size_t i = 0; i < m_steps.size(); ++i) {
        const Step s = m_steps[i];
        if (s.timeNs >= endNs)
            break;
        if (kept > 0 && m_steps[kept - 1].timeNs == s.timeNs) {
            m_steps[kept - 1].value = s.value; // equal times: the last one wins
            if (kept >= 2 && m_steps[kept - 2].value == s.value)
                --kept;
            continue;
        }
        if (kept > 0 && m_steps[kept - 1].value == s.value)
            continue;
        m_steps[kept++] = s;
    }
    m_steps.resize(kept);
    if (m_steps.size() < m_steps.capacity() / 2)
        m_steps.shrink_to_fit(); // most of the input merged away: do not keep its buffer
    if (m_steps.empty())
        m_endNs = 0;
    buildIndexes();
}

StepFunction StepFunction::fromDeltas(std::vector<Step> deltas, int64_t beginNs, int64_t endNs)
{
    // Deltas often arrive sorted (a per-engine pass); large unsorted ones are sorted in parallel.
    // Equal times are summed, so the sort need not be stable.
    auto byTime = [](const Step& a, const Step& b) { return a.timeNs < b.timeNs; };
    if (!std::is_sorted(deltas.begin(), deltas.end(), byTime)) {
        if (deltas.size() > 100000)
            tbb::parallel_sort(deltas.begin(), deltas.end(), byTime);
        else
            std::sort(deltas.begin(), deltas.end(), byTime);
    }
    // The curve starts at 0 at beginNs: a zero delta there unless the first delta is at (or, clamped,
    // before) beginNs.
    if (deltas.empty() || deltas.front().timeNs > beginNs)
        deltas.insert(deltas.begin(), Step { beginNs, 0 });
    // Running sums written over the deltas in place (step i is written after delta i is read, at an
    // index <= i), equal times summed into one step: no second vector of the curve's size.
    int64_t value = 0;
    size_t written = 0;
    for (size_t i = 0; i < deltas.size(); ++i) {
        const Step d = deltas[i];
        value += d.value;
        const int64_t t = std::max(d.timeNs, beginNs);
        if (written > 0 && deltas[written - 1].timeNs == t)
            deltas[written - 1].value = value;
        else
            deltas[written++] = { t, value };
    }
    deltas.resize(written);
    return StepFunction(std::move(deltas), endNs);
}

StepFunction StepFunction::fromSortedDeltaRuns(std::vector<std::vector<Step>> runs, int64_t beginNs, int64_t endNs)
{
    auto byTime = [](const Step& a, const Step& b) { return a.timeNs < b.timeNs; };
    std::erase_if(runs, [](const std::vector<Step>& r) { return r.empty(); });
    while (runs.size() > 1) {
        std::vector<std::vector<Step>> next((runs.size() + 1) / 2);
        tbb::parallel_for(size_t(0), next.size(), [&](size_t i) {
            if (2 * i + 1 == runs.size()) {
                next[i] = std::move(runs[2 * i]);
                return;
            }
            const auto& a = runs[2 * i];
            const auto& b = runs[2 * i + 1];
            next[i].resize(a.size() + b.size());
            std::merge(a.begin(), a.end(), b.begin(), b.end(), next[i].begin(), byTime);
        });
        runs = std::move(next);
    }
    return fromDeltas(runs.empty() ? std::vector<Step> {} : std::move(runs.front()), beginNs, endNs);
}

StepFunction StepFunction::sum(const std::vector<const StepFunction*>& parts)
{
    std::vector<Step> deltas;
    int64_t begin = std::numeric_limits<int64_t>::max(), end = std::numeric_limits<int64_t>::min();
    for (const StepFunction* f : parts) {
        if (!f || f->empty())
            continue;
        begin = std::min(begin, f->beginNs());
        end = std::max(end, f->endNs());
        int64_t previous = 0;
        for (const Step& s : f->steps()) {
            deltas.push_back({ s.timeNs, s.value - previous });
            previous = s.value;
        }
        deltas.push_back({ f->endNs(), -previous });
    }
    if (deltas.empty())
        return {};
    return fromDeltas(std::move(deltas), begin, end);
}

void StepFunction::buildIndexes()
{
    const size_t n = m_steps.size();
    const size_t blocks = (n + kBlock - 1) / kBlock;
    m_blockPrefix.assign(blocks, 0);
    int64_t integral = 0;
    for (size_t i = 0; i < n; ++i) {
        if (i % kBlock == 0)
            m_blockPrefix[i / kBlock] = integral;
        if (i + 1 < n)
            integral = plus(integral, area(m_steps[i].value, m_steps[i + 1].timeNs - m_steps[i].timeNs));
    }
    // Max index: the maximum of each block of kBlock steps, in an implicit segment tree.
    m_maxTree.assign(2 * blocks, std::numeric_limits<int64_t>::min());
    for (size_t i = 0; i < n; ++i)
        m_maxTree[blocks + i / kBlock] = std::max(m_maxTree[blocks + i / kBlock], m_steps[i].value);
    for (size_t i = blocks; i-- > 1;)
        m_maxTree[i] = std::max(m_maxTree[2 * i], m_maxTree[2 * i + 1]);
}

size_t StepFunction::stepIndex(int64_t t) const noexcept
{
    auto it
        = std::upper_bound(m_steps.begin(), m_steps.end(), t, [](int64_t v, const Step& s) { return v < s.timeNs; });
    return static_cast<size_t>(it - m_steps.begin()) - 1;
}

int64_t StepFunction::valueAt(int64_t t) const noexcept
{
    if (m_steps.empty() || t < beginNs() || t >= m_endNs)
        return 0;
    return m_steps[stepIndex(t)].value;
}

int64_t StepFunction::integralFromBegin(int64_t t) const noexcept
{
    if (m_steps.empty() || t <= beginNs())
        return 0;
    t = std::min(t, m_endNs);
    const size_t i = stepIndex(t);
    // The block's prefix, then the whole steps of the block before step i (contiguous, at most 31).
    int64_t integral = m_blockPrefix[i / kBlock];
    for (size_t k = i - i % kBlock; k < i; ++k)
        integral = plus(integral, area(m_steps[k].value, m_steps[k + 1].timeNs - m_steps[k].timeNs));
    return plus(integral, area(m_steps[i].value, t - m_steps[i].timeNs));
}

int64_t StepFunction::integral(int64_t a, int64_t b) const noexcept
{
    if (b <= a)
        return 0;
    return minus(integralFromBegin(b), integralFromBegin(a));
}

int64_t StepFunction::max(int64_t a, int64_t b) const noexcept
{
    if (m_steps.empty())
        return 0;
    a = std::max(a, beginNs());
    b = std::min(b, m_endNs);
    if (b <= a)
        return 0;
    const size_t first = stepIndex(a), last = stepIndex(b - 1); // steps [first, last]
    int64_t best = std::numeric_limits<int64_t>::min();
    const size_t firstBlock = first / kBlock, lastBlock = last / kBlock;
    if (lastBlock - firstBlock < 2) {
        for (size_t i = first; i <= last; ++i)
            best = std::max(best, m_steps[i].value);
        return best;
    }
    // Partial blocks at both ends step by step, whole blocks in between through the tree.
    for (size_t i = first; i < (firstBlock + 1) * kBlock; ++i)
        best = std::max(best, m_steps[i].value);
    for (size_t i = lastBlock * kBlock; i <= last; ++i)
        best = std::max(best, m_steps[i].value);
    const size_t blocks = m_maxTree.size() / 2;
    size_t lo = firstBlock + 1 + blocks, hi = lastBlock + blocks; // tree leaves [lo, hi)
    while (lo < hi) {
        if (lo & 1)
            best = std::max(best, m_maxTree[lo++]);
        if (hi & 1)
            best = std::max(best, m_maxTree[--hi]);
        lo >>= 1;
        hi >>= 1;
    }
    return best;
}

double StepFunction::average(int64_t a, int64_t b) const noexcept
{
    if (b <= a)
        return 0.0;
    return static_cast<double>(integral(a, b)) / static_cast<double>(b - a);
}

std::map<int64_t, int64_t> StepFunction::timeAtEachValue(int64_t a, int64_t b) const
{
    std::map<int64_t, int64_t> out;
    if (m_steps.empty())
        return out;
    a = std::max(a, beginNs());
    b = std::min(b, m_endNs);
    if (b <= a)
        return out;
    for (size_t i = stepIndex(a); i < m_steps.size() && m_steps[i].timeNs < b; ++i) {
        const int64_t from = std::max(a, m_steps[i].timeNs);
        const int64_t to = std::min(b, i + 1 < m_steps.size() ? m_steps[i + 1].timeNs : m_endNs);
        if (to > from)
            out[m_steps[i].value] += to - from;
    }
    return out;
}

StepRangeSummary::StepRangeSummary(int64_t beginNs, int64_t endNs, int64_t fromNs, int64_t toNs) noexcept
    : m_endNs(endNs)
    , m_rangeFromNs(fromNs)
    , m_rangeToNs(toNs)
    , m_fromNs(std::max(fromNs, beginNs))
    , m_toNs(std::min(toNs, endNs))
    , m_currentNs(beginNs)
{
}

void StepRangeSummary::close(int64_t untilNs) noexcept
{
    // Only pieces of positive length inside the range count, as StepFunction::max looks only at
    // the steps whose intervals meet the range.
    const int64_t lo = std::max(m_currentNs, m_fromNs), hi = std::min(untilNs, m_toNs);
    if (hi <= lo)
        return;
    m_max = m_seen ? std::max(m_max, m_value) : m_value;
    m_seen = true;
    m_integral = plus(m_integral, area(m_value, hi - lo));
}

void StepRangeSummary::add(int64_t timeNs, int64_t delta) noexcept
{
    timeNs = std::max(timeNs, m_currentNs); // before beginNs: counts at beginNs
    if (timeNs >= m_endNs)
        return;
    if (timeNs != m_currentNs) {
        close(timeNs);
        m_currentNs = timeNs;
    }
    m_value += delta;
}

int64_t StepRangeSummary::max() noexcept
{
    if (!m_finished) {
        close(m_endNs);
        m_finished = true;
    }
    return m_max;
}

int64_t StepRangeSummary::integral() noexcept
{
    max();
    return m_integral;
}

double StepRangeSummary::average() noexcept
{
    if (m_rangeToNs <= m_rangeFromNs)
        return 0.0;
    return static_cast<double>(integral()) / static_cast<double>(m_rangeToNs - m_rangeFromNs);
}

} // namespace sparkscope::core
