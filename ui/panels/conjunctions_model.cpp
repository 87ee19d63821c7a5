#include "ui/panels/conjunctions_model.h"

#include "ui/compare/figure_table.h"
#include "ui/panels/metric_format.h"

#include <QFont>

namespace sparkscope::ui {

namespace {
    double statOf(const core::MetricValue* v, const char* which, const char* sub = nullptr)
    {
        if (!v)
            return 0;
        const core::Stat* s = v->stat ? &*v->stat : nullptr;
        if (sub)
            for (const auto& [name, st] : v->subStats)
                if (name == sub)
                    s = &st;
        if (!s)
            return 0;
        const std::string w = which;
        return w == "mean" ? s->mean : w == "sum" ? s->sum : w == "max" ? s->max : w == "count" ? double(s->count) : 0;
    }
} // namespace

ConjunctionsModel::ConjunctionsModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void ConjunctionsModel::setMetrics(std::shared_ptr<const core::Metrics> metrics)
{
    beginResetModel();
    m_metrics = std::move(metrics);
    m_rows.clear();
    if (const core::MetricSection* s = m_metrics ? m_metrics->section("conjunctions") : nullptr) {
        for (const core::MetricGroup& g : s->groups) {
            if (g.id.rfind("instance:", 0) == 0)
                continue;
            auto find = [&](const char* key) -> const core::MetricValue* {
                for (const auto& [k, v] : g.metrics)
                    if (k == key)
                        return &v;
                return nullptr;
            };
            Row r;
            r.name = QString::fromStdString(g.id);
            r.values[Instances] = statOf(find("PARCONJ_TIME"), "count");
            r.values[TimeMean] = statOf(find("PARCONJ_TIME"), "mean");
            r.values[TimeTotal] = statOf(find("PARCONJ_TIME"), "sum");
            r.values[TimeMax] = statOf(find("PARCONJ_TIME"), "max");
            r.values[RunnableAvg] = statOf(find("PARCONJ_RUNNABLE_SELF"), "mean", "average");
            r.values[RunningAvg] = statOf(find("PARCONJ_RUNNING_SELF"), "mean", "average");
            r.values[ContinueBefore] = statOf(find("PARCONJ_CONTINUE_ON_BEFORE"), "mean");
            r.values[ContinueLast] = statOf(find("PARCONJ_CONTINUE_ON_LAST"), "mean");
            m_rows.push_back(std::move(r));
        }
    }
    matchSites();
    endResetModel();
}

void ConjunctionsModel::setComparison(std::shared_ptr<const core::RunComparison> comparison)
{
    beginResetModel();
    m_comparison = std::move(comparison);
    matchSites();
    endResetModel();
}

// The report's group id of a static id is ParModel::staticName, the comparison's match key. The sites of
// B alone become rows of their own, after A's (in the comparison's order: largest time difference first).
void ConjunctionsModel::matchSites()
{
    std::erase_if(m_rows, [](const Row& r) { return r.onlyB; });
    for (Row& r : m_rows) {
        r.site = nullptr;
        if (!m_comparison)
            continue;
        const std::string name = r.name.toStdString();
        for (const core::SiteComparison& s : m_comparison->sites)
            if (s.site == name)
                r.site = &s;
    }
    if (!m_comparison)
        return;
    for (const core::SiteComparison& s : m_comparison->sites)
        if (s.presence == core::Presence::OnlyB) {
            Row r;
            r.name = QString::fromStdString(s.site);
            r.site = &s;
            r.onlyB = true;
            m_rows.push_back(std::move(r));
        }
}

std::optional<double> ConjunctionsModel::compared(const Row& r, int column) const
{
    if (!r.site)
        return std::nullopt;
    const char* key = column < MeanA ? "covered_ns" : "time_mean_ns";
    for (const core::FigureComparison& f : r.site->figures) {
        if (f.key != key)
            continue;
        const int which = (column - CoveredA) % 3;
        if (which == 2 && column == CoveredDifference && r.site->presence != core::Presence::Both)
            return f.b.value_or(0) - f.a.value_or(0); // never open in the run that lacks it
        return which == 0 ? f.a : which == 1 ? f.b : f.difference;
    }
    return std::nullopt;
}

int ConjunctionsModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(m_rows.size()); }
int ConjunctionsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : m_comparison ? ColumnCountWithComparison : ColumnCount;
}

QString ConjunctionsModel::staticId(int row) const
{
    return row >= 0 && row < int(m_rows.size()) ? m_rows[size_t(row)].name : QString();
}

bool ConjunctionsModel::onlyInB(int row) const
{
    return row >= 0 && row < int(m_rows.size()) && m_rows[size_t(row)].onlyB;
}

double ConjunctionsModel::number(int row, Column column) const
{
    return row >= 0 && row < int(m_rows.size()) ? m_rows[size_t(row)].values[column] : 0;
}

QVariant ConjunctionsModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= int(m_rows.size()))
        return {};
    const Row& r = m_rows[size_t(index.row())];
    const int c = index.column();
    if (c >= ColumnCount) {
        const std::optional<double> v = compared(r, c);
        if (role == kSortRole)
            return v ? QVariant(*v) : QVariant();
        if (role == Qt::TextAlignmentRole)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        if (role != Qt::DisplayRole && role != Qt::ToolTipRole)
            return {};
        return figureText(c < MeanA ? "covered_ns" : "time_mean_ns", v, (c - CoveredA) % 3 == 2);
    }
    if (role == kSortRole)
        // A site A lacks took no time there and had no instance: 0 sorts it after A's own, largest first.
        return c == Name ? QVariant(r.name) : QVariant(r.onlyB ? 0.0 : r.values[size_t(c)]);
    if (role == Qt::TextAlignmentRole)
        return c == Name ? int(Qt::AlignLeft | Qt::AlignVCenter) : int(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::FontRole && r.onlyB) {
        QFont italic;
        italic.setItalic(true);
        return italic;
    }
    if (r.onlyB && c == Name && role == Qt::ToolTipRole)
        return tr("%1 ran only in B, the compared trace: this trace (A) has no figures for it").arg(r.name);
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole)
        return {};
    if (r.onlyB)
        return c == Name ? tr("%1 (only in B)").arg(r.name) : QString();
    const double v = r.values[size_t(c)];
    switch (c) {
    case Name:
        return r.name;
    case Instances:
        return QString::number(qint64(v));
    case TimeMean:
    case TimeTotal:
    case TimeMax:
        return formatMetricNumber(QStringLiteral("PARCONJ_TIME"), QStringLiteral("mean"), v);
    case RunnableAvg:
    case RunningAvg:
        return QString::number(v, 'f', 2);
    default:
        return QStringLiteral("%1%").arg(100.0 * v, 0, 'f', 0);
    }
}

QVariant ConjunctionsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    static const char* const names[] = { "Conjunction", "Instances", "Time mean", "Time total", "Time max",
        "Runnable avg", "Running avg", "Cont. before", "Cont. last", "A covered (s)", "B covered (s)", "B − A covered",
        "A mean (s)", "B mean (s)", "B − A mean" };
    static const char* const tips[] = { "Static id: the source location of the parallel conjunction",
        "Complete instances (PARCONJ_TIME count)", "PARCONJ_TIME mean", "PARCONJ_TIME sum", "PARCONJ_TIME max",
        "PARCONJ_RUNNABLE_SELF: mean over instances of the time-weighted average",
        "PARCONJ_RUNNING_SELF: mean over instances of the time-weighted average",
        "PARCONJ_CONTINUE_ON_BEFORE: fraction of instances ended on the starting engine",
        "PARCONJ_CONTINUE_ON_LAST: fraction of instances ended on the engine of the last conjunct",
        "Comparison: the wall time with one of its instances open (covered_ns) in A, this trace",
        "Comparison: covered_ns in B", "Comparison: covered_ns of B − A (a run without the site counts 0)",
        "Comparison: PARCONJ_TIME mean over complete instances (time_mean_ns) in A", "Comparison: time_mean_ns in B",
        "Comparison: time_mean_ns of B − A" };
    if (section < 0 || section >= columnCount())
        return {};
    if (role == Qt::DisplayRole)
        return tr(names[section]);
    if (role == Qt::ToolTipRole)
        return tr(tips[section]);
    return {};
}

} // namespace sparkscope::ui
