// DecompressedFile (decompressed_file.h): the reader's decompression chain (reader_input.h) writing
// to a temporary file made with mkstemp, so its name cannot collide with another's.
#include "sparkscope/core/decompressed_file.h"

#include "format/reader_input.h"

#include <cstdlib>
#include <fcntl.h>
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

Result<std::shared_ptr<const DecompressedFile>> DecompressedFile::create(
    const std::string& path, const std::atomic<bool>* cancel)
{
    std::error_code ec;
    const std::filesystem::path dir = std::filesystem::temp_directory_path(ec); // $TMPDIR, else /tmp
    if (ec)
        return Error { ErrorCode::Io, "no temporary directory for the decompressed copy of " + path + ": " + ec.message(),
            std::nullopt };
    std::string name = (dir / "sparkscope-XXXXXX.eventlog").string();
    const int fd = ::mkstemps(name.data(), int(std::string_view(".eventlog").size()));
    if (fd < 0)
        return Error { ErrorCode::Io, "cannot make a temporary file for the decompressed copy of " + path + " in "
                + std::filesystem::path(name).parent_path().string(),
            std::nullopt };
    ::close(fd);
    // Owned from here: an error below removes the copy with it.
    std::shared_ptr<DecompressedFile> copy(new DecompressedFile());
    copy->m_path = name;
    std::ofstream out(name, std::ios::binary | std::ios::trunc);
    auto written = detail::decompressFileInto(path, out, cancel);
    if (!written)
        return written.error();
    out.close();
    if (!out)
        return Error { ErrorCode::Io, "cannot write the decompressed copy of " + path + " (is the disk full?)",
            std::nullopt };
    copy->m_bytes = written->bytes;
    copy->m_compression = written->compression;
    copy->m_warnings = std::move(written->warnings);
    // The name goes at once, and the copy is reached through a descriptor held open
    // (/proc/self/fd/N), so that a process killed or crashing leaves no copy behind: the kernel frees
    // it when the descriptor closes. Without /proc the name stays until the destructor.
    const int held = ::open(name.c_str(), O_RDONLY | O_CLOEXEC);
    const std::string byDescriptor = "/proc/self/fd/" + std::to_string(held);
    if (held >= 0 && ::access(byDescriptor.c_str(), R_OK) == 0 && ::unlink(name.c_str()) == 0) {
        copy->m_fd = held;
        copy->m_path = byDescriptor;
    } else if (held >= 0) {
        ::close(held);
    }
    return std::shared_ptr<const DecompressedFile>(std::move(copy));
}

DecompressedFile::~DecompressedFile()
{
    if (m_fd >= 0)
        ::close(m_fd);
    else if (!m_path.empty())
        ::unlink(m_path.c_str());
}

} // namespace sparkscope::core
