// libFuzzer target for cutting a range out of a trace (cut.h): for any bytes the reader accepts, the
// cut of the middle third of the trace's span, and of its whole span, must read back with every
// event the cut says it wrote, the whole span's must hold every event of the original, and the
// streamed cut of the same bytes as a file (cutFile) must be the in-memory cut byte for byte. Never a
// crash, a hang or an ASan/UBSan report. Built only with clang and SPARKSCOPE_BUILD_FUZZERS=ON
// (preset "fuzz"); scripts/fuzz builds and runs it (`scripts/fuzz cut ...`).
#include "sparkscope/core/cut.h"
#include "sparkscope/core/event_types.h"
#include "sparkscope/core/reader.h"

#include "fuzz_input.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <vector>

using namespace sparkscope::core;
using sparkscope::fuzz::compressedMagic;
using sparkscope::fuzz::require;

namespace {

size_t eventsOf(const Trace& t)
{
    size_t events = 0;
    t.forEachInTimeOrder([&](const Event& e) { events += e.type != ev::BlockMarker; });
    return events;
}

// The cut of [from, to] reads back with the events it says it wrote, and the file's streamed cut
// (the input as a memfd) is the same bytes. Returns the cut's count of the range's events.
uint64_t checkCut(const Trace& t, int fd, uint64_t from, uint64_t to)
{
    auto cut = cutTrace(t, from, to);
    require(bool(cut));
    auto back = readTraceFromBytes(cut->bytes);
    require(bool(back));
    require(eventsOf(back.value()) == cut->stats.stateEvents + cut->stats.rangeEvents);
    auto streamed = cutFile("/proc/self/fd/" + std::to_string(fd), from, to);
    require(bool(streamed));
    require(streamed->bytes == cut->bytes);
    return cut->stats.rangeEvents;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    if (compressedMagic(data, size))
        return 0;
    auto trace = readTraceFromBytes(std::vector<uint8_t>(data, data + size));
    // As in the analysis fuzzer: thousands of engines make every per-engine step slow enough to hang.
    if (!trace || trace.value().engines.size() > 256)
        return 0;
    const Trace& t = trace.value();
    const int fd = ::memfd_create("fuzz-input", 0);
    require(fd >= 0);
    require(::write(fd, data, size) == ssize_t(size));
    const uint64_t third = (t.lastTimeNs - t.firstTimeNs) / 3;
    checkCut(t, fd, t.firstTimeNs + third, t.firstTimeNs + 2 * third);
    require(checkCut(t, fd, t.firstTimeNs, t.lastTimeNs) == eventsOf(t));
    ::close(fd);
    return 0;
}
