#pragma once
// What the benchmark programs share: the median of repeated runs (the figure they print, steadier
// than the mean on a shared machine).
#include <algorithm>
#include <vector>

namespace sparkscope::bench {

inline double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
}

} // namespace sparkscope::bench
