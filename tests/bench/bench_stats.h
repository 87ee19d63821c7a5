#pragma once
// What the benchmark programs share: the median of repeated runs (the figure they print, steadier
// than the mean on a shared machine), and the process's CPU time and peak RSS so far.
#include <sys/resource.h>

#include <algorithm>
#include <vector>

namespace sparkscope::bench {

// User + system CPU seconds of the whole process (every thread) so far.
inline double cpuSeconds()
{
    rusage u {};
    ::getrusage(RUSAGE_SELF, &u);
    return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

// The process's peak resident set so far, in KiB.
inline long peakRssKb()
{
    rusage u {};
    ::getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss;
}

inline double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
}

} // namespace sparkscope::bench
