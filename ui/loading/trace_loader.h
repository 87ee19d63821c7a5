#pragma once
// TraceLoader: loads traces in the background (LatestJob) with progress and cancel. The newest
// load wins: starting a load cancels the previous one, and results of superseded loads are
// dropped. Cancelling the current load lets it stop early and report `cancelled`. Signals are
// emitted on the loader's (GUI) thread.
#include "ui/loading/trace_data.h"
#include "ui/util/latest_job.h"

#include <QObject>
#include <QString>

#include <memory>

namespace sparkscope::ui {

class TraceLoader : public QObject {
    Q_OBJECT
public:
    explicit TraceLoader(QObject* parent = nullptr);

    void load(const QString& path);
    void cancel();
    bool isLoading() const { return m_job.isRunning(); }

Q_SIGNALS:
    void started(const QString& path);
    void progressed(int permille);
    // The trace is ready; `warnings` lists problems that did not stop reading (truncation, ...).
    void loaded(
        std::shared_ptr<const sparkscope::ui::TraceData> data, const QString& path, const QStringList& warnings);
    void failed(const QString& path, const QString& message);
    void cancelled(const QString& path);

private:
    LatestJob<core::Result<std::shared_ptr<const TraceData>>> m_job { this };
};

// The warnings of a loaded trace, as display text ("truncated: ... (at byte N)"): the reader's, then
// what the format check found (TraceData::formatProblems).
QStringList traceWarnings(const TraceData& data);
// Warnings for a message bar: the first few, then how many more (a damaged file can give a hundred).
QString joinWarnings(const QStringList& warnings);

} // namespace sparkscope::ui
