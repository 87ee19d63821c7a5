// Writes the fuzzers' seeds of our runtime's event set into a folder: programs of the tests'
// simulator (tests/core/metrics_sim.h: conjunctions nested and stolen, futures, sleeping engines),
// written by core's writer. Deterministic: the same files on every run, where the demo's traces
// depend on timing, so a smoke run with a fixed -seed explores the same corpus each time.
//
//   sparkscope-fuzz-seeds DIR
#include "metrics_sim.h"
#include "sparkscope/core/writer.h"

#include <cstdio>
#include <string>

int main(int argc, char** argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: sparkscope-fuzz-seeds DIR\n");
        return 2;
    }
    const std::string dir = argv[1];
    // Small programs, under the fuzzers' 64 KiB input bound (-max_len): shallow trees of a few
    // conjunctions, some with futures. Seeds whose trace comes out larger are passed over.
    constexpr size_t kMaxBytes = 60 * 1024;
    int written = 0;
    for (uint64_t seed = 1; seed <= 64 && written < 16; ++seed) {
        const auto bytes = sparkscope::core::writeTrace(
            sparkscope::test::simulateRandomProgram(seed, 1 + int(seed % 4), 2 + int(seed % 2)).roundTrip());
        if (bytes.size() > kMaxBytes)
            continue;
        const std::string path = dir + "/sim-" + std::to_string(seed) + ".eventlog";
        if (auto ok = sparkscope::core::writeFile(path, bytes); !ok) {
            std::fprintf(stderr, "sparkscope-fuzz-seeds: %s\n", ok.error().toString().c_str());
            return 1;
        }
        ++written;
    }
    std::printf("%d seeds written to %s\n", written, dir.c_str());
    return written > 0 ? 0 : 1;
}
