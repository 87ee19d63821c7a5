#include "ui/panels/engines_panel.h"

#include "ui/panels/metric_format.h"
#include "ui/timeline/frame.h"

#include <QHeaderView>
#include <QLabel>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <array>

namespace sparkscope::ui {

namespace {

    // What a trace measures only when its runtime posts an engine's search for work (108, 109, 112).
    constexpr std::array<QLatin1StringView, 5> kSearchKeys = { QLatin1StringView("ENGINE_SEARCH_SUCCESS"),
        QLatin1StringView("ENGINE_TIME_TO_FIND_WORK"), QLatin1StringView("ENGINE_TIME_TO_SLEEP"),
        QLatin1StringView("ENGINE_WAKE_LATENCY"), QLatin1StringView("STEAL_CONTENTION") };

    // Takes out of an engine's rows those of the search, and the searching and sleeping times, which a
    // trace without search events reads as zero although nothing measured them.
    void removeUnmeasured(QTreeWidgetItem* engine)
    {
        for (int i = engine->childCount() - 1; i >= 0; --i) {
            QTreeWidgetItem* item = engine->child(i);
            if (std::ranges::find(kSearchKeys, item->text(0)) != kSearchKeys.end()) {
                delete engine->takeChild(i);
                continue;
            }
            if (item->text(0) != QLatin1String("ENGINE_STATE_TIME"))
                continue;
            for (int c = item->childCount() - 1; c >= 0; --c)
                if (item->child(c)->text(0) == QLatin1String("searching_ns")
                    || item->child(c)->text(0) == QLatin1String("sleeping_ns"))
                    delete item->takeChild(c);
        }
    }

} // namespace

EnginesPanel::EnginesPanel(QWidget* parent)
    : QWidget(parent)
    , m_tree(new QTreeWidget(this))
    , m_searchNote(new QLabel(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_tree->setObjectName(QStringLiteral("engineMetrics"));
    m_tree->setColumnCount(2);
    m_tree->setHeaderLabels({ tr("Engine / metric"), tr("Value") });
    m_tree->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    layout->addWidget(m_tree);
    m_searchNote->setObjectName(QStringLiteral("searchNotRecorded"));
    m_searchNote->setWordWrap(true);
    m_searchNote->setText(tr("Engine search: not in this trace. Its runtime posts no events of an engine looking "
                             "for work (GHC's eventlogs do not), so searching and sleeping time, search success, "
                             "time to find work or to sleep, wake-up latency and steal contention cannot be "
                             "measured."));
    m_searchNote->hide();
    layout->addWidget(m_searchNote);
}

void EnginesPanel::setUnavailable(const QString& why)
{
    m_tree->clear();
    m_searchNote->hide();
    auto* item = new QTreeWidgetItem(m_tree, { why });
    item->setToolTip(0, why);
    item->setFirstColumnSpanned(true);
}

void EnginesPanel::setMetrics(std::shared_ptr<const core::Metrics> metrics)
{
    m_tree->clear();
    const core::MetricSection* s = metrics ? metrics->section("engines") : nullptr;
    if (!s) {
        m_searchNote->hide();
        new QTreeWidgetItem(m_tree, { tr("computing metrics…") });
        return;
    }
    const bool search = metrics->trace.engineSearch;
    for (const core::MetricGroup& g : s->groups) {
        auto* top = new QTreeWidgetItem(
            m_tree, { g.id == "all" ? tr("All engines") : tr("Engine %1").arg(QString::fromStdString(g.id)) });
        addMetricItems(m_tree, top, g);
        if (!search)
            removeUnmeasured(top);
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
    // Said once, rather than rows of zeros and "no samples" that read as measured.
    m_searchNote->setVisible(!search);
}

} // namespace sparkscope::ui
