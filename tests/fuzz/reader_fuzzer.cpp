// libFuzzer target for the eventlog reader: any bytes must give an Error or a consistent Trace,
// never a crash, a hang, an ASan/UBSan report or an out-of-range event. The same bytes streamed
// (trace_stream.h, in 97-byte ranges so that every input crosses range boundaries) must fail when
// reading fails and otherwise hand out the same events per engine, and each engine's extents must
// decode back to its events. Built only with clang and SPARKSCOPE_BUILD_FUZZERS=ON (preset "fuzz");
// scripts/fuzz builds and runs it. Compressed inputs are skipped (fuzz_input.h says why).
#include "sparkscope/core/reader.h"
#include "sparkscope/core/trace_stream.h"

#include "fuzz_input.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

using namespace sparkscope::core;
using sparkscope::fuzz::compressedMagic;
using sparkscope::fuzz::require;

namespace {

// The input as a file (in memory: memfd), streamed; compared with the whole read.
void checkStreamed(const uint8_t* data, size_t size, const Result<Trace>& whole)
{
    const int fd = ::memfd_create("fuzz-input", 0);
    require(fd >= 0);
    require(::write(fd, data, size) == ssize_t(size));
    const std::string path = "/proc/self/fd/" + std::to_string(fd);
    std::vector<std::vector<Event>> engines;
    std::vector<Event> global;
    StreamOptions options;
    options.windowBytes = 97;
    auto streamed = streamTrace(
        path,
        [&](const StreamBatch& b) {
            if (b.engine == kNoEngine) {
                global.insert(global.end(), b.events.begin(), b.events.end());
                return;
            }
            if (b.engine >= engines.size())
                engines.resize(size_t(b.engine) + 1);
            engines[b.engine].insert(engines[b.engine].end(), b.events.begin(), b.events.end());
        },
        options);
    require(bool(streamed) == bool(whole));
    if (streamed) {
        const Trace& t = whole.value();
        const StreamedTrace& s = streamed.value();
        require(s.summary.engineCount() == t.engineCount() && s.events == t.eventCount());
        require(s.summary.firstTimeNs == t.firstTimeNs && s.summary.lastTimeNs == t.lastTimeNs);
        require(s.summary.truncated == t.truncated);
        engines.resize(t.engineCount());
        auto same = [](const std::vector<Event>& a, const std::vector<Event>& b) {
            if (a.size() != b.size())
                return false;
            for (size_t i = 0; i < a.size(); ++i)
                if (a[i].offset != b[i].offset || a[i].timeNs != b[i].timeNs || a[i].engine != b[i].engine)
                    return false;
            return true;
        };
        // An inversion longer than the hold-back is the one allowed difference, and it is counted.
        if (s.lateEvents == 0) {
            require(same(global, t.global));
            for (size_t e = 0; e < t.engineCount(); ++e)
                require(same(engines[e], t.engines[e]));
        }
        for (size_t e = 0; e < t.engineCount(); ++e) {
            if (t.engines[e].empty())
                continue;
            auto again = decodeBlocks(path, s.summary.header, uint16_t(e), s.blocks[e]);
            require(again && again->engines[e].size() == t.engines[e].size());
        }
    }
    ::close(fd);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    if (compressedMagic(data, size))
        return 0;
    ReadOptions options;
    options.threads = 1;
    auto trace = readTraceFromBytes(std::vector<uint8_t>(data, data + size), options);
    checkStreamed(data, size, trace);
    if (!trace) {
        require(!trace.error().message.empty());
        return 0;
    }
    const Trace& t = trace.value();
    const uint64_t n = t.bytes().size();
    auto check = [&](const std::vector<Event>& v, uint16_t engine) {
        for (size_t i = 0; i < v.size(); ++i) {
            require(v[i].engine == engine && v[i].endOffset() <= n);
            require(i == 0 || v[i - 1].timeNs <= v[i].timeNs);
            // Touch the payload through the bounds-checked view.
            const Payload p = t.payload(v[i]);
            require(p.size() == v[i].payloadSize);
        }
    };
    for (size_t e = 0; e < t.engines.size(); ++e)
        check(t.engines[e], uint16_t(e));
    check(t.global, kNoEngine);
    size_t visited = 0;
    t.forEachInTimeOrder([&](const Event&) { ++visited; });
    require(visited == t.eventCount());
    require(t.warnings.size() <= 101);
    return 0;
}
