// libFuzzer target for the eventlog reader: any bytes must give an Error or a consistent Trace,
// never a crash, a hang, an ASan/UBSan report or an out-of-range event. Built only with clang and
// SPARKSCOPE_BUILD_FUZZERS=ON (preset "fuzz"); scripts/fuzz builds and runs it. Compressed inputs
// are skipped (fuzz_input.h says why).
#include "sparkscope/core/reader.h"

#include "fuzz_input.h"

#include <cstdint>
#include <cstdlib>
#include <vector>

using namespace sparkscope::core;
using sparkscope::fuzz::compressedMagic;
using sparkscope::fuzz::require;

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
