#pragma once
// ScalingChart: speed-up and efficiency over the engine count P of a scaling series
// (core::ScalingReport): the measured points joined by lines (speed-up blue, efficiency orange, on
// their own axes: speed-up left, efficiency right 0..1), the ideal speed-up p as a dashed line, and
// beside each measured speed-up the what-if predictions of the other traces as hollow circles (the
// speed-up the predicted wall time would give). GUI thread only.
#include "sparkscope/core/compare.h"

#include <QWidget>

namespace sparkscope::ui {

class ScalingChart : public QWidget {
    Q_OBJECT
public:
    explicit ScalingChart(QWidget* parent = nullptr);
    void setReport(const core::ScalingReport& report);
    QSize sizeHint() const override { return { 480, 320 }; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    struct Point {
        double p = 1; // engines / base engines
        std::optional<double> speedup, efficiency;
        std::vector<double> predicted; // speed-ups of the predicted walls
    };
    std::vector<Point> m_points;
    uint32_t m_baseEngines = 1;
};

} // namespace sparkscope::ui
