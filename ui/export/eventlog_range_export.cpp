#include "ui/export/eventlog_range_export.h"

#include "sparkscope/core/cut.h"
#include "sparkscope/core/writer.h"
#include "ui/timeline/zoom_state.h"

#include <QFileDialog>

#include <algorithm>

namespace sparkscope::ui {

QString streamedRefusal(const QString& what)
{
    return QObject::tr("%1 needs every event in memory, and this trace was opened by streaming because of its "
                       "size: only the timeline's window is decoded. Set SPARKSCOPE_STREAM_BYTES above the file's "
                       "size to read it whole.")
        .arg(what);
}

namespace {
    QString writeCut(const QString& path, const core::Result<core::CutOutput>& cut)
    {
        if (!cut)
            return QString::fromStdString(cut.error().toString());
        auto written = core::writeFile(path.toStdString(), cut->bytes);
        if (!written)
            return QString::fromStdString(written.error().toString());
        return {};
    }
}

QString writeEventlogRange(const QString& path, const core::Trace& trace, uint64_t fromNs, uint64_t toNs)
{
    return writeCut(path, core::cutTrace(trace, fromNs, toNs));
}

QString writeEventlogRange(const QString& path, const std::string& tracePath, uint64_t fromNs, uint64_t toNs)
{
    return writeCut(path, core::cutFile(tracePath, fromNs, toNs));
}

EventlogRangeExport::EventlogRangeExport(const ZoomState* zoom, QWidget* parent)
    : QObject(parent)
    , m_zoom(zoom)
    , m_parent(parent)
{
}

void EventlogRangeExport::exportRange(std::shared_ptr<const TraceData> data)
{
    if (!data)
        return;
    // The selection, else what is on screen.
    const TimeWindow range = m_zoom->selection().value_or(m_zoom->window());
    const QString path = QFileDialog::getSaveFileName(m_parent, tr("Export range as eventlog"),
        QStringLiteral("range.eventlog"), tr("Eventlogs (*.eventlog);;All files (*)"));
    if (path.isEmpty())
        return;
    exportRangeTo(std::move(data), path, uint64_t(std::max<int64_t>(0, range.startNs)),
        uint64_t(std::max<int64_t>(0, range.endNs)));
}

void EventlogRangeExport::exportRangeTo(
    std::shared_ptr<const TraceData> data, const QString& path, uint64_t fromNs, uint64_t toNs)
{
    m_job.start(
        [data, path, fromNs, toNs] {
            // A streamed trace holds no events: its range is cut from the file, streamed again.
            return data->isStreamed() ? writeEventlogRange(path, data->streamed->path(), fromNs, toNs)
                                      : writeEventlogRange(path, *data->trace, fromNs, toNs);
        },
        [this, path](QString error) {
            if (error.isEmpty())
                Q_EMIT exported(path);
            else
                Q_EMIT failed(path, error);
        });
}

} // namespace sparkscope::ui
