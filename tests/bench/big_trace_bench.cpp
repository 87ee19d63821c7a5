// sparkscope-big-trace-bench: makes a large GHC eventlog for `scripts/bench big` out of a real one.
//   sparkscope-big-trace-bench IN.eventlog OUT.eventlog TARGET_MB
// Writes IN's header once, then IN's events again and again, each copy's timestamps (event times,
// block start and end times) moved after the previous copy's end, until OUT reaches TARGET_MB; then
// DATA_END. The blocks are IN's own bytes with only the times patched, so OUT is as valid as IN: a
// long run of the same program, as a reader sees it (thread ids and capabilities repeat, as they do
// when a program creates them again). Streams to OUT: memory is IN's decoded trace, whatever the size.
#include "sparkscope/core/byte_order.h"
#include "sparkscope/core/reader.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace sparkscope::core;

int main(int argc, char** argv)
{
    if (argc != 4) {
        std::fprintf(stderr, "usage: sparkscope-big-trace-bench IN.eventlog OUT.eventlog TARGET_MB\n");
        return 2;
    }
    auto trace = readTrace(argv[1]);
    if (!trace) {
        std::fprintf(stderr, "%s: %s\n", argv[1], trace.error().toString().c_str());
        return 2;
    }
    const uint64_t target = std::strtoull(argv[3], nullptr, 10) << 20;
    const auto bytes = trace->bytes();
    std::vector<const Event*> events;
    for (const auto& e : trace->global)
        events.push_back(&e);
    for (const auto& engine : trace->engines)
        for (const auto& e : engine)
            events.push_back(&e);
    if (events.empty()) {
        std::fprintf(stderr, "%s has no events\n", argv[1]);
        return 2;
    }
    uint64_t dataStart = UINT64_MAX, dataEnd = 0;
    for (const Event* e : events) {
        dataStart = std::min(dataStart, e->offset);
        dataEnd = std::max(dataEnd, e->endOffset());
    }
    // A block that counted DATA_END (GHC's last global block) must end at the copy's end instead.
    std::vector<uint8_t> data(bytes.begin() + long(dataStart), bytes.begin() + long(dataEnd));
    for (const Event* e : events)
        if (e->type == ev::BlockMarker) {
            uint8_t* size = &data[e->payloadOffset() - dataStart];
            const uint64_t end = e->offset + loadBE32(size);
            if (end > dataEnd)
                storeBE32(size, uint32_t(dataEnd - e->offset));
        }
    const uint64_t shift = trace->lastTimeNs + 1000;

    std::FILE* out = std::fopen(argv[2], "wb");
    if (!out) {
        std::perror(argv[2]);
        return 2;
    }
    bool ok = std::fwrite(bytes.data(), 1, dataStart, out) == dataStart; // the header, up to "datb"
    uint64_t written = dataStart, copies = 0;
    std::vector<uint8_t> copy(data.size());
    while (ok && written + data.size() <= std::max<uint64_t>(target, dataStart + data.size())) {
        std::copy(data.begin(), data.end(), copy.begin());
        const uint64_t by = copies * shift;
        for (const Event* e : events) {
            uint8_t* at = &copy[e->offset - dataStart];
            storeBE64(at + 2, e->timeNs + by);
            if (e->type == ev::BlockMarker)
                storeBE64(at + 14, loadBE64(at + 14) + by); // the block's end time
        }
        ok = std::fwrite(copy.data(), 1, copy.size(), out) == copy.size();
        written += copy.size();
        ++copies;
    }
    const uint8_t dataEndMarker[2] = { 0xFF, 0xFF };
    ok = ok && std::fwrite(dataEndMarker, 1, 2, out) == 2;
    ok = std::fclose(out) == 0 && ok;
    if (!ok) {
        std::fprintf(stderr, "%s: write failed\n", argv[2]);
        return 2;
    }
    std::printf("%s: %llu copies of %s, %llu bytes, %llu events\n", argv[2], (unsigned long long)copies, argv[1],
        (unsigned long long)written + 2, (unsigned long long)(copies * events.size()));
    return 0;
}
