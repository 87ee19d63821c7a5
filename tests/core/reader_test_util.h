#pragma once
// Helpers for the reader tests: a tiny eventlog byte builder (independent of the writer, so reader
// tests do not depend on it) and ways to compare decoded traces.
#include "sparkscope/core/byte_order.h"
#include "sparkscope/core/trace.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

namespace sparkscope::test {

// Appends eventlog pieces in big-endian order. Event-type descriptions are "type <n>".
class LogBytes {
public:
    std::vector<uint8_t> bytes;

    LogBytes& u8(uint8_t v)
    {
        bytes.push_back(v);
        return *this;
    }
    LogBytes& u16(uint16_t v)
    {
        const size_t at = grow(2);
        core::storeBE16(&bytes[at], v);
        return *this;
    }
    LogBytes& u32(uint32_t v)
    {
        const size_t at = grow(4);
        core::storeBE32(&bytes[at], v);
        return *this;
    }
    LogBytes& u64(uint64_t v)
    {
        const size_t at = grow(8);
        core::storeBE64(&bytes[at], v);
        return *this;
    }
    LogBytes& text(const std::string& s)
    {
        bytes.insert(bytes.end(), s.begin(), s.end());
        return *this;
    }

    // "hdrb hetb (etb num size descLen desc extraLen extra ete)* hete hdre datb"
    LogBytes& header(const std::vector<std::pair<uint16_t, uint16_t>>& types, const std::string& extra = {})
    {
        text("hdrbhetb");
        for (auto [number, size] : types) {
            const std::string desc = "type " + std::to_string(number);
            text(std::string("etb\0", 4)).u16(number).u16(size).u32(uint32_t(desc.size())).text(desc);
            u32(uint32_t(extra.size())).text(extra).text(std::string("ete\0", 4));
        }
        return text("hetehdredatb");
    }
    LogBytes& event(uint16_t type, uint64_t timeNs, const std::vector<uint8_t>& payload = {})
    {
        u16(type).u64(timeNs);
        bytes.insert(bytes.end(), payload.begin(), payload.end());
        return *this;
    }
    LogBytes& variableEvent(uint16_t type, uint64_t timeNs, const std::string& payload)
    {
        return u16(type).u64(timeNs).u16(uint16_t(payload.size())).text(payload);
    }
    // A block marker with size and end time 0, to be patched by endBlock; returns its offset.
    size_t beginBlock(uint16_t engine, uint64_t timeNs)
    {
        const size_t at = bytes.size();
        u16(18).u64(timeNs).u32(0).u64(0).u16(engine);
        return at;
    }
    LogBytes& endBlock(size_t marker, uint64_t endTimeNs)
    {
        core::storeBE32(&bytes[marker + 10], uint32_t(bytes.size() - marker));
        core::storeBE64(&bytes[marker + 14], endTimeNs);
        return *this;
    }
    LogBytes& dataEnd() { return u16(0xFFFF); }

private:
    size_t grow(size_t n)
    {
        bytes.resize(bytes.size() + n);
        return bytes.size() - n;
    }
};

inline std::vector<uint8_t> be32(uint32_t v)
{
    std::vector<uint8_t> b(4);
    core::storeBE32(b.data(), v);
    return b;
}

// Every event of a trace (all engines and global) in file order.
inline std::vector<core::Event> eventsInFileOrder(const core::Trace& trace)
{
    std::vector<core::Event> all(trace.global);
    for (const auto& e : trace.engines)
        all.insert(all.end(), e.begin(), e.end());
    std::sort(all.begin(), all.end(), [](const core::Event& a, const core::Event& b) { return a.offset < b.offset; });
    return all;
}

inline auto eventKey(const core::Event& e)
{
    return std::make_tuple(e.offset, e.timeNs, e.type, e.engine, e.payloadSize, e.headerSize);
}

inline bool sameEvents(const std::vector<core::Event>& a, const std::vector<core::Event>& b)
{
    return std::equal(a.begin(), a.end(), b.begin(), b.end(),
        [](const core::Event& x, const core::Event& y) { return eventKey(x) == eventKey(y); });
}

// Per-engine vectors sorted by time, equal times in file order.
inline bool sortedStably(const std::vector<core::Event>& v)
{
    for (size_t i = 1; i < v.size(); ++i)
        if (v[i - 1].timeNs > v[i].timeNs || (v[i - 1].timeNs == v[i].timeNs && v[i - 1].offset > v[i].offset))
            return false;
    return true;
}

} // namespace sparkscope::test
