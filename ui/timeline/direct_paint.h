#pragma once
// Painting a frame's big pieces straight into the image a raster painter paints on.
//
// Qt's raster engine blends any span run of more than 96 spans on its GUI thread pool, 64 spans
// per task, whenever the blend is not a plain copy: an indexed-colour image, a translucent fill.
// A tall strip or a few thousand translucent highlight rectangles then cost a frame many round
// trips to pooled threads that a busy machine keeps waiting (docs/performance.md, "The strips
// written by hand, and Qt's thread pool"). When the painter paints into a 32-bit QImage (a
// widget's raster backing store, an exported PNG, the benchmarks' images) without a rotation,
// fade or other composition mode, these functions write the pixels themselves, inside the
// painter's clip and where Qt would have put them; otherwise they call the QPainter function
// they stand for. Each returns true if it wrote the pixels itself.
#include <QList>
#include <QRectF>
#include <QRgb>

#include <span>

class QColor;
class QImage;
class QPainter;

namespace sparkscope::ui {

// painter.drawImage(target, pixels) with `table` as the colour table: `pixels` is Format_Indexed8,
// one pixel per device pixel, `table` maps an index to ARGB (not premultiplied; missing entries
// draw nothing), source over what is there.
bool drawStrip(QPainter& painter, const QRectF& target, const QImage& pixels, const QList<QRgb>& table);

// painter.fillRect(rect, colour) for any colour, translucent ones blended over what is there.
bool fillRect(QPainter& painter, const QRectF& rect, const QColor& colour);
// The same for many rectangles of one colour, in order.
bool fillRects(QPainter& painter, std::span<const QRectF> rects, const QColor& colour);

} // namespace sparkscope::ui
