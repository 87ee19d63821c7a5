#pragma once
// LedgerBar: the loss ledger of a range as one horizontal stacked bar, a segment per category in the
// timeline's ledger colours (the utilisation row's), in category order, each as wide as its share of
// the engines' time. Hovering a segment names it with its seconds and share; clicking it emits
// categoryClicked. GUI thread only.
#include "sparkscope/core/analysis.h"

#include <QWidget>

#include <array>
#include <optional>

namespace sparkscope::ui {

class LedgerBar : public QWidget {
    Q_OBJECT
public:
    explicit LedgerBar(QWidget* parent = nullptr);

    // The ledger shown (nullopt: none, the bar is empty).
    void setLedger(std::optional<core::LossLedger> ledger);
    // A category drawn outlined (the one highlighted on the timeline), or -1.
    void setHighlight(int category);
    // The category under x, or -1.
    int categoryAt(double x) const;
    QSize sizeHint() const override { return { 300, 30 }; }
    QSize minimumSizeHint() const override { return { 100, 24 }; }

Q_SIGNALS:
    void categoryClicked(int category);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    bool event(QEvent* event) override;

private:
    // Segment edges in x: category k spans [edges[k], edges[k + 1]).
    std::array<double, core::kLossCategoryCount + 1> edges() const;

    std::optional<core::LossLedger> m_ledger;
    int m_highlight = -1;
};

} // namespace sparkscope::ui
