#include "ui/panels/metric_format.h"

#include "ui/timeline/frame.h"

#include <QTreeWidget>

namespace sparkscope::ui {

bool isDurationStatistic(const QString& key, const QString& statistic)
{
    const QString last = statistic.section(QLatin1Char('.'), -1);
    if (last == QLatin1String("count") || last == QLatin1String("variance"))
        return false;
    if (last.endsWith(QLatin1String("_ns")))
        return true;
    if (key.contains(QLatin1String("PROBABILITY")) || key.contains(QLatin1String("CONTINUE_ON"))
        || key == QLatin1String("INSTANCES") || key.contains(QLatin1String("COUNTS")))
        return false;
    const bool timeKey = key.endsWith(QLatin1String("_TIME")) || key.contains(QLatin1String("_TIME_"))
        || key.contains(QLatin1String("LATENCY")) || key == QLatin1String("GC_STATS")
        || key == QLatin1String("NANOSECS_PER_CALL") || key.startsWith(QLatin1String("ENGINE_TIME_TO"))
        || key.startsWith(QLatin1String("FUTURE_SUSPEND_TIME"));
    if (!timeKey)
        return false;
    return last == QLatin1String("min") || last == QLatin1String("max") || last == QLatin1String("mean")
        || last == QLatin1String("sum") || last == QLatin1String("value");
}

QString formatMetricNumber(const QString& key, const QString& statistic, double value)
{
    if (isDurationStatistic(key, statistic)) {
        const QString sign = value < 0 ? QStringLiteral("−") : QString();
        return sign + formatDuration(int64_t(std::llround(std::abs(value))));
    }
    if (statistic.section(QLatin1Char('.'), -1) == QLatin1String("variance")
        && isDurationStatistic(key, QStringLiteral("mean")))
        return QStringLiteral("σ = %1").arg(formatDuration(int64_t(std::llround(std::sqrt(std::max(0.0, value))))));
    if (value == std::floor(value) && std::abs(value) < 1e15)
        return QString::number(qint64(value));
    return QString::number(value, 'g', 4);
}

std::vector<StatisticRow> statisticRows(const QString& key, const core::MetricValue& value)
{
    std::vector<StatisticRow> rows;
    auto addStat = [&](const QString& prefix, const core::Stat& s) {
        const std::pair<const char*, double> parts[] = { { "count", double(s.count) }, { "min", s.min },
            { "max", s.max }, { "mean", s.mean }, { "variance", s.variance }, { "sum", s.sum } };
        // Without samples the other figures are not 0 but absent: "mean 0 ns" would read as instant.
        for (const auto& [name, v] : parts) {
            const QString stat = prefix + QLatin1String(name);
            const bool none = s.count == 0 && std::string_view(name) != "count";
            rows.push_back({ stat, v, none ? QStringLiteral("— (no samples)") : formatMetricNumber(key, stat, v) });
        }
    };
    if (value.stat)
        addStat(QString(), *value.stat);
    for (const auto& [name, scalar] : value.fields) {
        const QString stat = QString::fromStdString(name);
        if (const auto* i = std::get_if<int64_t>(&scalar))
            rows.push_back({ stat, double(*i), formatMetricNumber(key, stat, double(*i)) });
        else if (const auto* d = std::get_if<double>(&scalar))
            rows.push_back({ stat, *d, formatMetricNumber(key, stat, *d) });
        else
            rows.push_back({ stat, 0, QString::fromStdString(std::get<std::string>(scalar)) });
    }
    for (const auto& [name, s] : value.subStats)
        addStat(QString::fromStdString(name) + QLatin1Char('.'), s);
    return rows;
}

void addMetricItems(QTreeWidget* tree, QTreeWidgetItem* parent, const core::MetricGroup& group)
{
    for (const auto& [key, value] : group.metrics) {
        const QString k = QString::fromStdString(key);
        auto* item = parent ? new QTreeWidgetItem(parent) : new QTreeWidgetItem(tree);
        item->setText(0, k);
        const auto rows = statisticRows(k, value);
        // A metric with one number shows it on its own line; others list their statistics.
        if (rows.size() == 1) {
            item->setText(1, rows.front().text);
            continue;
        }
        QStringList brief;
        for (const StatisticRow& r : rows) {
            auto* child = new QTreeWidgetItem(item);
            child->setText(0, r.statistic);
            child->setText(1, r.text);
            if (r.statistic == QLatin1String("mean") || r.statistic == QLatin1String("average")
                || r.statistic == QLatin1String("probability") || r.statistic.endsWith(QLatin1String("_rate")))
                brief << QStringLiteral("%1 %2").arg(r.statistic, r.text);
        }
        item->setText(1, brief.join(QStringLiteral(", ")));
    }
}

} // namespace sparkscope::ui
