#include "ui/timeline/direct_paint.h"

#include <QColor>
#include <QImage>
#include <QPaintEngine>
#include <QPainter>
#include <QRegion>

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>

namespace sparkscope::ui {

namespace {

    // The image a painter's raster engine writes into, and how logical coordinates map onto it.
    struct Target {
        QImage* image;
        QTransform t;
        quint32 opaque; // or-ed into every written pixel: Format_RGB32 keeps its alpha at 255
    };

    std::optional<Target> targetOf(QPainter& painter)
    {
        QPaintEngine* engine = painter.paintEngine();
        if (!engine || engine->type() != QPaintEngine::Raster || painter.opacity() != 1.0
            || painter.compositionMode() != QPainter::CompositionMode_SourceOver)
            return std::nullopt;
        QPaintDevice* device = engine->paintDevice();
        if (!device || device->devType() != QInternal::Image)
            return std::nullopt;
        auto* image = static_cast<QImage*>(device);
        const QImage::Format format = image->format();
        if (format != QImage::Format_ARGB32_Premultiplied && format != QImage::Format_RGB32)
            return std::nullopt;
        const QTransform t = painter.deviceTransform();
        if (t.type() > QTransform::TxScale || t.m11() <= 0 || t.m22() <= 0)
            return std::nullopt;
        return Target { image, t, format == QImage::Format_RGB32 ? 0xff000000u : 0u };
    }

    // Where the painter may write inside `device` (device pixels): the image, the system clip (a
    // widget's part of its window's backing store), the painter's own clip.
    QRegion writable(QPainter& painter, const Target& target, const QRect& device)
    {
        QRegion region(device);
        region &= QRect(QPoint(0, 0), target.image->size());
        const QRegion system = painter.paintEngine()->systemClip();
        if (!system.isEmpty())
            region &= system;
        if (painter.hasClipping())
            region &= target.t.map(painter.clipRegion());
        return region;
    }

    // Device pixel rows and columns as Qt rounds them (qRound: half a pixel rounds up).
    int pixel(double v) { return int(std::floor(v + 0.5)); }

    bool nearWhole(double v) { return std::abs(v - std::round(v)) < 0.01; }

    // x * a / 255 on each of the four 8-bit channels, rounded.
    inline quint32 byteMul(quint32 x, quint32 a)
    {
        quint32 rb = (x & 0xff00ffu) * a;
        rb = ((rb + ((rb >> 8) & 0xff00ffu) + 0x800080u) >> 8) & 0xff00ffu;
        quint32 ag = ((x >> 8) & 0xff00ffu) * a;
        ag = (ag + ((ag >> 8) & 0xff00ffu) + 0x800080u) & 0xff00ff00u;
        return ag | rb;
    }

    // Premultiplied `c` over `under`.
    inline quint32 over(quint32 c, quint32 under, quint32 opaque)
    {
        return (c + byteMul(under, 255 - qAlpha(c))) | opaque;
    }

    quint32* row(const Target& target, int y)
    {
        // Write where the engine writes: bits() could detach a shared image from the engine's buffer.
        return reinterpret_cast<quint32*>(
            const_cast<uchar*>(target.image->constBits()) + y * target.image->bytesPerLine());
    }

} // namespace

bool drawStrip(QPainter& painter, const QRectF& rect, const QImage& pixels, const QList<QRgb>& table)
{
    const std::optional<Target> target = targetOf(painter);
    const QRectF dev = target ? target->t.mapRect(rect) : QRectF();
    // One strip pixel per device pixel; when scaled, on whole pixels only (Qt then samples).
    if (!target || pixels.format() != QImage::Format_Indexed8 || std::abs(dev.width() - pixels.width()) >= 0.01
        || std::abs(dev.height() - pixels.height()) >= 0.01
        || (target->t.type() > QTransform::TxTranslate && !(nearWhole(dev.left()) && nearWhole(dev.top())))) {
        QImage withColours = pixels; // shares the pixels; the colour table detaches only the header
        withColours.setColorTable(table);
        painter.drawImage(rect, withColours);
        return false;
    }
    const int x0 = pixel(dev.left()), y0 = pixel(dev.top());
    const QRegion region = writable(painter, *target, QRect(x0, y0, pixels.width(), pixels.height()));
    std::array<quint32, 256> colours {}; // premultiplied; 0 = nothing
    for (qsizetype i = 0; i < std::min<qsizetype>(table.size(), 256); ++i)
        colours[size_t(i)] = qPremultiply(table[i]);
    // A translucent area (a spark-deque curve's) mostly lies over one background colour: the last
    // blend is kept and reused while its colour and what is under it repeat.
    quint32 lastColour = 0, lastUnder = 0, lastBlend = 0;
    for (const QRect& r : region) {
        for (int y = r.top(); y <= r.bottom(); ++y) {
            const uchar* src = pixels.constScanLine(y - y0) + (r.left() - x0);
            quint32* dst = row(*target, y) + r.left();
            for (int x = 0; x < r.width(); ++x) {
                const quint32 c = colours[src[x]];
                if (c >= 0xff000000u) {
                    dst[x] = c;
                } else if (c != 0) {
                    if (c != lastColour || dst[x] != lastUnder) {
                        lastColour = c;
                        lastUnder = dst[x];
                        lastBlend = over(c, dst[x], target->opaque);
                    }
                    dst[x] = lastBlend;
                }
            }
        }
    }
    return true;
}

bool fillRects(QPainter& painter, std::span<const QRectF> rects, const QColor& colour)
{
    const std::optional<Target> target = targetOf(painter);
    // Antialiased edges are Qt's to draw, unless every rectangle is on whole pixels.
    bool direct = target.has_value();
    if (direct && painter.testRenderHint(QPainter::Antialiasing))
        for (const QRectF& rect : rects) {
            const QRectF dev = target->t.mapRect(rect.normalized());
            direct = direct && nearWhole(dev.left()) && nearWhole(dev.top()) && nearWhole(dev.right())
                && nearWhole(dev.bottom());
        }
    if (!direct) {
        for (const QRectF& rect : rects)
            painter.fillRect(rect, colour);
        return false;
    }
    const quint32 c = qPremultiply(colour.rgba());
    if (c == 0)
        return true;
    // The clip once for all the rectangles: a region per rectangle would cost more than its pixels.
    const QRegion clip = writable(painter, *target, QRect(QPoint(0, 0), target->image->size()));
    const bool oneRect = clip.rectCount() == 1;
    auto fill = [&](const QRect& r) {
        for (int y = r.top(); y <= r.bottom(); ++y) {
            quint32* dst = row(*target, y) + r.left();
            if (c >= 0xff000000u) {
                std::fill_n(dst, r.width(), c);
                continue;
            }
            quint32 lastUnder = 0, lastBlend = over(c, 0, target->opaque);
            for (int x = 0; x < r.width(); ++x) {
                if (dst[x] != lastUnder) {
                    lastUnder = dst[x];
                    lastBlend = over(c, dst[x], target->opaque);
                }
                dst[x] = lastBlend;
            }
        }
    };
    for (const QRectF& rect : rects) {
        const QRectF dev = target->t.mapRect(rect.normalized());
        const int x0 = pixel(dev.left()), y0 = pixel(dev.top()), x1 = pixel(dev.right()), y1 = pixel(dev.bottom());
        if (x1 <= x0 || y1 <= y0)
            continue;
        const QRect r(x0, y0, x1 - x0, y1 - y0);
        if (oneRect) {
            fill(r.intersected(clip.boundingRect()));
        } else {
            const QRegion parts = clip.intersected(r);
            for (const QRect& part : parts)
                fill(part);
        }
    }
    return true;
}

bool fillRect(QPainter& painter, const QRectF& rect, const QColor& colour)
{
    return fillRects(painter, std::span(&rect, 1), colour);
}

} // namespace sparkscope::ui
