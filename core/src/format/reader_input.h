#pragma once
// Private to the reader: getting the eventlog's bytes into memory. Plain files are read whole;
// gzip, zstd and bzip2 streams (recognised by their magic bytes, never by the file name) are
// decompressed with Boost.Iostreams. Both honour cancellation and report progress.
#include "sparkscope/core/result.h"
#include "sparkscope/core/trace.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <ostream>
#include <span>
#include <string>
#include <vector>

namespace sparkscope::core::detail {

Compression detectCompression(std::span<const uint8_t> firstBytes) noexcept;

struct LoadedInput {
    std::vector<uint8_t> bytes; // the decompressed stream
    uint64_t fileSize = 0;
    Compression compression = Compression::None;
    std::vector<Warning> warnings; // e.g. a compressed stream that ends early
};

using InputProgress = std::function<void(uint64_t done, uint64_t total)>; // in input (file) bytes

// Reads `path` (decompressing if needed).
Result<LoadedInput> loadFile(const std::string& path, const std::atomic<bool>* cancel, const InputProgress& progress);

// Decompresses `compressed` (which starts with the magic of `kind`).
Result<LoadedInput> decompressBuffer(std::span<const uint8_t> compressed, Compression kind,
    const std::atomic<bool>* cancel, const InputProgress& progress);

// Decompresses the compressed file `path` into `out`, a chunk at a time (memory: one chunk).
// Unsupported when `path` is not compressed.
struct DecompressedInto {
    uint64_t bytes = 0;
    Compression compression = Compression::None;
    std::vector<Warning> warnings; // a stream that breaks off after producing data
};
Result<DecompressedInto> decompressFileInto(
    const std::string& path, std::ostream& out, const std::atomic<bool>* cancel, const InputProgress& progress);

} // namespace sparkscope::core::detail
