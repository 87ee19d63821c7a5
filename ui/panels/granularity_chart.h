#pragma once
// GranularityChart: the granularity profile (CONJUNCT_GRANULARITY) as a QPainter bar chart — one
// bar per log2 bucket of conjunct running time (bucket i holds times in [2^i, 2^(i+1)) ns), or the
// cumulative form as a rising step line, with duration labels on the x axis. Data comes straight
// from the report's histogram fields (log2_i / cumulative_log2_i). GUI thread only.
#include "sparkscope/core/metrics.h"

#include <QWidget>

#include <vector>

namespace sparkscope::ui {

class GranularityChart : public QWidget {
    Q_OBJECT
public:
    explicit GranularityChart(QWidget* parent = nullptr);

    // From a CONJUNCT_GRANULARITY value (null clears). `label` says whose profile it is.
    void setHistogram(const core::MetricValue* value, const QString& label);
    void setCumulative(bool cumulative);
    bool cumulative() const { return m_cumulative; }
    const std::vector<uint64_t>& counts() const { return m_counts; }
    const std::vector<uint64_t>& cumulativeCounts() const { return m_cumulativeCounts; }
    QSize sizeHint() const override { return { 360, 170 }; }
    QSize minimumSizeHint() const override { return { 200, 120 }; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    std::vector<uint64_t> m_counts, m_cumulativeCounts;
    QString m_label;
    bool m_cumulative = false;
};

} // namespace sparkscope::ui
