#include "ui/loading/trace_loader.h"

#include <atomic>

namespace sparkscope::ui {

TraceLoader::TraceLoader(QObject* parent)
    : QObject(parent)
{
}

QStringList traceWarnings(const TraceData& data)
{
    QStringList out;
    for (const auto& w : data.trace->warnings)
        out << QStringLiteral("%1 (at byte %2)").arg(QString::fromStdString(w.message)).arg(w.byteOffset);
    if (data.trace->truncated && out.isEmpty())
        out << QStringLiteral("the trace is truncated: it ends before its end-of-data marker");
    for (const std::string& p : data.formatProblems)
        out << QString::fromStdString(p);
    return out;
}

QString joinWarnings(const QStringList& warnings)
{
    constexpr qsizetype kShown = 3;
    if (warnings.size() <= kShown)
        return warnings.join(QStringLiteral("; "));
    return QStringLiteral("%1; and %2 more (sparkscope-cli check lists them)")
        .arg(warnings.mid(0, kShown).join(QStringLiteral("; ")))
        .arg(warnings.size() - kShown);
}

void TraceLoader::load(const QString& path)
{
    m_job.start(
        [path](JobControl& control) {
            // Throttle: only report when the value grew by at least 0.5% (the reader may call from
            // several threads, hence the atomic).
            std::atomic<int> lastPermille { -1 };
            auto progress = [&](int permille) {
                int last = lastPermille.load();
                if (permille >= last + 5 && lastPermille.compare_exchange_strong(last, permille))
                    control.reportProgress(permille);
            };
            return loadTraceData(path.toStdString(), progress, control.stopFlag());
        },
        [this, path](core::Result<std::shared_ptr<const TraceData>> result) {
            if (result.ok())
                Q_EMIT loaded(result.value(), path, traceWarnings(*result.value()));
            else if (result.error().code == core::ErrorCode::Cancelled)
                Q_EMIT cancelled(path);
            else
                Q_EMIT failed(path, QString::fromStdString(result.error().toString()));
        },
        [this](int permille) { Q_EMIT progressed(permille); });
    Q_EMIT started(path);
}

void TraceLoader::cancel() { m_job.requestStop(); }

} // namespace sparkscope::ui
