#pragma once
// TraceLoader: loads traces in the background (QtConcurrent) with progress and cancel. The newest
// load wins: starting a load cancels the previous one, and results of superseded loads are
// dropped. Signals are emitted on the loader's (GUI) thread.
#include "ui/loading/trace_data.h"

#include <QObject>
#include <QString>

#include <atomic>
#include <memory>

namespace sparkscope::ui {

class TraceLoader : public QObject {
    Q_OBJECT
public:
    explicit TraceLoader(QObject* parent = nullptr);
    ~TraceLoader() override;

    void load(const QString& path);
    void cancel();
    bool isLoading() const { return m_loading; }

Q_SIGNALS:
    void started(const QString& path);
    void progressed(int permille);
    // The trace is ready; `warnings` lists problems that did not stop reading (truncation, ...).
    void loaded(
        std::shared_ptr<const sparkscope::ui::TraceData> data, const QString& path, const QStringList& warnings);
    void failed(const QString& path, const QString& message);
    void cancelled(const QString& path);

private:
    quint64 m_generation = 0;
    std::shared_ptr<std::atomic<bool>> m_cancel;
    bool m_loading = false;
};

// The warnings of a loaded trace, as display text ("truncated: ... (at byte N)").
QStringList traceWarnings(const TraceData& data);

} // namespace sparkscope::ui
