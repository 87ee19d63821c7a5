#include "ui/panels/engines_panel.h"

#include "ui/panels/metric_format.h"
#include "ui/timeline/frame.h"

#include <QHeaderView>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace sparkscope::ui {

EnginesPanel::EnginesPanel(QWidget* parent)
    : QWidget(parent)
    , m_tree(new QTreeWidget(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_tree->setObjectName(QStringLiteral("engineMetrics"));
    m_tree->setColumnCount(2);
    m_tree->setHeaderLabels({ tr("Engine / metric"), tr("Value") });
    m_tree->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    layout->addWidget(m_tree);
}

void EnginesPanel::setUnavailable(const QString& why)
{
    m_tree->clear();
    auto* item = new QTreeWidgetItem(m_tree, { why });
    item->setToolTip(0, why);
    item->setFirstColumnSpanned(true);
}

void EnginesPanel::setMetrics(std::shared_ptr<const core::Metrics> metrics)
{
    m_tree->clear();
    const core::MetricSection* s = metrics ? metrics->section("engines") : nullptr;
    if (!s) {
        new QTreeWidgetItem(m_tree, { tr("computing metrics…") });
        return;
    }
    for (const core::MetricGroup& g : s->groups) {
        auto* top = new QTreeWidgetItem(
            m_tree, { g.id == "all" ? tr("All engines") : tr("Engine %1").arg(QString::fromStdString(g.id)) });
        addMetricItems(m_tree, top, g);
        // The state times as shares of the engine's time, next to the key.
        for (int i = 0; i < top->childCount(); ++i) {
            QTreeWidgetItem* item = top->child(i);
            if (item->text(0) != QLatin1String("ENGINE_STATE_TIME"))
                continue;
            double total = 0;
            for (const auto& [key, v] : g.metrics)
                if (key == "ENGINE_STATE_TIME")
                    for (const auto& [n, x] : v.fields)
                        if (const auto* ns = std::get_if<int64_t>(&x))
                            total += double(*ns);
            QStringList brief;
            for (int c = 0; c < item->childCount(); ++c) {
                QTreeWidgetItem* child = item->child(c);
                for (const auto& [key, v] : g.metrics)
                    if (key == "ENGINE_STATE_TIME")
                        for (const auto& [n, x] : v.fields)
                            if (QString::fromStdString(n) == child->text(0) && total > 0)
                                if (const auto* ns = std::get_if<int64_t>(&x)) {
                                    const QString share
                                        = QStringLiteral("%1%").arg(100.0 * double(*ns) / total, 0, 'f', 1);
                                    child->setText(
                                        1, child->text(1) + QStringLiteral("  (") + share + QLatin1Char(')'));
                                    brief << QStringLiteral("%1 %2").arg(child->text(0).chopped(3), share);
                                }
            }
            item->setText(1, brief.join(QStringLiteral(", ")));
        }
        top->setExpanded(g.id == "all");
    }
}

} // namespace sparkscope::ui
