// libFuzzer target for the eventlog reader: any bytes must give an Error or a consistent Trace,
// never a crash, a hang, an ASan/UBSan report or an out-of-range event. Built only with clang and
// SPARKSCOPE_BUILD_FUZZERS=ON (preset "fuzz"); scripts/fuzz builds and runs it.
//
// Inputs starting with a gzip/zstd/bzip2 magic are skipped: they would fuzz the decompressors
// (other projects' code) and let tiny inputs expand into huge buffers.
#include "sparkscope/core/reader.h"

#include <cstdint>
#include <cstdlib>
#include <vector>

using namespace sparkscope::core;

namespace {
bool compressedMagic(const uint8_t* d, size_t n)
{
    return (n >= 2 && d[0] == 0x1F && d[1] == 0x8B)
        || (n >= 4 && d[0] == 0x28 && d[1] == 0xB5 && d[2] == 0x2F && d[3] == 0xFD)
        || (n >= 3 && d[0] == 'B' && d[1] == 'Z' && d[2] == 'h');
}

void require(bool ok)
{
    if (!ok)
        std::abort();
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    if (compressedMagic(data, size))
        return 0;
    ReadOptions options;
    options.threads = 1;
    auto trace = readTraceFromBytes(std::vector<uint8_t>(data, data + size), options);
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
