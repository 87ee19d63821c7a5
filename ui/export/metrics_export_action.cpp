#include "ui/export/metrics_export_action.h"

#include "sparkscope/core/compact_trace.h"
#include "sparkscope/core/writer.h"
#include "ui/timeline/zoom_state.h"

#include <QFileDialog>
#include <QMessageBox>
#include <QPushButton>

#include <cstdio>

namespace sparkscope::ui {

core::MetricsFormat metricsFormatForPath(const QString& path)
{
    return path.endsWith(QLatin1String(".csv"), Qt::CaseInsensitive) ? core::MetricsFormat::Csv
                                                                     : core::MetricsFormat::Json;
}

namespace {

    QString writeText(const QString& path, const std::string& text)
    {
        auto written
            = core::writeFile(path.toStdString(), { reinterpret_cast<const uint8_t*>(text.data()), text.size() });
        if (!written)
            return QString::fromStdString(written.error().toString());
        return {};
    }

} // namespace

QString writeMetricsFile(
    const QString& path, const core::Metrics& metrics, core::MetricsFormat format, const core::AnalysisReport& analysis)
{
    return writeText(path, core::formatMetrics(metrics, format, &analysis));
}

int exportMetricsHeadless(const QString& tracePath, const QString& outPath, const QStringList& options)
{
    auto fail = [](const QString& message) {
        std::fprintf(stderr, "sparkscope: %s\n", qPrintable(message));
        return 2;
    };
    core::MetricsOptions o;
    std::optional<core::MetricsFormat> format;
    for (qsizetype i = 0; i < options.size(); ++i) {
        const QString& a = options[i];
        auto number = [&](uint64_t& into) -> bool {
            if (i + 1 >= options.size())
                return false;
            bool ok = false;
            into = options[++i].toULongLong(&ok);
            return ok;
        };
        if (a == QLatin1String("--instances"))
            o.instances = true;
        else if (a == QLatin1String("--format")) {
            if (i + 1 >= options.size())
                return fail(QStringLiteral("--format needs json or csv"));
            const QString f = options[++i];
            if (f == QLatin1String("csv"))
                format = core::MetricsFormat::Csv;
            else if (f == QLatin1String("json"))
                format = core::MetricsFormat::Json;
            else
                return fail(QStringLiteral("--format must be json or csv, not '%1'").arg(f));
        } else if (a == QLatin1String("--csc")) {
            uint64_t n = 0;
            if (!number(n) || n == 0)
                return fail(QStringLiteral("--csc takes a positive whole number"));
            o.callCount = n;
        } else if (a == QLatin1String("--from")) {
            if (!number(o.fromNs))
                return fail(QStringLiteral("--from takes a whole non-negative number"));
        } else if (a == QLatin1String("--to")) {
            if (!number(o.toNs))
                return fail(QStringLiteral("--to takes a whole non-negative number"));
        } else
            return fail(QStringLiteral("unknown metrics option '%1'").arg(a));
    }
    if (o.toNs <= o.fromNs)
        return fail(QStringLiteral("--to must be after --from"));
    auto trace = core::readTraceCompact(tracePath.toStdString()); // as sparkscope-cli metrics reads it
    if (!trace)
        return fail(QStringLiteral("%1: %2").arg(tracePath, QString::fromStdString(trace.error().toString())));
    const QString error = writeText(outPath,
        core::formatMetricsFile(
            core::computeMetricsFile(trace.value(), o), format.value_or(metricsFormatForPath(outPath))));
    if (!error.isEmpty())
        return fail(error);
    return 0;
}

std::optional<MetricsExportRequest> askMetricsExport(
    QWidget* parent, const ZoomState* zoom, std::optional<uint64_t> callCount)
{
    const QString path = QFileDialog::getSaveFileName(parent, QObject::tr("Export metrics"),
        QStringLiteral("metrics.json"), QObject::tr("Metrics JSON (*.json);;Metrics CSV (*.csv)"));
    if (path.isEmpty())
        return std::nullopt;
    MetricsExportRequest request { path, {}, metricsFormatForPath(path) };
    request.options.callCount = callCount;
    if (zoom && zoom->selection()) {
        QMessageBox ask(QMessageBox::Question, QObject::tr("Export metrics"),
            QObject::tr("Export the metrics of the whole trace or of the selected range?"), QMessageBox::NoButton,
            parent);
        auto* whole = ask.addButton(QObject::tr("Whole trace"), QMessageBox::AcceptRole);
        auto* selection = ask.addButton(QObject::tr("Selection"), QMessageBox::AcceptRole);
        ask.addButton(QMessageBox::Cancel);
        ask.exec();
        if (ask.clickedButton() == selection) {
            request.options.fromNs = uint64_t(std::max<int64_t>(0, zoom->selection()->startNs));
            request.options.toNs
                = uint64_t(std::max<int64_t>(int64_t(request.options.fromNs) + 1, zoom->selection()->endNs));
        } else if (ask.clickedButton() != whole)
            return std::nullopt;
    }
    return request;
}

} // namespace sparkscope::ui
