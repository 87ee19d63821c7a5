#include "ui/export/timeline_export.h"

#include <QFileInfo>
#include <QPainter>
#include <QPdfWriter>
#include <QSvgGenerator>

namespace sparkscope::ui {

QImage renderTimelineImage(const TraceData& data, const Viewport& viewport, const FramePalette& palette,
    const std::vector<Marker>* bookmarks, const TimelineRows* rows)
{
    const double dpr = std::max(1.0, viewport.devicePixelRatio);
    QImage image(QSize(int(std::lround(viewport.width * dpr)), int(std::lround(viewport.height * dpr))),
        QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(dpr);
    image.fill(palette.background);
    QPainter painter(&image);
    paintFrame(painter, frame(data, viewport, bookmarks, rows), palette);
    return image;
}

QString exportTimeline(const QString& path, const TraceData& data, const Viewport& viewport,
    const FramePalette& palette, const std::vector<Marker>* bookmarks, const TimelineRows* rows)
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == QLatin1String("png")) {
        if (!renderTimelineImage(data, viewport, palette, bookmarks, rows).save(path, "PNG"))
            return QStringLiteral("cannot write %1").arg(path);
        return {};
    }
    // Vector formats: one unit per logical pixel, so text and lines stay crisp at any zoom.
    Viewport v = viewport;
    v.devicePixelRatio = 1.0;
    const Frame f = frame(data, v, bookmarks, rows);
    if (suffix == QLatin1String("svg")) {
        QSvgGenerator svg;
        svg.setFileName(path);
        svg.setSize(QSize(v.width, v.height));
        svg.setViewBox(QRect(0, 0, v.width, v.height));
        svg.setTitle(QStringLiteral("SparkScope timeline"));
        QPainter painter;
        if (!painter.begin(&svg))
            return QStringLiteral("cannot write %1").arg(path);
        paintFrame(painter, f, palette);
        painter.end();
        return QFileInfo(path).size() > 0 ? QString() : QStringLiteral("cannot write %1").arg(path);
    }
    if (suffix == QLatin1String("pdf")) {
        QPdfWriter pdf(path);
        pdf.setTitle(QStringLiteral("SparkScope timeline"));
        pdf.setResolution(96);
        pdf.setPageSize(QPageSize(QSizeF(v.width, v.height), QPageSize::Point));
        pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
        QPainter painter;
        if (!painter.begin(&pdf))
            return QStringLiteral("cannot write %1").arg(path);
        // Scale logical pixels onto the page.
        const double sx = double(pdf.width()) / v.width, sy = double(pdf.height()) / v.height;
        painter.scale(std::min(sx, sy), std::min(sx, sy));
        paintFrame(painter, f, palette);
        painter.end();
        return QFileInfo(path).size() > 0 ? QString() : QStringLiteral("cannot write %1").arg(path);
    }
    return QStringLiteral("unknown export format '%1' (use .png, .svg or .pdf)").arg(suffix);
}

} // namespace sparkscope::ui
