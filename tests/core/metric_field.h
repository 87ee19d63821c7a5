#pragma once
// Reading one field of a computed metric in tests: field(m, "scheduling", "all", "OUT_OF_ORDER_PROBABILITY",
// "out_of_order_ns"). Fails the current test when the metric or the field is missing.
#include "sparkscope/core/metrics.h"

#include <catch2/catch.hpp>

#include <string>
#include <variant>

namespace sparkscope::test {

inline double field(const core::Metrics& m, const std::string& section, const std::string& id, const std::string& key,
    const std::string& name)
{
    const core::MetricValue* v = m.find(section, id, key);
    INFO(section << "/" << id << "/" << key << "." << name);
    REQUIRE(v);
    for (const auto& [k, x] : v->fields)
        if (k == name)
            return std::holds_alternative<int64_t>(x) ? double(std::get<int64_t>(x)) : std::get<double>(x);
    FAIL("no field " << name);
    return 0;
}

} // namespace sparkscope::test
