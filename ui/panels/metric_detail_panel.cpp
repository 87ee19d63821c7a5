#include "ui/panels/metric_detail_panel.h"

#include "ui/hover/hover_controller.h"
#include "ui/panels/metric_format.h"
#include "ui/timeline/frame.h"

#include <QHeaderView>
#include <QLabel>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace sparkscope::ui {

MetricDetailPanel::MetricDetailPanel(QWidget* parent)
    : QWidget(parent)
    , m_title(new QLabel(this))
    , m_table(new QTreeWidget(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_title->setWordWrap(true);
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_table->setColumnCount(3);
    m_table->setHeaderLabels({ tr("Part"), tr("Statistic"), tr("Value") });
    m_table->setRootIsDecorated(false);
    m_table->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->setObjectName(QStringLiteral("metricDetailTable"));
    layout->addWidget(m_title);
    layout->addWidget(m_table, 1);
    clear();
}

void MetricDetailPanel::clear()
{
    m_title->setText(tr("Click a conjunction, spark or future event on the timeline and choose a metric, or pick "
                        "a conjunction in the list."));
    m_table->clear();
}

void MetricDetailPanel::showNote(const QString& text)
{
    m_table->clear();
    m_title->setText(text.toHtmlEscaped());
}

QString MetricDetailPanel::title() const { return m_title->text(); }

QString MetricDetailPanel::shownValue(const QString& part, const QString& statistic) const
{
    for (int i = 0; i < m_table->topLevelItemCount(); ++i) {
        const QTreeWidgetItem* item = m_table->topLevelItem(i);
        if (item->data(0, Qt::UserRole).toString() == part && item->text(1) == statistic)
            return item->text(2);
    }
    return {};
}

void MetricDetailPanel::addSummary(
    const core::Metrics& metrics, const QString& section, const QString& group, const QString& key)
{
    const core::MetricValue* value = metrics.find(section.toStdString(), group.toStdString(), key.toStdString());
    if (!value) {
        auto* item = new QTreeWidgetItem(m_table, { tr("all instances"), QString(), tr("not in the report") });
        item->setData(0, Qt::UserRole, QStringLiteral("summary"));
        return;
    }
    uint64_t instances = 0;
    if (const auto* inst = metrics.find(section.toStdString(), group.toStdString(), "INSTANCES"))
        for (const auto& [name, v] : inst->fields)
            if (name == "complete")
                instances = uint64_t(std::get<int64_t>(v));
    const QString part = instances ? tr("all %1 instances").arg(instances) : tr("all instances");
    for (const StatisticRow& r : statisticRows(key, *value)) {
        auto* item = new QTreeWidgetItem(m_table, { part, r.statistic, r.text });
        item->setData(0, Qt::UserRole, QStringLiteral("summary"));
    }
}

void MetricDetailPanel::showMetric(const core::Metrics& metrics, core::EventOwner owner, const QString& key)
{
    m_table->clear();
    const core::ParModel& m = metrics.model;
    const auto [section, group] = core::summaryGroupOf(m, owner);
    QString title = QStringLiteral("<b>%1</b> — %2").arg(key, ownerTitle(m, owner).toHtmlEscaped());
    if (!group.empty())
        title += tr("<br>Summary over the instances of %1.").arg(QString::fromStdString(group).toHtmlEscaped());
    if (m.contains(owner.conjunction())) {
        const auto& c = m.conjunction(owner.conjunction());
        title += tr("<br>from %1 to %2 (engine %3 → %4)")
                     .arg(formatDuration(int64_t(c.startNs), 9), formatDuration(int64_t(c.endNs), 9))
                     .arg(c.startEngine)
                     .arg(c.endEngine);
    }
    if (isCurveMetric(key))
        title += tr("<br>The instance's curve is drawn over the timeline's CPUs band, on the same scale.");
    m_title->setText(title);
    bool any = false;
    for (const core::InstanceFigure& f : core::instanceMetrics(metrics, owner)) {
        if (QString::fromStdString(f.key) != key)
            continue;
        const QString stat = QString::fromStdString(f.statistic);
        auto* item
            = new QTreeWidgetItem(m_table, { tr("this instance"), stat, formatMetricNumber(key, stat, f.value) });
        item->setData(0, Qt::UserRole, QStringLiteral("instance"));
        any = true;
    }
    if (!any) {
        auto* item
            = new QTreeWidgetItem(m_table, { tr("this instance"), QString(), tr("absent (incomplete instance)") });
        item->setData(0, Qt::UserRole, QStringLiteral("instance"));
    }
    // The scheduling-order metrics are summarised per static id in their own section.
    const QString summarySection = key.startsWith(QLatin1String("OUT_OF_ORDER_")) && !section.empty()
        ? QStringLiteral("scheduling")
        : QString::fromStdString(section);
    if (!section.empty())
        addSummary(metrics, summarySection, QString::fromStdString(group), key);
}

void MetricDetailPanel::showSummary(
    const core::Metrics& metrics, const QString& section, const QString& group, const QString& key)
{
    m_table->clear();
    m_title->setText(QStringLiteral("<b>%1</b> — %2 %3").arg(key, section, group.toHtmlEscaped()));
    addSummary(metrics, section, group, key);
}

} // namespace sparkscope::ui
