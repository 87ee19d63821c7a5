#pragma once
// MappedFile: a read-only memory mapping of a whole file, for the passes that walk a file too big to
// read into memory (streamTrace, completePrefixOfFile): they touch a window at a time and hand each
// walked window's pages back (release), so memory does not grow with the file.
//
// A file that shrinks while it is mapped (a followed trace truncated or rewritten by its writer)
// would kill the process the moment a page past its new end is touched (SIGBUS). Each MappedFile's
// range is registered with a SIGBUS handler (mapped_file.cpp) that puts a page of zeros in place of
// the vanished one, counts it, and lets the read go on. A pass asks `unchanged()` after each range
// it reads and before it trusts what it made of it (and `lostPages()` while it reads, to stop
// early): a mapping that lost pages is never unchanged, so what was read from zeros is dropped and
// the shrinking reported. (64 mappings at once are guarded; one past that is not, as before.)
#include "sparkscope/core/result.h"

#include <boost/iostreams/device/mapped_file.hpp>

#include <cstdint>
#include <exception>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <utility>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace sparkscope::core::detail {

// Registers [begin, begin + bytes) with the SIGBUS handler (installed on first use); returns the
// slot to unregister, or -1 when every slot is taken (the range is then unguarded, as before).
// unguardMapping waits for a handler running in the slot, so the range can be unmapped after it.
int guardMapping(const void* begin, size_t bytes) noexcept;
void unguardMapping(int slot) noexcept;
// Pages of the slot's mapping replaced with zeros since it was registered (0 for slot -1).
uint64_t zeroedPages(int slot) noexcept;
// Pages replaced with zeros in every mapping so far (for the tests).
uint64_t zeroedMappedPages() noexcept;

// A read-only mapping of a whole file; an empty file maps to an empty span.
class MappedFile {
public:
    MappedFile() = default;
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;
    MappedFile(MappedFile&& other) noexcept
        : m_file(std::move(other.m_file))
        , m_slot(std::exchange(other.m_slot, -1))
    {
    }
    MappedFile& operator=(MappedFile&& other) noexcept
    {
        if (this != &other) {
            close();
            m_file = std::move(other.m_file);
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
            m_file = std::make_unique<boost::iostreams::mapped_file_source>(path);
        } catch (const std::exception& e) {
            m_file.reset();
            return Error { ErrorCode::Io, "cannot map " + path + ": " + e.what(), std::nullopt };
        }
        m_slot = guardMapping(m_file->data(), m_file->size());
        return bytes();
    }
    std::span<const uint8_t> bytes() const noexcept
    {
        if (!m_file || !m_file->is_open())
            return {};
        return { reinterpret_cast<const uint8_t*>(m_file->data()), m_file->size() };
    }
    // Whether pages of the mapping have vanished (the file shrank) and read as zeros.
    bool lostPages() const noexcept { return zeroedPages(m_slot) != 0; }
    // Whether the file still has the size it was mapped with. A pass asks after each range it
    // reads: when the file shrank, pages past its new end read as zeros (see the top of this file),
    // so what was read from the range is dropped.
    bool unchanged(const std::string& path) const
    {
        if (!m_file || !m_file->is_open())
            return true;
        std::error_code ec;
        return !lostPages() && std::filesystem::file_size(path, ec) >= m_file->size();
    }
    // Hands the pages wholly inside [from, to) back to the kernel. The mapping stays valid: a
    // later read maps them again from the page cache (or the disk).
    void release(uint64_t from, uint64_t to) const noexcept
    {
#if defined(__linux__)
        static const uint64_t page = uint64_t(::sysconf(_SC_PAGESIZE));
        const uint64_t a = (from + page - 1) / page * page, b = to / page * page;
        if (m_file && m_file->is_open() && b > a)
            ::madvise(const_cast<char*>(m_file->data()) + a, b - a, MADV_DONTNEED);
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
        m_file.reset();
    }

    std::unique_ptr<boost::iostreams::mapped_file_source> m_file;
    int m_slot = -1;
};

} // namespace sparkscope::core::detail
