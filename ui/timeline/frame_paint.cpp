// paintFrame: replays a Frame (see frame.h). Raster devices (the widget, PNG export) blit the
// indexed-colour strips with a colour table made from the palette; vector devices (SVG, PDF) get
// the same geometry as rectangles and lines, one brush per colour. Nothing here walks the trace.
#include "ui/timeline/frame.h"
#include "ui/timeline/direct_paint.h"

#include <QPaintEngine>
#include <QPainter>

#include <algorithm>

namespace sparkscope::ui {

namespace {

    // Colour tables for the strips: pixel = Ink index (255 = nothing), or for curves 1 = the area
    // under it, 2 = its outline (see frame_strips.h).
    QList<QRgb> inkTable(const FramePalette& palette)
    {
        QList<QRgb> table(256, qRgba(0, 0, 0, 0));
        for (size_t ink = 0; ink < kInkCount; ++ink)
            table[qsizetype(ink)] = palette.ink[ink].rgba();
        return table;
    }

    QList<QRgb> curveTable(const QColor& fill, const QColor& line)
    {
        QList<QRgb> table(256, qRgba(0, 0, 0, 0));
        table[1] = fill.rgba();
        table[2] = line.rgba();
        return table;
    }

    void blit(QPainter& painter, const Frame::Strip& s, const QList<QRgb>& table)
    {
        drawStrip(painter, s.target, s.pixels, table);
    }

    void paintText(QPainter& painter, const FrameText& t, const FramePalette& palette)
    {
        if (t.role == FrameText::Context)
            painter.setPen(QColor(255, 255, 255));
        else if (t.role == FrameText::MarkerLabel)
            painter.setPen(palette.ink[size_t(Ink::Marker)]);
        else
            painter.setPen(palette.text);
        if (t.role == FrameText::LegendGroup) {
            painter.save();
            QFont bold = painter.font();
            bold.setBold(true);
            painter.setFont(bold);
            painter.drawText(t.pos, t.text);
            painter.restore();
            return;
        }
        painter.drawText(t.pos, t.text);
    }

    // The frames' text: 11 px, antialiased. Returns the font set.
    QFont setTextFont(QPainter& painter)
    {
        QFont font = painter.font();
        font.setPixelSize(11);
        painter.setFont(font);
        painter.setRenderHint(QPainter::TextAntialiasing, true);
        return font;
    }

    // The optional rows, clipped to their scrolling area.
    void paintOptionalRows(QPainter& painter, const Frame& f, const FramePalette& palette, bool raster)
    {
        const Frame::Extras& x = f.extras;
        if (x.clip.isEmpty())
            return;
        painter.save();
        painter.setClipRect(x.clip);
        painter.setPen(Qt::NoPen);
        painter.setBrush(palette.rowBackground);
        for (const QRectF& r : x.rowBackgrounds)
            painter.drawRect(r);
        QColor dequeFill = palette.ink[size_t(Ink::Deque)];
        dequeFill.setAlpha(120);
        const QColor dequeLine = palette.ink[size_t(Ink::Deque)];
        if (raster) {
            const QList<QRgb> table = inkTable(palette);
            for (const Frame::Strip& s : x.laneStrips)
                blit(painter, s, table);
            const QList<QRgb> dequeTable = curveTable(dequeFill, dequeLine);
            for (const Frame::Strip& s : x.dequeStrips)
                blit(painter, s, dequeTable);
        } else {
            for (size_t ink = 0; ink < kInkCount; ++ink) {
                if (x.rects[ink].empty())
                    continue;
                painter.setBrush(ink == size_t(Ink::Deque) ? dequeFill : palette.ink[ink]);
                painter.drawRects(x.rects[ink].data(), int(x.rects[ink].size()));
            }
        }
        painter.setPen(QPen(palette.grid, 0));
        for (const QLineF& l : x.separators)
            painter.drawLine(l);
        QFont font = setTextFont(painter);
        for (const FrameText& t : x.texts) {
            if (t.role == FrameText::Status) {
                font.setItalic(true);
                painter.setFont(font);
                paintText(painter, t, palette);
                font.setItalic(false);
                painter.setFont(font);
            } else {
                paintText(painter, t, palette);
            }
        }
        painter.restore();
    }

    // The grid under the rows, fainter than the ruler's ticks it continues, mixed with the colour
    // it is drawn on: a tall translucent line is blended span by span on Qt's thread pool, 64
    // pixels per task, which costs a frame milliseconds (docs/performance.md, "the strips written
    // by hand"); an opaque one is a plain fill.
    QPen faintGridPen(const FramePalette& palette, const QColor& under)
    {
        return QPen(palette.faintGridOver(under), 0);
    }

    // Row backgrounds (every other row), the ruler's ticks and the faint grid under them.
    void paintBackground(QPainter& painter, const Frame& f, const FramePalette& palette)
    {
        const Viewport& v = f.viewport;
        painter.fillRect(QRectF(0, 0, v.width, v.height), palette.background);
        painter.setPen(Qt::NoPen);
        painter.setBrush(palette.rowBackground);
        for (size_t i = 0; i < f.rowBackgrounds.size(); i += 2)
            painter.drawRect(f.rowBackgrounds[i]);
        painter.setPen(QPen(palette.grid, 0));
        for (size_t i = 0; i < f.rulerTicks.size(); i += 2)
            painter.drawLine(f.rulerTicks[i]);
        painter.setPen(faintGridPen(palette, palette.background));
        for (size_t i = 1; i < f.rulerTicks.size(); i += 2)
            painter.drawLine(f.rulerTicks[i]);
        painter.setPen(QPen(palette.grid, 0));
        painter.drawLine(QLineF(0, FrameLayout::kRulerHeight, v.width, FrameLayout::kRulerHeight));
    }

    // State bars: blit the strips on raster devices, else one brush per colour.
    void paintStateBars(QPainter& painter, const Frame& f, const FramePalette& palette, bool raster)
    {
        painter.setPen(Qt::NoPen);
        if (raster) {
            const QList<QRgb> table = inkTable(palette);
            for (const Frame::Strip& s : f.strips)
                blit(painter, s, table);
            if (!f.utilisationStrip.pixels.isNull())
                blit(painter, f.utilisationStrip, table);
            return;
        }
        // `rects` holds only filled areas (state bars, the rows coloured by static id, the
        // utilisation row): every colour in it is drawn.
        for (size_t ink = 0; ink < kInkCount; ++ink) {
            if (f.rects[ink].empty())
                continue;
            painter.setBrush(palette.ink[ink]);
            painter.drawRects(f.rects[ink].data(), int(f.rects[ink].size()));
        }
    }

    // The area under the CPUs curve is opaque (FramePalette::curveFill: a translucent one costs a
    // blend per pixel), so the grid it covers is drawn again over it: from under the outline of the
    // bar (Frame::curveBars, in x order) the grid line crosses, down to the baseline.
    void paintGridOverCurve(QPainter& painter, const Frame& f, const FramePalette& palette)
    {
        const std::vector<QRectF>& bars = f.curveBars;
        painter.setPen(faintGridPen(palette, palette.curveFill));
        for (size_t i = 1; i < f.rulerTicks.size(); i += 2) {
            const double x = f.rulerTicks[i].x1();
            auto bar = std::upper_bound(bars.begin(), bars.end(), x, [](double v, const QRectF& b) { return v < b.left(); });
            if (bar == bars.begin() || x >= (--bar)->right() || bar->height() <= 1)
                continue;
            painter.drawLine(QLineF(x, bar->top() + 1, x, bar->bottom()));
        }
    }

    // The CPUs curve and its levels. Vector devices get the area as rectangles rather than the
    // outline polygon filled: much faster (docs/performance.md, "Timeline frame: figures behind the
    // code's choices"), the outline is then drawn as a line.
    void paintCurve(QPainter& painter, const Frame& f, const FramePalette& palette, bool raster)
    {
        painter.setRenderHint(QPainter::Antialiasing, false);
        if (raster && !f.curveStrip.pixels.isNull()) {
            blit(painter, f.curveStrip, curveTable(palette.curveFill, palette.curveLine));
        } else if (!f.curveBars.empty()) {
            painter.setPen(Qt::NoPen);
            painter.setBrush(palette.curveFill);
            painter.drawRects(f.curveBars.data(), int(f.curveBars.size()));
        }
        paintGridOverCurve(painter, f, palette);
        if (!f.curve.isEmpty() && !raster) {
            painter.setPen(QPen(palette.curveLine, 0));
            painter.drawPolyline(f.curve);
        }
        painter.setPen(QPen(palette.grid, 0, Qt::DashLine));
        painter.setBrush(Qt::NoBrush);
        for (const QLineF& l : f.curveLevels)
            painter.drawLine(l);
    }

    // A trace being written: where engines' events are not written yet, a hatch in the text's colour
    // (Frame::unwritten), so that it reads as unknown rather than as idle.
    void paintUnwritten(QPainter& painter, const Frame& f, const FramePalette& palette)
    {
        if (f.unwritten.empty())
            return;
        painter.save();
        painter.setRenderHint(QPainter::Antialiasing, false);
        QColor ink = palette.text;
        ink.setAlpha(110);
        painter.setPen(Qt::NoPen);
        painter.setBrush(QBrush(ink, Qt::BDiagPattern));
        painter.drawRects(f.unwritten.data(), int(f.unwritten.size()));
        painter.restore();
    }

    // The critical path over the engine rows: outlines, waiting lines, moves between engines.
    void paintCriticalPath(QPainter& painter, const Frame& f, const FramePalette& palette)
    {
        if (f.pathOutlines.empty() && f.pathWaits.empty())
            return;
        painter.save();
        painter.setRenderHint(QPainter::Antialiasing, false);
        painter.setBrush(Qt::NoBrush);
        painter.setPen(QPen(palette.ink[size_t(Ink::PathRunning)], 1.5));
        painter.drawRects(f.pathOutlines.data(), int(f.pathOutlines.size()));
        painter.setPen(QPen(palette.ink[size_t(Ink::PathWaiting)], 3, Qt::SolidLine, Qt::FlatCap));
        painter.drawLines(f.pathWaits.data(), int(f.pathWaits.size()));
        painter.setPen(QPen(palette.ink[size_t(Ink::PathWaiting)], 1, Qt::DashLine));
        painter.drawLines(f.pathMoves.data(), int(f.pathMoves.size()));
        painter.restore();
    }

    void paintLegendSwatches(QPainter& painter, const Frame& f, const FramePalette& palette)
    {
        for (const auto& [rect, ink] : f.legend) {
            painter.setPen(Qt::NoPen);
            if (ink == Ink::PathRunning) {
                painter.setBrush(Qt::NoBrush);
                painter.setPen(QPen(palette.ink[size_t(ink)], 1.5));
                painter.drawRect(rect.adjusted(1, 1, -1, -1));
            } else if (ink == Ink::PathWaiting) {
                painter.setPen(QPen(palette.ink[size_t(ink)], 3, Qt::SolidLine, Qt::FlatCap));
                painter.drawLine(QLineF(rect.left(), rect.center().y(), rect.right(), rect.center().y()));
            } else if (ink == Ink::Count) {
                painter.setBrush(palette.curveFill);
                painter.setPen(QPen(palette.curveLine, 0));
                painter.drawRect(rect);
            } else if (ink >= Ink::TickSparkCreate && ink <= Ink::Marker) {
                painter.setPen(QPen(palette.ink[size_t(ink)], 2));
                painter.drawLine(QLineF(rect.center().x(), rect.top() - 1, rect.center().x(), rect.bottom() + 1));
            } else {
                painter.setBrush(palette.ink[size_t(ink)]);
                painter.drawRect(rect);
            }
        }
    }

} // namespace

void paintFrame(QPainter& painter, const Frame& f, const FramePalette& palette)
{
    painter.save();
    paintBackground(painter, f, palette);
    const QPaintEngine* engine = painter.paintEngine();
    const bool raster = engine && (engine->type() == QPaintEngine::Raster);
    paintStateBars(painter, f, palette, raster);
    paintCurve(painter, f, palette, raster);
    paintOptionalRows(painter, f, palette, raster);

    // Ticks and markers.
    for (size_t ink = size_t(Ink::TickSparkCreate); ink < kInkCount; ++ink) {
        if (f.lines[ink].empty())
            continue;
        painter.setPen(QPen(palette.ink[ink], ink == size_t(Ink::Marker) ? 1.5 : 1.0));
        painter.drawLines(f.lines[ink].data(), int(f.lines[ink].size()));
    }
    paintUnwritten(painter, f, palette);
    paintCriticalPath(painter, f, palette);
    paintLegendSwatches(painter, f, palette);

    setTextFont(painter);
    painter.setPen(palette.text);
    for (const FrameText& t : f.texts)
        paintText(painter, t, palette);
    painter.restore();
}

} // namespace sparkscope::ui
