#pragma once
// The indexed-colour images a frame's rows are drawn as, one column per device pixel: painting
// blits one image per row on raster devices instead of filling thousands of one-pixel rectangles
// (why: docs/performance.md, "Timeline frame: figures behind the code's choices"). Vector devices
// get rectangles instead, equal neighbouring columns merged.
//
// StackedStrip: a row of stacked state bars (engine rows, context lanes).
// CurveStrip: a row drawn as a filled curve (the CPUs curve, spark-deque rows).
// Private to the frame builders (ui/timeline/frame_*.cpp).
#include <QImage>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

namespace sparkscope::ui {

// One row of stacked bars: an indexed-colour strip with one column per device pixel, each filled
// from the bottom with heights[k] device pixels of inks[k] (255 = nothing), and the same bars as
// rectangles for vector export, equal neighbouring columns merged into one rectangle per ink
// (rects[ink]).
template <size_t N, class Rects> class StackedStrip {
public:
    using Heights = std::array<int, N>;
    StackedStrip(long columns, int barDev, const std::array<uchar, N>& inks, Rects& rects, double left, double colW,
        double barTop, double dpr)
        : m_image(int(columns), barDev, QImage::Format_Indexed8)
        , m_barDev(barDev)
        , m_inks(inks)
        , m_rects(rects)
        , m_left(left)
        , m_colW(colW)
        , m_barTop(barTop)
        , m_dpr(dpr)
    {
        m_image.fill(255);
    }
    int barDev() const { return m_barDev; }
    // A part of `whole` as a height of the bar, at least one pixel when not zero, within what
    // `used` pixels leave.
    int heightOf(uint64_t part, uint64_t whole, int used) const
    {
        if (part == 0)
            return 0;
        return std::min(m_barDev - used, std::max(1, int(std::lround(double(part) / double(whole) * m_barDev))));
    }
    void column(long i, const Heights& h)
    {
        uchar* bits = m_image.bits();
        const qsizetype stride = m_image.bytesPerLine();
        int below = 0;
        for (size_t k = 0; k < N; ++k) {
            for (int y = m_barDev - below - h[k]; y < m_barDev - below; ++y)
                bits[y * stride + i] = m_inks[k];
            below += h[k];
        }
        if (m_runStart >= 0 && h == m_runHeights)
            return;
        endRun(i);
        m_runStart = i;
        m_runHeights = h;
    }
    void empty(long i) { endRun(i); } // column i draws nothing
    QImage finish(long columns)
    {
        endRun(columns);
        return std::move(m_image);
    }

private:
    void endRun(long end)
    {
        if (m_runStart < 0)
            return;
        const double x = m_left + double(m_runStart) * m_colW, w = double(end - m_runStart) * m_colW;
        int below = 0;
        for (size_t k = 0; k < N; ++k) {
            const int h = m_runHeights[k];
            if (h > 0)
                m_rects[m_inks[k]].emplace_back(
                    x, m_barTop + double(m_barDev - below - h) / m_dpr, w, double(h) / m_dpr);
            below += h;
        }
        m_runStart = -1;
    }

    QImage m_image;
    int m_barDev;
    std::array<uchar, N> m_inks;
    Rects& m_rects;
    double m_left, m_colW, m_barTop, m_dpr;
    long m_runStart = -1;
    Heights m_runHeights {};
};

// One row drawn as a curve: an indexed-colour strip `height` device pixels high with one column per
// device pixel; a column reaching a fraction of the height is filled from its top down with pixel
// kArea, and pixel kOutline joins its top to the previous column's (255 = nothing).
class CurveStrip {
public:
    static constexpr uchar kArea = 1;
    static constexpr uchar kOutline = 2;

    CurveStrip(long columns, int height)
        : m_image(int(columns), height, QImage::Format_Indexed8)
        , m_height(height)
    {
        m_image.fill(255);
    }
    // Column i reaches `fraction` of the height (clamped to [one pixel, the whole height]); returns
    // the device row of its top (0 = the strip's top).
    int column(long i, double fraction)
    {
        const int top = std::clamp(int(std::lround((1.0 - fraction) * m_height)), 0, m_height - 1);
        uchar* bits = m_image.bits();
        const qsizetype stride = m_image.bytesPerLine();
        for (int y = top; y < m_height; ++y)
            bits[y * stride + i] = kArea;
        const int from = m_prevTop < 0 ? top : std::min(m_prevTop, top);
        const int to = m_prevTop < 0 ? top : std::max(m_prevTop, top);
        for (int y = from; y <= to; ++y)
            bits[y * stride + i] = kOutline;
        m_prevTop = top;
        return top;
    }
    // A column that draws nothing: the outline starts again at the next column drawn.
    void gap() { m_prevTop = -1; }
    int height() const { return m_height; }
    QImage finish() { return std::move(m_image); }

private:
    QImage m_image;
    int m_height;
    int m_prevTop = -1;
};

} // namespace sparkscope::ui
