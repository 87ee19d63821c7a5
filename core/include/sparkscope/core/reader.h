#pragma once
// Reading an eventlog: readTrace decodes a file (plain, .gz, .zst or .bz2, detected by magic bytes)
// into a Trace. A stream cut anywhere yields every complete event before the cut plus one warning;
// a stream that is not an eventlog, or whose header or sizes are impossible, yields an Error with
// the byte offset. Never throws, never aborts on bad input.
#include "sparkscope/core/result.h"
#include "sparkscope/core/trace.h"

#include <atomic>
#include <functional>
#include <string>
#include <vector>

namespace sparkscope::core {

struct ReadOptions {
    unsigned threads = 0; // 0 = all hardware threads, 1 = single-threaded decoding
    // Called now and then with (bytes done, bytes total); may be called from worker threads.
    // done/total only grows. readTrace: total = 2 x the file size, the first half reading (and
    // decompressing) the file, the second decoding; readTraceFromBytes: decoding only.
    std::function<void(uint64_t done, uint64_t total)> progress;
    // When it becomes true, reading stops within ~100 ms with ErrorCode::Cancelled.
    const std::atomic<bool>* cancel = nullptr;
};

Result<Trace> readTrace(const std::string& path, const ReadOptions& options = {});
Result<Trace> readTraceFromBytes(std::vector<uint8_t> bytes, const ReadOptions& options = {},
                                 std::string name = "<memory>");

} // namespace sparkscope::core
