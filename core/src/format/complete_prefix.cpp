// completePrefix (complete_prefix.h): the header is parsed (again) on each call, which costs
// microseconds; the walk then goes block by block from the previous end.
#include "sparkscope/core/complete_prefix.h"

#include "format/mapped_file.h"

#include "format/reader_decode.h"

#include <algorithm>
#include <filesystem>
#include <memory>

namespace sparkscope::core {

namespace {
    using detail::SizeTable;

    constexpr uint16_t kDataEnd = 0xFFFF;
    constexpr uint64_t kMarkerBytes = 24;

    // Why a walk stopped: more bytes may complete what it saw, or they never can.
    enum class Step { Complete, Unfinished, Damaged, DataEnd };

    // The size of the event at `pos` (header included), or 0 when its header is not all there.
    // Sets `undeclared` for an event number the header does not declare.
    uint64_t eventBytes(std::span<const uint8_t> s, uint64_t pos, const SizeTable& sizes, bool& undeclared)
    {
        const uint16_t type = loadBE16(s.data() + pos);
        const uint32_t size = sizes.size[type];
        undeclared = size == SizeTable::kUndeclared;
        if (undeclared)
            return 0;
        if (size == SizeTable::kVariable)
            return pos + 12 <= s.size() ? 12 + uint64_t(loadBE16(s.data() + pos + 10)) : 0;
        return 10 + uint64_t(size);
    }

    Error damageAt(uint64_t offset, std::string what)
    {
        return Error { ErrorCode::BadFormat, "the trace is damaged: " + std::move(what), offset };
    }

    // Whether the stream, read on from the zero-size block marker at `pos` as events and markers one
    // after the other (the markers' sizes unread), ends with its DATA_END exactly at its last byte: the
    // file is complete, and that block was never given its size (the reader takes its events up to
    // the next marker, and warns).
    bool completeAfterZeroBlock(std::span<const uint8_t> s, uint64_t pos, const SizeTable& sizes)
    {
        const uint64_t n = s.size();
        if (n < 2 || loadBE16(s.data() + n - 2) != kDataEnd)
            return false;
        for (uint64_t at = pos; at + 2 <= n;) {
            const uint16_t type = loadBE16(s.data() + at);
            if (type == kDataEnd)
                return at + 2 == n;
            bool undeclared = false;
            const uint64_t size = type == ev::BlockMarker ? kMarkerBytes : eventBytes(s, at, sizes, undeclared);
            if (undeclared || size == 0)
                return false;
            at += size;
        }
        return false;
    }
} // namespace

CompletePrefix completePrefix(std::span<const uint8_t> stream, const CompletePrefix& from)
{
    CompletePrefix out = from;
    if (out.ended || out.damage)
        return out;
    auto header = detail::parseHeader(stream);
    if (!header) {
        // A header still being written reads as "ends inside the header"; anything else is damage.
        const bool unfinished = stream.size() < 4 || header.error().message.rfind("the file ends inside", 0) == 0;
        if (!unfinished)
            out.damage = header.error();
        return out;
    }
    const auto sizes = std::make_unique<SizeTable>(header->header);
    out.dataStart = header->dataStart;
    uint64_t pos = std::max(out.bytes, header->dataStart);
    const uint64_t n = stream.size();
    const uint8_t* d = stream.data();
    for (;;) {
        out.bytes = pos;
        if (pos + 2 > n)
            return out;
        const uint16_t type = loadBE16(d + pos);
        if (type == kDataEnd) {
            out.bytes = pos + 2;
            out.ended = true;
            return out;
        }
        bool undeclared = false;
        if (type != ev::BlockMarker) {
            // An event outside blocks (Mercury's STARTUP, interned strings...): complete on its own.
            const uint64_t size = eventBytes(stream, pos, *sizes, undeclared);
            if (undeclared) {
                out.damage = damageAt(pos, "event type " + std::to_string(type) + " is not declared in the header");
                return out;
            }
            if (size == 0 || pos + size > n)
                return out;
            pos += size;
            continue;
        }
        if (pos + kMarkerBytes > n)
            return out;
        const uint64_t blockSize = loadBE32(d + pos + 10);
        if (blockSize < kMarkerBytes) {
            // GHC leaves 0 here until the block is flushed: a block being written in place — unless the
            // file ends after it, complete, and the size was never written.
            if (blockSize == 0) {
                if (completeAfterZeroBlock(stream, pos, *sizes)) {
                    out.bytes = n;
                    out.ended = true;
                }
                return out;
            }
            out.damage = damageAt(pos, "a block declares " + std::to_string(blockSize) + " bytes, less than its marker");
            return out;
        }
        const uint64_t end = pos + blockSize;
        if (end > n)
            return out; // the block is still being written
        // The events inside must end exactly at the block's end (GHC may put DATA_END last in it).
        uint64_t at = pos + kMarkerBytes;
        bool dataEnd = false;
        while (at < end) {
            if (at + 2 > end)
                break;
            const uint16_t inner = loadBE16(d + at);
            if (inner == kDataEnd) {
                at += 2;
                dataEnd = true;
                break;
            }
            const uint64_t size = eventBytes(stream, at, *sizes, undeclared);
            if (undeclared) {
                out.damage = damageAt(at, "event type " + std::to_string(inner) + " is not declared in the header");
                return out;
            }
            if (size == 0 || at + size > end)
                break;
            at += size;
        }
        if (at != end) {
            out.damage = damageAt(at, "the events of the block at byte " + std::to_string(pos)
                    + " do not end where the block does");
            return out;
        }
        pos = end;
        if (dataEnd) {
            out.bytes = pos;
            out.ended = true;
            return out;
        }
    }
}

std::optional<CompletePrefix> completePrefixOfFile(
    const std::string& path, const CompletePrefix& from, uint64_t& fileBytes, uint64_t windowBytes)
{
    detail::MappedFile file;
    auto mapped = file.open(path);
    if (!mapped)
        return std::nullopt;
    const std::span<const uint8_t> bytes = mapped.value();
    fileBytes = bytes.size();
    CompletePrefix out = from;
    uint64_t window = std::max<uint64_t>(1, windowBytes);
    for (;;) {
        const uint64_t base = std::max(out.bytes, out.dataStart);
        const uint64_t end = std::min<uint64_t>(bytes.size(), base + window);
        const CompletePrefix next = completePrefix(bytes.first(end), out);
        file.release(base, next.bytes);
        // A file that shrank under the walk read as zeros past its new end (MappedFile): this walk
        // learnt nothing, and the follower sees the new size on its next look.
        if (!file.unchanged(path)) {
            std::error_code ec;
            fileBytes = std::filesystem::file_size(path, ec);
            return from;
        }
        const bool progressed = next.bytes > out.bytes || next.ended || next.damage;
        out = next;
        if (out.ended || out.damage || end == bytes.size())
            return out;
        // No whole block inside the window: one bigger than it, so look further.
        window = progressed ? std::max<uint64_t>(1, windowBytes) : window * 2;
    }
}

} // namespace sparkscope::core
