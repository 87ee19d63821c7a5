#include "ui/timeline/strip_blit.h"

#include <QImage>
#include <QPaintEngine>
#include <QPainter>
#include <QRegion>

#include <array>
#include <cmath>

namespace sparkscope::ui {

namespace {

    // The 32-bit image the painter's raster engine writes into, if that is what it paints on.
    QImage* rasterTarget(QPainter& painter)
    {
        QPaintEngine* engine = painter.paintEngine();
        if (!engine || engine->type() != QPaintEngine::Raster)
            return nullptr;
        QPaintDevice* device = engine->paintDevice();
        if (!device || device->devType() != QInternal::Image)
            return nullptr;
        auto* image = static_cast<QImage*>(device);
        const QImage::Format format = image->format();
        if (format != QImage::Format_ARGB32_Premultiplied && format != QImage::Format_RGB32)
            return nullptr;
        return image;
    }

    // x * a / 255 on each of the four 8-bit channels, rounded.
    inline quint32 byteMul(quint32 x, quint32 a)
    {
        quint32 rb = (x & 0xff00ffu) * a;
        rb = ((rb + ((rb >> 8) & 0xff00ffu) + 0x800080u) >> 8) & 0xff00ffu;
        quint32 ag = ((x >> 8) & 0xff00ffu) * a;
        ag = (ag + ((ag >> 8) & 0xff00ffu) + 0x800080u) & 0xff00ff00u;
        return ag | rb;
    }

    bool nearWhole(double v) { return std::abs(v - std::round(v)) < 0.01; }

} // namespace

bool drawStrip(QPainter& painter, const QRectF& target, const QImage& pixels, const QList<QRgb>& table)
{
    QImage* image = rasterTarget(painter);
    const QTransform t = painter.deviceTransform();
    const QRectF dev = t.mapRect(target);
    const bool direct = image && pixels.format() == QImage::Format_Indexed8 && t.type() <= QTransform::TxScale
        && t.m11() > 0 && t.m22() > 0 && painter.opacity() == 1.0
        && painter.compositionMode() == QPainter::CompositionMode_SourceOver
        && std::abs(dev.width() - pixels.width()) < 0.01 && std::abs(dev.height() - pixels.height()) < 0.01
        && (t.type() <= QTransform::TxTranslate || (nearWhole(dev.left()) && nearWhole(dev.top())));
    if (!direct) {
        QImage withColours = pixels; // shares the pixels; the colour table detaches only the header
        withColours.setColorTable(table);
        painter.drawImage(target, withColours);
        return false;
    }
    // Half a pixel rounds up, as Qt places an unscaled image (qRound): the rows of a frame can start
    // half-way down a pixel.
    const int x0 = int(std::floor(dev.left() + 0.5)), y0 = int(std::floor(dev.top() + 0.5));
    // Where the painter may write: the image, the system clip (a widget's part of its window's
    // backing store, in device pixels), the painter's own clip, and the strip.
    QRegion region(QRect(x0, y0, pixels.width(), pixels.height()));
    region &= QRect(QPoint(0, 0), image->size());
    const QRegion system = painter.paintEngine()->systemClip();
    if (!system.isEmpty())
        region &= system;
    if (painter.hasClipping())
        region &= t.map(painter.clipRegion());
    if (region.isEmpty())
        return true;

    std::array<quint32, 256> colours {}; // premultiplied; 0 = nothing
    for (qsizetype i = 0; i < std::min<qsizetype>(table.size(), 256); ++i)
        colours[size_t(i)] = qPremultiply(table[i]);
    const quint32 opaque = image->format() == QImage::Format_RGB32 ? 0xff000000u : 0u;
    // Write where the engine writes: bits() could detach a shared image from the engine's buffer.
    uchar* base = const_cast<uchar*>(image->constBits());
    const qsizetype stride = image->bytesPerLine();
    // A translucent area (the CPUs curve's) mostly lies over one background colour: the last blend
    // is kept and reused while its colour and what is under it repeat.
    quint32 lastColour = 0, lastUnder = 0, lastBlend = 0;
    for (const QRect& r : region) {
        for (int y = r.top(); y <= r.bottom(); ++y) {
            const uchar* src = pixels.constScanLine(y - y0) + (r.left() - x0);
            auto* dst = reinterpret_cast<quint32*>(base + y * stride) + r.left();
            for (int x = 0; x < r.width(); ++x) {
                const quint32 c = colours[src[x]];
                if (c >= 0xff000000u) {
                    dst[x] = c;
                } else if (c != 0) {
                    if (c != lastColour || dst[x] != lastUnder) {
                        lastColour = c;
                        lastUnder = dst[x];
                        lastBlend = (c + byteMul(dst[x], 255 - qAlpha(c))) | opaque;
                    }
                    dst[x] = lastBlend;
                }
            }
        }
    }
    return true;
}

} // namespace sparkscope::ui
