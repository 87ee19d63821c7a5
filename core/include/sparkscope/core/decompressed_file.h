#pragma once
// DecompressedFile: a compressed eventlog's stream decompressed into a temporary file, removed with
// the object. It is how the streaming passes (trace_stream.h, compact_trace.h), which map plain
// files, read a compressed trace in memory bounded by a window rather than by its decompressed size:
// the decompressed copy goes to disk ($TMPDIR, else /tmp), a chunk at a time, and is then streamed
// like any plain file. Reading a 2 GB eventlog whole takes ~7 GB; its decompressed copy, 2 GB of disk.
//
// Thread safety: immutable after create(); share it (shared_ptr) with whatever still reads the copy.
#include "sparkscope/core/result.h"
#include "sparkscope/core/trace.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace sparkscope::core {

// The compression of the file at `path` by its magic bytes (None when plain or unreadable).
Compression compressionOf(const std::string& path);

class DecompressedFile {
public:
    // Decompresses `path` (gzip, zstd or bzip2, recognised by their magic bytes). Fails with
    // Unsupported when `path` is not compressed, Io when the copy cannot be written (a full disk:
    // the message says so), BadFormat when nothing decompresses, Cancelled when `cancel` became true.
    // progress(done, total) in compressed bytes, now and then.
    static Result<std::shared_ptr<const DecompressedFile>> create(const std::string& path,
        const std::atomic<bool>* cancel = nullptr, const std::function<void(uint64_t, uint64_t)>& progress = {});
    // The copy of `path` when it is compressed, null when it is plain (what a streaming pass reads:
    // the copy's path, else `path`); create's errors.
    static Result<std::shared_ptr<const DecompressedFile>> ifCompressed(
        const std::string& path, const std::atomic<bool>* cancel = nullptr);
    ~DecompressedFile();
    DecompressedFile(const DecompressedFile&) = delete;
    DecompressedFile& operator=(const DecompressedFile&) = delete;

    // The copy: /proc/self/fd/N, its name being removed before it is written (nothing is left behind
    // if the process dies); valid in this process only, and only while the object lives (keep the
    // shared_ptr with whatever holds the path).
    const std::string& path() const noexcept { return m_path; }
    uint64_t bytes() const noexcept { return m_bytes; } // its size: the decompressed stream's
    const std::string& sourcePath() const noexcept { return m_source; } // the compressed file
    uint64_t sourceBytes() const noexcept { return m_sourceBytes; } // its size when decompressed
    // Names `trace`, read from the copy, as readTrace names the compressed file: its path, size and
    // compression, the decompression's warnings first.
    void nameAfterSource(Trace& trace) const;
    Compression compression() const noexcept { return m_compression; }
    // A stream that breaks off after producing data keeps what came out, with a warning (as readTrace).
    const std::vector<Warning>& warnings() const noexcept { return m_warnings; }

private:
    DecompressedFile() = default;
    std::string m_path;
    std::string m_name; // the copy's name while it has one (no /proc)
    int m_fd = -1; // holds the copy open
    std::string m_source;
    uint64_t m_sourceBytes = 0;
    uint64_t m_bytes = 0;
    Compression m_compression = Compression::None;
    std::vector<Warning> m_warnings;
};

} // namespace sparkscope::core
