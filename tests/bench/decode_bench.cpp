// Decoding benchmark (not a test): how fast readTraceFromBytes turns an eventlog's bytes into a
// Trace (header, events, per-engine split, stable sort), single-threaded and with all cores, and the
// peak memory of reading the file with readTrace in a fresh child process.
//
//   sparkscope-decode-bench FILE [RUNS]
//
// FILE may be compressed (it is then decompressed once, outside the timed runs). Prints the median
// of RUNS (default 5) timed runs per mode as events/s and MB/s of decompressed stream.
#include "sparkscope/core/reader.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <tbb/info.h>
#include <unistd.h>
#include <vector>

using namespace sparkscope::core;

namespace {

double medianSeconds(const std::vector<uint8_t>& bytes, unsigned threads, int runs, size_t& events)
{
    std::vector<double> seconds;
    for (int i = 0; i < runs; ++i) {
        std::vector<uint8_t> copy = bytes; // not timed
        ReadOptions options;
        options.threads = threads;
        const auto start = std::chrono::steady_clock::now();
        auto trace = readTraceFromBytes(std::move(copy), options);
        const auto stop = std::chrono::steady_clock::now();
        if (!trace) {
            std::fprintf(stderr, "decode failed: %s\n", trace.error().toString().c_str());
            std::exit(2);
        }
        events = trace->eventCount();
        seconds.push_back(std::chrono::duration<double>(stop - start).count());
    }
    std::sort(seconds.begin(), seconds.end());
    return seconds[seconds.size() / 2];
}

// Reads `path` with readTrace in a child process; returns (seconds, peak RSS in KB) of that child.
std::pair<double, long> childRead(const std::string& path, unsigned threads)
{
    const auto start = std::chrono::steady_clock::now();
    const pid_t pid = fork();
    if (pid == 0) {
        ReadOptions options;
        options.threads = threads;
        auto trace = readTrace(path, options);
        _exit(trace ? 0 : 2);
    }
    int status = 0;
    rusage usage {};
    wait4(pid, &status, 0, &usage);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        std::fprintf(stderr, "readTrace(%s) failed in the child\n", path.c_str());
        std::exit(2);
    }
    return { seconds, usage.ru_maxrss };
}

} // namespace

int main(int argc, char** argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: sparkscope-decode-bench FILE [RUNS]\n");
        return 2;
    }
    const std::string path = argv[1];
    const int runs = argc > 2 ? std::max(1, std::atoi(argv[2])) : 5;
    const unsigned cores = static_cast<unsigned>(tbb::info::default_concurrency());

    // Peak memory first, in children, before this process holds any copy of the data.
    const auto [fileSeconds1, rss1] = childRead(path, 1);
    const auto [fileSecondsN, rssN] = childRead(path, 0);

    std::vector<uint8_t> bytes;
    uint64_t fileSize = 0;
    {
        auto trace = readTrace(path);
        if (!trace) {
            std::fprintf(stderr, "cannot read %s: %s\n", path.c_str(), trace.error().toString().c_str());
            return 2;
        }
        bytes.assign(trace->bytes().begin(), trace->bytes().end());
        fileSize = trace->fileSize;
    }
    size_t events = 0;
    const double single = medianSeconds(bytes, 1, runs, events);
    const double all = medianSeconds(bytes, 0, runs, events);
    const double mb = double(bytes.size()) / 1e6;
    std::printf(
        "file: %s (%.1f MB on disk, %.1f MB stream, %zu events)\n", path.c_str(), double(fileSize) / 1e6, mb, events);
    std::printf("decode 1 thread:  %.3f s  %.1f M events/s  %.0f MB/s  (median of %d)\n", single,
        double(events) / single / 1e6, mb / single, runs);
    std::printf("decode %u threads: %.3f s  %.1f M events/s  %.0f MB/s  (median of %d)\n", cores, all,
        double(events) / all / 1e6, mb / all, runs);
    std::printf("readTrace(file) 1 thread:  %.3f s, peak RSS %.0f MB (%.2f x stream)\n", fileSeconds1,
        double(rss1) / 1024.0, double(rss1) * 1024.0 / double(bytes.size()));
    std::printf("readTrace(file) %u threads: %.3f s, peak RSS %.0f MB (%.2f x stream)\n", cores, fileSecondsN,
        double(rssN) / 1024.0, double(rssN) * 1024.0 / double(bytes.size()));
    std::printf("RESULT events=%zu single_s=%.4f all_s=%.4f file_all_s=%.4f rss_kb=%ld\n", events, single, all,
        fileSecondsN, std::max(rss1, rssN));
    return 0;
}
