#pragma once
// Big-endian loads and stores: the eventlog format is big-endian and unaligned everywhere.
// These compile to a load plus bswap; they are used on the decoding and tracing hot paths.
#include <bit>
#include <cstdint>
#include <cstring>

namespace sparkscope::core {

inline uint16_t loadBE16(const uint8_t* p) noexcept
{
    uint16_t v;
    std::memcpy(&v, p, 2);
    return __builtin_bswap16(v);
}
inline uint32_t loadBE32(const uint8_t* p) noexcept
{
    uint32_t v;
    std::memcpy(&v, p, 4);
    return __builtin_bswap32(v);
}
inline uint64_t loadBE64(const uint8_t* p) noexcept
{
    uint64_t v;
    std::memcpy(&v, p, 8);
    return __builtin_bswap64(v);
}
inline void storeBE16(uint8_t* p, uint16_t v) noexcept
{
    v = __builtin_bswap16(v);
    std::memcpy(p, &v, 2);
}
inline void storeBE32(uint8_t* p, uint32_t v) noexcept
{
    v = __builtin_bswap32(v);
    std::memcpy(p, &v, 4);
}
inline void storeBE64(uint8_t* p, uint64_t v) noexcept
{
    v = __builtin_bswap64(v);
    std::memcpy(p, &v, 8);
}

static_assert(std::endian::native == std::endian::little, "SparkScope assumes a little-endian host");

} // namespace sparkscope::core
