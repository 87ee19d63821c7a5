// The large-array helper (core/src/util/large_array.h) that the reader and the model pass share:
// the sizes it rounds to, the range its advice covers, that the advice is harmless on small,
// unaligned and empty blocks and changes no content, and, on Linux, that a large block's mapping
// really carries the huge-page advice over the whole block.
#include "util/large_array.h"

#include <catch2/catch.hpp>

#include <cstring>
#include <fstream>
#include <numeric>
#include <optional>
#include <sstream>
#include <string>

using namespace sparkscope::core::detail;

namespace {

struct Wide {
    uint64_t a, b, c; // 24 bytes: does not divide a huge page
};

#ifdef __linux__
// The mapping of /proc/self/smaps that contains `p`: its range and VmFlags line.
struct Mapping {
    uintptr_t from = 0, to = 0;
    std::string flags;
};
std::optional<Mapping> mappingOf(const void* p)
{
    std::ifstream smaps("/proc/self/smaps");
    if (!smaps)
        return std::nullopt;
    const auto at = reinterpret_cast<uintptr_t>(p);
    std::optional<Mapping> found;
    std::string line;
    while (std::getline(smaps, line)) {
        uintptr_t from = 0, to = 0;
        char dash = 0;
        std::istringstream head(line);
        if (head >> std::hex >> from >> dash >> to && dash == '-') {
            if (found)
                return found; // the next mapping: the one found has no VmFlags line
            if (from <= at && at < to)
                found = Mapping { from, to, {} };
        } else if (found && line.rfind("VmFlags:", 0) == 0) {
            found->flags = line;
            return found;
        }
    }
    return found;
}
#endif

} // namespace

TEST_CASE("hugePageFriendlyCount leaves small blocks alone and rounds large ones to whole huge pages", "[core][util]")
{
    CHECK(hugePageFriendlyCount<uint32_t>(0) == 0);
    CHECK(hugePageFriendlyCount<uint32_t>(1000) == 1000);
    // Just under one huge page with the header room: left as asked.
    const size_t underOne = (kHugePageBytes - kAllocatorHeaderRoom) / sizeof(uint32_t) - 1;
    CHECK(hugePageFriendlyCount<uint32_t>(underOne) == underOne);
    // Large blocks: block plus header room fills k huge pages exactly when the element size
    // divides them (uint32_t), else as nearly as it can (24 bytes), never a huge page more than
    // was asked.
    for (size_t count : { size_t(1) << 19, (size_t(5) << 20) / 3, size_t(3'000'001), size_t(40'000'000) }) {
        INFO("count " << count);
        const size_t u32 = hugePageFriendlyCount<uint32_t>(count);
        const size_t u32Pages = (u32 * sizeof(uint32_t) + kAllocatorHeaderRoom) / kHugePageBytes;
        CHECK(u32 >= count);
        CHECK(u32 * sizeof(uint32_t) + kAllocatorHeaderRoom == u32Pages * kHugePageBytes);
        CHECK(u32Pages * kHugePageBytes < count * sizeof(uint32_t) + kAllocatorHeaderRoom + kHugePageBytes);
        const size_t wide = hugePageFriendlyCount<Wide>(count);
        const size_t widePages = (wide * sizeof(Wide) + kAllocatorHeaderRoom + kHugePageBytes - 1) / kHugePageBytes;
        CHECK(wide >= count);
        CHECK((wide + 1) * sizeof(Wide) + kAllocatorHeaderRoom > widePages * kHugePageBytes);
        CHECK(widePages * kHugePageBytes < count * sizeof(Wide) + kAllocatorHeaderRoom + kHugePageBytes);
    }
    static_assert(hugePageFriendlyCount<uint8_t>(kHugePageBytes) == 2 * kHugePageBytes - kAllocatorHeaderRoom);
}

TEST_CASE(
    "huge-page advice covers the whole small pages around a large block and nothing of a small one", "[core][util]")
{
    CHECK(hugePageAdviceRange(nullptr, size_t(8) << 20).empty());
    const auto* base = reinterpret_cast<const char*>(uintptr_t(0x7f0000000000));
    CHECK(hugePageAdviceRange(base + 3, kAdviseMinBytes - 1).empty());
    for (size_t offset : { size_t(0), size_t(16), size_t(4095), size_t(4096), size_t(12345) })
        for (size_t bytes : { kAdviseMinBytes, kAdviseMinBytes + 1, size_t(7'654'321) }) {
            INFO("offset " << offset << ", bytes " << bytes);
            const AdvisedRange r = hugePageAdviceRange(base + offset, bytes);
            const auto begin = reinterpret_cast<uintptr_t>(base + offset);
            REQUIRE(!r.empty());
            CHECK(r.from % kSmallPageBytes == 0);
            CHECK(r.to % kSmallPageBytes == 0);
            CHECK(r.from <= begin);
            CHECK(begin - r.from < kSmallPageBytes);
            CHECK(r.to >= begin + bytes);
            CHECK(r.to - (begin + bytes) < kSmallPageBytes);
        }
    // A size that would wrap around the address space is not a block.
    CHECK(hugePageAdviceRange(base, SIZE_MAX - 10).empty());
}

TEST_CASE("huge-page advice is harmless on small, unaligned and empty blocks and keeps contents", "[core][util]")
{
    std::vector<uint8_t> small(1000);
    std::iota(small.begin(), small.end(), uint8_t(1));
    const std::vector<uint8_t> smallBefore = small;
    adviseHugePages(small.data() + 3, 500, Prefault::Yes);
    adviseHugePages(nullptr, 0, Prefault::Yes);
    adviseHugePages(small.data(), 0);
    CHECK(small == smallBefore);

    std::vector<uint32_t> large(3'000'001);
    std::iota(large.begin(), large.end(), 7u);
    const std::vector<uint32_t> largeBefore = large;
    // Unaligned on both ends, with and without prefaulting: the pages around are advised too, and
    // neither the block nor its neighbours change.
    adviseHugePages(reinterpret_cast<const uint8_t*>(large.data()) + 5, large.size() * 4 - 11, Prefault::Yes);
    adviseHugePages(large, Prefault::No);
    CHECK(large == largeBefore);
    CHECK(smallBefore == small);
}

TEST_CASE("reserveAdvised grows to the exact capacity asked and keeps the elements", "[core][util]")
{
    std::vector<Wide> v;
    for (uint64_t i = 0; i < 1000; ++i)
        v.push_back({ i, 2 * i, 3 * i });
    const std::vector<Wide> before = v;
    const size_t bigger = hugePageFriendlyCount<Wide>(200'000);
    reserveAdvised(v, bigger);
    CHECK(v.capacity() == bigger);
    REQUIRE(v.size() == before.size());
    CHECK(std::memcmp(v.data(), before.data(), before.size() * sizeof(Wide)) == 0);
    // Asking for less than the capacity does nothing: the block stays where it is.
    const Wide* data = v.data();
    reserveAdvised(v, 10);
    reserveAdvised(v, bigger);
    CHECK(v.data() == data);
    CHECK(v.capacity() == bigger);
}

TEST_CASE("zeroedArray gives zeroed counters of any length, never a null pointer", "[core][util]")
{
    const auto none = zeroedArray<uint32_t>(0);
    CHECK(none != nullptr);
    const size_t n = size_t(5) << 20;
    const auto counters = zeroedArray<uint32_t>(n);
    REQUIRE(counters != nullptr);
    adviseHugePages(counters.get(), n * sizeof(uint32_t), Prefault::Yes);
    size_t nonZero = 0;
    for (size_t i = 0; i < n; ++i)
        nonZero += counters[i] != 0;
    CHECK(nonZero == 0);
}

#ifdef __linux__
TEST_CASE("a large block lies whole in one mapping with the huge-page advice after adviseHugePages", "[core][util]")
{
    // Large enough to be a mapping of its own (above glibc's largest mmap threshold, 32 MiB).
    std::vector<uint64_t> v;
    v.reserve(hugePageFriendlyCount<uint64_t>(size_t(40) << 17)); // ~40 MiB
    const auto before = mappingOf(v.data());
    if (!before || before->flags.empty() || !std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled")) {
        WARN("no /proc/self/smaps or no transparent huge pages here: not checked");
        return;
    }
    // The allocator maps such a block on its own, starting with its header; on a loaded machine it
    // was once found in the brk heap instead (an mmap that failed falls back there), where it shares
    // a mapping with everything around it and the check below means nothing.
    if (reinterpret_cast<uintptr_t>(v.data()) - before->from > kSmallPageBytes) {
        WARN("the block is not a mapping of its own here (the allocator's fallback): not checked");
        return;
    }
    adviseHugePages(v);
    const auto after = mappingOf(v.data());
    REQUIRE(after);
    INFO(after->flags);
    CHECK(after->flags.find(" hg") != std::string::npos);
    // Advising only the aligned huge pages inside the block would split its mapping and leave the
    // block's first bytes in a part without the advice.
    CHECK(after->from <= reinterpret_cast<uintptr_t>(v.data()));
    CHECK(after->to >= reinterpret_cast<uintptr_t>(v.data() + v.capacity()));
}
#endif
