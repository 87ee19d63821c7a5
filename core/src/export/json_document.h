#pragma once
// Internal to core. A JSON document as SparkScope writes one (the metrics file, analyze, compare,
// scaling, calibrate): two-space indents and a final newline. Text from a trace (INTERN_STRING names,
// marker labels) is bytes, not always UTF-8 in a damaged trace: a byte that is not is written as
// U+FFFD instead of making nlohmann::json throw.
#include <nlohmann/json.hpp>

#include <string>

namespace sparkscope::core::detail {

template <class Json> std::string jsonDocument(const Json& root)
{
    return root.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

} // namespace sparkscope::core::detail
