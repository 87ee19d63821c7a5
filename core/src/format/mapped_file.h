#pragma once
// MappedFile: a read-only memory mapping of a whole file, for the passes that walk a file too big to
// read into memory (streamTrace, completePrefixOfFile): they touch a window at a time and hand each
// walked window's pages back (release), so memory does not grow with the file.
//
// A file that shrinks while it is mapped (a followed trace truncated or rewritten by its writer)
// would kill the process the moment a page past its new end is touched (SIGBUS). Every MappedFile's
// range is registered with a SIGBUS handler (mapped_file.cpp) that puts a page of zeros in place of
// the vanished one and lets the read go on; the passes check `unchanged()` after each range they
// decode and drop what they read from it, so the zeros are never shown, and they report the change.
#include "sparkscope/core/result.h"

#include <boost/iostreams/device/mapped_file.hpp>

#include <cstdint>
#include <exception>
#include <filesystem>
#include <span>
#include <string>
#include <utility>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace sparkscope::core::detail {

// Registers [begin, end) with the SIGBUS handler (installed on first use); returns the slot to
// unregister, or -1 when every slot is taken (the range is then unguarded, as before). Slots: a few
// dozen, more than the app and a CLI command map at once.
int guardMapping(const void* begin, size_t bytes) noexcept;
void unguardMapping(int slot) noexcept;
// How many vanished pages the handler has replaced with zeros (for the tests).
uint64_t zeroedMappedPages() noexcept;

// A read-only mapping of a whole file; an empty file maps to an empty span.
class MappedFile {
public:
    MappedFile() = default;
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;
    // (boost's mapped_file_source is a shared handle: copying it shares the mapping, which is
    // unmapped when the last handle lets go; a moved-from MappedFile lets go of its handle.)
    MappedFile(MappedFile&& other) noexcept
        : m_file(std::exchange(other.m_file, {}))
        , m_slot(std::exchange(other.m_slot, -1))
    {
    }
    MappedFile& operator=(MappedFile&& other) noexcept
    {
        if (this != &other) {
            close();
            m_file = std::exchange(other.m_file, {});
            m_slot = std::exchange(other.m_slot, -1);
        }
        return *this;
    }
    ~MappedFile() { close(); }

    Result<std::span<const uint8_t>> open(const std::string& path)
    {
        close();
        std::error_code ec;
        const uint64_t size = std::filesystem::file_size(path, ec);
        if (ec)
            return Error { ErrorCode::Io, "cannot open " + path + ": " + ec.message(), std::nullopt };
        if (size == 0)
            return std::span<const uint8_t> {};
        try {
            m_file.open(path);
        } catch (const std::exception& e) {
            return Error { ErrorCode::Io, "cannot map " + path + ": " + e.what(), std::nullopt };
        }
        m_slot = guardMapping(m_file.data(), m_file.size());
        return bytes();
    }
    std::span<const uint8_t> bytes() const noexcept
    {
        if (!m_file.is_open())
            return {};
        return { reinterpret_cast<const uint8_t*>(m_file.data()), m_file.size() };
    }
    // Whether the file still has the size it was mapped with. A pass asks after each range it
    // reads: when the file shrank, pages past its new end read as zeros (see the top of this file),
    // so what was read from the range is dropped.
    bool unchanged(const std::string& path) const
    {
        std::error_code ec;
        return !m_file.is_open() || std::filesystem::file_size(path, ec) >= m_file.size();
    }
    // Hands the pages wholly inside [from, to) back to the kernel. The mapping stays valid: a
    // later read maps them again from the page cache (or the disk).
    void release(uint64_t from, uint64_t to) const noexcept
    {
#if defined(__linux__)
        static const uint64_t page = uint64_t(::sysconf(_SC_PAGESIZE));
        const uint64_t a = (from + page - 1) / page * page, b = to / page * page;
        if (m_file.is_open() && b > a)
            ::madvise(const_cast<char*>(m_file.data()) + a, b - a, MADV_DONTNEED);
#else
        (void)from;
        (void)to;
#endif
    }

private:
    void close() noexcept
    {
        // Unguarded before it is unmapped: the range may be mapped again by someone else.
        unguardMapping(std::exchange(m_slot, -1));
        m_file = {};
    }

    boost::iostreams::mapped_file_source m_file;
    int m_slot = -1;
};

} // namespace sparkscope::core::detail
