#pragma once
// MappedFile: a read-only memory mapping of a whole file, for the passes that walk a file too big to
// read into memory (streamTrace, completePrefixOfFile): they touch a window at a time and hand each
// walked window's pages back (release), so memory does not grow with the file.
#include "sparkscope/core/result.h"

#include <boost/iostreams/device/mapped_file.hpp>

#include <cstdint>
#include <exception>
#include <filesystem>
#include <span>
#include <string>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace sparkscope::core::detail {

// A read-only mapping of a whole file; an empty file maps to an empty span.
class MappedFile {
public:
    Result<std::span<const uint8_t>> open(const std::string& path)
    {
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
        return bytes();
    }
    std::span<const uint8_t> bytes() const noexcept
    {
        if (!m_file.is_open())
            return {};
        return { reinterpret_cast<const uint8_t*>(m_file.data()), m_file.size() };
    }
    // Whether the file still has the size it was mapped with. Touching a mapped page past the
    // end of a file that shrank kills the process (SIGBUS): the pass checks between ranges.
    // (A file cut while one range is being decoded can still do it; a program rewriting its
    // eventlog while SparkScope opens it is the case, and the window is one range.)
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
    boost::iostreams::mapped_file_source m_file;
};

} // namespace sparkscope::core::detail
