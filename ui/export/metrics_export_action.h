#pragma once
// File > Export metrics, and `sparkscope TRACE --export-metrics FILE` without a window. Both write
// the metrics file — the metrics and the analysis of the same range — with the functions
// `sparkscope-cli metrics` uses (core::computeMetricsFile headless; core::computeMetrics and
// core::formatMetrics with the analysis the MetricsSession computed in the background, in the app),
// so the same trace and options give byte-for-byte the same file. The format is JSON unless the
// options ask for CSV, or (in the dialog, and headless without --format) the file name ends in .csv.
#include "sparkscope/core/findings.h"
#include "sparkscope/core/metrics.h"
#include "sparkscope/core/metrics_export.h"
#include "sparkscope/core/trace.h"

#include <QString>
#include <QStringList>

#include <optional>

class QWidget;

namespace sparkscope::ui {

class ZoomState;

// JSON, or CSV when `path` ends in ".csv" (any case).
core::MetricsFormat metricsFormatForPath(const QString& path);

// Writes the metrics file of `metrics` with `analysis` (the analysis of the same range, computed by
// the caller) as its analysis section; returns an error message ("" on success).
QString writeMetricsFile(
    const QString& path, const core::Metrics& metrics, core::MetricsFormat format, const core::AnalysisReport& analysis);

// The headless export: parses the CLI's metrics options from `options` (--format json|csv, --csc N,
// --instances, --from NS, --to NS), reads `tracePath` and writes `outPath`. Returns the exit code
// (0 ok, 2 bad input / usage) and prints errors to stderr.
int exportMetricsHeadless(const QString& tracePath, const QString& outPath, const QStringList& options);

// What File > Export Metrics… was asked for.
struct MetricsExportRequest {
    QString path;
    core::MetricsOptions options; // the call count, and the selection's range or the whole trace
    core::MetricsFormat format = core::MetricsFormat::Json;
};
// Asks for a file name (and, when there is a selection, whole trace or selection); nullopt when
// cancelled. The caller writes the file once the analysis of the chosen range is ready.
std::optional<MetricsExportRequest> askMetricsExport(
    QWidget* parent, const ZoomState* zoom, std::optional<uint64_t> callCount);

} // namespace sparkscope::ui
