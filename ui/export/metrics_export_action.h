#pragma once
// File > Export metrics, and `sparkscope TRACE --export-metrics FILE` without a window. Both write
// the metrics file with core::computeMetrics + core::formatMetrics — the functions
// `sparkscope-cli metrics` uses — so the same trace and options give byte-for-byte the same file.
// The format is JSON unless the options ask for CSV, or (in the dialog, and headless without
// --format) the file name ends in .csv.
#include "sparkscope/core/metrics.h"
#include "sparkscope/core/metrics_export.h"
#include "sparkscope/core/trace.h"

#include <QString>
#include <QStringList>

#include <optional>

class QWidget;

namespace sparkscope::ui {

class MetricsSession;
class ZoomState;

// JSON, or CSV when `path` ends in ".csv" (any case).
core::MetricsFormat metricsFormatForPath(const QString& path);

// Computes and writes the metrics file; returns an error message ("" on success).
QString writeMetricsFile(
    const QString& path, const core::Trace& trace, const core::MetricsOptions& options, core::MetricsFormat format);

// The headless export: parses the CLI's metrics options from `options` (--format json|csv, --csc N,
// --instances, --from NS, --to NS), reads `tracePath` and writes `outPath`. Returns the exit code
// (0 ok, 2 bad input / usage) and prints errors to stderr.
int exportMetricsHeadless(const QString& tracePath, const QString& outPath, const QStringList& options);

// Asks for a file name (and, when there is a selection, whole trace or selection) and exports.
// Returns a message for the status bar, or an error starting with "Error: ".
QString exportMetricsDialog(
    QWidget* parent, const core::Trace& trace, const ZoomState* zoom, std::optional<uint64_t> callCount);

} // namespace sparkscope::ui
