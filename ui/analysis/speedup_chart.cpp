#include "ui/analysis/speedup_chart.h"

#include <QPainter>
#include <QPainterPath>

namespace sparkscope::ui {

SpeedupChart::SpeedupChart(QWidget* parent)
    : QWidget(parent)
{
}

void SpeedupChart::setData(SpeedupChartData data)
{
    m_data = std::move(data);
    m_note.clear();
    update();
}

void SpeedupChart::setNote(const QString& note)
{
    m_data = {};
    m_note = note;
    update();
}

void SpeedupChart::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing, true);
    const QPalette& pal = palette();
    painter.fillRect(rect(), pal.color(QPalette::Base));
    QFont font = painter.font();
    font.setPixelSize(11);
    painter.setFont(font);
    if (!m_note.isEmpty() || m_data.predicted.empty()) {
        painter.setPen(pal.color(QPalette::Text));
        painter.drawText(rect().adjusted(8, 8, -8, -8), Qt::AlignCenter | Qt::TextWordWrap,
            m_note.isEmpty() ? tr("No prediction") : m_note);
        return;
    }
    const SpeedupGeometry g = speedupGeometry(m_data, size());
    const QColor text = pal.color(QPalette::Text);
    QColor grid = text;
    grid.setAlpha(40);
    // Axes and grid.
    painter.setPen(QPen(grid, 0));
    for (const auto& [x, label] : g.xTicks)
        painter.drawLine(QLineF(x, g.plot.top(), x, g.plot.bottom()));
    for (const auto& [y, label] : g.yTicks)
        painter.drawLine(QLineF(g.plot.left(), y, g.plot.right(), y));
    painter.setPen(text);
    for (const auto& [x, label] : g.xTicks)
        painter.drawText(QRectF(x - 15, g.plot.bottom() + 3, 30, 14), Qt::AlignCenter, label);
    for (const auto& [y, label] : g.yTicks)
        painter.drawText(QRectF(0, y - 7, kChartLeft - 4, 14), Qt::AlignRight | Qt::AlignVCenter, label);
    // The axes' titles: under the engine counts, and up the left edge beside the speed-ups.
    painter.drawText(QRectF(g.plot.left(), g.plot.bottom() + 17, g.plot.width(), 14), Qt::AlignCenter, tr("engines"));
    painter.save();
    painter.translate(2, g.plot.center().y());
    painter.rotate(-90);
    painter.drawText(QRectF(-g.plot.height() / 2, 0, g.plot.height(), 14), Qt::AlignCenter, tr("speed-up ×"));
    painter.restore();
    // The bounds as a shaded band between lower and upper.
    if (!g.upper.empty() && g.upper.size() == g.lower.size()) {
        QPainterPath band;
        band.moveTo(g.upper.front());
        for (const QPointF& p : g.upper)
            band.lineTo(p);
        for (auto it = g.lower.rbegin(); it != g.lower.rend(); ++it)
            band.lineTo(*it);
        band.closeSubpath();
        QColor fill(66, 124, 214, 40);
        painter.fillPath(band, fill);
        painter.setPen(QPen(QColor(66, 124, 214), 1, Qt::DashLine));
        painter.drawPolyline(g.upper.data(), int(g.upper.size()));
        painter.drawPolyline(g.lower.data(), int(g.lower.size()));
    }
    auto series = [&](const std::vector<QPointF>& points, const QColor& colour, Qt::PenStyle style) {
        if (points.empty())
            return;
        painter.setPen(QPen(colour, 2, style));
        painter.drawPolyline(points.data(), int(points.size()));
        painter.setBrush(colour);
        for (const QPointF& p : points)
            painter.drawEllipse(p, 2.5, 2.5);
        painter.setBrush(Qt::NoBrush);
    };
    series(g.predicted, QColor(46, 158, 68), g.whatIf.empty() ? Qt::SolidLine : Qt::DashLine);
    series(g.whatIf, QColor(225, 0, 80), Qt::SolidLine);
    if (g.measured) {
        painter.setPen(QPen(text, 2));
        painter.setBrush(pal.color(QPalette::Base));
        painter.drawRect(QRectF(g.measured->x() - 4, g.measured->y() - 4, 8, 8));
    }
    // Legend, top left inside the plot.
    struct Item {
        QColor colour;
        QString text;
    };
    std::vector<Item> items { { QColor(46, 158, 68), tr("predicted") } };
    if (!g.whatIf.empty())
        items.push_back({ QColor(225, 0, 80), tr("what-if") });
    items.push_back({ QColor(66, 124, 214), tr("bounds (work, span)") });
    if (g.measured)
        items.push_back({ text, tr("measured") });
    double y = g.plot.top() + 4;
    for (const Item& item : items) {
        painter.setPen(QPen(item.colour, 2));
        painter.drawLine(QLineF(g.plot.left() + 6, y + 6, g.plot.left() + 18, y + 6));
        painter.setPen(text);
        painter.drawText(QPointF(g.plot.left() + 22, y + 10), item.text);
        y += 14;
    }
}

} // namespace sparkscope::ui
