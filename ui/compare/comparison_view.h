#pragma once
// ComparisonView: two runs side by side (core::RunComparison, docs/compare.md): which traces, the
// warnings (a trace that did not read, programs whose sites do not match), and three tabs — the
// program's figures, the loss ledger, and each conjunction site (sorted by the change in its time)
// with its conjuncts — each row A, B, B − A, B / A as FigureTable shows them. The same rows as
// `sparkscope-cli compare`, from the same core function. GUI thread only.
#include "sparkscope/core/compare.h"

#include <QWidget>

class QLabel;
class QTabWidget;

namespace sparkscope::ui {

class FigureTable;

class ComparisonView : public QWidget {
    Q_OBJECT
public:
    explicit ComparisonView(const core::RunComparison& comparison, QWidget* parent = nullptr);

    FigureTable* programTable() const { return m_program; }
    FigureTable* ledgerTable() const { return m_ledger; }
    FigureTable* sitesTable() const { return m_sites; }
    QString warningText() const;

private:
    QLabel* m_runs = nullptr;
    QLabel* m_warnings = nullptr;
    QTabWidget* m_tabs = nullptr;
    FigureTable* m_program = nullptr;
    FigureTable* m_ledger = nullptr;
    FigureTable* m_sites = nullptr;
};

} // namespace sparkscope::ui
