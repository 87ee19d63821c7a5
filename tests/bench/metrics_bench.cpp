// Metrics benchmark (not a test): end-to-end time of `sparkscope-cli metrics` work on one eventlog —
// readTrace (decoding, all cores), computeMetrics (engine states, model pass, every metric) and
// metricsToJson — with events/s for the whole and for each phase, and the process's peak RSS.
//
//   sparkscope-metrics-bench FILE [RUNS]
//
// Prints the median of RUNS (default 3) runs of each phase, then one RESULT line for scripts.
#include "bench_stats.h"
#include "sparkscope/core/metrics.h"
#include "sparkscope/core/metrics_export.h"
#include "sparkscope/core/reader.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/resource.h>
#include <vector>

using namespace sparkscope::core;

using sparkscope::bench::median;

namespace {

double seconds(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b)
{
    return std::chrono::duration<double>(b - a).count();
}

} // namespace

int main(int argc, char** argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: sparkscope-metrics-bench FILE [RUNS]\n");
        return 2;
    }
    const std::string path = argv[1];
    const int runs = argc > 2 ? std::max(1, std::atoi(argv[2])) : 3;
    std::vector<double> readS, metricsS, jsonS, totalS;
    size_t events = 0, jsonBytes = 0, conjunctions = 0;
    for (int i = 0; i < runs; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        auto trace = readTrace(path);
        if (!trace) {
            std::fprintf(stderr, "read failed: %s\n", trace.error().toString().c_str());
            return 2;
        }
        const auto t1 = std::chrono::steady_clock::now();
        const Metrics m = computeMetrics(trace.value());
        const auto t2 = std::chrono::steady_clock::now();
        const std::string json = metricsToJson(m);
        const auto t3 = std::chrono::steady_clock::now();
        events = trace->eventCount();
        jsonBytes = json.size();
        conjunctions = m.model.conjunctions.size();
        readS.push_back(seconds(t0, t1));
        metricsS.push_back(seconds(t1, t2));
        jsonS.push_back(seconds(t2, t3));
        totalS.push_back(seconds(t0, t3));
    }
    rusage usage {};
    getrusage(RUSAGE_SELF, &usage);
    const double total = median(totalS), read = median(readS), metrics = median(metricsS), json = median(jsonS);
    std::printf("%s: %zu events, %zu conjunction instances, metrics file %zu bytes (median of %d runs)\n", path.c_str(),
        events, conjunctions, jsonBytes, runs);
    std::printf("  readTrace        %7.3f s  %7.1f M events/s\n", read, double(events) / read / 1e6);
    std::printf("  computeMetrics   %7.3f s  %7.1f M events/s\n", metrics, double(events) / metrics / 1e6);
    std::printf("  metricsToJson    %7.3f s\n", json);
    std::printf("  end to end       %7.3f s  %7.1f M events/s   (target >= 10 M events/s)\n", total,
        double(events) / total / 1e6);
    std::printf("  peak RSS         %7.0f MB  (%.0f bytes/event)\n", double(usage.ru_maxrss) / 1024,
        double(usage.ru_maxrss) * 1024 / double(events));
    std::printf("RESULT events=%zu total_s=%.6f read_s=%.6f metrics_s=%.6f json_s=%.6f rss_kb=%ld\n", events, total,
        read, metrics, json, usage.ru_maxrss);
    return 0;
}
