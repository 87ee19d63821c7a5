#pragma once
// Result<T>: the value of a fallible core call, or an Error that says what failed and, for file
// errors, at which byte offset. core and runtime never throw across their public API.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace sparkscope::core {

enum class ErrorCode {
    Io, // cannot open or read the file
    BadFormat, // not an eventlog, or a header that contradicts itself
    UndeclaredEvent, // an event number the header did not declare
    AbsurdSize, // a size field no real eventlog has
    Cancelled, // the caller asked to stop
    Usage, // bad arguments
    Unsupported, // input this path cannot take (e.g. a compressed file to memory-map)
};

struct Error {
    ErrorCode code = ErrorCode::BadFormat;
    std::string message;
    std::optional<uint64_t> byteOffset; // for file errors: where in the (decompressed) stream

    // "message (at byte N)" — what the CLI and the UI print.
    std::string toString() const
    {
        if (!byteOffset)
            return message;
        return message + " (at byte " + std::to_string(*byteOffset) + ")";
    }
};

template <class T>
class [[nodiscard]] Result {
public:
    Result(T value)
        : m_v(std::move(value))
    {
    }
    Result(Error error)
        : m_v(std::move(error))
    {
    }

    bool ok() const { return m_v.index() == 0; }
    explicit operator bool() const { return ok(); }
    T& value() & { return std::get<0>(m_v); }
    const T& value() const& { return std::get<0>(m_v); }
    T&& value() && { return std::get<0>(std::move(m_v)); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    const Error& error() const { return std::get<1>(m_v); }

private:
    std::variant<T, Error> m_v;
};

} // namespace sparkscope::core
