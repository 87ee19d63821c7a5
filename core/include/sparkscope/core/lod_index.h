#pragma once
// LodIndex: the per-engine level-of-detail pyramid the timeline paints from.
//
// Purpose: answer "how many nanoseconds of [from, to) did engine e spend in each state?" exactly,
// in time that depends on the answer's resolution, not on the number of events. The timeline asks
// it once per pixel column and row, so a zoomed-out frame of a 10-million-event trace costs the
// same as one of a 100-event trace.
//
// Invariants: per engine, the spans are sorted by start, do not overlap and lie inside
// [originNs, endNs]. Every level's bucket sums equal exactly the raw spans' time inside the bucket
// (level L bucket k = level L-1 buckets 2k and 2k+1), so coarse answers are exact aggregates, not
// samples.
//
// Thread safety: immutable after build(); any number of threads may query it.
// Cost: build O(spans + buckets) per engine, engines in parallel (TBB); memory about
// 2 × buckets × states × 8 bytes per engine plus the spans (24 bytes each); busy() is
// O(log spans + levels + spans touching the two partial level-0 buckets at the range's ends).
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace sparkscope::core {

// One interval of one engine in one state. `label` is free for the caller (the timeline stores the
// context id of running spans there).
struct LodSpan {
    uint64_t startNs = 0;
    uint64_t endNs = 0; // exclusive
    uint32_t label = 0;
    uint8_t state = 0; // < LodIndex::stateCount()
};

class LodIndex {
public:
    static constexpr unsigned kMaxStates = 8;
    static constexpr size_t kDefaultMaxBuckets = size_t(1) << 17;

    LodIndex() = default;

    // Builds the pyramid. Spans are sorted, overlaps are clipped (a later-starting span loses its
    // overlapping head), empty spans are dropped and everything is clipped to [originNs, endNs).
    // States >= stateCount are dropped. Level 0 has about one bucket per span, at most maxBuckets.
    static LodIndex build(std::vector<std::vector<LodSpan>> engines, unsigned stateCount, uint64_t originNs,
        uint64_t endNs, size_t maxBuckets = kDefaultMaxBuckets);

    size_t engineCount() const noexcept { return m_engines.size(); }
    unsigned stateCount() const noexcept { return m_states; }
    uint64_t originNs() const noexcept { return m_originNs; }
    uint64_t endNs() const noexcept { return m_endNs; }

    // Nanoseconds engine `engine` spent in each state during [fromNs, toNs); `out` must hold
    // stateCount() values and is overwritten. Exact.
    void busy(size_t engine, uint64_t fromNs, uint64_t toNs, std::span<uint64_t> out) const noexcept;
    // Busy time per state during [originNs, timeNs): the running integral. busy(a, b) equals
    // busyBefore(b) - busyBefore(a), so n adjacent columns cost n + 1 of these calls.
    void busyBefore(size_t engine, uint64_t timeNs, std::span<uint64_t> out) const noexcept;

    // The engine's spans (sorted, disjoint).
    std::span<const LodSpan> spans(size_t engine) const noexcept { return m_engines[engine].spans; }
    // Index of the first span of `engine` that ends after `timeNs` (spans().size() if none).
    size_t firstSpanEndingAfter(size_t engine, uint64_t timeNs) const noexcept;
    // The span containing `timeNs`, or nullptr.
    const LodSpan* spanAt(size_t engine, uint64_t timeNs) const noexcept;

    size_t levelCount(size_t engine) const noexcept { return m_engines[engine].levels.size(); }
    uint64_t bucketWidthNs(size_t level) const noexcept { return m_level0WidthNs << level; }
    size_t bucketCount(size_t engine, size_t level) const noexcept
    {
        return m_engines[engine].levels[level].size() / m_states;
    }
    // Busy time per state of one bucket (stateCount() values).
    std::span<const uint64_t> bucket(size_t engine, size_t level, size_t index) const noexcept
    {
        return { m_engines[engine].levels[level].data() + index * m_states, m_states };
    }
    size_t memoryBytes() const noexcept;

private:
    struct Engine {
        std::vector<LodSpan> spans;
        std::vector<std::vector<uint64_t>> levels; // levels[L][k * states + s]
    };
    void addRaw(const Engine& engine, uint64_t fromNs, uint64_t toNs, std::span<uint64_t> out) const noexcept;

    std::vector<Engine> m_engines;
    unsigned m_states = 0;
    uint64_t m_originNs = 0;
    uint64_t m_endNs = 0;
    uint64_t m_level0WidthNs = 1;
};

} // namespace sparkscope::core
