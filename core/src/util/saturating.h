#pragma once
// Internal to core (not installed). Sums and products of nanoseconds that stop at UINT64_MAX instead
// of wrapping. A damaged trace's times can come near 2^64, and a figure over several engines (the
// ledger's totals, the work) then passes it: wrapped, the whole run's work of one such trace read
// 600 ns beside a span of 2^64 - 553 ns (found by the analysis fuzzer). Saturated, every such figure
// is min(its true value, UINT64_MAX), so the sums between them still hold.
#include <cstdint>

namespace sparkscope::core::detail {

constexpr uint64_t saturatingAdd(uint64_t a, uint64_t b) noexcept { return b > UINT64_MAX - a ? UINT64_MAX : a + b; }
constexpr uint64_t saturatingMul(uint64_t a, uint64_t b) noexcept
{
    return a != 0 && b > UINT64_MAX / a ? UINT64_MAX : a * b;
}

} // namespace sparkscope::core::detail
