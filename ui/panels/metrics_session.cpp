#include "ui/panels/metrics_session.h"

#include <QElapsedTimer>

namespace sparkscope::ui {

MetricsSession::MetricsSession(QObject* parent)
    : QObject(parent)
{
}

void MetricsSession::setTrace(std::shared_ptr<const core::Trace> trace)
{
    m_trace = std::move(trace);
    m_full.reset();
    m_view.reset();
    m_viewOptions = {};
    m_viewJob.cancel(); // any view computation in flight is stale now
    if (!m_trace) {
        m_fullJob.cancel();
        return;
    }
    m_fullJob.start(
        [trace = m_trace]() -> std::shared_ptr<const MetricsBundle> {
            QElapsedTimer timer;
            timer.start();
            auto bundle = std::make_shared<MetricsBundle>();
            bundle->trace = trace;
            bundle->metrics = core::computeMetrics(*trace);
            bundle->index = core::ParEventIndex::build(bundle->metrics.model);
            bundle->conjunctionEvents = core::declaresConjunctionEvents(*trace);
            bundle->computeMs = double(timer.nsecsElapsed()) / 1e6;
            return bundle;
        },
        [this](std::shared_ptr<const MetricsBundle> full) {
            m_full = std::move(full);
            Q_EMIT fullReady();
            if (m_viewOptions.callCount || m_viewOptions.fromNs != 0 || m_viewOptions.toNs != UINT64_MAX)
                startView();
            else {
                m_view = std::shared_ptr<const core::Metrics>(m_full, &m_full->metrics);
                Q_EMIT viewReady();
            }
        });
    Q_EMIT computing();
}

void MetricsSession::setRange(std::optional<std::pair<uint64_t, uint64_t>> range)
{
    const uint64_t from = range ? range->first : 0, to = range ? range->second : UINT64_MAX;
    if (from == m_viewOptions.fromNs && to == m_viewOptions.toNs)
        return;
    m_viewOptions.fromNs = from;
    m_viewOptions.toNs = to;
    startView();
}

void MetricsSession::setCallCount(std::optional<uint64_t> count)
{
    if (count && *count == 0)
        count.reset();
    if (count == m_viewOptions.callCount)
        return;
    m_viewOptions.callCount = count;
    startView();
}

void MetricsSession::startView()
{
    m_viewJob.cancel();
    if (!m_trace || !m_full)
        return; // started again when the full metrics are ready
    const bool plain = !m_viewOptions.callCount && m_viewOptions.fromNs == 0 && m_viewOptions.toNs == UINT64_MAX;
    if (plain) {
        m_view = std::shared_ptr<const core::Metrics>(m_full, &m_full->metrics);
        Q_EMIT viewReady();
        return;
    }
    // The view borrows the whole-trace engine states, CPUs curve and model (the bundle is kept alive
    // by the capture): no second model in memory, and no second model pass, per selection.
    m_viewJob.start(
        [trace = m_trace, options = m_viewOptions, full = m_full] {
            const core::Metrics& whole = full->metrics;
            const core::MetricsInputs inputs { &whole.engineStates, &whole.cpusOverTime, &whole.model };
            return std::shared_ptr<const core::Metrics>(
                std::make_shared<core::Metrics>(core::computeMetrics(*trace, options, inputs)));
        },
        [this](std::shared_ptr<const core::Metrics> view) {
            m_view = std::move(view);
            Q_EMIT viewReady();
        });
    Q_EMIT computing();
}

} // namespace sparkscope::ui
