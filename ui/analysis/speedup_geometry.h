#pragma once
// The speed-up chart's geometry as a pure function of its data and size (speedupGeometry): engine
// counts on a log₂ x axis from 1 to 64, speed-up over one engine on a linear y axis from 0 to a round
// value above everything drawn. SpeedupChart (speedup_chart.h) only paints what this returns.
#include <QPointF>
#include <QRectF>
#include <QString>

#include <optional>
#include <utility>
#include <vector>

namespace sparkscope::ui {

struct SpeedupPoint {
    double engines = 1; // P ≥ 1
    double speedup = 0;
};

struct SpeedupChartData {
    std::vector<SpeedupPoint> predicted; // the what-if of the recorded run, by P
    std::vector<SpeedupPoint> whatIf; // the same with a change (a site made faster, zero costs), or empty
    std::vector<SpeedupPoint> upper, lower; // Cilkview's bounds, by P
    std::optional<SpeedupPoint> measured; // the open trace: its engines and its recorded speed-up
};

struct SpeedupGeometry {
    QRectF plot; // the plotting area
    double maxSpeedup = 1; // the y axis' top
    std::vector<QPointF> predicted, whatIf, upper, lower; // polylines, in the data's order
    std::optional<QPointF> measured;
    std::vector<std::pair<double, QString>> xTicks; // x and label: 1, 2, 4, …, 64
    std::vector<std::pair<double, QString>> yTicks; // y and label
};

inline constexpr double kChartMaxEngines = 64;

// Margins hold the axes' labels and titles: left kChartLeft, bottom kChartBottom, top and right kChartPad.
inline constexpr double kChartLeft = 48, kChartBottom = 34, kChartPad = 8;

SpeedupGeometry speedupGeometry(const SpeedupChartData& data, QSizeF size);

} // namespace sparkscope::ui
