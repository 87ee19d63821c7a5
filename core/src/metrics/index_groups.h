#pragma once
// Internal to core (not installed). IndexGroups: items 0..n-1 (conjunction instances, futures) sorted
// into groups by a dense key with one stable counting sort. computeMetrics summarises each group by
// reading its members' figures where they already are (the model, the descendant pass) instead of
// looking each item's group up in a map and copying its values into a vector per group and metric;
// members in item order, which the --instances listing follows.
//
// Invariants: members(g) is increasing; an item whose key is below groupCount() is in exactly that
// group; any other key (kNoGroup) leaves the item out. Cost: O(n + groups) time, two passes over the
// keys; 4 bytes per grouped item. Immutable after construction: safe to read from many threads.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace sparkscope::core::detail {

class IndexGroups {
public:
    static constexpr uint32_t kNoGroup = 0xFFFFFFFF;

    IndexGroups() = default;
    // keys[i] is item i's group, in [0, groups), or anything else to leave item i out.
    IndexGroups(std::span<const uint32_t> keys, size_t groups);

    size_t groupCount() const noexcept { return m_offsets.empty() ? 0 : m_offsets.size() - 1; }
    std::span<const uint32_t> members(size_t group) const noexcept
    {
        return { m_members.data() + m_offsets[group], m_offsets[group + 1] - m_offsets[group] };
    }

private:
    std::vector<size_t> m_offsets; // groups + 1: members of g are m_members[m_offsets[g], m_offsets[g + 1])
    std::vector<uint32_t> m_members;
};

} // namespace sparkscope::core::detail
