#pragma once
// Drawing a frame's indexed-colour strips (frame_strips.h) on a raster painter.
//
// QPainter::drawImage fetches, converts and blends every pixel of a strip, the transparent ones
// included, and splits a tall blend across Qt's GUI thread pool: on two busy cores a frame then
// waits for pooled threads that the load keeps off the CPU (docs/performance.md, "Timeline frame:
// the strips written by hand"). When the painter paints straight into a 32-bit QImage (a widget's
// raster backing store, an exported PNG, the benchmarks' images), one strip pixel per device pixel,
// drawStrip writes the strip's visible pixels itself, inside the painter's clip, where Qt would put
// them; otherwise it hands the strip to drawImage.
#include <QList>
#include <QRectF>
#include <QRgb>

class QImage;
class QPainter;

namespace sparkscope::ui {

// Draws `pixels` (Format_Indexed8, one pixel per device pixel) into `target` (logical pixels)
// with `table` as its colours (index -> ARGB, not premultiplied; missing entries draw nothing),
// source over what is there. Returns true if it wrote the pixels itself, false if it used drawImage.
bool drawStrip(QPainter& painter, const QRectF& target, const QImage& pixels, const QList<QRgb>& table);

} // namespace sparkscope::ui
