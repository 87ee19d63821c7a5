// What the timeline's painting costs piece by piece, Qt's QPainter against what the frame does
// instead (docs/performance.md, "The strips written by hand, and Qt's thread pool"):
//   sparkscope-paint-bench [--repeat N]
// On a 1600x1000 ARGB32 image: 100 vertical grid lines 900 px tall with a translucent and with an
// opaque pen; 200 and 2,000 hover-highlight rectangles (a translucent fill and a 1.5 px edge each) with
// fillRect + drawRect and with direct_paint's fillRects; a 1510x180 indexed-colour strip with
// drawImage and with drawStrip. Each case's wall and process CPU time (Qt blends big translucent
// areas on its thread pool, so the process's CPU counts those threads too), medians of N.
#include "ui/timeline/direct_paint.h"

#include <QGuiApplication>
#include <QImage>
#include <QPainter>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <functional>
#include <string>
#include <vector>

using namespace sparkscope::ui;

namespace {

double processCpuMs()
{
    timespec ts {};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

struct Cost {
    double wallMs, cpuMs;
};

// Medians over `repeat` paintings of `paint` onto `image`.
Cost timeIt(QImage& image, int repeat, const std::function<void(QPainter&)>& paint)
{
    std::vector<double> wall, cpu;
    for (int r = 0; r < repeat; ++r) {
        const double c = processCpuMs();
        const auto t = std::chrono::steady_clock::now();
        {
            QPainter p(&image);
            paint(p);
        }
        wall.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count());
        cpu.push_back(processCpuMs() - c);
    }
    return { median(wall), median(cpu) };
}

void print(const char* what, const char* qtWay, Cost qt, const char* ourWay, Cost ours)
{
    std::printf("%-34s %-26s wall %7.2f ms, CPU %7.2f ms | %-26s wall %7.2f ms, CPU %7.2f ms | ratio wall %.1fx\n",
        what, qtWay, qt.wallMs, qt.cpuMs, ourWay, ours.wallMs, ours.cpuMs, qt.wallMs / std::max(1e-9, ours.wallMs));
}

} // namespace

int main(int argc, char** argv)
{
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QGuiApplication app(argc, argv);
    int repeat = 20;
    for (int i = 1; i + 1 < argc; ++i)
        if (std::string(argv[i]) == "--repeat")
            repeat = std::max(1, std::atoi(argv[i + 1]));
    QImage image(1600, 1000, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::white);

    auto gridLines = [](const QColor& colour) {
        return [colour](QPainter& p) {
            p.setPen(QPen(colour, 0));
            for (int k = 0; k < 100; ++k)
                p.drawLine(QLineF(90 + k * 15, 40, 90 + k * 15, 940));
        };
    };
    const QColor faint(0, 0, 0, 22); // the faint grid's pen before (black, alpha 50 * 0.45)
    print("100 grid lines, 900 px", "translucent pen", timeIt(image, repeat, gridLines(faint)), "opaque pen (mixed once)",
        timeIt(image, repeat, gridLines(QColor(233, 233, 233))));

    const QColor fill(200, 0, 90, 45), edge(200, 0, 90, 200);
    for (const int n : { 200, 2000 }) {
        std::vector<QRectF> rects;
        for (int k = 0; k < n; ++k)
            rects.emplace_back(86 + (k * 7) % 1500, 300, 3, 114);
        const Cost qt = timeIt(image, repeat, [&](QPainter& p) {
            p.setPen(QPen(edge, 1.5));
            for (const QRectF& r : rects) {
                p.fillRect(r, fill);
                p.drawRect(r);
            }
        });
        const Cost ours = timeIt(image, repeat, [&](QPainter& p) {
            std::vector<QRectF> edges;
            for (const QRectF& r : rects) {
                edges.emplace_back(r.left() - 0.75, r.top() - 0.75, r.width() + 1.5, 1.5);
                edges.emplace_back(r.left() - 0.75, r.bottom() - 0.75, r.width() + 1.5, 1.5);
                edges.emplace_back(r.left() - 0.75, r.top() + 0.75, 1.5, r.height() - 1.5);
                edges.emplace_back(r.right() - 0.75, r.top() + 0.75, 1.5, r.height() - 1.5);
            }
            fillRects(p, rects, fill);
            fillRects(p, edges, edge);
        });
        const std::string what = std::to_string(n) + " highlight rectangles";
        print(what.c_str(), "fillRect + drawRect", qt, "fillRects", ours);
    }

    // An engine row at zoom-to-fit: each column a stack, running below a boundary, idle above.
    QImage strip(1510, 180, QImage::Format_Indexed8);
    for (int y = 0; y < strip.height(); ++y)
        for (int x = 0; x < strip.width(); ++x)
            strip.scanLine(y)[x] = uchar(y < (x * 37) % strip.height() ? 0 : 1);
    QList<QRgb> table(256, qRgba(0, 0, 0, 0));
    table[0] = qRgb(222, 222, 222);
    table[1] = qRgb(46, 158, 68);
    const QRectF target(86, 300.5, strip.width(), strip.height()); // rows start half-way down a pixel
    print("1510x180 indexed strip", "drawImage", timeIt(image, repeat, [&](QPainter& p) {
        QImage coloured = strip;
        coloured.setColorTable(table);
        p.drawImage(target, coloured);
    }), "drawStrip", timeIt(image, repeat, [&](QPainter& p) { drawStrip(p, target, strip, table); }));
    return 0;
}
