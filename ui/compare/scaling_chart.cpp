#include "ui/compare/scaling_chart.h"

#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>

namespace sparkscope::ui {

namespace {
    constexpr int kMarginLeft = 56, kMarginRight = 56, kMarginTop = 28, kMarginBottom = 40; // room for the axis labels
    const QColor kSpeedup(31, 119, 180);
    const QColor kEfficiency(255, 127, 14);
} // namespace

ScalingChart::ScalingChart(QWidget* parent)
    : QWidget(parent)
{
    setMinimumSize(360, 240);
}

void ScalingChart::setReport(const core::ScalingReport& r)
{
    m_points.clear();
    if (r.points.empty()) {
        update();
        return;
    }
    const core::ScalingPoint& base = r.points[r.base];
    m_baseEngines = base.engines;
    for (const core::ScalingPoint& sp : r.points) {
        Point p;
        p.p = double(sp.engines) / double(base.engines);
        p.speedup = sp.scaling.speedup;
        p.efficiency = sp.scaling.efficiency;
        for (const core::PointPrediction& pr : sp.predictions)
            if (pr.wallNs > 0)
                p.predicted.push_back(double(base.wallNs) / double(pr.wallNs));
        m_points.push_back(std::move(p));
    }
    update();
}

void ScalingChart::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.fillRect(rect(), palette().base());
    const QRectF plot(
        kMarginLeft, kMarginTop, width() - kMarginLeft - kMarginRight, height() - kMarginTop - kMarginBottom);
    painter.setPen(palette().text().color());
    if (m_points.empty()) {
        painter.drawText(rect(), Qt::AlignCenter, tr("No scaling series"));
        return;
    }
    // Axes: p from 1 to the largest (at least 2); speed-up from 0 to the largest value seen or p.
    double maxP = 2, maxS = 1;
    for (const Point& p : m_points) {
        maxP = std::max(maxP, p.p);
        maxS = std::max({ maxS, p.p, p.speedup.value_or(0) });
        for (double s : p.predicted)
            maxS = std::max(maxS, s);
    }
    maxS = std::ceil(maxS * 1.1);
    auto x = [&](double p) { return plot.left() + (p - 1) / (maxP - 1) * plot.width(); };
    auto yS = [&](double s) { return plot.bottom() - s / maxS * plot.height(); };
    auto yE = [&](double e) { return plot.bottom() - std::clamp(e, 0.0, 1.0) * plot.height(); };

    painter.drawRect(plot);
    const QFontMetrics fm = painter.fontMetrics();
    for (const Point& p : m_points) {
        const QString label = QString::number(p.p * m_baseEngines, 'g', 4);
        painter.drawLine(QPointF(x(p.p), plot.bottom()), QPointF(x(p.p), plot.bottom() + 4));
        painter.drawText(QPointF(x(p.p) - fm.horizontalAdvance(label) / 2.0, plot.bottom() + 4 + fm.ascent()), label);
    }
    for (int i = 0; i <= 4; ++i) {
        const double s = maxS * i / 4, e = i / 4.0;
        const QString left = QString::number(s, 'g', 3), right = QString::number(e, 'g', 3);
        painter.drawText(QPointF(plot.left() - 6 - fm.horizontalAdvance(left), yS(s) + fm.ascent() / 2.0), left);
        painter.drawText(QPointF(plot.right() + 6, yE(e) + fm.ascent() / 2.0), right);
    }
    painter.drawText(
        QRectF(plot.left(), height() - fm.height() - 2, plot.width(), fm.height()), Qt::AlignCenter, tr("engines"));
    painter.setPen(kSpeedup);
    painter.drawText(QPointF(plot.left(), kMarginTop - 8), tr("speed-up (○ predicted)"));
    painter.setPen(kEfficiency);
    const QString eff = tr("efficiency");
    painter.drawText(QPointF(plot.right() - fm.horizontalAdvance(eff), kMarginTop - 8), eff);

    // The ideal speed-up p.
    painter.setPen(QPen(palette().mid().color(), 1, Qt::DashLine));
    painter.drawLine(QPointF(x(1), yS(1)), QPointF(x(maxP), yS(std::min(maxP, maxS))));

    auto series = [&](const QColor& colour, auto value, auto y) {
        QPainterPath path;
        bool started = false;
        for (const Point& p : m_points) {
            const std::optional<double> v = value(p);
            if (!v)
                continue;
            const QPointF at(x(p.p), y(*v));
            started ? path.lineTo(at) : path.moveTo(at);
            started = true;
        }
        painter.setPen(QPen(colour, 2));
        painter.setBrush(Qt::NoBrush);
        painter.drawPath(path);
        painter.setBrush(colour);
        for (const Point& p : m_points)
            if (const std::optional<double> v = value(p))
                painter.drawEllipse(QPointF(x(p.p), y(*v)), 3.5, 3.5);
    };
    series(
        kSpeedup, [](const Point& p) { return p.speedup; }, yS);
    series(
        kEfficiency, [](const Point& p) { return p.efficiency; }, yE);
    painter.setPen(QPen(kSpeedup, 1.5));
    painter.setBrush(Qt::NoBrush);
    for (const Point& p : m_points)
        for (double s : p.predicted)
            painter.drawEllipse(QPointF(x(p.p) + 7, yS(s)), 5, 5);
}

} // namespace sparkscope::ui
