// sparkscope-ui-bench: timeline frame times on a real trace, offscreen.
//   sparkscope-ui-bench TRACE [--size WxH] [--repeat N]
//   sparkscope-ui-bench --write-threads N OUT.eventlog   (a trace with N short-lived contexts, below)
//   sparkscope-ui-bench TRACE --compare TRACE_B [--size WxH] [--repeat N]
// Loads TRACE (reader + indexes, timed), then times the whole frame — the pure frame() function
// plus replaying it with QPainter into a WxH image, i.e. what one repaint of the timeline costs —
// for three kinds of window: zoom-to-fit, 1 ms and 1 µs windows at N positions spread evenly over
// the trace. Prints median and 95th percentile per kind, the time to the first complete frame, and
// the peak RSS. Then the same with the optional rows on (spark deque per engine and one lane per
// context, as View > Context Lanes / Spark Deque Sizes show them): the time and memory to compute
// them, and frame times with the lanes scrolled to N positions. Then the analysis' additions (the Why
// dock's, View > Utilisation Row and Critical Path, both on): the time and memory of the ledger over
// time and the critical path's segments, and frame times with both drawn. Figures only: never asserts
// on time. A trace loadTraceData streams (big files, SPARKSCOPE_STREAM_BYTES) stops after the
// frames: its ticks and tooltips come from blocks decoded again on demand, and it has no rows or
// analysis.
// With --compare (File > Compare With…): instead, the time to open B as the app does (read, index,
// both traces' anchors) and the frame times of one repaint with the comparison open: A's timeline
// (utilisation row on, as by default) and B's under it (aligned at the start), each half the height,
// both repainted for each window since zooming one zooms both.
#include "bench_stats.h"
#include "ui/compare/time_alignment.h"
#include "ui/export/timeline_export.h"
#include "ui/hover/highlight_set.h"
#include "ui/loading/trace_data.h"
#include "ui/timeline/direct_paint.h"
#include "ui/timeline/frame.h"

#include "sparkscope/core/analysis.h"
#include "sparkscope/core/compact_trace.h"
#include "sparkscope/core/event_types.h"
#include "sparkscope/core/ledger_curves.h"
#include "sparkscope/core/metrics_query.h"
#include "sparkscope/core/writer.h"

#include <QApplication>
#include <QImage>
#include <QPainter>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <time.h>
#include <vector>

using namespace sparkscope::ui;
using sparkscope::bench::cpuSeconds;
using sparkscope::bench::peakRssKb;
using Clock = std::chrono::steady_clock;

namespace {

double ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

// The highlight as the build before merged nothing: a fill and four 1.5 px edges per span, a 2 px
// line per tick (the reference for paintHighlight's figures; not used by the app).
void paintHighlightPerSpan(QPainter& painter, const Frame& f, const HighlightSet& set, const QColor& colour)
{
    const TimeAxis& ax = f.axis;
    const double left = ax.left, right = ax.left + ax.width;
    painter.save();
    painter.setClipRect(QRectF(left, 0, ax.width, f.layout.contentHeight(f.engines)));
    QColor fill = colour, edge = colour;
    fill.setAlpha(45);
    edge.setAlpha(200);
    const double w = 1.5, h = w / 2;
    std::vector<QRectF> fills, edges;
    for (const auto& s : set.spans) {
        if (s.engine >= f.engines || s.endNs < ax.startNs || s.startNs > ax.endNs)
            continue;
        const double x0 = std::max(left - 2, ax.xOf(s.startNs)), x1 = std::min(right + 2, ax.xOf(s.endNs));
        const QRectF r(x0, f.layout.barTop(s.engine) - 2, std::max(2.0, x1 - x0), f.layout.barHeight + 4);
        fills.push_back(r);
        edges.emplace_back(r.left() - h, r.top() - h, r.width() + w, w);
        edges.emplace_back(r.left() - h, r.bottom() - h, r.width() + w, w);
        edges.emplace_back(r.left() - h, r.top() + h, w, r.height() - w);
        edges.emplace_back(r.right() - h, r.top() + h, w, r.height() - w);
    }
    fillRects(painter, fills, fill);
    fillRects(painter, edges, edge);
    painter.setPen(QPen(edge, 2));
    for (const auto& p : set.points) {
        if (p.engine >= f.engines || p.timeNs < ax.startNs || p.timeNs > ax.endNs)
            continue;
        const double x = ax.xOf(p.timeNs), top = f.layout.barTop(p.engine);
        painter.drawLine(QLineF(x, top - 3, x, top + f.layout.barHeight + 3));
    }
    painter.restore();
}

// CPU time of the whole process (Qt's raster engine may paint on helper threads): unlike a frame's
// wall time, it hardly changes with the load of a shared machine, so frames can be judged there too.
double processCpuMs()
{
    timespec ts {};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

double percentile(std::vector<double> v, double p)
{
    std::sort(v.begin(), v.end());
    const size_t i = std::min(v.size() - 1, size_t(p * double(v.size() - 1) + 0.5));
    return v[i];
}

// A trace for the context lanes at scale (GHC programs can have thousands of threads): 4 engines
// run back-to-back 80 us slices every 100 us; global slice g runs context g mod N, so each of the
// N contexts runs 10 times, N / 4 slices apart, alternately blocking (woken halfway to its next run)
// and yielding, and finishes after its 10th run. About 26 N events over N x 250 us.
int writeThreads(uint32_t contexts, const char* path)
{
    namespace ev = sparkscope::core::ev;
    using sparkscope::core::PayloadBuilder;
    constexpr uint16_t kEngines = 4;
    constexpr uint64_t kSliceNs = 100'000, kRunNs = 80'000;
    struct Pending {
        uint64_t timeNs;
        uint16_t type;
        std::vector<uint8_t> payload;
    };
    std::vector<std::vector<Pending>> engines(kEngines);
    const uint64_t slices = uint64_t(contexts) * 10;
    for (uint64_t g = 0; g < slices; ++g) {
        const uint16_t e = uint16_t(g % kEngines);
        const uint64_t t = (g / kEngines) * kSliceNs + 20'000;
        const uint32_t c = uint32_t(g % contexts) + 1;
        const uint64_t run = g / contexts; // 0..9
        auto& out = engines[e];
        if (run == 0)
            out.push_back({ t - 10'000, ev::CreateThread, PayloadBuilder().u32(c).data() });
        out.push_back({ t, ev::RunThread, PayloadBuilder().u32(c).data() });
        const uint16_t status = run == 9 ? sparkscope::core::kStopFinished
            : run % 2 == 0               ? sparkscope::core::kStopBlocked
                                         : sparkscope::core::kStopYielding;
        out.push_back({ t + kRunNs, ev::StopThread, PayloadBuilder().u32(c).u16(status).u32(0).data() });
        if (status == sparkscope::core::kStopBlocked) // woken halfway to its next run
            out.push_back({ t + kRunNs + uint64_t(contexts) / kEngines * kSliceNs / 2, ev::ThreadRunnable,
                PayloadBuilder().u32(c).data() });
    }
    sparkscope::core::EventlogWriter writer(sparkscope::core::mercuryHeader());
    uint64_t last = 0;
    for (uint16_t e = 0; e < kEngines; ++e) {
        auto& events = engines[e];
        std::stable_sort(
            events.begin(), events.end(), [](const Pending& a, const Pending& b) { return a.timeNs < b.timeNs; });
        writer.beginBlock(e, events.empty() ? 0 : events.front().timeNs);
        for (const Pending& p : events)
            if (!writer.event(p.type, p.timeNs, p.payload)) {
                std::fprintf(stderr, "sparkscope-ui-bench: the writer refused event %u\n", unsigned(p.type));
                return 1;
            }
        last = std::max(last, events.empty() ? 0 : events.back().timeNs);
        writer.endBlock(last);
    }
    const std::vector<uint8_t> bytes = writer.finish();
    std::ofstream file(path, std::ios::binary);
    file.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    if (!file) {
        std::fprintf(stderr, "sparkscope-ui-bench: cannot write %s\n", path);
        return 1;
    }
    std::printf("wrote %s: %u contexts, %zu bytes\n", path, contexts, bytes.size());
    return 0;
}

// File > Compare With… open: see the file's comment.
int benchCompare(const TraceData& a, const char* pathB, int width, int height, int repeat, const FramePalette& palette)
{
    const auto t0 = Clock::now();
    auto loadedB = loadTraceData(pathB);
    if (!loadedB) {
        std::fprintf(stderr, "sparkscope-ui-bench: %s: %s\n", pathB, loadedB.error().toString().c_str());
        return 1;
    }
    const TraceData& b = *loadedB.value();
    const auto t1 = Clock::now();
    const RunAnchors anchorsA = anchorsOf(a), anchorsB = anchorsOf(b);
    const auto t2 = Clock::now();
    const TimeMap map = *alignRuns(anchorsA, anchorsB, {});
    std::printf("trace B %s: %zu events, %zu engines, %.3f s span\n", pathB, b.trace->eventCount(), b.engineCount(),
        double(b.endNs - b.startNs) / 1e9);
    std::printf("open comparison: B load+index %.0f ms, both traces' anchors (markers, conjunction starts) %.0f ms, "
                "peak RSS %.0f MB\n",
        ms(t1 - t0), ms(t2 - t1), double(peakRssKb()) / 1024.0);
    // A's utilisation row, as the app draws it by default (computed there in the background).
    const sparkscope::core::AnalysisSession session(*a.trace);
    TimelineRows rowsA;
    rowsA.ledger
        = std::make_shared<sparkscope::core::LedgerCurves>(sparkscope::core::computeLedgerCurves(session));
    const int half = height / 2;
    QImage imageA(width, half, QImage::Format_ARGB32_Premultiplied), imageB(width, half, QImage::Format_ARGB32_Premultiplied);
    QImage alone(width, height, QImage::Format_ARGB32_Premultiplied);
    // Wall and process CPU time of one repaint (the process's: Qt may blend on its thread pool): on
    // a busy machine the wall time also counts the time other processes had the cores.
    struct Cost {
        double wallMs, cpuMs;
    };
    auto paintA = [&](QImage& image, TimeWindow w) {
        Viewport va { image.width(), image.height(), 1.0, w };
        va.showUtilisation = true;
        const Frame fa = frame(a, va, nullptr, &rowsA);
        QPainter pa(&image);
        paintFrame(pa, fa, palette);
    };
    auto render = [&](TimeWindow w) {
        const auto start = Clock::now();
        const double cpu = processCpuMs();
        paintA(imageA, w);
        const Frame fb = frame(b, { width, half, 1.0, map.toB(w) });
        QPainter pb(&imageB);
        paintFrame(pb, fb, palette);
        pb.end();
        return Cost { ms(Clock::now() - start), processCpuMs() - cpu };
    };
    auto renderAlone = [&](TimeWindow w) {
        const auto start = Clock::now();
        const double cpu = processCpuMs();
        paintA(alone, w);
        return Cost { ms(Clock::now() - start), processCpuMs() - cpu };
    };
    struct Kind {
        const char* name;
        int64_t spanNs;
    };
    const int64_t span = a.endNs - a.startNs;
    for (const Kind& k :
        { Kind { "zoom-to-fit", span }, Kind { "1 ms window", 1'000'000 }, Kind { "1 us window", 1000 } }) {
        // Alternately alone and compared, so that both see the same load.
        std::vector<double> wall, cpu, wallAlone, cpuAlone;
        for (int r = 0; r < repeat; ++r) {
            const int64_t room = std::max<int64_t>(0, span - k.spanNs);
            const int64_t start = a.startNs + (repeat > 1 ? room * r / (repeat - 1) : 0);
            const Cost c = render({ start, start + k.spanNs }), one = renderAlone({ start, start + k.spanNs });
            wall.push_back(c.wallMs);
            cpu.push_back(c.cpuMs);
            wallAlone.push_back(one.wallMs);
            cpuAlone.push_back(one.cpuMs);
        }
        std::printf("frame compare %-12s A over B at %dx%d each: wall median %.2f ms, p95 %.2f ms; CPU median %.2f ms, "
                    "p95 %.2f ms | A alone at %dx%d: wall p95 %.2f ms, CPU p95 %.2f ms | ratio compared / alone "
                    "(CPU p95) %.2f (%d frames each)\n",
            k.name, width, half, percentile(wall, 0.5), percentile(wall, 0.95), percentile(cpu, 0.5),
            percentile(cpu, 0.95), width, height, percentile(wallAlone, 0.95), percentile(cpuAlone, 0.95),
            percentile(cpu, 0.95) / std::max(1e-9, percentile(cpuAlone, 0.95)), repeat);
        std::printf("RESULT frame compare %s median_ms=%.3f p95_ms=%.3f cpu_p95_ms=%.3f alone_cpu_p95_ms=%.3f\n",
            k.name, percentile(wall, 0.5), percentile(wall, 0.95), percentile(cpu, 0.95), percentile(cpuAlone, 0.95));
    }
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    if (argc == 4 && std::string(argv[1]) == "--write-threads")
        return writeThreads(uint32_t(std::max(1, std::atoi(argv[2]))), argv[3]);
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    if (argc < 2) {
        std::fprintf(stderr, "usage: sparkscope-ui-bench TRACE [--compare TRACE_B] [--size WxH] [--repeat N]\n");
        return 2;
    }
    int width = 1600, height = 1000, repeat = 40;
    const char* compareWith = nullptr;
    for (int i = 2; i + 1 < argc; i += 2) {
        const std::string a = argv[i];
        if (a == "--size" && std::sscanf(argv[i + 1], "%dx%d", &width, &height) == 2)
            continue;
        if (a == "--repeat")
            repeat = std::max(1, std::atoi(argv[i + 1]));
        if (a == "--compare")
            compareWith = argv[i + 1];
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
    TimelineRows analysisRows; // the utilisation row and the critical path, once computed
    std::vector<double> cpu; // each frame's process CPU ms, cleared per kind of frame
    auto render = [&](TimeWindow w, bool withRows = false, int scrollY = 0, bool withAnalysis = false) {
        const double c = processCpuMs();
        const auto a = Clock::now();
        Viewport v { width, height, 1.0, w, withRows, withRows, scrollY };
        v.showUtilisation = v.showCriticalPath = withAnalysis;
        const Frame f = frame(data, v, nullptr, withAnalysis ? &analysisRows : withRows ? &rows : nullptr);
        QPainter painter(&image);
        paintFrame(painter, f, palette);
        painter.end();
        const double wall = ms(Clock::now() - a);
        cpu.push_back(processCpuMs() - c);
        return wall;
    };
    auto cpuFigures = [&] {
        char text[96];
        std::snprintf(text, sizeof text, "; CPU: median %.2f ms, p95 %.2f ms", percentile(cpu, 0.5), percentile(cpu, 0.95));
        cpu.clear();
        return std::string(text);
    };
    const double firstFrameMs = render({ data.startNs, data.endNs });
    const auto t2 = Clock::now();
    std::printf("trace %s: %llu events%s, %zu engines, %.3f s span\n", argv[1],
        static_cast<unsigned long long>(data.eventCount()), data.isStreamed() ? " (streamed)" : "", data.engineCount(),
        double(data.endNs - data.startNs) / 1e9);
    std::printf("open: load+index %.0f ms, first complete frame %.1f ms, time to first frame %.0f ms wall, %.2f s CPU, "
                "peak RSS %.0f MB (LOD index %.1f MB)\n",
        ms(t1 - t0), firstFrameMs, ms(t2 - t0), cpuSeconds() - cpu0, double(peakRssKb()) / 1024.0,
        double(data.lod.memoryBytes()) / 1048576.0);

    struct Kind {
        const char* name;
        int64_t spanNs;
    };
    const int64_t span = data.endNs - data.startNs;
    if (compareWith)
        return benchCompare(data, compareWith, width, height, repeat, palette);
    for (const Kind& k :
        { Kind { "zoom-to-fit", span }, Kind { "1 ms window", 1'000'000 }, Kind { "1 us window", 1000 } }) {
        std::vector<double> times, geometry;
        int withTicks = 0;
        cpu.clear();
        for (int r = 0; r < repeat; ++r) {
            const int64_t room = std::max<int64_t>(0, span - k.spanNs);
            const int64_t start = data.startNs + (repeat > 1 ? room * r / (repeat - 1) : 0);
            times.push_back(render({ start, start + k.spanNs }));
            const auto a = Clock::now();
            const Frame f = frame(data, { width, height, 1.0, { start, start + k.spanNs } });
            geometry.push_back(ms(Clock::now() - a));
            withTicks += f.ticksShown ? 1 : 0;
        }
        std::printf("frame %-12s at %dx%d: median %.2f ms, p95 %.2f ms, max %.2f ms (%d frames, %d with event ticks; "
                    "geometry alone: median %.2f ms, p95 %.2f ms%s)\n",
            k.name, width, height, percentile(times, 0.5), percentile(times, 0.95), percentile(times, 1.0), repeat,
            withTicks, percentile(geometry, 0.5), percentile(geometry, 0.95), cpuFigures().c_str());
        std::printf(
            "RESULT frame %s median_ms=%.3f p95_ms=%.3f\n", k.name, percentile(times, 0.5), percentile(times, 0.95));
    }
    std::printf("RESULT open load_ms=%.1f first_frame_ms=%.2f rss_kb=%ld\n", ms(t1 - t0), firstFrameMs, peakRssKb());

    // Optional rows: computed as the widget does when they are switched on (there: in the background).
    // A streamed trace has none: they need every event (the app does not offer them for it either).
    auto benchRows = [&] {
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
            std::vector<double> times, geometry;
            size_t lanesDrawn = 0;
            cpu.clear();
            for (int r = 0; r < repeat; ++r) {
                const int64_t room = std::max<int64_t>(0, span - k.spanNs);
                const int64_t start = data.startNs + (repeat > 1 ? room * r / (repeat - 1) : 0);
                // Lanes scrolled to a different place each time (top, ..., bottom).
                const int scrollY = repeat > 1 ? int(int64_t(maxScroll) * r / (repeat - 1)) : 0;
                times.push_back(render({ start, start + k.spanNs }, true, scrollY));
                const auto a = Clock::now();
                const Frame f
                    = frame(data, { width, height, 1.0, { start, start + k.spanNs }, true, true, scrollY }, nullptr, &rows);
                geometry.push_back(ms(Clock::now() - a));
                lanesDrawn = std::max(lanesDrawn, f.extras.lanesDrawn);
            }
            std::printf("frame+rows %-12s at %dx%d: median %.2f ms, p95 %.2f ms, max %.2f ms (%d frames, up to %zu lanes "
                        "drawn of %zu, scrolled over %d px; geometry alone: median %.2f ms, p95 %.2f ms%s)\n",
                k.name, width, height, percentile(times, 0.5), percentile(times, 0.95), percentile(times, 1.0), repeat,
                lanesDrawn, rows.lanes->size(), maxScroll, percentile(geometry, 0.5), percentile(geometry, 0.95),
                cpuFigures().c_str());
            std::printf("RESULT frame+rows %s median_ms=%.3f p95_ms=%.3f\n", k.name, percentile(times, 0.5),
                percentile(times, 0.95));
        }
    };
    if (data.isStreamed())
        std::printf("rows: not measured: the context lanes and spark deques need every event, and a streamed trace "
                    "holds none (the app does not offer them for it either)\n");
    else
        benchRows();

    // The analysis on the timeline: computed as the app does it in the background once the analysis
    // is ready (the session here builds its own model and states; the app lends the metrics').
    rows = {}; // the optional rows' memory back
    const long rssAnalysis = peakRssKb();
    const auto s0 = Clock::now();
    // A streamed trace is analysed as the app analyses it: from a compact read of its file
    // (MetricsSession::setTraceFile).
    std::shared_ptr<const sparkscope::core::Trace> analysed = data.trace;
    if (data.isStreamed()) {
        auto compact = sparkscope::core::readTraceCompact(argv[1]);
        if (!compact) {
            std::fprintf(stderr, "sparkscope-ui-bench: %s: %s\n", argv[1], compact.error().toString().c_str());
            return 1;
        }
        analysed = std::make_shared<const sparkscope::core::Trace>(std::move(compact).value());
    }
    const sparkscope::core::AnalysisSession session(*analysed);
    const sparkscope::core::Analysis analysis = session.analyze();
    const auto s1 = Clock::now();
    const long rssSession = peakRssKb();
    auto ledger = std::make_shared<sparkscope::core::LedgerCurves>(sparkscope::core::computeLedgerCurves(session));
    const auto s2 = Clock::now();
    size_t ledgerSteps = 0;
    for (const auto& curve : ledger->curves)
        ledgerSteps += curve.steps().size();
    analysisRows.ledger = ledger;
    if (analysis.criticalPath) {
        auto path = std::make_shared<CriticalPathRows>();
        path->segments = analysis.criticalPath->segments;
        analysisRows.criticalPath = std::move(path);
    }
    std::printf("analysis%s: session + analyze %.0f ms (peak RSS %.0f MB -> %.0f MB), ledger over time %.0f ms (%zu "
                "steps, %.1f MB), critical path %zu segments (%.1f MB)\n",
        data.isStreamed() ? " (compact read included)" : "", ms(s1 - s0), double(rssAnalysis) / 1024.0, double(rssSession) / 1024.0, ms(s2 - s1), ledgerSteps,
        double(ledger->memoryBytes()) / 1048576.0,
        analysisRows.criticalPath ? analysisRows.criticalPath->segments.size() : size_t(0),
        analysisRows.criticalPath
            ? double(analysisRows.criticalPath->segments.size() * sizeof(sparkscope::core::PathSegment)) / 1048576.0
            : 0.0);
    std::printf("RESULT analysis ledger_ms=%.1f ledger_mb=%.2f path_segments=%zu\n", ms(s2 - s1),
        double(ledger->memoryBytes()) / 1048576.0,
        analysisRows.criticalPath ? analysisRows.criticalPath->segments.size() : size_t(0));
    for (const Kind& k :
        { Kind { "zoom-to-fit", span }, Kind { "1 ms window", 1'000'000 }, Kind { "1 us window", 1000 } }) {
        std::vector<double> times;
        cpu.clear();
        for (int r = 0; r < repeat; ++r) {
            const int64_t room = std::max<int64_t>(0, span - k.spanNs);
            const int64_t start = data.startNs + (repeat > 1 ? room * r / (repeat - 1) : 0);
            times.push_back(render({ start, start + k.spanNs }, false, 0, true));
        }
        std::printf("frame+analysis %-12s at %dx%d: median %.2f ms, p95 %.2f ms, max %.2f ms (%d frames, utilisation "
                    "row and critical path on%s)\n",
            k.name, width, height, percentile(times, 0.5), percentile(times, 0.95), percentile(times, 1.0), repeat,
            cpuFigures().c_str());
        std::printf("RESULT frame+analysis %s median_ms=%.3f p95_ms=%.3f\n", k.name, percentile(times, 0.5),
            percentile(times, 0.95));
    }

    // The conjunction list's "Highlight all" on the static id with the most instances, as the app
    // computes it (highlightConjunctions: the first ones, up to its limit), drawn over a frame; beside
    // it, in the same run, the same set drawn one rectangle per span as the build before did.
    const sparkscope::core::ParModel& model = session.model();
    std::vector<size_t> perStatic;
    for (const auto& c : model.conjunctions) {
        if (c.staticId >= perStatic.size())
            perStatic.resize(c.staticId + 1, 0);
        ++perStatic[c.staticId];
    }
    if (!perStatic.empty()) {
        const uint32_t busiest = uint32_t(std::max_element(perStatic.begin(), perStatic.end()) - perStatic.begin());
        const auto instances = sparkscope::core::conjunctionsOfStatic(model, model.staticName(busiest));
        const auto h0 = Clock::now();
        const HighlightSet set = highlightConjunctions(model, instances);
        std::printf("highlight all: %zu of %zu instances of %s, %zu spans and %zu ticks, built in %.1f ms\n",
            set.instances, instances.size(), model.staticName(busiest).c_str(), set.spans.size(), set.points.size(),
            ms(Clock::now() - h0));
        const QColor teal(0, 150, 160);
        for (const Kind& k :
            { Kind { "zoom-to-fit", span }, Kind { "1 ms window", 1'000'000 }, Kind { "1 us window", 1000 } }) {
            std::vector<double> merged, perSpan;
            // Windows over the highlighted part: the instances are the first ones in time.
            const int64_t from = std::max(data.startNs, set.startNs), to = std::max(from + 1, set.endNs);
            for (int r = 0; r < repeat; ++r) {
                const int64_t room = std::max<int64_t>(0, to - from - k.spanNs);
                const int64_t start = k.spanNs >= span ? data.startNs : from + (repeat > 1 ? room * r / (repeat - 1) : 0);
                const Frame f = frame(data, { width, height, 1.0, { start, start + k.spanNs } });
                QPainter painter(&image);
                paintFrame(painter, f, palette);
                auto a = Clock::now();
                paintHighlight(painter, f, set, teal);
                merged.push_back(ms(Clock::now() - a));
                a = Clock::now();
                paintHighlightPerSpan(painter, f, set, teal);
                perSpan.push_back(ms(Clock::now() - a));
            }
            std::printf("highlight all %-12s: merged per pixel median %.2f ms, p95 %.2f ms; one rectangle per span "
                        "median %.2f ms, p95 %.2f ms; ratio of medians %.1fx\n",
                k.name, percentile(merged, 0.5), percentile(merged, 0.95), percentile(perSpan, 0.5),
                percentile(perSpan, 0.95), percentile(perSpan, 0.5) / std::max(1e-6, percentile(merged, 0.5)));
            std::printf("RESULT highlight %s merged_median_ms=%.3f per_span_median_ms=%.3f\n", k.name,
                percentile(merged, 0.5), percentile(perSpan, 0.5));
        }
    }
    return 0;
}
