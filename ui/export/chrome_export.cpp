#include "ui/export/chrome_export.h"

#include "sparkscope/core/chrome_trace.h"

#include <QFileDialog>
#include <QFileInfo>

namespace sparkscope::ui {

ChromeExport::ChromeExport(QObject* parent)
    : QObject(parent)
{
}

void ChromeExport::ask(QWidget* parent, std::shared_ptr<const core::Trace> trace)
{
    if (!trace)
        return;
    const QString name = QFileInfo(QString::fromStdString(trace->path)).completeBaseName() + QStringLiteral(".json");
    const QString path = QFileDialog::getSaveFileName(
        parent, tr("Export Chrome/Perfetto trace"), name, tr("Chrome trace JSON (*.json)"));
    if (!path.isEmpty())
        start(std::move(trace), path);
}

void ChromeExport::start(std::shared_ptr<const core::Trace> trace, const QString& path)
{
    Q_EMIT started(path);
    m_job.start(
        [trace = std::move(trace), file = path.toStdString()] {
            auto written = core::writeChromeTraceFile(*trace, file);
            return written ? QString() : QString::fromStdString(written.error().toString());
        },
        [this, path](QString error) { Q_EMIT finished(path, error); });
}

} // namespace sparkscope::ui
