#pragma once
// ZoomState: the one shared description of what the views show — the trace's extent ⊇ the visible
// window ⊇ the selection — plus the cursor time and a back/forward history of windows. Every view
// (timeline, events list, bookmarks) listens to its signals and changes it only through its slots,
// so they stay in sync. Lives on the GUI thread.
#include "ui/timeline/time_axis.h"

#include <QObject>

#include <optional>
#include <vector>

namespace sparkscope::ui {

class ZoomState : public QObject {
    Q_OBJECT
public:
    explicit ZoomState(QObject* parent = nullptr);

    TimeWindow extent() const { return m_extent; }
    TimeWindow window() const { return m_window; }
    std::optional<TimeWindow> selection() const { return m_selection; }
    std::optional<int64_t> cursorNs() const { return m_cursorNs; }
    bool canGoBack() const { return !m_back.empty(); }
    bool canGoForward() const { return !m_forward.empty(); }

    // A new trace: extent and window become [startNs, endNs); history and selection are cleared.
    void reset(int64_t startNs, int64_t endNs);
    // The trace grew (a followed trace): the extent becomes [startNs, endNs); history, selection and
    // cursor stay. A window that reached the old end follows the end: one that showed the whole
    // trace keeps showing it all, a narrower one slides to the new end with its span. A window the
    // person moved elsewhere stays where it is.
    void extendTo(int64_t startNs, int64_t endNs);
    // Shows `w` (clamped to the extent) and records the previous window in the history.
    void zoomTo(TimeWindow w);
    // Like zoomTo but without a history entry (panning, continuous wheel zoom).
    void moveTo(TimeWindow w);
    void zoomBy(double factor, int64_t anchorNs);
    void zoomToFit() { zoomTo(m_extent); }
    void zoomToSelection();
    void centreOn(int64_t timeNs);
    void goBack();
    void goForward();
    void setSelection(std::optional<TimeWindow> selection);
    void setCursor(std::optional<int64_t> timeNs);

Q_SIGNALS:
    void windowChanged(sparkscope::ui::TimeWindow window);
    void selectionChanged();
    void cursorChanged();
    void historyChanged();

private:
    void show(TimeWindow w);

    TimeWindow m_extent { 0, 1 };
    TimeWindow m_window { 0, 1 };
    std::optional<TimeWindow> m_selection;
    std::optional<int64_t> m_cursorNs;
    std::vector<TimeWindow> m_back;
    std::vector<TimeWindow> m_forward;
};

} // namespace sparkscope::ui
