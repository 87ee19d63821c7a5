#pragma once
// One CSV field as RFC 4180 writes it: quoted (with quotes doubled) only when it holds a comma, a
// quote or a line break. Shared by the metrics file's CSV and the comparison's CSV.

#include <string>

namespace sparkscope::core::detail {

inline std::string csvField(const std::string& s)
{
    if (s.find_first_of(",\"\n\r") == std::string::npos)
        return s;
    std::string out = "\"";
    for (char c : s) {
        if (c == '"')
            out += '"';
        out += c;
    }
    return out + "\"";
}

} // namespace sparkscope::core::detail
