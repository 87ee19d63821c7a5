#pragma once
// ScalingView: a scaling series (core::ScalingReport, docs/compare.md "Scaling"): the traces that
// did not read and the warnings, a table per engine count (wall time, speed-up, efficiency,
// Karp–Flatt serial fraction, work growth, span, and each other trace's predicted wall time with its
// error), and the ScalingChart of speed-up and efficiency over P with the predictions beside the
// measurements. GUI thread only.
#include "sparkscope/core/compare.h"

#include <QWidget>

class QLabel;
class QTableWidget;

namespace sparkscope::ui {

class ScalingChart;

class ScalingView : public QWidget {
    Q_OBJECT
public:
    explicit ScalingView(const core::ScalingReport& report, QWidget* parent = nullptr);
    QTableWidget* table() const { return m_table; }
    ScalingChart* chart() const { return m_chart; }

private:
    QLabel* m_notes = nullptr;
    QTableWidget* m_table = nullptr;
    ScalingChart* m_chart = nullptr;
};

} // namespace sparkscope::ui
