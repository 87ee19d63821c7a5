#pragma once
// Exporting the visible timeline: the same Frame the widget paints, replayed onto a PNG image (at
// the given device-pixel ratio), an SVG (QSvgGenerator) or a PDF page (QPdfWriter). The format is
// chosen from the file name's suffix (.png, .svg, .pdf).
#include "ui/timeline/frame.h"

#include <QImage>
#include <QString>

namespace sparkscope::ui {

QImage renderTimelineImage(const TraceData& data, const Viewport& viewport, const FramePalette& palette,
    const std::vector<Marker>* bookmarks = nullptr, const TimelineRows* rows = nullptr);

// Returns an empty string on success, else what went wrong.
QString exportTimeline(const QString& path, const TraceData& data, const Viewport& viewport,
    const FramePalette& palette, const std::vector<Marker>* bookmarks = nullptr, const TimelineRows* rows = nullptr);

} // namespace sparkscope::ui
