// The system calls behind large_array.h: madvise on Linux, nothing elsewhere.
#include "util/large_array.h"

#ifdef __linux__
#include <sys/mman.h>
#endif

namespace sparkscope::core::detail {

AdvisedRange hugePageAdviceRange(const void* data, size_t bytes) noexcept
{
    if (data == nullptr || bytes < kAdviseMinBytes)
        return {};
    const uintptr_t begin = reinterpret_cast<uintptr_t>(data);
    if (bytes > UINTPTR_MAX - begin - kSmallPageBytes)
        return {}; // not a real block: no range around it
    return { begin & ~uintptr_t(kSmallPageBytes - 1),
        (begin + bytes + kSmallPageBytes - 1) & ~uintptr_t(kSmallPageBytes - 1) };
}

void adviseHugePages(const void* data, size_t bytes, Prefault prefault) noexcept
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    const AdvisedRange range = hugePageAdviceRange(data, bytes);
    if (range.empty())
        return;
    void* start = reinterpret_cast<void*>(range.from);
    const size_t length = range.to - range.from;
    ::madvise(start, length, MADV_HUGEPAGE);
#ifdef MADV_POPULATE_WRITE
    if (prefault == Prefault::Yes)
        ::madvise(start, length, MADV_POPULATE_WRITE);
#endif
#else
    (void)data, (void)bytes, (void)prefault;
#endif
}

} // namespace sparkscope::core::detail
