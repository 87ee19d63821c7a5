#include "ui/compare/scaling_view.h"

#include "ui/compare/scaling_chart.h"

#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

namespace sparkscope::ui {

namespace {

    QTableWidgetItem* number(std::optional<double> v, int decimals, double scale = 1)
    {
        auto* item = new QTableWidgetItem(v ? QString::number(*v * scale, 'f', decimals) : QStringLiteral("-"));
        item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        if (v)
            item->setData(Qt::UserRole, *v);
        return item;
    }

    std::optional<double> ns(std::optional<uint64_t> v) { return v ? std::optional<double>(double(*v)) : std::nullopt; }

} // namespace

ScalingView::ScalingView(const core::ScalingReport& r, QWidget* parent)
    : QWidget(parent)
{
    QStringList notes;
    for (const std::string& f : r.failed)
        notes << tr("Not read: %1").arg(QString::fromStdString(f));
    for (const std::string& w : r.warnings)
        notes << QStringLiteral("⚠ ") + QString::fromStdString(w);
    m_notes = new QLabel(notes.join(QLatin1Char('\n')));
    m_notes->setWordWrap(true);
    m_notes->setVisible(!notes.isEmpty());

    m_table = new QTableWidget(0, 9, this);
    m_table->setObjectName(QStringLiteral("scalingTable"));
    m_table->setHorizontalHeaderLabels({ tr("engines"), tr("trace"), tr("wall (s)"), tr("speed-up"), tr("efficiency"),
        tr("serial fraction"), tr("work growth"), tr("span (s)"), tr("predicted by others: wall (s), error") });
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    for (const core::ScalingPoint& p : r.points) {
        const int row = m_table->rowCount();
        m_table->insertRow(row);
        m_table->setItem(row, 0, number(double(p.engines), 0));
        m_table->setItem(row, 1, new QTableWidgetItem(QFileInfo(QString::fromStdString(p.path)).fileName()));
        m_table->setItem(row, 2, number(double(p.wallNs), 6, 1e-9));
        m_table->setItem(row, 3, number(p.scaling.speedup, 3));
        m_table->setItem(row, 4, number(p.scaling.efficiency, 3));
        m_table->setItem(row, 5, number(p.scaling.serialFraction, 3));
        m_table->setItem(row, 6, number(p.workGrowth, 3));
        m_table->setItem(row, 7, number(ns(p.spanNs), 6, 1e-9));
        QStringList predicted;
        for (const core::PointPrediction& pr : p.predictions)
            predicted << QStringLiteral("%1 (from %2 engines%3)")
                             .arg(QString::number(double(pr.wallNs) / 1e9, 'f', 6))
                             .arg(r.points[pr.from].engines)
                             .arg(pr.error ? QStringLiteral(", %1%2%")
                                                 .arg(*pr.error >= 0 ? QStringLiteral("+") : QString())
                                                 .arg(QString::number(*pr.error * 100, 'f', 1))
                                           : QString()); // (no error against a measured wall of 0)
        m_table->setItem(row, 8,
            new QTableWidgetItem(predicted.isEmpty() ? QStringLiteral("-") : predicted.join(QStringLiteral("; "))));
    }
    m_table->resizeColumnsToContents();

    m_chart = new ScalingChart(this);
    m_chart->setReport(r);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_table);
    split->addWidget(m_chart);
    split->setStretchFactor(1, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_notes);
    layout->addWidget(split, 1);
}

} // namespace sparkscope::ui
