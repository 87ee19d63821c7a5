// DecompressedFile (decompressed_file.h): the reader's decompression chain (reader_input.h) writing
// through the descriptor of a temporary file made with mkstemps (its name cannot collide with
// another's) whose name is removed before anything is written.
#include "sparkscope/core/decompressed_file.h"

#include "format/reader_input.h"

#include <boost/iostreams/device/file_descriptor.hpp>
#include <boost/iostreams/stream.hpp>

#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace sparkscope::core {

Compression compressionOf(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    uint8_t magic[4] = {};
    in.read(reinterpret_cast<char*>(magic), sizeof magic);
    return detail::detectCompression({ magic, size_t(in.gcount()) });
}

Result<std::shared_ptr<const DecompressedFile>> DecompressedFile::ifCompressed(
    const std::string& path, const std::atomic<bool>* cancel)
{
    if (compressionOf(path) == Compression::None)
        return std::shared_ptr<const DecompressedFile>();
    return create(path, cancel);
}

Result<std::shared_ptr<const DecompressedFile>> DecompressedFile::create(
    const std::string& path, const std::atomic<bool>* cancel, const std::function<void(uint64_t, uint64_t)>& progress)
{
    std::error_code ec;
    const uint64_t sourceBytes = std::filesystem::file_size(path, ec);
    if (ec)
        return Error { ErrorCode::Io, "cannot open " + path + ": " + ec.message(), std::nullopt };
    const std::filesystem::path dir = std::filesystem::temp_directory_path(ec); // $TMPDIR, else /tmp
    if (ec)
        return Error { ErrorCode::Io, "no temporary directory for the decompressed copy of " + path + ": " + ec.message(),
            std::nullopt };
    std::string name = (dir / "sparkscope-XXXXXX.eventlog").string();
    const int fd = ::mkstemps(name.data(), int(std::string_view(".eventlog").size()));
    if (fd < 0)
        return Error { ErrorCode::Io, "cannot make a temporary file for the decompressed copy of " + path + " in "
                + dir.string(),
            std::nullopt };
    std::shared_ptr<DecompressedFile> copy(new DecompressedFile()); // owns fd from here
    copy->m_fd = fd;
    copy->m_source = path;
    copy->m_sourceBytes = sourceBytes;
    // The name goes before anything is written, and the copy is reached through the descriptor
    // (/proc/self/fd/N): a process killed or crashing, even mid-way, leaves no copy behind; the
    // kernel frees it when the descriptor closes. Without /proc the name stays until the destructor.
    const std::string byDescriptor = "/proc/self/fd/" + std::to_string(fd);
    if (::access(byDescriptor.c_str(), R_OK) == 0 && ::unlink(name.c_str()) == 0)
        copy->m_path = byDescriptor;
    else
        copy->m_path = copy->m_name = name;

    namespace io = boost::iostreams;
    io::stream<io::file_descriptor_sink> out(fd, io::never_close_handle);
    auto written = detail::decompressFileInto(path, out, cancel, progress);
    if (!written)
        return written.error();
    out.flush();
    if (!out)
        return Error { ErrorCode::Io, "cannot write the decompressed copy of " + path + " in " + dir.string()
                + " (is the disk full?)",
            std::nullopt };
    copy->m_bytes = written->bytes;
    copy->m_compression = written->compression;
    copy->m_warnings = std::move(written->warnings);
    return std::shared_ptr<const DecompressedFile>(std::move(copy));
}

void DecompressedFile::nameAfterSource(Trace& trace) const
{
    trace.path = m_source;
    trace.fileSize = m_sourceBytes;
    trace.compression = m_compression;
    trace.warnings.insert(trace.warnings.begin(), m_warnings.begin(), m_warnings.end());
}

DecompressedFile::~DecompressedFile()
{
    if (!m_name.empty())
        ::unlink(m_name.c_str());
    if (m_fd >= 0)
        ::close(m_fd);
}

} // namespace sparkscope::core
