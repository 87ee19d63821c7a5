#include "ui/compare/comparison_view.h"

#include "ui/compare/figure_table.h"
#include "ui/timeline/frame.h"

#include <QFileInfo>
#include <QLabel>
#include <QTabWidget>
#include <QVBoxLayout>

namespace sparkscope::ui {

namespace {

    QString runLine(const QString& name, const core::RunInput& in)
    {
        // The file's name (its full path in the label's tooltip): what tells the runs apart, and no
        // machine path in a screenshot.
        const QString path = QFileInfo(QString::fromStdString(in.path)).fileName().toHtmlEscaped();
        if (!in.profile)
            return QStringLiteral("<b>%1</b> %2: <b>not read</b> (%3)")
                .arg(name, path, QString::fromStdString(in.error).toHtmlEscaped());
        return QStringLiteral("<b>%1</b> %2: %3, %4 events")
            .arg(name, path, formatEngines(in.profile->engines))
            .arg(in.profile->events);
    }

    QString presenceText(core::Presence p)
    {
        return p == core::Presence::Both ? QString()
            : p == core::Presence::OnlyA ? QStringLiteral(" (A only)")
                                         : QStringLiteral(" (B only)");
    }

} // namespace

ComparisonView::ComparisonView(const core::RunComparison& c, QWidget* parent)
    : QWidget(parent)
{
    m_runs = new QLabel(runLine(QStringLiteral("A"), c.a) + QStringLiteral("<br>") + runLine(QStringLiteral("B"), c.b));
    m_runs->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_runs->setToolTip(QStringLiteral("A: %1\nB: %2").arg(QString::fromStdString(c.a.path), QString::fromStdString(c.b.path)));
    QStringList warnings;
    for (const std::string& w : c.warnings)
        warnings << QStringLiteral("⚠ ") + QString::fromStdString(w);
    m_warnings = new QLabel(warnings.join(QLatin1Char('\n')));
    m_warnings->setWordWrap(true);
    m_warnings->setVisible(!warnings.isEmpty());
    m_warnings->setStyleSheet(QStringLiteral("QLabel { background: #fff3cd; color: #5c4400; padding: 4px; }"));

    m_program = new FigureTable(this);
    m_program->setObjectName(QStringLiteral("compareProgramTable"));
    m_program->addFigures(c.program);
    m_program->finish();
    m_ledger = new FigureTable(this);
    m_ledger->setObjectName(QStringLiteral("compareLedgerTable"));
    m_ledger->addFigures(c.ledger);
    m_ledger->finish();
    m_sites = new FigureTable(this);
    m_sites->setObjectName(QStringLiteral("compareSitesTable"));
    for (const core::SiteComparison& s : c.sites) {
        m_sites->addHeading(QString::fromStdString(s.site) + presenceText(s.presence));
        m_sites->addFigures(s.figures, QStringLiteral("  "));
        for (const core::ConjunctComparison& k : s.conjuncts)
            m_sites->addFigures(
                k.figures, QStringLiteral("  conjunct %1%2: ").arg(k.position).arg(presenceText(k.presence)));
    }
    m_sites->finish();

    m_tabs = new QTabWidget(this);
    m_tabs->addTab(m_program, tr("Program"));
    m_tabs->addTab(m_ledger, tr("Loss ledger"));
    m_tabs->addTab(m_sites, tr("Conjunction sites (%1)").arg(c.sites.size()));
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_runs);
    layout->addWidget(m_warnings);
    layout->addWidget(m_tabs, 1);
}

QString ComparisonView::warningText() const { return m_warnings->text(); }

} // namespace sparkscope::ui
