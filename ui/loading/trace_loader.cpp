#include "ui/loading/trace_loader.h"

#include <QPointer>
#include <QtConcurrent/QtConcurrentRun>

namespace sparkscope::ui {

TraceLoader::TraceLoader(QObject* parent)
    : QObject(parent)
{
}

TraceLoader::~TraceLoader()
{
    if (m_cancel)
        m_cancel->store(true);
}

QStringList traceWarnings(const TraceData& data)
{
    QStringList out;
    for (const auto& w : data.trace->warnings)
        out << QStringLiteral("%1 (at byte %2)").arg(QString::fromStdString(w.message)).arg(w.byteOffset);
    if (data.trace->truncated && out.isEmpty())
        out << QStringLiteral("the trace is truncated: it ends before its end-of-data marker");
    return out;
}

void TraceLoader::load(const QString& path)
{
    if (m_cancel)
        m_cancel->store(true);
    const quint64 generation = ++m_generation;
    auto cancelFlag = std::make_shared<std::atomic<bool>>(false);
    m_cancel = cancelFlag;
    m_loading = true;
    Q_EMIT started(path);

    QPointer<TraceLoader> self(this);
    auto lastPermille = std::make_shared<std::atomic<int>>(-1);
    (void)QtConcurrent::run([self, path, generation, cancelFlag, lastPermille] {
        auto progress = [&](int permille) {
            // Throttle: only post when the value grew by at least 0.5%.
            int last = lastPermille->load();
            if (permille < last + 5 || !lastPermille->compare_exchange_strong(last, permille))
                return;
            QMetaObject::invokeMethod(
                self,
                [self, generation, permille] {
                    if (self && self->m_generation == generation)
                        Q_EMIT self->progressed(permille);
                },
                Qt::QueuedConnection);
        };
        auto result = loadTraceData(path.toStdString(), progress, cancelFlag.get());
        QMetaObject::invokeMethod(
            self,
            [self, path, generation, result = std::move(result)] {
                if (!self || self->m_generation != generation)
                    return; // a newer load started: drop this one
                self->m_loading = false;
                if (result.ok()) {
                    Q_EMIT self->loaded(result.value(), path, traceWarnings(*result.value()));
                } else if (result.error().code == core::ErrorCode::Cancelled) {
                    Q_EMIT self->cancelled(path);
                } else {
                    Q_EMIT self->failed(path, QString::fromStdString(result.error().toString()));
                }
            },
            Qt::QueuedConnection);
    });
}

void TraceLoader::cancel()
{
    if (m_cancel)
        m_cancel->store(true);
}

} // namespace sparkscope::ui
