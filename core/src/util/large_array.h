#pragma once
// Large arrays: the reader's byte buffer and per-engine event vectors, the model's instance arrays,
// context segments and counters. They are hundreds of MB on big traces and are written once, front
// to back, soon after they are allocated, so their cost is less the writes than the page faults of
// first touch: with 4 KiB pages the faults of filling a fresh array cost as much as the work that
// fills it (docs/performance.md, "Model and reader"). Hence three measures, all here so that every large array gets them the same way:
//   - advice: once an array's final size is reserved, the kernel is asked to back it with huge
//     pages (MADV_HUGEPAGE) and, where the caller can do it off the critical path, to map it all
//     in one call (MADV_POPULATE_WRITE, Linux 5.14). Both are hints that change no content; an older
//     kernel or another system skips them. Arrays under kAdviseMinBytes are left alone (they fault
//     in a few hundred pages).
//   - sizing: an element count rounded up so that the block fills whole huge pages, which is what
//     lets the kernel align the block's mapping for them (hugePageFriendlyCount);
//   - zeroed counters from calloc, which gets a large block as fresh zero pages and writes none of
//     it, where a vector would memset it all (zeroedArray).
// Thread safety: the functions keep no state; advising a block while another thread writes it is
// safe (the advice changes no content).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <type_traits>
#include <vector>

namespace sparkscope::core::detail {

inline constexpr size_t kSmallPageBytes = 4096;
inline constexpr size_t kHugePageBytes = size_t(2) << 20;
inline constexpr size_t kAdviseMinBytes = size_t(1) << 20; // smaller blocks fault in a few hundred pages

// Whether adviseHugePages also maps the block at once: worth it when the caller runs the advice in
// a task of its own while another thread starts filling the block; otherwise first touch maps it.
enum class Prefault : bool { No = false, Yes = true };

// The byte range [from, to) the advice covers: the whole small pages around [data, data + bytes).
// A large block is a mapping of its own that starts a few bytes before the data (the allocator's
// header) and ends within a page after it; advising only the pages inside would split the mapping
// and lose its first and last huge pages. Empty (from == to) below kAdviseMinBytes.
struct AdvisedRange {
    uintptr_t from = 0;
    uintptr_t to = 0;
    bool empty() const noexcept { return to <= from; }
};
AdvisedRange hugePageAdviceRange(const void* data, size_t bytes) noexcept;

// Asks the kernel to back the pages around [data, data + bytes) with transparent huge pages, and
// with Prefault::Yes to map them now. A hint only: no content changes, nothing happens on small
// blocks or on systems other than Linux.
void adviseHugePages(const void* data, size_t bytes, Prefault prefault = Prefault::No) noexcept;

// The whole capacity of `v` (its untouched tail included: that is what the walk fills).
template <class T> void adviseHugePages(const std::vector<T>& v, Prefault prefault = Prefault::No) noexcept
{
    adviseHugePages(v.data(), v.capacity() * sizeof(T), prefault);
}

// An element count for a large block, rounded up to fill whole huge pages: the kernel aligns an
// anonymous mapping for huge pages only when its length is a multiple of 2 MiB, and the allocator
// maps the block plus a small header rounded to pages, so a block of just under k x 2 MiB (room
// left for the header) is one aligned mapping that huge pages can cover, all but the first (the
// allocator writes its header there before the advice, so that one is mapped in small pages).
// Blocks under one huge page are left as asked.
inline constexpr size_t kAllocatorHeaderRoom = 64;
template <class T> constexpr size_t hugePageFriendlyCount(size_t count) noexcept
{
    const size_t bytes = count * sizeof(T);
    if (bytes + kAllocatorHeaderRoom < kHugePageBytes)
        return count;
    return ((bytes + kAllocatorHeaderRoom + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes
               - kAllocatorHeaderRoom)
        / sizeof(T);
}

// Grows `v`'s capacity to exactly `capacity` (when larger), advising the new block for huge pages
// before the old elements are copied in: std::vector::reserve would copy first, faulting the
// block's front in small pages before any advice could reach it.
template <class T> void reserveAdvised(std::vector<T>& v, size_t capacity)
{
    if (capacity <= v.capacity())
        return;
    std::vector<T> fresh;
    fresh.reserve(capacity);
    adviseHugePages(fresh);
    fresh.insert(fresh.end(), v.begin(), v.end());
    v.swap(fresh);
}

// A zero-filled array from calloc, for counters (see the file comment).
struct FreeDeleter {
    void operator()(void* p) const noexcept { std::free(p); }
};
template <class T> using ZeroedArray = std::unique_ptr<T[], FreeDeleter>;

// `n` zeroed elements of a trivial type (never null, even for n == 0); throws std::bad_alloc as a
// vector of that size would.
template <class T> ZeroedArray<T> zeroedArray(size_t n)
{
    static_assert(std::is_trivial_v<T>, "calloc'd memory is only valid for trivial types");
    void* p = std::calloc(std::max<size_t>(n, 1), sizeof(T));
    if (!p)
        throw std::bad_alloc();
    return ZeroedArray<T>(static_cast<T*>(p));
}

} // namespace sparkscope::core::detail
