#pragma once
// File > Export Chrome/Perfetto Trace…: writes the open trace in the Chrome Trace Event Format
// (core/chrome_trace.h), the file `sparkscope-cli export --format chrome` writes, for Perfetto's UI
// or chrome://tracing. A large trace takes seconds, so the file is written on a pool thread; the
// newest export wins (an older one still finishes its file, unreported). GUI thread only.
#include "sparkscope/core/trace.h"
#include "ui/util/latest_job.h"

#include <QObject>
#include <QString>

#include <memory>

class QWidget;

namespace sparkscope::ui {

class ChromeExport : public QObject {
    Q_OBJECT
public:
    explicit ChromeExport(QObject* parent = nullptr);

    // Asks for a file name (default "<trace name>.json") and starts the export; nothing when cancelled.
    void ask(QWidget* parent, std::shared_ptr<const core::Trace> trace);
    // Starts writing `trace` to `path`.
    void start(std::shared_ptr<const core::Trace> trace, const QString& path);
    bool isRunning() const { return m_job.isRunning(); }

Q_SIGNALS:
    void started(const QString& path);
    // `error` is empty on success.
    void finished(const QString& path, const QString& error);

private:
    LatestJob<QString> m_job { this };
};

} // namespace sparkscope::ui
