// The Chrome Trace Event Format's JSON written by hand (chrome_trace.cpp says why): string literals,
// numbers, microseconds, the document buffer, an event's head, and one thread's slices.
#pragma once

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>

namespace sparkscope::core::detail::chrome {

// A JSON string literal (quotes included) for arbitrary bytes.
inline std::string jsonString(std::string_view text)
{
    return nlohmann::json(std::string(text)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

inline void appendUnsigned(std::string& out, uint64_t v)
{
    char digits[24];
    const auto end = std::to_chars(digits, digits + sizeof digits, v).ptr;
    out.append(digits, end);
}

// Nanoseconds as microseconds: "12", "12.5", "12.345" (exact; trailing zeros dropped).
inline void appendMicros(std::string& out, uint64_t ns)
{
    appendUnsigned(out, ns / 1000);
    unsigned rest = unsigned(ns % 1000);
    if (rest == 0)
        return;
    char frac[4] = { '.', char('0' + rest / 100), char('0' + rest / 10 % 10), char('0' + rest % 10) };
    size_t n = 4;
    while (frac[n - 1] == '0')
        --n;
    out.append(frac, n);
}

// The document being written: a buffer flushed to the stream in large chunks.
class JsonOut {
public:
    explicit JsonOut(std::ostream& out)
        : m_out(out)
    {
        m_buf.reserve(kChunk + 4096);
    }
    std::string& buf() noexcept { return m_buf; }
    // Starts the next element of traceEvents (one per line).
    std::string& event()
    {
        if (m_buf.size() >= kChunk)
            flush();
        m_buf += m_first ? "\n" : ",\n";
        m_first = false;
        return m_buf;
    }
    void flush()
    {
        m_out.write(m_buf.data(), std::streamsize(m_buf.size()));
        m_bytes += m_buf.size();
        m_buf.clear();
    }
    uint64_t bytes() const noexcept { return m_bytes; }

private:
    static constexpr size_t kChunk = size_t(1) << 20;
    std::ostream& m_out;
    std::string m_buf;
    uint64_t m_bytes = 0;
    bool m_first = true;
};

struct Ids {
    uint32_t pid, tid;
};

inline void appendHead(std::string& b, char ph, Ids ids)
{
    b += "{\"ph\":\"";
    b += ph;
    b += "\",\"pid\":";
    appendUnsigned(b, ids.pid);
    b += ",\"tid\":";
    appendUnsigned(b, ids.tid);
}

// The slices of one thread: never overlapping, never empty (a start before the previous end is
// moved to it: only a damaged trace has such states).
class Track {
public:
    Track(JsonOut& out, Ids ids, uint64_t& count)
        : m_out(out)
        , m_ids(ids)
        , m_count(count)
    {
    }
    // `name`: a JSON string literal; `args`: the members of the args object, or empty.
    void slice(uint64_t startNs, uint64_t endNs, std::string_view name, std::string_view args)
    {
        startNs = std::max(startNs, m_endNs);
        if (endNs <= startNs)
            return;
        m_endNs = endNs;
        std::string& b = m_out.event();
        appendHead(b, 'X', m_ids);
        b += ",\"ts\":";
        appendMicros(b, startNs);
        b += ",\"dur\":";
        appendMicros(b, endNs - startNs);
        b += ",\"name\":";
        b += name;
        if (!args.empty()) {
            b += ",\"args\":{";
            b += args;
            b += '}';
        }
        b += '}';
        ++m_count;
    }

private:
    JsonOut& m_out;
    Ids m_ids;
    uint64_t& m_count;
    uint64_t m_endNs = 0;
};

} // namespace sparkscope::core::detail::chrome
