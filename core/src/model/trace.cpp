#include "sparkscope/core/trace.h"

#include <algorithm>

namespace sparkscope::core {

const EventTypeDecl* Header::find(uint16_t number) const noexcept
{
    for (const auto& t : types)
        if (t.number == number)
            return &t;
    return nullptr;
}

int Header::extends(uint16_t number) const noexcept
{
    // Mercury's extra info is a list of (u16 type, u16 size, payload) records; type 1 names the
    // base event as a u16.
    const EventTypeDecl* decl = find(number);
    if (!decl)
        return -1;
    const auto& x = decl->extra;
    auto u16 = [&](size_t at) { return static_cast<uint16_t>((uint8_t(x[at]) << 8) | uint8_t(x[at + 1])); };
    for (size_t at = 0; at + 4 <= x.size();) {
        const uint16_t kind = u16(at), size = u16(at + 2);
        if (kind == 1 && size == 2 && at + 6 <= x.size())
            return u16(at + 4);
        at += 4 + size;
    }
    return -1;
}

void Trace::releaseEvents() noexcept
{
    for (auto& events : engines)
        std::vector<Event>().swap(events);
    std::vector<Event>().swap(global);
    std::vector<EngineMarks>().swap(marks);
    m_bytes.reset();
}

size_t Trace::eventCount() const noexcept
{
    size_t n = global.size();
    for (const auto& e : engines)
        n += e.size();
    for (const auto& m : marks)
        n += m.marks.size();
    return n;
}

bool Trace::hasMarks() const noexcept
{
    for (const auto& m : marks)
        if (!m.marks.empty())
            return true;
    return false;
}

} // namespace sparkscope::core
