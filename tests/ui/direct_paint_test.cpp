// drawStrip and fillRect against Qt's own drawImage and fillRect: the pixels written by hand must
// equal Qt's (within one step of rounding per channel), inside every clip, and the cases they cannot
// write as Qt would must go to Qt.
#include "ui/timeline/direct_paint.h"

#include <catch2/catch.hpp>

#include <QImage>
#include <QPainter>
#include <QWidget>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <vector>

using namespace sparkscope::ui;

namespace {

// A strip of w x h with every kind of pixel: nothing (255), opaque inks 0 and 1, and ink 2 at alpha
// 120 (as the spark-deque rows and the CPUs curve's area have); the pattern differs per row and column.
QImage testStrip(int w, int h)
{
    QImage strip(w, h, QImage::Format_Indexed8);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const int k = (x * 7 + y * 3) % 5;
            strip.scanLine(y)[x] = uchar(k <= 2 ? k : 255);
        }
    return strip;
}

const QList<QRgb> kTable = [] {
    QList<QRgb> table(256, qRgba(0, 0, 0, 0));
    table[0] = qRgb(46, 158, 68);
    table[1] = qRgb(236, 132, 22);
    table[2] = qRgba(60, 110, 170, 120);
    return table;
}();

// Something under the strip that varies by pixel, so that blending shows.
QImage background(QSize size, QImage::Format format, double dpr = 1.0)
{
    QImage image(size, format);
    for (int y = 0; y < size.height(); ++y)
        for (int x = 0; x < size.width(); ++x)
            image.setPixel(x, y, qRgb((x * 13) % 256, (y * 29) % 256, ((x + y) * 5) % 256));
    image.setDevicePixelRatio(dpr);
    return image;
}

int largestChannelDifference(const QImage& a, const QImage& b)
{
    REQUIRE(a.size() == b.size());
    int most = 0;
    for (int y = 0; y < a.height(); ++y)
        for (int x = 0; x < a.width(); ++x) {
            const QRgb p = a.pixel(x, y), q = b.pixel(x, y);
            most = std::max({ most, std::abs(qRed(p) - qRed(q)), std::abs(qGreen(p) - qGreen(q)),
                std::abs(qBlue(p) - qBlue(q)), std::abs(qAlpha(p) - qAlpha(q)) });
        }
    return most;
}

// Paints the strip with drawStrip and with Qt's drawImage on copies of `under`, each after
// `setUp` (transform, clip); returns drawStrip's answer and the two images.
struct Painted {
    bool direct;
    QImage mine, qts;
};
Painted paintBoth(
    const QImage& under, const QRectF& target, const QImage& strip, const std::function<void(QPainter&)>& setUp)
{
    Painted out { false, under.copy(), under.copy() };
    {
        QPainter p(&out.mine);
        setUp(p);
        out.direct = drawStrip(p, target, strip, kTable);
    }
    {
        QPainter p(&out.qts);
        setUp(p);
        QImage coloured = strip;
        coloured.setColorTable(kTable);
        p.drawImage(target, coloured);
    }
    return out;
}

} // namespace

TEST_CASE("a strip written by hand equals Qt's drawImage of it, translated, on both 32-bit formats", "[ui][frame]")
{
    for (const QImage::Format format : { QImage::Format_ARGB32_Premultiplied, QImage::Format_RGB32 }) {
        const QImage under = background({ 60, 40 }, format);
        const QImage strip = testStrip(37, 21);
        const Painted out = paintBoth(under, QRectF(4, 6, 37, 21), strip, [](QPainter& p) { p.translate(5, 3); });
        CHECK(out.direct);
        CHECK(largestChannelDifference(out.mine, out.qts) <= 1);
        // Pixels the strip leaves alone (its 255s and everything outside it) are untouched.
        CHECK(out.mine.pixel(0, 0) == under.pixel(0, 0));
        CHECK(out.mine.pixel(59, 39) == under.pixel(59, 39));
        CHECK(out.mine.pixel(9 + 2, 9 + 0) == under.pixel(9 + 2, 9 + 0)); // strip (2, 0): 14 % 5 = 4 -> 255
        CHECK(out.mine.pixel(9 + 0, 9 + 0) == kTable[0]); // strip (0, 0) is ink 0, opaque
    }
}

TEST_CASE("a strip written by hand keeps to the painter's clip and to the image", "[ui][frame]")
{
    const QImage under = background({ 50, 30 }, QImage::Format_ARGB32_Premultiplied);
    // Part of the strip hangs off the image's right and bottom edges.
    const Painted out = paintBoth(under, QRectF(20, 10, 40, 30), testStrip(40, 30),
        [](QPainter& p) { p.setClipRegion(QRegion(QRect(0, 0, 30, 18)) + QRegion(QRect(40, 20, 10, 10))); });
    CHECK(out.direct);
    CHECK(largestChannelDifference(out.mine, out.qts) <= 1);
    CHECK(out.mine.pixel(35, 15) == under.pixel(35, 15)); // in the strip, outside the clip
    CHECK(out.mine.pixel(20, 10) != under.pixel(20, 10)); // strip (0, 0), inside the clip
}

TEST_CASE("a strip written by hand on a device with two pixels per logical pixel equals Qt's", "[ui][frame]")
{
    const QImage under = background({ 80, 60 }, QImage::Format_ARGB32_Premultiplied, 2.0);
    // 40 x 20 device pixels in a 20 x 10 logical rectangle at (3, 4): device (6, 8).
    const Painted out = paintBoth(under, QRectF(3, 4, 20, 10), testStrip(40, 20), [](QPainter&) {});
    CHECK(out.direct);
    CHECK(largestChannelDifference(out.mine, out.qts) <= 1);
    CHECK(out.mine.pixel(6, 8) == kTable[0]);
}

TEST_CASE("a strip that starts between device pixels lands where Qt puts it", "[ui][frame]")
{
    const QImage under = background({ 40, 30 }, QImage::Format_ARGB32_Premultiplied);
    const QImage strip = testStrip(20, 10);
    for (const QPointF at : { QPointF(2.5, 3.5), QPointF(2.4, 3.6), QPointF(2.6, 3.49) }) {
        const Painted half = paintBoth(under, QRectF(at, QSizeF(20, 10)), strip, [](QPainter&) {});
        CHECK(half.direct);
        CHECK(largestChannelDifference(half.mine, half.qts) <= 1);
    }
}

TEST_CASE("a strip that is scaled, faded or on another format goes to drawImage", "[ui][frame]")
{
    const QImage under = background({ 40, 30 }, QImage::Format_ARGB32_Premultiplied);
    const QImage strip = testStrip(20, 10);
    // Two device pixels per logical pixel and half a device pixel off: Qt samples, not placed by hand.
    const Painted half = paintBoth(under, QRectF(2.25, 3, 10, 5), strip, [](QPainter& p) { p.scale(2, 2); });
    CHECK_FALSE(half.direct);
    CHECK(half.mine == half.qts);
    const Painted scaled = paintBoth(under, QRectF(2, 3, 30, 10), strip, [](QPainter&) {});
    CHECK_FALSE(scaled.direct);
    CHECK(scaled.mine == scaled.qts);
    const Painted faded = paintBoth(under, QRectF(2, 3, 20, 10), strip, [](QPainter& p) { p.setOpacity(0.5); });
    CHECK_FALSE(faded.direct);
    CHECK(faded.mine == faded.qts);
    QImage indexed(40, 30, QImage::Format_RGB888);
    indexed.fill(Qt::white);
    QPainter p(&indexed);
    CHECK_FALSE(drawStrip(p, QRectF(0, 0, 20, 10), strip, kTable)); // not a 32-bit image
}

namespace {
// A widget that fills itself with one strip: rendered with a region, only that region may change.
class StripWidget : public QWidget {
public:
    StripWidget() { resize(30, 20); }
    bool direct = false;

protected:
    void paintEvent(QPaintEvent*) override
    {
        QPainter p(this);
        direct = drawStrip(p, QRectF(0, 0, 30, 20), testStrip(30, 20), kTable);
    }
};
} // namespace

TEST_CASE("a strip written by hand inside a widget keeps to the region the widget repaints", "[ui][frame]")
{
    StripWidget widget;
    widget.setAttribute(Qt::WA_OpaquePaintEvent);
    widget.setAutoFillBackground(false);
    const QImage under = background({ 50, 40 }, QImage::Format_ARGB32_Premultiplied);
    QImage image = under.copy();
    // The widget at (10, 10) of the image, repainting only its top-left 12 x 8 and a 5 x 5 at (20, 12).
    widget.render(&image, QPoint(10, 10), QRegion(0, 0, 12, 8) + QRegion(20, 12, 5, 5), QWidget::DrawChildren);
    CHECK(widget.direct);
    QImage reference = under.copy();
    {
        QPainter p(&reference);
        p.setClipRegion(QRegion(10, 10, 12, 8) + QRegion(30, 22, 5, 5));
        QImage coloured = testStrip(30, 20);
        coloured.setColorTable(kTable);
        p.drawImage(QPointF(10, 10), coloured);
    }
    CHECK(largestChannelDifference(image, reference) <= 1);
    CHECK(image.pixel(25, 25) == under.pixel(25, 25)); // in the widget, outside the region
}

namespace {
// fillRect by hand and Qt's painter.fillRect on copies of `under`, each after `setUp`.
Painted fillBoth(
    const QImage& under, const QRectF& rect, const QColor& colour, const std::function<void(QPainter&)>& setUp)
{
    Painted out { false, under.copy(), under.copy() };
    {
        QPainter p(&out.mine);
        setUp(p);
        out.direct = fillRect(p, rect, colour);
    }
    {
        QPainter p(&out.qts);
        setUp(p);
        p.fillRect(rect, colour);
    }
    return out;
}
} // namespace

TEST_CASE("a rectangle filled by hand equals Qt's fillRect, translucent or opaque, off whole pixels", "[ui][frame]")
{
    for (const QImage::Format format : { QImage::Format_ARGB32_Premultiplied, QImage::Format_RGB32 }) {
        const QImage under = background({ 60, 40 }, format);
        for (const QColor& colour : { QColor(200, 0, 90, 45), QColor(200, 0, 90, 200), QColor(20, 110, 40) })
            for (const QRectF& rect : { QRectF(3, 4, 20, 10), QRectF(2.5, 3.5, 20.25, 9.5), QRectF(10.4, 7.6, 0.7, 30),
                     QRectF(50, 30, 40, 40) }) { // the last one hangs off the image
                const Painted out = fillBoth(under, rect, colour, [](QPainter& p) { p.translate(1, 2); });
                CHECK(out.direct);
                CHECK(largestChannelDifference(out.mine, out.qts) <= 1);
            }
        const Painted untouched = fillBoth(under, QRectF(3, 4, 20, 10), QColor(200, 0, 90, 45), [](QPainter&) {});
        CHECK(untouched.mine.pixel(2, 4) == under.pixel(2, 4)); // left of the rectangle
        CHECK(untouched.mine.pixel(3, 4) != under.pixel(3, 4)); // its first pixel
    }
}

TEST_CASE("a rectangle filled by hand keeps to the clip and scales as Qt's does", "[ui][frame]")
{
    const QImage under = background({ 60, 40 }, QImage::Format_ARGB32_Premultiplied);
    const Painted clipped = fillBoth(under, QRectF(5, 5, 40, 30), QColor(0, 0, 200, 100),
        [](QPainter& p) { p.setClipRegion(QRegion(0, 0, 20, 20) + QRegion(30, 25, 10, 10)); });
    CHECK(clipped.direct);
    CHECK(largestChannelDifference(clipped.mine, clipped.qts) <= 1);
    CHECK(clipped.mine.pixel(25, 10) == under.pixel(25, 10));
    const QImage doubled = background({ 80, 60 }, QImage::Format_ARGB32_Premultiplied, 2.0);
    const Painted scaled = fillBoth(doubled, QRectF(3.25, 4, 10.5, 7.75), QColor(0, 0, 200, 100), [](QPainter&) {});
    CHECK(scaled.direct);
    CHECK(largestChannelDifference(scaled.mine, scaled.qts) <= 1);
}

TEST_CASE("an antialiased rectangle off whole pixels goes to Qt's fillRect", "[ui][frame]")
{
    const QImage under = background({ 40, 30 }, QImage::Format_ARGB32_Premultiplied);
    const auto antialiased = [](QPainter& p) { p.setRenderHint(QPainter::Antialiasing); };
    const Painted soft = fillBoth(under, QRectF(2.5, 3.5, 20, 10), QColor(0, 0, 200, 100), antialiased);
    CHECK_FALSE(soft.direct);
    CHECK(soft.mine == soft.qts);
    const Painted whole = fillBoth(under, QRectF(2, 3, 20, 10), QColor(0, 0, 200, 100), antialiased);
    CHECK(whole.direct);
    CHECK(largestChannelDifference(whole.mine, whole.qts) <= 1);
}

TEST_CASE(
    "many rectangles filled by hand in one call equal Qt's fills in order, in a clip of several parts", "[ui][frame]")
{
    const QImage under = background({ 60, 40 }, QImage::Format_RGB32);
    // Overlapping translucent rectangles: the later one blends over the earlier one, as with Qt.
    const std::vector<QRectF> rects { { 2, 2, 30, 20 }, { 10.5, 8.5, 30, 20 }, { 0, 30, 60, 1.5 },
        { 45, 0, 0.75, 40 } };
    const QColor colour(120, 20, 200, 90);
    const auto clip = [](QPainter& p) { p.setClipRegion(QRegion(0, 0, 25, 40) + QRegion(30, 5, 30, 30)); };
    QImage mine = under.copy(), qts = under.copy();
    {
        QPainter p(&mine);
        clip(p);
        CHECK(fillRects(p, rects, colour));
    }
    {
        QPainter p(&qts);
        clip(p);
        for (const QRectF& r : rects)
            p.fillRect(r, colour);
    }
    CHECK(largestChannelDifference(mine, qts) <= 1);
    CHECK(mine.pixel(27, 12) == under.pixel(27, 12)); // in a rectangle, between the clip's parts
}
