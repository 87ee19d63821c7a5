#include "ui/timeline/zoom_state.h"

#include <algorithm>

namespace sparkscope::ui {

namespace {
    constexpr size_t kMaxHistory = 200;
    constexpr int64_t kMinSpanNs = 10;
}

ZoomState::ZoomState(QObject* parent)
    : QObject(parent)
{
}

void ZoomState::reset(int64_t startNs, int64_t endNs)
{
    m_extent = { startNs, std::max(endNs, startNs + 1) };
    m_back.clear();
    m_forward.clear();
    m_selection.reset();
    m_cursorNs.reset();
    m_window = m_extent;
    Q_EMIT windowChanged(m_window);
    Q_EMIT selectionChanged();
    Q_EMIT cursorChanged();
    Q_EMIT historyChanged();
}

void ZoomState::extendTo(int64_t startNs, int64_t endNs)
{
    const TimeWindow old = m_extent;
    m_extent = { std::min(startNs, old.startNs), std::max({ endNs, old.endNs, startNs + 1 }) };
    if (m_extent == old || m_window.endNs < old.endNs)
        return;
    if (m_window.startNs <= old.startNs)
        m_window = m_extent;
    else
        m_window = { m_extent.endNs - m_window.spanNs(), m_extent.endNs };
    Q_EMIT windowChanged(m_window);
}

void ZoomState::show(TimeWindow w)
{
    if (w.spanNs() < kMinSpanNs)
        w = { w.startNs, w.startNs + kMinSpanNs };
    // Allow a little margin around the trace so its ends can be seen against the background.
    const int64_t margin = m_extent.spanNs() / 20;
    w = clampWindow(w, m_extent.startNs - margin, m_extent.endNs + margin);
    if (w == m_window)
        return;
    m_window = w;
    Q_EMIT windowChanged(m_window);
}

void ZoomState::zoomTo(TimeWindow w)
{
    const TimeWindow before = m_window;
    show(w);
    if (m_window == before)
        return;
    m_back.push_back(before);
    if (m_back.size() > kMaxHistory)
        m_back.erase(m_back.begin());
    m_forward.clear();
    Q_EMIT historyChanged();
}

void ZoomState::moveTo(TimeWindow w) { show(w); }

void ZoomState::zoomBy(double factor, int64_t anchorNs) { zoomTo(zoomWindow(m_window, factor, anchorNs, kMinSpanNs)); }

void ZoomState::zoomToSelection()
{
    if (m_selection && m_selection->spanNs() > 0)
        zoomTo(*m_selection);
}

void ZoomState::centreOn(int64_t timeNs)
{
    const int64_t half = m_window.spanNs() / 2;
    zoomTo({ timeNs - half, timeNs - half + m_window.spanNs() });
}

void ZoomState::goBack()
{
    if (m_back.empty())
        return;
    m_forward.push_back(m_window);
    const TimeWindow w = m_back.back();
    m_back.pop_back();
    show(w);
    Q_EMIT historyChanged();
}

void ZoomState::goForward()
{
    if (m_forward.empty())
        return;
    m_back.push_back(m_window);
    const TimeWindow w = m_forward.back();
    m_forward.pop_back();
    show(w);
    Q_EMIT historyChanged();
}

void ZoomState::setSelection(std::optional<TimeWindow> selection)
{
    if (selection && selection->endNs < selection->startNs)
        std::swap(selection->startNs, selection->endNs);
    if (selection == m_selection)
        return;
    m_selection = selection;
    Q_EMIT selectionChanged();
}

void ZoomState::setCursor(std::optional<int64_t> timeNs)
{
    if (timeNs == m_cursorNs)
        return;
    m_cursorNs = timeNs;
    Q_EMIT cursorChanged();
}

} // namespace sparkscope::ui
