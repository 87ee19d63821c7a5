#pragma once
// File ▸ Export Range as Eventlog…: writes the selected time range (or, without a selection, the
// visible window) of the open trace as an eventlog of its own, with core::cutTrace, the function
// `sparkscope-cli cut` uses, so both give the same file for the same range. The cut runs in the
// background (LatestJob): on a large trace it takes seconds, and the window stays responsive.
#include "ui/loading/trace_data.h"
#include "ui/util/latest_job.h"

#include <QObject>
#include <QString>

#include <memory>

class QWidget;

namespace sparkscope::ui {

// Why `what` (a command) is not available for a streamed trace (TraceData::isStreamed).
QString streamedRefusal(const QString& what);

class ZoomState;

// Writes the events of [fromNs, toNs] of `trace` and the state at fromNs to `path`; returns an error
// message ("" on success).
QString writeEventlogRange(const QString& path, const core::Trace& trace, uint64_t fromNs, uint64_t toNs);
// The same for the trace file at `tracePath`, streamed (core::cutFile): for a streamed trace.
QString writeEventlogRange(const QString& path, const std::string& tracePath, uint64_t fromNs, uint64_t toNs);

class EventlogRangeExport : public QObject {
    Q_OBJECT
public:
    EventlogRangeExport(const ZoomState* zoom, QWidget* parent);

    // Asks for a file name and writes the selection's range of `data` there in the background.
    void exportRange(std::shared_ptr<const TraceData> data);
    // Writes [fromNs, toNs] of `data` to `path` in the background (what exportRange does once asked).
    void exportRangeTo(std::shared_ptr<const TraceData> data, const QString& path, uint64_t fromNs, uint64_t toNs);

Q_SIGNALS:
    void exported(const QString& path);
    void failed(const QString& path, const QString& message);

private:
    const ZoomState* m_zoom;
    QWidget* m_parent;
    LatestJob<QString> m_job { this };
};

} // namespace sparkscope::ui
