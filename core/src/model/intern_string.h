#pragma once
// Internal to core. INTERN_STRING(text, id) as the model reads it: the text before the u32 id in the
// payload's last 4 bytes, without trailing NULs. Read by the model builder and by the comparison's
// one-pass conjunction starts (conjunction_starts.cpp).
#include "sparkscope/core/event.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace sparkscope::core::detail {

// {id, text}, or nothing for a payload too short to hold an id.
inline std::optional<std::pair<uint32_t, std::string>> internedString(Payload p)
{
    if (p.size() < 4)
        return std::nullopt;
    std::string_view text = p.text(0).substr(0, p.size() - 4);
    while (!text.empty() && text.back() == '\0')
        text.remove_suffix(1);
    return std::pair { p.u32(p.size() - 4), std::string(text) };
}

} // namespace sparkscope::core::detail
