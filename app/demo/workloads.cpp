// The table of workloads and their options (workloads.h).
#include "demo/workloads.h"

namespace sparkscope::demo {

long Options::get(const std::string& name, long fallback) const
{
    used[name] = true;
    auto it = values.find(name);
    if (it == values.end())
        return fallback;
    char* end = nullptr;
    long v = std::strtol(it->second.c_str(), &end, 10);
    if (!end || *end || v < 0) {
        std::fprintf(
            stderr, "sparkscope-demo: --%s needs a non-negative integer, got '%s'\n", name.c_str(), it->second.c_str());
        std::exit(2);
    }
    return v;
}

std::span<const Workload> workloads()
{
    static const Workload kWorkloads[] = {
        { "parfib", "doubly recursive Fibonacci; --n 40 --cutoff 20 (sequential below the cut-off)", parfib },
        { "sumeuler", "sum of Euler's totient over 1..n in chunks; --n 8000 --chunk 100", sumeuler },
        { "quicksort", "partition then sort both sides in parallel; --n 4000000 --cutoff 20000 --seed 1", quicksort },
        { "pipeline", "three stages linked by futures; --items 2000 --work 20000", pipeline },
        { "imbalanced", "conjuncts of sizes 1, 2, 4, ... units; --conjuncts 12 --unit 20000", imbalanced },
        { "listsum", "sum over a list as a million-deep chunk & rest recursion; --n 1000000 --chunk 1", listsum },
    };
    return kWorkloads;
}

} // namespace sparkscope::demo
