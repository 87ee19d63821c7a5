#pragma once
// SpeedupChart: predicted speed-up over one engine for P = 1 … 64 engines (log₂ axis) — the what-if
// re-simulation of the recorded run (core::AnalysisSession::predict) — between Cilkview's upper and
// lower bounds (work and span), with the open trace's measured point and, when the person asked for
// one, the what-if's curve. Paints the geometry speedupGeometry() computes; GUI thread only.
#include "ui/analysis/speedup_geometry.h"

#include <QWidget>

namespace sparkscope::ui {

class SpeedupChart : public QWidget {
    Q_OBJECT
public:
    explicit SpeedupChart(QWidget* parent = nullptr);

    void setData(SpeedupChartData data);
    // Instead of a chart: why there is none ("Computing…", "A GHC eventlog records no joins…").
    void setNote(const QString& note);
    const SpeedupChartData& data() const { return m_data; }
    QSize sizeHint() const override { return { 320, 220 }; }
    QSize minimumSizeHint() const override { return { 200, 140 }; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    SpeedupChartData m_data;
    QString m_note;
};

} // namespace sparkscope::ui
