// Benchmark (not a test): how fast `show` formats events, and what streaming them costs. Formats
// every event in global time order as the CLI's TSV lines (time, engine, type, name, decoded fields)
// into one buffer, discarding it every megabyte as the CLI writes it out. Prints events/s, MB/s and
// the process's peak RSS.
//   sparkscope-show-bench FILE [REPEATS]            the trace read whole (timed apart), then merged and
//                                                   formatted
//   sparkscope-show-bench --streamed FILE [REPEATS] read, merged and formatted from the file in
//                                                   bounded memory (time_ordered_events.h), as `show`
// Run each mode in its own process to compare their peaks.
#include "sparkscope/core/event_fields.h"
#include "sparkscope/core/reader.h"
#include "sparkscope/core/time_ordered_events.h"

#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <string>

using namespace sparkscope::core;

namespace {

// The TSV formatter, one event at a time; counts the bytes it made.
struct Formatter {
    std::string buf;
    uint64_t bytes = 0;
    uint64_t events = 0;

    Formatter() { buf.reserve(2 << 20); }
    void operator()(const Event& e, const Payload& payload)
    {
        char num[24];
        buf.append(num, std::to_chars(num, num + sizeof num, e.timeNs).ptr);
        buf.push_back('\t');
        if (e.hasEngine())
            buf.append(num, std::to_chars(num, num + sizeof num, e.engine).ptr);
        else
            buf.push_back('-');
        buf.push_back('\t');
        buf.append(num, std::to_chars(num, num + sizeof num, e.type).ptr);
        buf.push_back('\t');
        buf.append(eventTypeName(e.type));
        buf.push_back('\t');
        appendFields(buf, e.type, payload);
        buf.push_back('\n');
        ++events;
        if (buf.size() >= (1 << 20)) {
            bytes += buf.size();
            buf.clear();
        }
    }
};

long peakRssKb()
{
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind("VmHWM:", 0) == 0)
            return std::stol(line.substr(6));
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    const bool streamed = argc > 1 && std::strcmp(argv[1], "--streamed") == 0;
    if (streamed)
        ++argv, --argc;
    if (argc < 2) {
        std::fprintf(stderr, "usage: sparkscope-show-bench [--streamed] FILE [REPEATS]\n");
        return 2;
    }
    const int repeats = argc > 2 ? std::atoi(argv[2]) : 3;
    double best = 1e30, readSeconds = 0;
    std::optional<Trace> whole; // read once, before the timed formatting
    if (!streamed) {
        const auto start = std::chrono::steady_clock::now();
        auto trace = readTrace(argv[1]);
        if (!trace) {
            std::fprintf(stderr, "%s\n", trace.error().toString().c_str());
            return 2;
        }
        whole = std::move(trace).value();
        readSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
    Formatter last;
    for (int r = 0; r < repeats; ++r) {
        Formatter format;
        const auto start = std::chrono::steady_clock::now();
        if (streamed) {
            auto read = forEachEventInTimeOrder(argv[1], [&](const Event& e, const Payload& p) {
                format(e, p);
                return true;
            });
            if (!read) {
                std::fprintf(stderr, "%s\n", read.error().toString().c_str());
                return 2;
            }
        } else {
            const Trace& t = *whole;
            t.forEachInTimeOrder([&](const Event& e) { format(e, t.payload(e)); });
        }
        format.bytes += format.buf.size();
        best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        last = std::move(format);
    }
    const double events = double(last.events);
    std::printf("show (%s): %s: %.0f events in %.3f s = %.1f M events/s, %.0f MB of TSV = %.0f MB/s, peak RSS %.0f MB",
        streamed ? "streamed from the file: read, merge, format" : "read whole, then merge and format only", argv[1],
        events, best, events / best / 1e6, double(last.bytes) / 1e6, double(last.bytes) / 1e6 / best,
        double(peakRssKb()) * 1024 / 1e6);
    if (!streamed)
        std::printf(" (the read before: %.3f s)", readSeconds);
    std::printf("\n");
    return 0;
}
