#include "ui/panels/conjunctions_panel.h"

#include "sparkscope/core/metrics_query.h"
#include "ui/panels/conjunction_instances_model.h"
#include "ui/panels/conjunctions_model.h"
#include "ui/panels/granularity_chart.h"
#include "ui/panels/metric_detail_panel.h"
#include "ui/timeline/frame.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QLocale>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace sparkscope::ui {

namespace {
    const char* const kMetricKeys[] = { "PARCONJ_TIME", "PARCONJ_RUNNABLE_SELF", "PARCONJ_RUNNABLE_SELF_AND_DESC",
        "PARCONJ_RUNNING_SELF", "PARCONJ_RUNNING_SELF_AND_DESC", "PARCONJ_AVAIL_CPUS", "PARCONJ_CONTINUE_ON_BEFORE",
        "PARCONJ_CONTINUE_ON_LAST", "INSTANCES" };
}

ConjunctionsPanel::ConjunctionsPanel(QWidget* parent)
    : QWidget(parent)
    , m_model(new ConjunctionsModel(this))
    , m_proxy(new QSortFilterProxyModel(this))
{
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(ConjunctionsModel::kSortRole);
    m_proxy->setFilterKeyColumn(ConjunctionsModel::Name);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_filter = new QLineEdit(this);
    m_filter->setPlaceholderText(tr("Filter by source location…"));
    m_filter->setClearButtonEnabled(true);
    connect(m_filter, &QLineEdit::textChanged, m_proxy, &QSortFilterProxyModel::setFilterFixedString);
    layout->addWidget(m_filter);
    m_note = new QLabel(this);
    m_note->setWordWrap(true);
    m_note->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    m_note->hide();
    layout->addWidget(m_note);

    auto* split = m_split = new QSplitter(Qt::Vertical, this);
    m_table = new QTableView(split);
    m_table->setObjectName(QStringLiteral("conjunctionTable"));
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(ConjunctionsModel::TimeTotal, Qt::DescendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(true);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this] { onStaticChosen(); });

    auto* details = new QWidget(split);
    auto* dl = new QVBoxLayout(details);
    dl->setContentsMargins(0, 0, 0, 0);
    auto* metricRow = new QHBoxLayout;
    metricRow->addWidget(new QLabel(tr("Metric:"), details));
    m_metric = new QComboBox(details);
    for (const char* k : kMetricKeys)
        m_metric->addItem(QString::fromLatin1(k));
    connect(m_metric, &QComboBox::currentIndexChanged, this, [this] { showMetricSummary(); });
    metricRow->addWidget(m_metric, 1);
    dl->addLayout(metricRow);
    m_detail = new MetricDetailPanel(details);
    dl->addWidget(m_detail, 2);
    auto* navRow = new QHBoxLayout;
    m_previous = new QPushButton(tr("◀ Previous"), details);
    m_next = new QPushButton(tr("Next ▶"), details);
    m_highlightAll = new QCheckBox(tr("Highlight all"), details);
    m_highlightAll->setChecked(true);
    setHighlighted(0);
    connect(m_previous, &QPushButton::clicked, this, &ConjunctionsPanel::showPrevious);
    connect(m_next, &QPushButton::clicked, this, &ConjunctionsPanel::showNext);
    // The box says whether the chosen static id's instances are highlighted now; a click is also the
    // person's wish for the static ids they choose next (the one chosen on load is not highlighted).
    connect(m_highlightAll, &QCheckBox::clicked, this, [this](bool on) {
        m_highlightWanted = on;
        Q_EMIT highlightRequested(on ? m_instanceIds : std::vector<core::ConjunctionIndex> {});
    });
    navRow->addWidget(m_previous);
    navRow->addWidget(m_next);
    navRow->addWidget(m_highlightAll);
    navRow->addStretch(1);
    dl->addLayout(navRow);
    m_instanceModel = new ConjunctionInstancesModel(this);
    m_instances = new QListView(details);
    m_instances->setObjectName(QStringLiteral("conjunctionInstances"));
    m_instances->setUniformItemSizes(true); // O(1) layout for millions of rows
    m_instances->setModel(m_instanceModel);
    connect(m_instances->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
        [this](const QModelIndex& current) { goToInstance(current.isValid() ? current.row() : -1); });
    dl->addWidget(m_instances, 1);

    auto* chartBox = new QWidget(split);
    auto* cl = new QVBoxLayout(chartBox);
    cl->setContentsMargins(0, 0, 0, 0);
    auto* chartRow = new QHBoxLayout;
    m_cumulative = new QCheckBox(tr("Cumulative"), chartBox);
    m_overall = new QCheckBox(tr("Whole program"), chartBox);
    connect(m_cumulative, &QCheckBox::toggled, this, [this](bool on) { m_chart->setCumulative(on); });
    connect(m_overall, &QCheckBox::toggled, this, [this] { updateChart(); });
    // Wrapped: on one line this title alone would hold the right docks at over a third of the window.
    auto* chartTitle = new QLabel(tr("Granularity profile (conjunct running time, log₂ buckets)"), chartBox);
    chartTitle->setWordWrap(true);
    chartRow->addWidget(chartTitle, 1);
    chartRow->addWidget(m_overall);
    chartRow->addWidget(m_cumulative);
    cl->addLayout(chartRow);
    m_chart = new GranularityChart(chartBox);
    cl->addWidget(m_chart, 1);
    split->addWidget(m_table);
    split->addWidget(details);
    split->addWidget(chartBox);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);
    split->setStretchFactor(2, 2);
    layout->addWidget(split, 1);
    setMetrics(nullptr, true);
}

void ConjunctionsPanel::setMetrics(std::shared_ptr<const core::Metrics> metrics, bool conjunctionEvents)
{
    m_metrics = std::move(metrics);
    m_model->setMetrics(m_metrics);
    m_static.clear();
    m_instanceIds.clear();
    m_instanceModel->setInstances(nullptr, {});
    m_detail->clear();
    // A GHC eventlog has nothing to list: only the note shows, at the top of the dock.
    const bool listShown = conjunctionEvents || !m_metrics;
    m_split->setVisible(listShown);
    m_filter->setVisible(listShown);
    if (auto* box = qobject_cast<QBoxLayout*>(layout()))
        box->setStretchFactor(m_note, listShown ? 0 : 1);
    if (!m_metrics) {
        m_note->setText(tr("Computing metrics…"));
        m_note->show();
    } else if (!conjunctionEvents) {
        m_note->setText(tr("<b>No parallel conjunctions: this is a GHC eventlog.</b><br>A GHC program has no "
                           "parallel conjunctions, conjuncts or futures, so there is nothing to list here and no "
                           "conjunction, conjunct or future metrics. The Summary panel shows ThreadScope's figures "
                           "(run time, mutator and GC time, productivity, the GC table per generation, sparks per "
                           "capability) and the Engines panel each capability's state times."));
        m_note->show();
    } else if (m_model->rowCount() == 0) {
        m_note->setText(tr("No parallel conjunction ran in this trace."));
        m_note->show();
    } else
        m_note->hide();
    m_previous->setEnabled(false);
    m_next->setEnabled(false);
    updateChart();
    if (m_proxy->rowCount() > 0) {
        m_autoSelecting = true;
        m_table->selectRow(0);
        m_autoSelecting = false;
    }
}

bool ConjunctionsPanel::selectStaticId(const QString& name)
{
    for (int r = 0; r < m_proxy->rowCount(); ++r)
        if (m_proxy->data(m_proxy->index(r, ConjunctionsModel::Name), ConjunctionsModel::kSortRole).toString()
            == name) {
            const bool alreadyChosen = (m_static == name); // then no selection change follows
            m_table->selectRow(r);
            m_table->setCurrentIndex(m_proxy->index(r, 0));
            if (alreadyChosen && m_highlightWanted && !m_autoSelecting) {
                m_highlightAll->setChecked(true);
                Q_EMIT highlightRequested(m_instanceIds);
            }
            return true;
        }
    return false;
}

void ConjunctionsPanel::onStaticChosen()
{
    const QModelIndex current = m_table->currentIndex();
    m_static = current.isValid() ? m_model->staticId(m_proxy->mapToSource(current).row()) : QString();
    m_instanceIds = m_metrics && !m_static.isEmpty()
        ? core::conjunctionsOfStatic(m_metrics->model, m_static.toStdString())
        : std::vector<core::ConjunctionIndex> {};
    {
        const QSignalBlocker blocker(m_instances->selectionModel());
        m_instanceModel->setInstances(m_metrics, m_instanceIds);
    }
    m_previous->setEnabled(!m_instanceIds.empty());
    m_next->setEnabled(!m_instanceIds.empty());
    showMetricSummary();
    updateChart();
    m_highlightAll->setChecked(m_highlightWanted && !m_autoSelecting);
    setHighlighted(0);
    if (m_highlightWanted && !m_autoSelecting)
        Q_EMIT highlightRequested(m_instanceIds);
}

void ConjunctionsPanel::setHighlighted(size_t shown)
{
    const size_t all = m_instanceIds.size();
    const QString tip = tr("Highlight every instance of the chosen static id on the timeline");
    if (shown == 0 || shown >= all) {
        m_highlightAll->setText(tr("Highlight all"));
        m_highlightAll->setToolTip(tip);
        return;
    }
    const QLocale locale;
    m_highlightAll->setText(
        tr("Highlight all (the first %1 of %2)").arg(locale.toString(qulonglong(shown)), locale.toString(qulonglong(all))));
    m_highlightAll->setToolTip(tip
        + tr(".\nA highlight holds one frame's worth, so only the first %1 instances are highlighted; step "
             "through the others with ◀ Previous and Next ▶.")
              .arg(locale.toString(qulonglong(shown))));
}

void ConjunctionsPanel::highlightReplaced()
{
    m_highlightAll->setChecked(false);
    setHighlighted(0);
}

void ConjunctionsPanel::showMetricSummary()
{
    if (!m_metrics || m_static.isEmpty()) {
        m_detail->clear();
        return;
    }
    const QModelIndex current = m_table->currentIndex();
    if (current.isValid() && m_model->onlyInB(m_proxy->mapToSource(current).row())) {
        m_detail->showNote(tr("%1 ran only in B, the compared trace: this trace has no metrics of it. B's figures "
                              "are in this list's B columns and in the comparison window's Conjunction sites tab.")
                               .arg(m_static));
        return;
    }
    m_detail->showSummary(*m_metrics, QStringLiteral("conjunctions"), m_static, m_metric->currentText());
}

QString ConjunctionsPanel::note() const { return m_note->isHidden() ? QString() : m_note->text(); }

bool ConjunctionsPanel::listShown() const { return !m_split->isHidden(); }

void ConjunctionsPanel::showChoice(core::EventOwner owner, const QString& key)
{
    if (!m_metrics)
        return;
    if (owner.kind() == core::OwnerKind::Conjunction) {
        const auto group = core::summaryGroupOf(m_metrics->model, owner).second;
        // The choice's own instance is what the timeline highlights: its static id is chosen here
        // without highlighting all of its instances over it.
        m_autoSelecting = true;
        const bool listed = selectStaticId(QString::fromStdString(group));
        m_autoSelecting = false;
        if (listed) {
            const QSignalBlocker metricBlocker(m_metric);
            if (const int k = m_metric->findText(key); k >= 0)
                m_metric->setCurrentIndex(k);
            const auto it = std::find(m_instanceIds.begin(), m_instanceIds.end(), owner.conjunction());
            const QSignalBlocker instanceBlocker(m_instances->selectionModel()); // the timeline is already there
            setCurrentInstance(it == m_instanceIds.end() ? -1 : int(it - m_instanceIds.begin()));
        }
    }
    m_detail->showMetric(*m_metrics, owner, key);
}

int ConjunctionsPanel::currentInstance() const
{
    const QModelIndex current = m_instances->currentIndex();
    return current.isValid() ? current.row() : -1;
}

void ConjunctionsPanel::setCurrentInstance(int row)
{
    if (row < 0)
        m_instances->selectionModel()->clearCurrentIndex();
    else
        m_instances->setCurrentIndex(m_instanceModel->index(row));
}

void ConjunctionsPanel::showNext()
{
    if (m_instanceIds.empty())
        return;
    const int row = currentInstance();
    setCurrentInstance(row < 0 ? 0 : std::min(row + 1, int(m_instanceIds.size()) - 1));
}

void ConjunctionsPanel::showPrevious()
{
    if (m_instanceIds.empty())
        return;
    const int row = currentInstance();
    setCurrentInstance(row <= 0 ? 0 : row - 1);
}

void ConjunctionsPanel::goToInstance(int row)
{
    if (!m_metrics || row < 0 || row >= int(m_instanceIds.size()))
        return;
    const core::ConjunctionInstance& c = m_metrics->model.conjunction(m_instanceIds[size_t(row)]);
    const int64_t start = int64_t(c.startNs);
    const int64_t end = c.ended ? int64_t(c.endNs) : int64_t(m_metrics->model.endNs);
    const int64_t margin = std::max<int64_t>(50, (end - start) / 10);
    Q_EMIT navigateTo(TimeWindow { start - margin, end + margin });
}

void ConjunctionsPanel::updateChart()
{
    if (!m_metrics) {
        m_chart->setHistogram(nullptr, QString());
        return;
    }
    if (m_overall->isChecked() || m_static.isEmpty())
        m_chart->setHistogram(m_metrics->find("program", "all", "CONJUNCT_GRANULARITY"), tr("whole program"));
    else
        m_chart->setHistogram(
            m_metrics->find("conjunctions", m_static.toStdString(), "CONJUNCT_GRANULARITY"), m_static);
}

} // namespace sparkscope::ui
