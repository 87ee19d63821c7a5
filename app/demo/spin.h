#pragma once
// The unit of synthetic work of the pipeline and imbalanced workloads: `work` steps of a 64-bit
// linear congruential generator, which the compiler cannot fold away or vectorise.
#include <cstdint>

namespace sparkscope::demo {

inline uint64_t spin(uint64_t x, long work)
{
    for (long k = 0; k < work; ++k)
        x = x * 6364136223846793005ull + 1442695040888963407ull;
    return x;
}

} // namespace sparkscope::demo
