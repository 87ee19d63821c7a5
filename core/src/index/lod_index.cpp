// Level-of-detail pyramid (see lod_index.h).
//
// Why a pyramid of exact sums rather than ThreadScope's duration tree: ThreadScope splits its
// duration list at time midpoints and, for a node narrower than a few pixels, draws "some running"
// as a full bar and spreads totals uniformly, so a zoomed-out view can show an engine busy that was
// busy 1% of the pixel. Here every bucket holds the exact nanoseconds per state inside it, and a
// query [from, to) is answered as
//     raw spans in [from, a) + aligned buckets covering [a, b) + raw spans in [b, to)
// where a and b are `from` rounded up and `to` rounded down to level-0 bucket boundaries. The
// aligned part is the classic bottom-up segment-tree walk (at most two buckets per level), and the
// two raw ends touch only the spans inside one level-0 bucket each. Level 0 is sized to about one
// bucket per span, so that is a handful of spans; memory stays bounded by maxBuckets.
#include "sparkscope/core/lod_index.h"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <bit>

namespace sparkscope::core {

namespace {

    void normalise(std::vector<LodSpan>& spans, unsigned states, uint64_t originNs, uint64_t endNs)
    {
        std::stable_sort(
            spans.begin(), spans.end(), [](const LodSpan& a, const LodSpan& b) { return a.startNs < b.startNs; });
        size_t out = 0;
        uint64_t lastEnd = originNs;
        for (LodSpan s : spans) {
            if (s.state >= states)
                continue;
            s.startNs = std::max({ s.startNs, lastEnd, originNs });
            s.endNs = std::min(s.endNs, endNs);
            if (s.endNs <= s.startNs)
                continue;
            lastEnd = s.endNs;
            spans[out++] = s;
        }
        spans.resize(out);
    }

} // namespace

LodIndex LodIndex::build(std::vector<std::vector<LodSpan>> engines, unsigned stateCount, uint64_t originNs,
    uint64_t endNs, size_t maxBuckets)
{
    LodIndex index;
    index.m_states = std::clamp(stateCount, 1u, kMaxStates);
    index.m_originNs = originNs;
    index.m_endNs = std::max(endNs, originNs + 1);
    const uint64_t durationNs = index.m_endNs - originNs;

    index.m_engines.resize(engines.size());
    tbb::parallel_for(size_t(0), engines.size(), [&](size_t e) {
        normalise(engines[e], index.m_states, originNs, index.m_endNs);
        index.m_engines[e].spans = std::move(engines[e]);
    });

    size_t maxSpans = 1;
    for (const auto& e : index.m_engines)
        maxSpans = std::max(maxSpans, e.spans.size());
    const uint64_t wanted
        = std::min<uint64_t>({ std::bit_ceil(maxSpans), std::max<size_t>(maxBuckets, 1), durationNs });
    index.m_level0WidthNs = (durationNs + wanted - 1) / wanted;
    const size_t level0Count = size_t((durationNs + index.m_level0WidthNs - 1) / index.m_level0WidthNs);
    const unsigned S = index.m_states;
    const uint64_t w0 = index.m_level0WidthNs;

    tbb::parallel_for(size_t(0), index.m_engines.size(), [&](size_t e) {
        Engine& engine = index.m_engines[e];
        std::vector<uint64_t> level(level0Count * S, 0);
        for (const LodSpan& s : engine.spans) {
            // Distribute the span over the level-0 buckets it touches.
            uint64_t t = s.startNs;
            size_t k = size_t((t - originNs) / w0);
            while (t < s.endNs) {
                const uint64_t bucketEnd = originNs + (k + 1) * w0;
                const uint64_t stop = std::min(bucketEnd, s.endNs);
                level[k * S + s.state] += stop - t;
                t = stop;
                ++k;
            }
        }
        engine.levels.push_back(std::move(level));
        while (engine.levels.back().size() > S) {
            const auto& below = engine.levels.back();
            const size_t n = below.size() / S;
            std::vector<uint64_t> above(((n + 1) / 2) * S, 0);
            for (size_t k = 0; k < n; ++k)
                for (unsigned st = 0; st < S; ++st)
                    above[(k / 2) * S + st] += below[k * S + st];
            engine.levels.push_back(std::move(above));
        }
    });
    return index;
}

size_t LodIndex::firstSpanEndingAfter(size_t engine, uint64_t timeNs) const noexcept
{
    const auto& spans = m_engines[engine].spans;
    // Spans are disjoint and sorted by start, so their ends are sorted too.
    return size_t(std::upper_bound(spans.begin(), spans.end(), timeNs, [](uint64_t t, const LodSpan& s) {
        return t < s.endNs;
    }) - spans.begin());
}

const LodSpan* LodIndex::spanAt(size_t engine, uint64_t timeNs) const noexcept
{
    if (engine >= m_engines.size())
        return nullptr;
    const auto& spans = m_engines[engine].spans;
    const size_t i = firstSpanEndingAfter(engine, timeNs);
    if (i < spans.size() && spans[i].startNs <= timeNs)
        return &spans[i];
    return nullptr;
}

void LodIndex::addRaw(const Engine& engine, uint64_t fromNs, uint64_t toNs, std::span<uint64_t> out) const noexcept
{
    if (fromNs >= toNs)
        return;
    const auto& spans = engine.spans;
    auto it = std::upper_bound(
        spans.begin(), spans.end(), fromNs, [](uint64_t t, const LodSpan& s) { return t < s.endNs; });
    for (; it != spans.end() && it->startNs < toNs; ++it)
        out[it->state] += std::min(it->endNs, toNs) - std::max(it->startNs, fromNs);
}

void LodIndex::busy(size_t engine, uint64_t fromNs, uint64_t toNs, std::span<uint64_t> out) const noexcept
{
    std::fill(out.begin(), out.end(), 0);
    if (engine >= m_engines.size() || out.size() < m_states)
        return;
    fromNs = std::max(fromNs, m_originNs);
    toNs = std::min(toNs, m_endNs);
    if (fromNs >= toNs)
        return;
    const Engine& e = m_engines[engine];
    const uint64_t w0 = m_level0WidthNs;
    size_t k0 = size_t((fromNs - m_originNs + w0 - 1) / w0); // first whole bucket
    size_t k1 = size_t((toNs - m_originNs) / w0); // one past the last whole bucket
    if (toNs == m_endNs)
        k1 = e.levels.empty() ? 0 : e.levels[0].size() / m_states; // the last bucket may be short
    if (k0 >= k1) {
        addRaw(e, fromNs, toNs, out);
        return;
    }
    const uint64_t a = m_originNs + k0 * w0;
    const uint64_t b = std::min(m_originNs + k1 * w0, m_endNs);
    addRaw(e, fromNs, a, out);
    addRaw(e, b, toNs, out);
    auto add = [&](size_t level, size_t k) {
        const uint64_t* cell = e.levels[level].data() + k * m_states;
        for (unsigned s = 0; s < m_states; ++s)
            out[s] += cell[s];
    };
    for (size_t level = 0; k0 < k1; ++level) {
        if (k0 & 1)
            add(level, k0++);
        if (k1 & 1)
            add(level, --k1);
        k0 >>= 1;
        k1 >>= 1;
    }
}

void LodIndex::busyBefore(size_t engine, uint64_t timeNs, std::span<uint64_t> out) const noexcept
{
    std::fill(out.begin(), out.end(), 0);
    if (engine >= m_engines.size() || out.size() < m_states || timeNs <= m_originNs)
        return;
    timeNs = std::min(timeNs, m_endNs);
    const Engine& e = m_engines[engine];
    const size_t count = e.levels.empty() ? 0 : e.levels[0].size() / m_states;
    size_t k = std::min(count, size_t((timeNs - m_originNs) / m_level0WidthNs)); // whole buckets before t
    addRaw(e, std::min(m_originNs + k * m_level0WidthNs, m_endNs), timeNs, out);
    // Buckets [0, k): one bucket per set bit of k, from the coarsest level down.
    size_t start = 0;
    for (size_t level = e.levels.size(); level-- > 0;) {
        if (k & (size_t(1) << level)) {
            const uint64_t* cell = e.levels[level].data() + (start >> level) * m_states;
            for (unsigned s = 0; s < m_states; ++s)
                out[s] += cell[s];
            start += size_t(1) << level;
        }
    }
}

size_t LodIndex::memoryBytes() const noexcept
{
    size_t bytes = sizeof(*this);
    for (const auto& e : m_engines) {
        bytes += e.spans.capacity() * sizeof(LodSpan);
        for (const auto& l : e.levels)
            bytes += l.capacity() * sizeof(uint64_t);
    }
    return bytes;
}

} // namespace sparkscope::core
