#pragma once
// Following a trace while it is written: which part of the stream is complete. A runtime appends
// whole blocks (SparkScope's tracer writes each block with one write after back-patching its size;
// GHC with -l flushes whole buffers too), so at any moment the file is the header, complete blocks,
// and perhaps the start of the next one. completePrefix walks the stream block by block (by each
// marker's declared size, checking that the events inside land exactly on the block's end) and
// says where the complete part ends, whether DATA_END was reached, and whether what follows is
// damage rather than an unfinished write:
//   - unfinished (wait for more): the header, a block or an event outside blocks reaches past the
//     end of the bytes, or a block's size is still GHC's 0 (unless the file is complete after it,
//     DATA_END its last bytes: then that size was never written, and the whole file is complete);
//   - damaged (stop following): a block whose size is impossible (< 24 bytes), an undeclared event,
//     or events that do not end exactly where their complete block ends.
// Walking resumes from a previous result (`from`), so each poll costs O(new bytes).
// Not thread-safe to share a CompletePrefix; the function itself has no state.
#include "sparkscope/core/result.h"
#include "sparkscope/core/trace.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace sparkscope::core {

struct CompletePrefix {
    uint64_t bytes = 0; // the stream's complete part: [0, bytes); 0 until the header is complete
    uint64_t dataStart = 0; // where the events start (after "datb"); 0 until the header is complete
    bool ended = false; // DATA_END lies inside the complete part: the trace is finished
    std::optional<Error> damage; // set when the stream is damaged at `bytes` (with its offset)
};

// Extends `from` (a result of an earlier call on a prefix of the same stream, or a default
// CompletePrefix) over `stream`. Once `ended` or `damage` is set, the result does not change.
CompletePrefix completePrefix(std::span<const uint8_t> stream, const CompletePrefix& from = {});

// The same over the file at `path`, memory-mapped and walked `windowBytes` at a time, each walked
// window's pages handed back: what the follower uses for a trace too big to read into memory
// (TraceFollower streams those). `fileBytes` gets the file's size as mapped. nullopt when the file
// cannot be opened or mapped.
std::optional<CompletePrefix> completePrefixOfFile(const std::string& path, const CompletePrefix& from,
    uint64_t& fileBytes, uint64_t windowBytes = uint64_t(64) << 20);

} // namespace sparkscope::core
