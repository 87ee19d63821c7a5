// What the fuzzers share: which inputs they skip, and how they fail.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>

namespace sparkscope::fuzz {

// Inputs starting with a gzip, zstd or bzip2 magic: they would fuzz the decompressors (other
// projects' code) and let tiny inputs expand into huge buffers.
inline bool compressedMagic(const uint8_t* d, size_t n)
{
    return (n >= 2 && d[0] == 0x1F && d[1] == 0x8B)
        || (n >= 4 && d[0] == 0x28 && d[1] == 0xB5 && d[2] == 0x2F && d[3] == 0xFD)
        || (n >= 3 && d[0] == 'B' && d[1] == 'Z' && d[2] == 'h');
}

// A broken invariant: abort, so that libFuzzer keeps the input.
inline void require(bool ok)
{
    if (!ok)
        std::abort();
}

} // namespace sparkscope::fuzz
