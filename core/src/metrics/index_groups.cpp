// IndexGroups (index_groups.h): a counting sort by key. Counting first sizes every group exactly, so
// the members land in one array with no per-group vector growth, and placing the items in increasing
// order keeps each group in item order (the sort is stable).
#include "metrics/index_groups.h"

namespace sparkscope::core::detail {

IndexGroups::IndexGroups(std::span<const uint32_t> keys, size_t groups)
    : m_offsets(groups + 1, 0)
{
    for (uint32_t key : keys)
        if (key < groups)
            ++m_offsets[size_t(key) + 1];
    for (size_t g = 0; g < groups; ++g)
        m_offsets[g + 1] += m_offsets[g];
    m_members.resize(m_offsets[groups]);
    std::vector<size_t> next(m_offsets.begin(), m_offsets.end() - 1);
    for (size_t i = 0; i < keys.size(); ++i)
        if (keys[i] < groups)
            m_members[next[keys[i]]++] = uint32_t(i);
}

} // namespace sparkscope::core::detail
