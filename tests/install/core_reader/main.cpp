// core_reader TRACE: reads TRACE with libsparkscope-core and prints how many conjunction and
// future instances its parallel model holds, as "conjunctions=N futures=M".
#include "sparkscope/core/metrics.h"
#include "sparkscope/core/reader.h"

#include <cstdio>

int main(int argc, char** argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: core_reader TRACE\n");
        return 2;
    }
    auto trace = sparkscope::core::readTrace(argv[1]);
    if (!trace.ok()) {
        std::fprintf(stderr, "core_reader: %s\n", trace.error().toString().c_str());
        return 2;
    }
    const sparkscope::core::Metrics metrics = sparkscope::core::computeMetrics(trace.value());
    std::printf("conjunctions=%zu futures=%zu\n", metrics.model.conjunctions.size(), metrics.model.futures.size());
    return 0;
}
