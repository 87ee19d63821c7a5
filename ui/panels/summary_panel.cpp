#include "ui/panels/summary_panel.h"

#include "ui/compare/figure_table.h"
#include "ui/panels/metric_format.h"
#include "ui/timeline/frame.h"

#include <QFileInfo>
#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpressionValidator>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace sparkscope::ui {

namespace {
    double field(const core::MetricValue* v, const char* name)
    {
        if (!v)
            return 0;
        for (const auto& [n, s] : v->fields)
            if (n == name) {
                if (const auto* i = std::get_if<int64_t>(&s))
                    return double(*i);
                if (const auto* d = std::get_if<double>(&s))
                    return *d;
            }
        return 0;
    }
    const char* const kLabels[] = { "Range", "Run time", "CPUs (max / average)", "GC", "Mutator / GC time",
        "Productivity", "Sparks", "Contexts", "NANOSECS_PER_CALL" };
} // namespace

SummaryPanel::SummaryPanel(QWidget* parent)
    : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_range = new QLabel(this);
    m_note = new QLabel(this);
    m_note->setWordWrap(true);
    m_note->hide();
    layout->addWidget(m_note);
    m_form = new QFormLayout;
    for (const char* label : kLabels) {
        auto* value = new QLabel(QStringLiteral("—"), this);
        value->setTextInteractionFlags(Qt::TextSelectableByMouse);
        // A long value (a GHC trace's spark counts) wraps in the dock rather than widening it.
        value->setWordWrap(true);
        m_form->addRow(tr(label) + QLatin1Char(':'), value);
        m_figures.push_back({ QString::fromLatin1(label), value });
    }
    m_callCount = new QLineEdit(this);
    m_callCount->setObjectName(QStringLiteral("callCountField"));
    m_callCount->setPlaceholderText(tr("call-sequence count of a sequential run"));
    m_callCount->setValidator(new QRegularExpressionValidator(QRegularExpression(QStringLiteral("[0-9]{0,19}")), this));
    m_callCount->setToolTip(tr("NANOSECS_PER_CALL = user time on all engines / this count (press Enter)"));
    connect(m_callCount, &QLineEdit::editingFinished, this, [this] {
        bool ok = false;
        const qulonglong n = m_callCount->text().toULongLong(&ok);
        Q_EMIT callCountChanged(ok && n > 0 ? std::optional<uint64_t>(n) : std::nullopt);
    });
    m_form->addRow(tr("Call-sequence count:"), m_callCount);
    layout->addLayout(m_form);
    m_comparisonTitle = new QLabel(this);
    m_comparisonTitle->setWordWrap(true);
    m_comparisonTitle->hide();
    layout->addWidget(m_comparisonTitle);
    m_comparison = new FigureTable(this);
    m_comparison->setObjectName(QStringLiteral("summaryComparison"));
    m_comparison->setNarrow(true);
    m_comparison->setMinimumHeight(12 * m_comparison->verticalHeader()->defaultSectionSize());
    m_comparison->hide();
    layout->addWidget(m_comparison, 3); // while comparing, the figures compared before the metrics tree
    m_sites = new QTreeWidget(this);
    m_sites->setObjectName(QStringLiteral("runningBySite"));
    m_sites->setHeaderLabels({ tr("Running time by static id"), tr("Seconds"), tr("Share") });
    m_sites->setRootIsDecorated(false);
    m_sites->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_sites->setMaximumHeight(150);
    m_sites->hide();
    layout->addWidget(m_sites);
    m_tree = new QTreeWidget(this);
    m_tree->setObjectName(QStringLiteral("programMetrics"));
    m_tree->setColumnCount(2);
    m_tree->setHeaderLabels({ tr("Metric"), tr("Value") });
    m_tree->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    layout->addWidget(m_tree, 1);
    setMetrics(nullptr, true);
}

void SummaryPanel::setComparison(std::shared_ptr<const core::RunComparison> comparison)
{
    m_comparison->setRowCount(0);
    m_comparisonTitle->setVisible(comparison != nullptr);
    m_comparison->setVisible(comparison != nullptr);
    if (!comparison)
        return;
    const auto name = [](const core::RunInput& in) { return QFileInfo(QString::fromStdString(in.path)).fileName(); };
    m_comparisonTitle->setText(tr("<b>Compared</b> (whole traces): A %1, B %2%3")
                                   .arg(name(comparison->a).toHtmlEscaped(), name(comparison->b).toHtmlEscaped(),
                                       comparison->b.profile ? QString() : tr(" — B did not read")));
    m_comparison->addFigures(comparison->program);
    m_comparison->addHeading(tr("Loss ledger"));
    m_comparison->addFigures(comparison->ledger, QStringLiteral("  "));
    m_comparison->finish();
}

void SummaryPanel::setSiteSplit(const std::vector<SiteTime>& split)
{
    m_sites->clear();
    uint64_t total = 0;
    for (const SiteTime& s : split)
        total += s.ns;
    for (const SiteTime& s : split) {
        auto* item = new QTreeWidgetItem(m_sites,
            { QString::fromStdString(s.site), QString::number(double(s.ns) / 1e9, 'f', 6),
                QString::number(100.0 * double(s.ns) / double(std::max<uint64_t>(1, total)), 'f', 1)
                    + QStringLiteral("%") });
        item->setData(1, Qt::UserRole, QVariant::fromValue<qulonglong>(s.ns));
        item->setTextAlignment(1, Qt::AlignRight);
        item->setTextAlignment(2, Qt::AlignRight);
    }
    m_sites->setVisible(!split.empty());
}

void SummaryPanel::setFigure(const QString& label, const QString& text)
{
    for (auto& [l, w] : m_figures)
        if (l == label)
            w->setText(text);
}

QString SummaryPanel::figure(const QString& label) const
{
    for (const auto& [l, w] : m_figures)
        if (l == label)
            return w->text();
    return {};
}

void SummaryPanel::setUnavailable(const QString& why)
{
    setMetrics(nullptr, false);
    setFigure(QStringLiteral("Range"), tr("not computed"));
    m_note->setText(why);
    m_note->show();
}

void SummaryPanel::setComputing(bool computing)
{
    // Once: a followed trace's figures stay up while its parts are computed one after another.
    const QString mark = tr("  (computing…)");
    if (computing && !figure(QStringLiteral("Range")).endsWith(mark))
        setFigure(QStringLiteral("Range"), figure(QStringLiteral("Range")) + mark);
}

void SummaryPanel::setLiveHorizon(std::optional<uint64_t> horizon, bool stopped)
{
    // Only a stop rewords the line at once: a new horizon comes with new metrics, which set it.
    const bool reword = stopped != m_liveStopped;
    m_liveHorizon = horizon;
    m_liveStopped = stopped;
    if (reword && m_shown)
        setFigure(QStringLiteral("Range"), rangeText());
}

QString SummaryPanel::rangeText() const
{
    const ShownRange& r = *m_shown;
    if (r.fromNs == 0 && r.toNs == UINT64_MAX)
        return tr("whole trace (%1 – %2)")
            .arg(formatDuration(int64_t(r.firstNs), 6), formatDuration(int64_t(r.lastNs), 6));
    if (r.fromNs == 0 && m_liveHorizon == r.toNs)
        return (m_liveStopped ? tr("%1 – %2, what every engine wrote before following stopped")
                              : tr("live: %1 – %2, what every engine has written so far"))
            .arg(formatDuration(int64_t(r.firstNs), 6), formatDuration(int64_t(r.toNs), 6));
    return tr("selection %1 – %2").arg(formatDuration(int64_t(r.fromNs), 6), formatDuration(int64_t(r.toNs), 6));
}

void SummaryPanel::setMetrics(std::shared_ptr<const core::Metrics> metrics, bool conjunctionEvents)
{
    m_tree->clear();
    if (!metrics) {
        m_shown.reset();
        for (auto& [l, w] : m_figures)
            w->setText(QStringLiteral("—"));
        setFigure(QStringLiteral("Range"), tr("computing metrics…"));
        m_note->hide();
        return;
    }
    const core::Metrics& m = *metrics;
    auto find = [&](const char* key) { return m.find("program", "all", key); };
    m_shown = ShownRange { m.trace.firstNs, m.trace.lastNs, m.options.fromNs, m.options.toNs };
    setFigure(QStringLiteral("Range"), rangeText());
    const auto* mvg = find("MUTATOR_VS_GC_TIME");
    setFigure(QStringLiteral("Run time"), formatDuration(int64_t(field(mvg, "total_ns"))));
    const auto* cpus = find("CPUS_OVER_TIME");
    setFigure(QStringLiteral("CPUs (max / average)"),
        QStringLiteral("%1 / %2 of %3 engines")
            .arg(field(cpus, "max"))
            .arg(field(cpus, "average"), 0, 'f', 2)
            .arg(m.trace.engines));
    if (const auto* gc = find("GC_STATS"); gc && gc->stat)
        setFigure(QStringLiteral("GC"),
            gc->stat->count == 0
                ? tr("no collections")
                : tr("%1 collections, total %2, mean %3, max %4")
                      .arg(gc->stat->count)
                      .arg(formatDuration(int64_t(gc->stat->sum)), formatDuration(int64_t(gc->stat->mean)),
                          formatDuration(int64_t(gc->stat->max))));
    setFigure(QStringLiteral("Mutator / GC time"),
        QStringLiteral("%1 / %2").arg(
            formatDuration(int64_t(field(mvg, "mutator_ns"))), formatDuration(int64_t(field(mvg, "gc_ns")))));
    setFigure(QStringLiteral("Productivity"), QStringLiteral("%1%").arg(100.0 * field(mvg, "productivity"), 0, 'f', 1));
    const auto* sparks = find("SPARK_COUNTS");
    // GHC's sparks are converted (run), fizzled, GC'd, dud or overflowed, as ThreadScope counts them.
    setFigure(QStringLiteral("Sparks"),
        conjunctionEvents ? tr("%1 created, %2 run locally, %3 stolen")
                                .arg(qint64(field(sparks, "created")))
                                .arg(qint64(field(sparks, "run_local")))
                                .arg(qint64(field(sparks, "stolen")))
                          : tr("%1 created, %2 converted, %3 fizzled, %4 GC'd, %5 dud, %6 overflowed")
                                .arg(qint64(field(sparks, "created")))
                                .arg(qint64(field(sparks, "converted")))
                                .arg(qint64(field(sparks, "fizzled")))
                                .arg(qint64(field(sparks, "gcd")))
                                .arg(qint64(field(sparks, "dud")))
                                .arg(qint64(field(sparks, "overflowed"))));
    const auto* contexts = find("CONTEXT_COUNTS");
    setFigure(QStringLiteral("Contexts"),
        tr("%1 created, %2 reused, %3 released")
            .arg(qint64(field(contexts, "created")))
            .arg(qint64(field(contexts, "reused")))
            .arg(qint64(field(contexts, "released"))));
    if (const auto* npc = find("NANOSECS_PER_CALL"))
        setFigure(QStringLiteral("NANOSECS_PER_CALL"),
            tr("%1 ns per call (user time %2 / %3 calls)")
                .arg(field(npc, "value"), 0, 'f', 2)
                .arg(formatDuration(int64_t(field(npc, "user_time_ns"))))
                .arg(qint64(field(npc, "call_count"))));
    else
        setFigure(QStringLiteral("NANOSECS_PER_CALL"), tr("absent: enter the call-sequence count below"));
    if (!conjunctionEvents) {
        m_note->setText(tr("GHC eventlog: shown are ThreadScope's figures — run, mutator and GC time, "
                           "productivity, heap, the GC table per generation and the sparks per capability. A GHC "
                           "program has no parallel conjunctions or futures, so those metrics do not apply."));
        m_note->show();
    } else
        m_note->hide();
    // The program section: "all" first, then the GC table (one group per generation). For a GHC
    // eventlog the conjunction-only metrics (incomplete instances, granularity) are left out.
    const auto applies = [&](const std::string& key) {
        return conjunctionEvents || (key != "INCOMPLETE_INSTANCES" && key != "CONJUNCT_GRANULARITY");
    };
    if (const core::MetricSection* s = m.section("program"))
        for (const core::MetricGroup& g : s->groups) {
            core::MetricGroup shown { g.id, {} };
            for (const auto& metric : g.metrics)
                if (applies(metric.first))
                    shown.metrics.push_back(metric);
            const bool generation = g.id.rfind("gen", 0) == 0;
            auto* top = new QTreeWidgetItem(m_tree,
                { g.id == "all"      ? tr("program")
                        : generation ? tr("GC table: generation %1").arg(QString::fromStdString(g.id.substr(3)))
                                     : QString::fromStdString(g.id) });
            addMetricItems(m_tree, top, shown);
            top->setExpanded(true);
        }
    // Sparks per engine (per capability in a GHC eventlog), as ThreadScope's spark table.
    if (const core::MetricSection* s = m.section("engines"); s && !s->groups.empty()) {
        auto* top = new QTreeWidgetItem(
            m_tree, { conjunctionEvents ? tr("sparks per engine") : tr("sparks per capability") });
        for (const core::MetricGroup& g : s->groups) {
            if (g.id == "all")
                continue; // the program's line above
            const core::MetricValue* v = nullptr;
            for (const auto& [key, value] : g.metrics)
                if (key == "SPARK_COUNTS")
                    v = &value;
            if (!v)
                continue;
            const QString engine
                = (conjunctionEvents ? tr("engine %1") : tr("capability %1")).arg(QString::fromStdString(g.id));
            const QString counts = conjunctionEvents
                ? tr("%1 created, %2 run locally, %3 stolen")
                      .arg(qint64(field(v, "created")))
                      .arg(qint64(field(v, "run_local")))
                      .arg(qint64(field(v, "stolen")))
                : tr("%1 created, %2 converted, %3 fizzled, %4 stolen, %5 GC'd, %6 dud, %7 overflowed")
                      .arg(qint64(field(v, "created")))
                      .arg(qint64(field(v, "converted")))
                      .arg(qint64(field(v, "fizzled")))
                      .arg(qint64(field(v, "stolen")))
                      .arg(qint64(field(v, "gcd")))
                      .arg(qint64(field(v, "dud")))
                      .arg(qint64(field(v, "overflowed")));
            new QTreeWidgetItem(top, { engine, counts });
        }
        top->setExpanded(true);
    }
}

} // namespace sparkscope::ui
