// sparkscope-ui-bench: timeline frame times on a real trace, offscreen.
//   sparkscope-ui-bench TRACE [--size WxH] [--repeat N]
// Loads TRACE (reader + indexes, timed), then times the whole frame — the pure frame() function
// plus replaying it with QPainter into a WxH image, i.e. what one repaint of the timeline costs —
// for three kinds of window: zoom-to-fit, 1 ms and 1 µs windows at N positions spread evenly over
// the trace. Prints median and 95th percentile per kind, the time to the first complete frame, and
// the peak RSS. Then the same with the optional rows on (spark deque per engine and one lane per
// context, as View > Context Lanes / Spark Deque Sizes show them): the time and memory to compute
// them, and frame times with the lanes scrolled to N positions. Figures only: never asserts on time.
#include "ui/export/timeline_export.h"
#include "ui/loading/trace_data.h"
#include "ui/timeline/frame.h"

#include <QApplication>
#include <QImage>
#include <QPainter>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <sys/resource.h>
#include <vector>

using namespace sparkscope::ui;
using Clock = std::chrono::steady_clock;

namespace {

double ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

double cpuSeconds()
{
    rusage u {};
    getrusage(RUSAGE_SELF, &u);
    return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

long peakRssKb()
{
    rusage u {};
    getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss;
}

double percentile(std::vector<double> v, double p)
{
    std::sort(v.begin(), v.end());
    const size_t i = std::min(v.size() - 1, size_t(p * double(v.size() - 1) + 0.5));
    return v[i];
}

} // namespace

int main(int argc, char** argv)
{
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    if (argc < 2) {
        std::fprintf(stderr, "usage: sparkscope-ui-bench TRACE [--size WxH] [--repeat N]\n");
        return 2;
    }
    int width = 1600, height = 1000, repeat = 40;
    for (int i = 2; i + 1 < argc; i += 2) {
        const std::string a = argv[i];
        if (a == "--size" && std::sscanf(argv[i + 1], "%dx%d", &width, &height) == 2)
            continue;
        if (a == "--repeat")
            repeat = std::max(1, std::atoi(argv[i + 1]));
    }
    const auto t0 = Clock::now();
    const double cpu0 = cpuSeconds();
    auto loaded = loadTraceData(argv[1]);
    if (!loaded) {
        std::fprintf(stderr, "sparkscope-ui-bench: %s: %s\n", argv[1], loaded.error().toString().c_str());
        return 1;
    }
    const TraceData& data = *loaded.value();
    const auto t1 = Clock::now();
    const FramePalette palette = FramePalette::fromPalette(QApplication::palette());
    QImage image(width, height, QImage::Format_ARGB32_Premultiplied);
    TimelineRows rows; // empty until the optional rows are measured
    auto render = [&](TimeWindow w, bool withRows = false, int scrollY = 0) {
        const auto a = Clock::now();
        const Viewport v { width, height, 1.0, w, withRows, withRows, scrollY };
        const Frame f = frame(data, v, nullptr, withRows ? &rows : nullptr);
        QPainter painter(&image);
        paintFrame(painter, f, palette);
        painter.end();
        return ms(Clock::now() - a);
    };
    const double firstFrameMs = render({ data.startNs, data.endNs });
    const auto t2 = Clock::now();
    std::printf("trace %s: %zu events, %zu engines, %.3f s span\n", argv[1], data.trace->eventCount(),
        data.engineCount(), double(data.endNs - data.startNs) / 1e9);
    std::printf("open: load+index %.0f ms, first complete frame %.1f ms, time to first frame %.0f ms wall, %.2f s CPU, "
                "peak RSS %.0f MB (LOD index %.1f MB)\n",
        ms(t1 - t0), firstFrameMs, ms(t2 - t0), cpuSeconds() - cpu0, double(peakRssKb()) / 1024.0,
        double(data.lod.memoryBytes()) / 1048576.0);

    struct Kind {
        const char* name;
        int64_t spanNs;
    };
    const int64_t span = data.endNs - data.startNs;
    for (const Kind& k :
        { Kind { "zoom-to-fit", span }, Kind { "1 ms window", 1'000'000 }, Kind { "1 us window", 1000 } }) {
        std::vector<double> times, geometry;
        for (int r = 0; r < repeat; ++r) {
            const int64_t room = std::max<int64_t>(0, span - k.spanNs);
            const int64_t start = data.startNs + (repeat > 1 ? room * r / (repeat - 1) : 0);
            times.push_back(render({ start, start + k.spanNs }));
            const auto a = Clock::now();
            const Frame f = frame(data, { width, height, 1.0, { start, start + k.spanNs } });
            geometry.push_back(ms(Clock::now() - a));
        }
        std::printf("frame %-12s at %dx%d: median %.2f ms, p95 %.2f ms, max %.2f ms (%d frames; geometry alone: median "
                    "%.2f ms, p95 %.2f ms)\n",
            k.name, width, height, percentile(times, 0.5), percentile(times, 0.95), percentile(times, 1.0), repeat,
            percentile(geometry, 0.5), percentile(geometry, 0.95));
        std::printf(
            "RESULT frame %s median_ms=%.3f p95_ms=%.3f\n", k.name, percentile(times, 0.5), percentile(times, 0.95));
    }
    std::printf("RESULT open load_ms=%.1f first_frame_ms=%.2f rss_kb=%ld\n", ms(t1 - t0), firstFrameMs, peakRssKb());

    // Optional rows: computed as the widget does when they are switched on (there: in the background).
    const long rssBefore = peakRssKb();
    const auto r0 = Clock::now();
    rows.lanes = computeContextLaneRows(*data.trace);
    const auto r1 = Clock::now();
    rows.deques = computeDequeRows(*data.trace);
    const auto r2 = Clock::now();
    size_t dequeSteps = 0;
    for (const auto& curve : rows.deques->engines)
        dequeSteps += curve.steps().size();
    std::printf("rows: context lanes %.0f ms (%zu contexts, %.1f MB), spark deques %.0f ms (%zu steps, max %lld), "
                "peak RSS %.0f MB -> %.0f MB\n",
        ms(r1 - r0), rows.lanes->size(), double(rows.lanes->memoryBytes()) / 1048576.0, ms(r2 - r1), dequeSteps,
        static_cast<long long>(rows.deques->maxValue), double(rssBefore) / 1024.0, double(peakRssKb()) / 1024.0);
    const int maxScroll = int(
        frameLayout(data, { width, height, 1.0, { data.startNs, data.endNs }, true, true, 0 }, &rows).maxScrollY());
    for (const Kind& k :
        { Kind { "zoom-to-fit", span }, Kind { "1 ms window", 1'000'000 }, Kind { "1 us window", 1000 } }) {
        std::vector<double> times;
        size_t lanesDrawn = 0;
        for (int r = 0; r < repeat; ++r) {
            const int64_t room = std::max<int64_t>(0, span - k.spanNs);
            const int64_t start = data.startNs + (repeat > 1 ? room * r / (repeat - 1) : 0);
            // Lanes scrolled to a different place each time (top, ..., bottom).
            const int scrollY = repeat > 1 ? int(int64_t(maxScroll) * r / (repeat - 1)) : 0;
            times.push_back(render({ start, start + k.spanNs }, true, scrollY));
            lanesDrawn = std::max(lanesDrawn,
                frame(data, { width, height, 1.0, { start, start + k.spanNs }, true, true, scrollY }, nullptr, &rows)
                    .extras.lanesDrawn);
        }
        std::printf("frame+rows %-12s at %dx%d: median %.2f ms, p95 %.2f ms, max %.2f ms (%d frames, up to %zu lanes "
                    "drawn of %zu, scrolled over %d px)\n",
            k.name, width, height, percentile(times, 0.5), percentile(times, 0.95), percentile(times, 1.0), repeat,
            lanesDrawn, rows.lanes->size(), maxScroll);
        std::printf("RESULT frame+rows %s median_ms=%.3f p95_ms=%.3f\n", k.name, percentile(times, 0.5),
            percentile(times, 0.95));
    }
    return 0;
}
