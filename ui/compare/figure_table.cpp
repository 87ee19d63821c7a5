#include "ui/compare/figure_table.h"

#include "ui/timeline/frame.h"

#include <QHeaderView>

#include <cmath>

namespace sparkscope::ui {

QString figureLabel(const std::string& key)
{
    const QString k = QString::fromStdString(key);
    if (k.endsWith(QLatin1String("_ns")))
        return k.chopped(3); // its cells carry their unit
    if (k.endsWith(QLatin1String("_fraction")))
        return k.chopped(9) + QStringLiteral(" (%)");
    return k;
}

QString figureText(const std::string& key, std::optional<double> v, bool signedValue)
{
    if (!v)
        return QStringLiteral("-");
    const QString sign = signedValue && *v >= 0 ? QStringLiteral("+") : QString();
    const QString k = QString::fromStdString(key);
    if (k.endsWith(QLatin1String("_ns"))) // in the unit that reads best: a 100 ns difference read +0.000000 s
        return sign + formatDurationOf(*v);
    if (k.endsWith(QLatin1String("_fraction")))
        return sign + QString::number(*v * 100, 'f', 2) + QLatin1Char('%');
    if (*v == std::trunc(*v) && std::fabs(*v) < 1e15)
        return sign + QString::number(*v, 'f', 0);
    return sign + QString::number(*v, 'f', 3);
}

FigureTable::FigureTable(QWidget* parent)
    : QTableWidget(0, 5, parent)
{
    setHorizontalHeaderLabels({ tr("figure"), tr("A"), tr("B"), tr("B − A"), tr("B / A") });
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setSelectionBehavior(QAbstractItemView::SelectRows);
    verticalHeader()->hide();
    // Rows as tall as a line of text (a tree's), not the style's roomier default: more figures in view.
    verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    setWordWrap(false);
    setAlternatingRowColors(true);
}

void FigureTable::setNarrow(bool narrow)
{
    setColumnHidden(4, narrow);
    horizontalHeader()->setSectionResizeMode(0, narrow ? QHeaderView::Stretch : QHeaderView::Interactive);
    for (int c = 1; c < columnCount(); ++c)
        horizontalHeader()->setSectionResizeMode(c, narrow ? QHeaderView::ResizeToContents : QHeaderView::Interactive);
}

void FigureTable::addFigures(const std::vector<core::FigureComparison>& figures, const QString& prefix)
{
    for (const core::FigureComparison& f : figures) {
        const int row = rowCount();
        insertRow(row);
        setItem(row, 0, new QTableWidgetItem(prefix + figureLabel(f.key)));
        item(row, 0)->setData(Qt::UserRole, QString::fromStdString(f.key));
        const std::optional<double> values[] = { f.a, f.b, f.difference, f.ratio };
        for (int c = 0; c < 4; ++c) {
            const QString text = c == 3 ? (f.ratio ? QString::number(*f.ratio, 'f', 3) : QStringLiteral("-"))
                                        : figureText(f.key, values[c], c == 2);
            auto* cell = new QTableWidgetItem(text);
            cell->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            if (values[c])
                cell->setData(Qt::UserRole, *values[c]);
            if (c == 2) // the ratio too, for a narrow table without its column
                cell->setToolTip(tr("B − A %1, B / A %2")
                                     .arg(text, f.ratio ? QString::number(*f.ratio, 'f', 3) : QStringLiteral("-")));
            setItem(row, c + 1, cell);
        }
    }
}

void FigureTable::addHeading(const QString& text)
{
    const int row = rowCount();
    insertRow(row);
    auto* cell = new QTableWidgetItem(text);
    QFont bold = cell->font();
    bold.setBold(true);
    cell->setFont(bold);
    setItem(row, 0, cell);
}

void FigureTable::finish() { resizeColumnsToContents(); }

} // namespace sparkscope::ui
