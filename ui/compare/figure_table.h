#pragma once
// FigureTable: a read-only table of compared figures (core::FigureComparison): figure, A, B, B − A,
// B / A. Each number cell shows its figure as the CLI's text report does (seconds for `_ns`, % for
// `_fraction`, whole numbers for counts, "-" where absent) and keeps the raw number under Qt::UserRole
// (an invalid QVariant where absent), so tests and copy-paste see the exact figure. GUI thread only.
#include "sparkscope/core/compare.h"

#include <QString>
#include <QTableWidget>

#include <optional>
#include <string>
#include <vector>

namespace sparkscope::ui {

// "wall_ns" -> "wall (s)", "idle_no_work_fraction" -> "idle_no_work (%)".
QString figureLabel(const std::string& key);
// A figure's text; `signedValue` prefixes + for differences.
QString figureText(const std::string& key, std::optional<double> value, bool signedValue = false);

class FigureTable : public QTableWidget {
    Q_OBJECT
public:
    explicit FigureTable(QWidget* parent = nullptr);
    // Appends one row per figure, its first cell `prefix` + the figure's label.
    void addFigures(const std::vector<core::FigureComparison>& figures, const QString& prefix = {});
    // Appends a row with `text` in the first cell only (a site's heading).
    void addHeading(const QString& text);
    void finish(); // sizes the columns to their contents
    // For a dock's width: no B / A column (B − A's tooltip gives the ratio), the figure column takes what
    // the numbers leave (its label elided if it must be).
    void setNarrow(bool narrow);
};

} // namespace sparkscope::ui
