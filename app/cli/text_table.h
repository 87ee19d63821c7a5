#pragma once
// Text reports of sparkscope-cli (analyze, compare, scaling): aligned tables and the number formats
// they print, so every report reads the same in a terminal.
#include "cli/cli_common.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace sparkscope::cli {

inline std::string format(const char* fmt, double v)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, fmt, v);
    return buf;
}
inline std::string seconds(uint64_t ns) { return format("%.6f", double(ns) / 1e9); }

// The unit a report's tables write durations in: the largest of s, ms, us and ns that the run lasts
// at least one of, so that a run of microseconds does not read 0.000000 s throughout; with the
// decimals that keep nanoseconds (seconds keep microseconds, six decimals).
struct TimeUnit {
    double nsPerUnit = 1e9;
    const char* name = "s";
    const char* fmt = "%.6f";

    static TimeUnit forRun(uint64_t runNs)
    {
        if (runNs >= 1000000000)
            return { 1e9, "s", "%.6f" };
        if (runNs >= 1000000)
            return { 1e6, "ms", "%.6f" };
        if (runNs >= 1000)
            return { 1e3, "us", "%.3f" };
        return { 1, "ns", "%.0f" };
    }
    std::string operator()(uint64_t ns) const { return format(fmt, double(ns) / nsPerUnit); }
    // "seconds" for the tables' column heads, else the unit's symbol.
    std::string header() const { return nsPerUnit == 1e9 ? "seconds" : name; }
};
// A duration for prose, in the unit that reads best: "190 ns", "19.7 us", "8.47 ms", "2.351 s" (the
// tables keep seconds, one unit per column; a microsecond run's figures there are all 0.000000).
inline std::string duration(uint64_t ns)
{
    if (ns < 1000)
        return std::to_string(ns) + " ns";
    if (ns >= 1000000000)
        return format("%.3f s", double(ns) / 1e9);
    const bool micro = ns < 1000000;
    const double v = double(ns) / (micro ? 1e3 : 1e6);
    return format(v < 10 ? "%.2f" : v < 100 ? "%.1f" : "%.0f", v) + (micro ? " us" : " ms");
}
// "1 engine", "2 engines".
inline std::string counted(uint64_t n, const char* what)
{
    return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}
inline std::string percent(uint64_t part, uint64_t whole)
{
    return format("%.2f", whole ? 100.0 * double(part) / double(whole) : 0.0);
}

// A text table: the first column left-aligned, the others right-aligned, each as wide as its widest cell.
class Table {
public:
    void row(std::vector<std::string> cells) { m_rows.push_back(std::move(cells)); }
    bool empty() const noexcept { return m_rows.empty(); }
    void appendTo(std::string& out) const
    {
        std::vector<size_t> width;
        for (const auto& r : m_rows) {
            width.resize(std::max(width.size(), r.size()), 0);
            for (size_t i = 0; i < r.size(); ++i)
                width[i] = std::max(width[i], r[i].size());
        }
        for (const auto& r : m_rows) {
            out += "  ";
            for (size_t i = 0; i < r.size(); ++i) {
                appendPadded(out, r[i], width[i], i > 0);
                out += i + 1 < r.size() ? "  " : "\n";
            }
        }
    }

private:
    std::vector<std::vector<std::string>> m_rows;
};

} // namespace sparkscope::cli
