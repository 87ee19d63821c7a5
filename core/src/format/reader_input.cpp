// Loading an eventlog's bytes. Plain files: one allocation of the file's size and large read()
// calls (the decoder then works on one contiguous buffer, and the Trace keeps it for on-demand
// field decoding). Compressed files: Boost.Iostreams' gzip / zstd / bzip2 filters decompress into
// 1 MB chunks that are joined once at the end (peak memory: twice the decompressed size for a
// moment, never the 3x of a doubling vector). A compressed stream that breaks off after producing
// data (a trace compressed on the fly by a killed program) keeps what came out, with a warning.
#include "format/reader_input.h"

#include "util/large_array.h"

#include <boost/iostreams/device/array.hpp>
#include <boost/iostreams/filter/bzip2.hpp>
#include <boost/iostreams/filter/gzip.hpp>
#include <boost/iostreams/filter/zstd.hpp>
#include <boost/iostreams/filtering_stream.hpp>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sys/stat.h>
#include <unistd.h>

namespace sparkscope::core::detail {

namespace {
    constexpr size_t kReadChunk = 8u << 20;
    constexpr size_t kInflateChunk = 1u << 20;
    constexpr size_t kInflatePiece = size_t(4) << 10; // per read: what a cut-short stream can lose

    bool cancelled(const std::atomic<bool>* cancel) { return cancel && cancel->load(std::memory_order_relaxed); }

    Error cancelledError() { return Error { ErrorCode::Cancelled, "reading was cancelled", std::nullopt }; }

    const char* compressionName(Compression c)
    {
        switch (c) {
        case Compression::Gzip:
            return "gzip";
        case Compression::Zstd:
            return "zstd";
        case Compression::Bzip2:
            return "bzip2";
        case Compression::None:
            break;
        }
        return "plain";
    }

    // Pulls everything out of `in` (a filtering stream over the compressed source), handing each
    // chunk to `sink` (which returns false when it cannot take it: the error it set is returned).
    // `position` says how many compressed bytes have been consumed so far, for progress.
    Result<LoadedInput> drain(std::istream& in, Compression kind, uint64_t compressedSize,
        const std::function<uint64_t()>& position, const std::atomic<bool>* cancel, const InputProgress& progress,
        const std::function<std::optional<Error>(std::vector<uint8_t>&&)>& sink, uint64_t& total)
    {
        LoadedInput out;
        out.compression = kind;
        out.fileSize = compressedSize;
        total = 0;
        std::string failure;
        in.exceptions(std::ios::badbit);
        for (bool more = true; more;) {
            if (cancelled(cancel))
                return cancelledError();
            // A chunk is filled by small reads: a decompressor that finds its stream cut short throws
            // from inside a read, and what that read had produced is lost with it (a 1 MB read lost up
            // to 1 MB of a gzip file that only missed its trailer; now at most one piece is).
            std::vector<uint8_t> chunk(kInflateChunk);
            size_t got = 0;
            try {
                while (got < chunk.size()) {
                    const size_t piece = std::min(kInflatePiece, chunk.size() - got);
                    in.read(reinterpret_cast<char*>(chunk.data() + got), static_cast<std::streamsize>(piece));
                    const auto n = static_cast<size_t>(in.gcount());
                    got += n;
                    if (n < piece) {
                        more = false;
                        break;
                    }
                }
            } catch (const std::exception& e) {
                failure = e.what();
                more = false;
            }
            if (got == 0)
                break;
            chunk.resize(got);
            total += got;
            if (auto failed = sink(std::move(chunk)))
                return *failed;
            if (progress)
                progress(std::min(position(), compressedSize), compressedSize);
        }
        if (!failure.empty() && total == 0)
            return Error { ErrorCode::BadFormat,
                std::string("cannot decompress the ") + compressionName(kind)
                    + " stream: it breaks off before its first data (the file is cut short or damaged: " + failure
                    + ")",
                0 };
        if (total == 0 && compressedSize > 0) // (zstd's filter ends a cut stream quietly)
            return Error { ErrorCode::BadFormat,
                std::string("the ") + compressionName(kind)
                    + " stream gives no data (an empty stream, or one cut short or damaged before its first block)",
                0 };
        if (!failure.empty())
            out.warnings.push_back({ std::string("the ") + compressionName(kind) + " stream breaks off after "
                    + std::to_string(total) + " decompressed bytes (" + failure + ")",
                total });
        if (progress)
            progress(compressedSize, compressedSize);
        return out;
    }

    // drain() into memory: 1 MB chunks joined once at the end.
    Result<LoadedInput> drainToMemory(std::istream& in, Compression kind, uint64_t compressedSize,
        const std::function<uint64_t()>& position, const std::atomic<bool>* cancel, const InputProgress& progress)
    {
        std::vector<std::vector<uint8_t>> chunks;
        uint64_t total = 0;
        auto out = drain(
            in, kind, compressedSize, position, cancel, progress,
            [&](std::vector<uint8_t>&& chunk) -> std::optional<Error> {
                chunks.push_back(std::move(chunk));
                return std::nullopt;
            },
            total);
        if (!out)
            return out;
        out->bytes.reserve(total);
        adviseHugePages(out->bytes.data(), total);
        for (auto& c : chunks) {
            out->bytes.insert(out->bytes.end(), c.begin(), c.end());
            std::vector<uint8_t>().swap(c);
        }
        return out;
    }

    // A filtering stream decompressing `kind` over the source `pushSource` pushes.
    template <class PushSource>
    void pushDecompressor(boost::iostreams::filtering_istream& in, Compression kind, PushSource&& pushSource)
    {
        switch (kind) {
        case Compression::Gzip:
            in.push(boost::iostreams::gzip_decompressor());
            break;
        case Compression::Zstd:
            in.push(boost::iostreams::zstd_decompressor());
            break;
        case Compression::Bzip2:
            in.push(boost::iostreams::bzip2_decompressor());
            break;
        case Compression::None:
            break;
        }
        pushSource(in);
    }

    // `pushSource` pushes the compressed device onto the chain (by reference for std::istream).
    template <class PushSource>
    Result<LoadedInput> decompress(PushSource&& pushSource, Compression kind, uint64_t compressedSize,
        const std::function<uint64_t()>& position, const std::atomic<bool>* cancel, const InputProgress& progress)
    {
        try {
            boost::iostreams::filtering_istream in;
            pushDecompressor(in, kind, pushSource);
            return drainToMemory(in, kind, compressedSize, position, cancel, progress);
        } catch (const std::exception& e) {
            return Error { ErrorCode::BadFormat,
                std::string("cannot decompress the ") + compressionName(kind) + " stream: " + e.what(), 0 };
        }
    }
} // namespace

Compression detectCompression(std::span<const uint8_t> b) noexcept
{
    if (b.size() >= 2 && b[0] == 0x1F && b[1] == 0x8B)
        return Compression::Gzip;
    if (b.size() >= 4 && b[0] == 0x28 && b[1] == 0xB5 && b[2] == 0x2F && b[3] == 0xFD)
        return Compression::Zstd;
    if (b.size() >= 3 && b[0] == 'B' && b[1] == 'Z' && b[2] == 'h')
        return Compression::Bzip2;
    return Compression::None;
}

Result<LoadedInput> decompressBuffer(std::span<const uint8_t> compressed, Compression kind,
    const std::atomic<bool>* cancel, const InputProgress& progress)
{
    // array_source has no position; report progress by output instead (monotone, capped at the end).
    const boost::iostreams::array_source source(reinterpret_cast<const char*>(compressed.data()), compressed.size());
    return decompress([&](boost::iostreams::filtering_istream& in) { in.push(source); }, kind, compressed.size(),
        [] { return uint64_t(0); }, cancel, progress);
}

Result<LoadedInput> loadFile(const std::string& path, const std::atomic<bool>* cancel, const InputProgress& progress)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return Error { ErrorCode::Io, "cannot open " + path + ": " + std::strerror(errno), std::nullopt };
    struct stat st { };
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        return Error { ErrorCode::Io, "cannot read " + path + ": not a regular file", std::nullopt };
    }
    const uint64_t fileSize = static_cast<uint64_t>(st.st_size);
    uint8_t magic[4] = {};
    const ssize_t got = ::pread(fd, magic, sizeof magic, 0);
    const Compression kind = detectCompression({ magic, got > 0 ? size_t(got) : 0 });
    if (kind != Compression::None) {
        ::close(fd);
        std::ifstream file(path, std::ios::binary);
        if (!file)
            return Error { ErrorCode::Io, "cannot open " + path, std::nullopt };
        auto position = [&file]() -> uint64_t {
            const auto p = file.tellg();
            return p < 0 ? 0 : static_cast<uint64_t>(p);
        };
        return decompress([&](boost::iostreams::filtering_istream& in) { in.push(file); }, kind, fileSize, position,
            cancel, progress);
    }

    LoadedInput out;
    out.fileSize = fileSize;
    try {
        out.bytes.reserve(fileSize);
        adviseHugePages(out.bytes.data(), fileSize);
        out.bytes.resize(fileSize);
    } catch (const std::bad_alloc&) {
        ::close(fd);
        return Error { ErrorCode::Io, "not enough memory to read " + path, std::nullopt };
    }
    uint64_t done = 0;
    while (done < fileSize) {
        if (cancelled(cancel)) {
            ::close(fd);
            return cancelledError();
        }
        const size_t want = static_cast<size_t>(std::min<uint64_t>(kReadChunk, fileSize - done));
        const ssize_t r = ::read(fd, out.bytes.data() + done, want);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            const int err = errno;
            ::close(fd);
            return Error { ErrorCode::Io, "cannot read " + path + ": " + std::strerror(err), done };
        }
        if (r == 0)
            break; // the file shrank while we read it: keep what is there
        done += static_cast<uint64_t>(r);
        if (progress)
            progress(done, fileSize);
    }
    ::close(fd);
    out.bytes.resize(done);
    return out;
}

Result<DecompressedInto> decompressFileInto(
    const std::string& path, std::ostream& out, const std::atomic<bool>* cancel, const InputProgress& progress)
{
    std::ifstream file(path, std::ios::binary);
    if (!file)
        return Error { ErrorCode::Io, "cannot open " + path, std::nullopt };
    uint8_t magic[4] = {};
    file.read(reinterpret_cast<char*>(magic), sizeof magic);
    const Compression kind = detectCompression({ magic, size_t(file.gcount()) });
    if (kind == Compression::None)
        return Error { ErrorCode::Unsupported, path + " is not compressed", std::nullopt };
    file.clear();
    file.seekg(0);
    try {
        boost::iostreams::filtering_istream in;
        pushDecompressor(in, kind, [&](boost::iostreams::filtering_istream& chain) { chain.push(file); });
        uint64_t total = 0;
        std::error_code ec;
        const uint64_t size = std::filesystem::file_size(path, ec);
        auto position = [&file]() -> uint64_t {
            const auto p = file.tellg();
            return p < 0 ? 0 : static_cast<uint64_t>(p);
        };
        auto drained = drain(
            in, kind, ec ? 0 : size, position, cancel, progress,
            [&](std::vector<uint8_t>&& chunk) -> std::optional<Error> {
                out.write(reinterpret_cast<const char*>(chunk.data()), std::streamsize(chunk.size()));
                if (!out)
                    return Error { ErrorCode::Io,
                        "cannot write the decompressed copy of " + path + " (is the disk full?)", std::nullopt };
                return std::nullopt;
            },
            total);
        if (!drained)
            return drained.error();
        return DecompressedInto { total, kind, std::move(drained->warnings) };
    } catch (const std::exception& e) {
        return Error { ErrorCode::BadFormat,
            std::string("cannot decompress the ") + compressionName(kind) + " stream: " + e.what(), 0 };
    }
}

} // namespace sparkscope::core::detail
