#include "ui/panels/granularity_chart.h"

#include "ui/timeline/frame.h"

#include <QPainter>

#include <algorithm>

namespace sparkscope::ui {

GranularityChart::GranularityChart(QWidget* parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("granularityChart"));
}

void GranularityChart::setHistogram(const core::MetricValue* value, const QString& label)
{
    m_counts.clear();
    m_cumulativeCounts.clear();
    m_label = label;
    if (value) {
        for (const auto& [name, scalar] : value->fields) {
            const auto* n = std::get_if<int64_t>(&scalar);
            if (!n)
                continue;
            const bool cumulative = name.rfind("cumulative_log2_", 0) == 0;
            if (!cumulative && name.rfind("log2_", 0) != 0)
                continue;
            const size_t bucket = size_t(std::stoul(name.substr(name.rfind('_') + 1)));
            auto& v = cumulative ? m_cumulativeCounts : m_counts;
            if (v.size() <= bucket)
                v.resize(bucket + 1, 0);
            v[bucket] = uint64_t(*n);
        }
    }
    update();
}

void GranularityChart::setCumulative(bool cumulative)
{
    m_cumulative = cumulative;
    update();
}

void GranularityChart::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.fillRect(rect(), palette().color(QPalette::Base));
    QFont font = p.font();
    font.setPixelSize(10);
    p.setFont(font);
    const QColor text = palette().color(QPalette::Text);
    p.setPen(text);
    const auto& values = m_cumulative ? m_cumulativeCounts : m_counts;
    const QString title = (m_cumulative ? tr("Cumulative granularity: %1") : tr("Granularity: %1")).arg(m_label);
    p.drawText(QRectF(4, 2, width() - 8, 14), Qt::AlignLeft | Qt::AlignVCenter, title);
    // Only the buckets from the first to the last non-empty one (at least 8 wide) are shown.
    size_t first = SIZE_MAX, last = 0;
    for (size_t i = 0; i < std::min(m_counts.size(), values.size()); ++i)
        if (m_counts[i]) {
            first = std::min(first, i);
            last = i;
        }
    if (first == SIZE_MAX) {
        p.drawText(rect(), Qt::AlignCenter, tr("No complete conjunct ran."));
        return;
    }
    first = first > 0 ? first - 1 : 0;
    last = std::min(values.size() - 1, last + 1);
    while (last - first + 1 < 8 && (first > 0 || last + 1 < values.size())) {
        if (first > 0)
            --first;
        if (last - first + 1 < 8 && last + 1 < values.size())
            ++last;
    }
    const size_t n = last - first + 1;
    const QRectF plot(34, 20, width() - 42, height() - 38);
    const uint64_t top
        = std::max<uint64_t>(1, *std::max_element(values.begin() + long(first), values.begin() + long(last) + 1));
    p.setPen(QColor(128, 128, 128));
    p.drawLine(plot.bottomLeft(), plot.bottomRight());
    p.drawLine(plot.bottomLeft(), plot.topLeft());
    p.setPen(text);
    p.drawText(QRectF(0, plot.top() - 6, 30, 12), Qt::AlignRight | Qt::AlignVCenter, QString::number(top));
    p.drawText(QRectF(0, plot.bottom() - 6, 30, 12), Qt::AlignRight | Qt::AlignVCenter, QStringLiteral("0"));
    const double w = plot.width() / double(n);
    const QColor bar = m_cumulative ? QColor(66, 124, 214) : QColor(46, 158, 68);
    const int labelEvery = std::max(1, int(std::ceil(60.0 / w)));
    for (size_t i = 0; i < n; ++i) {
        const uint64_t v = values[first + i];
        const double h = double(v) / double(top) * plot.height();
        const QRectF r(plot.left() + double(i) * w + 1, plot.bottom() - h, std::max(1.0, w - 2), h);
        p.fillRect(r, bar);
        if (int(i) % labelEvery == 0) {
            p.setPen(text);
            p.drawText(QRectF(plot.left() + double(i) * w - 20, plot.bottom() + 2, w + 40, 12), Qt::AlignCenter,
                formatDuration(int64_t(1) << std::min<size_t>(first + i, 62), 3));
        }
    }
}

} // namespace sparkscope::ui
