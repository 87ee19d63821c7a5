#include "ui/analysis/why_panel.h"

#include "ui/analysis/ledger_bar.h"
#include "ui/analysis/speedup_chart.h"
#include "ui/timeline/frame.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QPixmap>
#include <QTabWidget>
#include <QToolButton>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace sparkscope::ui {

namespace {
    QString seconds(uint64_t ns) { return QString::number(double(ns) / 1e9, 'f', 6); }

    QString percent(double fraction) { return QString::number(100.0 * fraction, 'f', 1) + QStringLiteral("%"); }

    QIcon swatch(const QColor& colour)
    {
        QPixmap pixmap(12, 12);
        pixmap.fill(colour);
        return QIcon(pixmap);
    }

    // "imbalance" → "Imbalance", "sparks_too_fine" → "Sparks too fine".
    QString ruleTitle(const std::string& rule)
    {
        QString t = QString::fromStdString(rule).replace(QLatin1Char('_'), QLatin1Char(' '));
        if (!t.isEmpty())
            t[0] = t[0].toUpper();
        return t;
    }

    QTreeWidget* newTable(const QStringList& headers, QWidget* parent)
    {
        auto* t = new QTreeWidget(parent);
        t->setHeaderLabels(headers);
        t->setRootIsDecorated(false);
        t->setUniformRowHeights(true);
        t->header()->setStretchLastSection(false);
        t->header()->setSectionResizeMode(0, QHeaderView::Stretch);
        for (int c = 1; c < headers.size(); ++c)
            t->header()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
        return t;
    }
} // namespace

WhyPanel::WhyPanel(QWidget* parent)
    : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    m_range = new QLabel(this);
    m_range->setWordWrap(true);
    layout->addWidget(m_range);
    m_bar = new LedgerBar(this);
    m_bar->setObjectName(QStringLiteral("ledgerBar"));
    layout->addWidget(m_bar);
    auto* figures = new QFormLayout;
    m_work = new QLabel(this);
    m_span = new QLabel(this);
    m_parallelism = new QLabel(this);
    for (QLabel* l : { m_work, m_span, m_parallelism })
        l->setTextInteractionFlags(Qt::TextSelectableByMouse);
    figures->addRow(tr("Work (T₁)"), m_work);
    figures->addRow(tr("Span (T∞)"), m_span);
    figures->addRow(tr("Parallelism"), m_parallelism);
    layout->addLayout(figures);
    // What a reader must know to trust the figures (a truncated trace, damaged instances, a path
    // that starts late...): the analysis' notes, as `analyze` prints them.
    m_notes = new QLabel(this);
    m_notes->setObjectName(QStringLiteral("analysisNotes"));
    m_notes->setWordWrap(true);
    m_notes->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_notes->hide();
    layout->addWidget(m_notes);

    m_tabs = new QTabWidget(this);
    auto* findingsPage = new QWidget(this);
    auto* findingsLayout = new QVBoxLayout(findingsPage);
    findingsLayout->setContentsMargins(0, 4, 0, 0);
    // The findings' shares are "of the run", which a trace's start-up and shutdown are not part of:
    // when that is not the whole range, this line says which part it is.
    m_findingsRun = new QLabel(findingsPage);
    m_findingsRun->setObjectName(QStringLiteral("findingsRun"));
    m_findingsRun->setWordWrap(true);
    m_findingsRun->hide();
    m_findings = new QListWidget(findingsPage);
    m_findings->setObjectName(QStringLiteral("findingsList"));
    m_findings->setWordWrap(true);
    m_findings->setAlternatingRowColors(true);
    m_findings->setSpacing(2);
    findingsLayout->addWidget(m_findingsRun);
    findingsLayout->addWidget(m_findings, 1);
    m_tabs->addTab(findingsPage, tr("Findings"));
    m_ledger = newTable({ tr("Category"), tr("Seconds"), tr("Share") }, this);
    m_ledger->setObjectName(QStringLiteral("ledgerTable"));
    m_tabs->addTab(m_ledger, tr("Ledger"));
    auto* pathPage = new QWidget(this);
    auto* pathLayout = new QVBoxLayout(pathPage);
    pathLayout->setContentsMargins(0, 4, 0, 0);
    m_pathButton = new QToolButton(pathPage);
    m_pathButton->setToolButtonStyle(Qt::ToolButtonTextOnly);
    m_pathSummary = new QLabel(pathPage);
    m_pathSummary->setWordWrap(true);
    m_path = newTable({ tr("Static id"), tr("On the path"), tr("Running"), tr("Share") }, pathPage);
    m_path->setObjectName(QStringLiteral("pathTable"));
    pathLayout->addWidget(m_pathButton, 0, Qt::AlignLeft);
    pathLayout->addWidget(m_pathSummary);
    pathLayout->addWidget(m_path, 1);
    m_tabs->addTab(pathPage, tr("Critical path"));
    auto* chartPage = new QWidget(this);
    auto* chartLayout = new QVBoxLayout(chartPage);
    chartLayout->setContentsMargins(0, 4, 0, 0);
    m_chart = new SpeedupChart(chartPage);
    m_chart->setObjectName(QStringLiteral("speedupChart"));
    chartLayout->addWidget(m_chart, 1);
    m_prediction = new QLabel(chartPage);
    m_prediction->setWordWrap(true);
    chartLayout->addWidget(m_prediction);
    auto* controls = new QHBoxLayout;
    m_whatIfSite = new QComboBox(chartPage);
    m_whatIfSite->setObjectName(QStringLiteral("whatIfSite"));
    m_whatIfSite->setToolTip(tr("What if this static id's conjuncts ran faster?"));
    m_whatIfFactor = new QDoubleSpinBox(chartPage);
    m_whatIfFactor->setObjectName(QStringLiteral("whatIfFactor"));
    m_whatIfFactor->setRange(0.1, 100);
    m_whatIfFactor->setValue(2);
    m_whatIfFactor->setSuffix(QStringLiteral("×"));
    m_whatIfFactor->setToolTip(tr("How many times as fast"));
    m_zeroCosts = new QCheckBox(tr("Zero costs"), chartPage);
    m_zeroCosts->setObjectName(QStringLiteral("whatIfZeroCosts"));
    m_zeroCosts->setToolTip(tr("What if sparks, steals, context switches and wake-ups cost nothing?"));
    controls->addWidget(new QLabel(tr("What if"), chartPage));
    controls->addWidget(m_whatIfSite, 1);
    controls->addWidget(m_whatIfFactor);
    controls->addWidget(m_zeroCosts);
    chartLayout->addLayout(controls);
    m_tabs->addTab(chartPage, tr("Speed-up"));
    connect(m_whatIfSite, &QComboBox::currentIndexChanged, this, &WhyPanel::whatIfChanged);
    connect(m_whatIfFactor, &QDoubleSpinBox::valueChanged, this, [this] {
        if (m_whatIfSite->currentData().toUInt() != 0)
            Q_EMIT whatIfChanged();
    });
    connect(m_zeroCosts, &QCheckBox::toggled, this, &WhyPanel::whatIfChanged);
    layout->addWidget(m_tabs, 1);

    connect(m_bar, &LedgerBar::categoryClicked, this, &WhyPanel::categoryClicked);
    connect(m_ledger, &QTreeWidget::itemClicked, this,
        [this](QTreeWidgetItem* item) { Q_EMIT categoryClicked(item->data(0, Qt::UserRole).toInt()); });
    connect(m_findings, &QListWidget::itemClicked, this,
        [this](QListWidgetItem* item) { Q_EMIT findingActivated(item->data(Qt::UserRole).toInt()); });
    connect(m_path, &QTreeWidget::itemClicked, this,
        [this](QTreeWidgetItem* item) { Q_EMIT pathSiteClicked(item->data(0, Qt::UserRole).toUInt()); });
    setPending(tr("Open a trace to see where its engines' time went."));
}

QWidget* WhyPanel::chartPage() const { return m_chart->parentWidget(); }

WhyPanel::WhatIf WhyPanel::whatIf() const
{
    return { m_whatIfSite->currentData().toUInt(), m_whatIfFactor->value(), m_zeroCosts->isChecked() };
}

void WhyPanel::setPredictionText(const QString& text) { m_prediction->setText(text); }

QString WhyPanel::predictionText() const { return m_prediction->text(); }

void WhyPanel::setPending(const QString& what)
{
    m_report.reset();
    m_rangeText.clear();
    m_range->setText(what);
    m_bar->setLedger(std::nullopt);
    for (QLabel* l : { m_work, m_span, m_parallelism })
        l->setText(QStringLiteral("—"));
    m_findings->clear();
    m_findingsRun->clear();
    m_findingsRun->hide();
    m_ledger->clear();
    m_path->clear();
    m_pathSummary->clear();
    m_notes->clear();
    m_notes->hide();
}

void WhyPanel::setReport(std::shared_ptr<const core::AnalysisReport> report, const QString& range)
{
    m_report = std::move(report);
    if (!m_report)
        return setPending(range);
    const core::Analysis& a = m_report->analysis;
    m_rangeText = range;
    m_range->setText(tr("<b>%1</b>: %2 × %3")
                         .arg(range, formatEngines(a.ledger.engines), formatDuration(int64_t(a.toNs - a.fromNs))));
    m_bar->setLedger(a.ledger.total);
    fillFigures(a);
    fillLedger(a);
    fillFindings(*m_report);
    fillPath(a);
    QStringList notes;
    for (const std::string& n : a.notes)
        notes << QStringLiteral("• %1").arg(QString::fromStdString(n).toHtmlEscaped());
    m_notes->setText(notes.isEmpty() ? QString() : tr("<b>Notes</b><br>%1").arg(notes.join(QStringLiteral("<br>"))));
    m_notes->setVisible(!notes.isEmpty());
    const uint32_t chosen = m_whatIfSite->currentData().toUInt();
    const QSignalBlocker block(m_whatIfSite);
    m_whatIfSite->clear();
    m_whatIfSite->addItem(tr("(no static id)"), 0u);
    for (const core::SiteWorkSpan& site : a.workSpan.perConjunction)
        m_whatIfSite->addItem(tr("%1 faster").arg(QString::fromStdString(site.site)), site.staticId);
    m_whatIfSite->setCurrentIndex(std::max(0, m_whatIfSite->findData(chosen)));
    m_whatIfSite->setEnabled(a.recordsJoins);
    m_whatIfFactor->setEnabled(a.recordsJoins);
    m_zeroCosts->setEnabled(a.recordsJoins);
}

void WhyPanel::fillFigures(const core::Analysis& a)
{
    const core::WorkSpanReport& ws = a.workSpan;
    // In the unit that reads best, as the timeline's durations: a short run's work in seconds read
    // "0.000001 s". The exact figures are in the tooltips and the metrics file.
    m_work->setText(formatDuration(int64_t(ws.workNs)));
    m_work->setToolTip(tr("%L1 ns").arg(ws.workNs));
    m_span->setText(
        ws.spanNs ? formatDuration(int64_t(*ws.spanNs)) : tr("— (%1)").arg(QString::fromStdString(ws.note)));
    m_span->setToolTip(ws.spanNs ? tr("%L1 ns").arg(*ws.spanNs) : QString());
    m_span->setWordWrap(true);
    m_parallelism->setText(ws.parallelism ? QString::number(*ws.parallelism, 'f', 2) : QStringLiteral("—"));
}

QString WhyPanel::figure(const QString& name) const
{
    if (name == QLatin1String("work"))
        return m_work->text();
    if (name == QLatin1String("span"))
        return m_span->text();
    if (name == QLatin1String("parallelism"))
        return m_parallelism->text();
    return {};
}

void WhyPanel::fillLedger(const core::Analysis& a)
{
    m_ledger->clear();
    const FramePalette palette = FramePalette::fromPalette(this->palette());
    const core::LossLedger& l = a.ledger.total;
    for (size_t k = 0; k < core::kLossCategoryCount; ++k) {
        const auto c = core::LossCategory(k);
        if (l[c] == 0)
            continue; // a category that never happened in the range (a GHC eventlog has no conjuncts)
        auto* item = new QTreeWidgetItem(
            m_ledger, { QString::fromUtf8(inkName(inkOfLedger(c))), seconds(l[c]), percent(l.fraction(c)) });
        item->setIcon(0, swatch(palette.ink[size_t(inkOfLedger(c))]));
        item->setData(0, Qt::UserRole, int(k));
        item->setData(1, Qt::UserRole, QVariant::fromValue<qulonglong>(l[c]));
        item->setToolTip(0, QString::fromUtf8(core::lossCategoryKey(c).data()));
        item->setTextAlignment(1, Qt::AlignRight);
        item->setTextAlignment(2, Qt::AlignRight);
    }
    auto* total = new QTreeWidgetItem(m_ledger, { tr("All engines"), seconds(l.totalNs()), percent(1.0) });
    total->setData(0, Qt::UserRole, -1);
    total->setData(1, Qt::UserRole, QVariant::fromValue<qulonglong>(l.totalNs()));
    QFont bold = total->font(0);
    bold.setBold(true);
    total->setFont(0, bold);
    total->setTextAlignment(1, Qt::AlignRight);
    total->setTextAlignment(2, Qt::AlignRight);
}

void WhyPanel::fillFindings(const core::AnalysisReport& r)
{
    m_findings->clear();
    const bool partOfRange = r.runIsPartOfRange();
    m_findingsRun->setText(partOfRange
            ? tr("“Of the run” below: %1 – %2 (%3), from the first to the last instant an "
                 "engine ran a context in this range.")
                  .arg(formatDuration(int64_t(r.run->fromNs)), formatDuration(int64_t(r.run->toNs)),
                      formatDuration(int64_t(r.run->toNs - r.run->fromNs)))
            : QString());
    m_findingsRun->setVisible(partOfRange);
    if (r.findings.empty()) {
        auto* none
            = new QListWidgetItem(tr("No finding: nothing in this range lost enough time to be worth changing."));
        none->setFlags(Qt::NoItemFlags);
        m_findings->addItem(none);
        return;
    }
    for (size_t i = 0; i < r.findings.size(); ++i) {
        const core::Finding& f = r.findings[i];
        const QString where = f.site.empty() ? tr("whole program") : QString::fromStdString(f.site);
        auto* item = new QListWidgetItem(tr("%1. %2 — %3: could win back %4\n%5")
                                             .arg(i + 1)
                                             .arg(ruleTitle(f.rule), where, formatDuration(int64_t(f.recoverableNs)),
                                                 QString::fromStdString(f.text)));
        item->setData(Qt::UserRole, int(i));
        item->setToolTip(tr("Click to show its time ranges on the timeline"));
        m_findings->addItem(item);
    }
}

void WhyPanel::fillPath(const core::Analysis& a)
{
    m_path->clear();
    if (!a.criticalPath) {
        m_pathSummary->setText(a.recordsJoins ? tr("Nothing ran in this range.")
                                              : tr("A GHC eventlog records no joins: which thread waited for "
                                                   "which is unknown, so there is no critical path."));
        m_pathButton->setEnabled(false);
        return;
    }
    m_pathButton->setEnabled(true);
    const core::CriticalPathReport& p = a.criticalPath.value();
    const auto waiting = [&](core::PathKind k) { return p.byKind[size_t(k)]; };
    m_pathSummary->setText(
        tr("%1 long: running %2, waiting %3 (spark queued %4, runnable %5, resume %6).")
            .arg(formatDuration(int64_t(p.lengthNs)), formatDuration(int64_t(p.runningNs)),
                formatDuration(int64_t(p.waitingNs)), formatDuration(int64_t(waiting(core::PathKind::SparkQueued))),
                formatDuration(int64_t(waiting(core::PathKind::Runnable))),
                formatDuration(int64_t(waiting(core::PathKind::Resume)))));
    const double length = double(std::max<uint64_t>(1, p.lengthNs));
    auto add = [&](const QString& name, uint32_t id, uint64_t ns, std::optional<uint64_t> running) {
        auto* item = new QTreeWidgetItem(
            m_path, { name, seconds(ns), running ? seconds(*running) : QString(), percent(double(ns) / length) });
        item->setData(0, Qt::UserRole, id);
        item->setData(1, Qt::UserRole, QVariant::fromValue<qulonglong>(ns));
        for (int c = 1; c < 4; ++c)
            item->setTextAlignment(c, Qt::AlignRight);
    };
    std::vector<const core::PathSiteShare*> sites;
    for (const core::PathSiteShare& s : p.perConjunction)
        sites.push_back(&s);
    std::sort(sites.begin(), sites.end(), [](auto* a, auto* b) { return a->ns > b->ns; });
    for (const core::PathSiteShare* s : sites)
        add(QString::fromStdString(s->site), s->staticId, s->ns, s->runningNs);
    add(tr("outside every conjunct"), 0, p.outsideConjunctNs, std::nullopt);
}

void WhyPanel::setCriticalPathAction(QAction* action) { m_pathButton->setDefaultAction(action); }

void WhyPanel::setHighlight(int category)
{
    m_bar->setHighlight(category);
    for (int i = 0; i < m_ledger->topLevelItemCount(); ++i) {
        QTreeWidgetItem* item = m_ledger->topLevelItem(i);
        item->setSelected(category >= 0 && item->data(0, Qt::UserRole).toInt() == category);
    }
}

} // namespace sparkscope::ui
