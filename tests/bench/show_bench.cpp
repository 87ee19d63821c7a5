// Benchmark (not a test): how fast `show` formats events. Reads an eventlog, then formats every
// event in global time order as the CLI's TSV lines (time, engine, type, name, decoded fields) into
// one buffer, discarding it every megabyte as the CLI writes it out. Prints events/s and MB/s.
//   sparkscope-show-bench FILE [REPEATS]
#include "sparkscope/core/event_fields.h"
#include "sparkscope/core/reader.h"

#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

using namespace sparkscope::core;

int main(int argc, char** argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: sparkscope-show-bench FILE [REPEATS]\n");
        return 2;
    }
    const int repeats = argc > 2 ? std::atoi(argv[2]) : 3;
    auto trace = readTrace(argv[1]);
    if (!trace) {
        std::fprintf(stderr, "%s\n", trace.error().toString().c_str());
        return 2;
    }
    const Trace& t = trace.value();
    double best = 1e30;
    uint64_t bytes = 0;
    for (int r = 0; r < repeats; ++r) {
        std::string buf;
        buf.reserve(2 << 20);
        bytes = 0;
        const auto start = std::chrono::steady_clock::now();
        t.forEachInTimeOrder([&](const Event& e) {
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
            appendFields(buf, e.type, t.payload(e));
            buf.push_back('\n');
            if (buf.size() >= (1 << 20)) {
                bytes += buf.size();
                buf.clear();
            }
        });
        bytes += buf.size();
        best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    const double events = static_cast<double>(t.eventCount());
    std::printf("show (format only): %s: %.0f events in %.3f s = %.1f M events/s, %.0f MB of TSV = %.0f MB/s\n",
        argv[1], events, best, events / best / 1e6, bytes / 1e6, bytes / 1e6 / best);
    return 0;
}
