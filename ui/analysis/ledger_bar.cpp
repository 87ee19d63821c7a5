#include "ui/analysis/ledger_bar.h"

#include "ui/timeline/frame.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

namespace sparkscope::ui {

LedgerBar::LedgerBar(QWidget* parent)
    : QWidget(parent)
{
    setMouseTracking(true);
    setCursor(Qt::PointingHandCursor);
}

void LedgerBar::setLedger(std::optional<core::LossLedger> ledger)
{
    m_ledger = ledger;
    update();
}

void LedgerBar::setHighlight(int category)
{
    m_highlight = category;
    update();
}

std::array<double, core::kLossCategoryCount + 1> LedgerBar::edges() const
{
    std::array<double, core::kLossCategoryCount + 1> e {};
    const double w = double(width() - 2);
    const uint64_t total = m_ledger ? m_ledger->totalNs() : 0;
    uint64_t sum = 0;
    e[0] = 1;
    for (size_t k = 0; k < core::kLossCategoryCount; ++k) {
        sum += m_ledger ? m_ledger->ns[k] : 0;
        e[k + 1] = 1 + (total ? w * double(sum) / double(total) : 0);
    }
    return e;
}

int LedgerBar::categoryAt(double x) const
{
    if (!m_ledger || m_ledger->totalNs() == 0)
        return -1;
    const auto e = edges();
    for (size_t k = 0; k < core::kLossCategoryCount; ++k)
        if (x >= e[k] && x < e[k + 1])
            return int(k);
    return -1;
}

void LedgerBar::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    const FramePalette palette = FramePalette::fromPalette(this->palette());
    const QRectF bar(1, 1, width() - 2, height() - 2);
    painter.fillRect(bar, palette.rowBackground);
    if (!m_ledger || m_ledger->totalNs() == 0)
        return;
    const auto e = edges();
    for (size_t k = 0; k < core::kLossCategoryCount; ++k)
        if (e[k + 1] > e[k])
            painter.fillRect(QRectF(e[k], bar.top(), e[k + 1] - e[k], bar.height()),
                palette.ink[size_t(inkOfLedger(core::LossCategory(k)))]);
    if (m_highlight >= 0 && size_t(m_highlight) < core::kLossCategoryCount) {
        painter.setPen(QPen(palette.text, 2));
        painter.setBrush(Qt::NoBrush);
        const size_t k = size_t(m_highlight);
        painter.drawRect(QRectF(e[k], bar.top() + 1, std::max(2.0, e[k + 1] - e[k]), bar.height() - 2));
    }
}

void LedgerBar::mouseReleaseEvent(QMouseEvent* event)
{
    const int k = categoryAt(event->position().x());
    if (k >= 0)
        Q_EMIT categoryClicked(k);
}

bool LedgerBar::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const int k = categoryAt(help->pos().x());
        if (k < 0) {
            QToolTip::hideText();
        } else {
            const uint64_t ns = m_ledger->ns[size_t(k)];
            QToolTip::showText(help->globalPos(),
                tr("%1: %2 of engine time (%3%) — click to see where")
                    .arg(QString::fromUtf8(inkName(inkOfLedger(core::LossCategory(k)))), formatDuration(int64_t(ns)))
                    .arg(100.0 * m_ledger->fraction(core::LossCategory(k)), 0, 'f', 1),
                this);
        }
        return true;
    }
    return QWidget::event(event);
}

} // namespace sparkscope::ui
