#pragma once
// TimelineWidget: paints the cached Frame of the current viewport and turns mouse and keyboard input
// into ZoomState changes. Left-drag selects a range, middle/right-drag pans, Ctrl+wheel zooms
// around the mouse, plain wheel pans, double-click zooms to the selection (or 2× at the point).
// Keys: + - zoom, ←/→ pan, Home/End, 0 fit, Enter zoom to selection, Esc clear selection.
// Optional rows (context lanes, spark deque sizes; off by default) are computed on a worker thread
// when switched on and dropped when switched off; they scroll vertically under the engine rows
// (scroll bar, the wheel over them, Page Up / Page Down).
// GUI thread only. A frame is rebuilt only when the window, size, DPR, scroll position or data change.
#include "ui/loading/trace_data.h"
#include "ui/timeline/frame.h"
#include "ui/timeline/zoom_state.h"
#include "ui/util/latest_job.h"

#include <QElapsedTimer>
#include <QWidget>

class QScrollBar;

#include <functional>

#include <memory>
#include <optional>

namespace sparkscope::ui {

class TimelineWidget : public QWidget {
    Q_OBJECT
public:
    explicit TimelineWidget(ZoomState* zoom, QWidget* parent = nullptr);

    void setData(std::shared_ptr<const TraceData> data);
    // A newer snapshot of the same trace (a followed trace grew): like setData, but the zoom keeps its
    // window, history and selection (ZoomState::extendTo) and the vertical scroll stays.
    void extendData(std::shared_ptr<const TraceData> data);
    // Bookmarks drawn as labelled lines (the vector must outlive the widget or be reset); null = the trace's markers.
    void setBookmarks(const std::vector<Marker>* bookmarks);
    const std::shared_ptr<const TraceData>& data() const { return m_data; }
    ZoomState* zoom() const { return m_zoom; }
    Viewport viewport() const;
    // The current frame (built if needed).
    const Frame& currentFrame();
    double lastFrameBuildMs() const { return m_lastBuildMs; }
    QSize sizeHint() const override;
    // Hook for the metric panels (ui/hover): painted after the frame, with the frame's geometry.
    using Overlay = std::function<void(QPainter&, const Frame&)>;
    void setOverlay(Overlay overlay);

    // Optional rows. Switching one on starts computing its data in the background (once per trace).
    void setShowContextLanes(bool on);
    void setShowDequeSizes(bool on);
    bool showContextLanes() const { return m_showLanes; }
    bool showDequeSizes() const { return m_showDeques; }
    const TimelineRows& rows() const { return m_rows; }
    bool rowsPending() const { return m_rows.lanesPending || m_rows.dequesPending; }
    // What the analysis adds (ui/analysis): the ledger over time for the utilisation row (null while
    // the analysis is computed), the critical path (null: none, e.g. a GHC eventlog), whether each is
    // shown, and a ledger category drawn alone in the utilisation row (-1: all).
    void setLedger(std::shared_ptr<const core::LedgerCurves> ledger);
    void setCriticalPath(std::shared_ptr<const CriticalPathRows> path);
    // A trace being written: per engine, where the part its events do not cover yet starts (hatched;
    // null: none). setData and extendData drop it.
    void setUnwritten(std::shared_ptr<const std::vector<int64_t>> unwritten);
    // What the widget says while it has no trace (empty: how to open one).
    void setEmptyText(const QString& text);
    const QString& emptyText() const { return m_emptyText; }
    void setShowUtilisation(bool on);
    void setShowCriticalPath(bool on);
    void setLedgerHighlight(int category);
    // The engine rows' running time coloured by static id (null: not computed).
    void setSites(std::shared_ptr<const SiteRows> sites);
    void setColourBySite(bool on);
    bool colourBySite() const { return m_colourBySite; }
    bool showUtilisation() const { return m_showUtilisation; }
    bool showCriticalPath() const { return m_showCriticalPath; }
    int ledgerHighlight() const { return m_ledgerHighlight; }

    // Vertical scroll of the optional rows (logical pixels) and its maximum for the current size.
    int rowsScroll() const { return m_scrollY; }
    void setRowsScroll(int pixels);
    int maxRowsScroll() const;

Q_SIGNALS:
    void hoveredTimeChanged(qint64 timeNs);
    // Hooks for the metric panels (ui/hover): the pointer moved over / clicked (no drag) at pos.
    void pointerMoved(QPointF pos);
    void clickedAt(QPointF pos, QPoint globalPos);
    void pointerLeft(); // the pointer left the widget
    void rowsReady(); // an optional row's data finished computing (and is shown)

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void leaveEvent(QEvent* event) override;
    void changeEvent(QEvent* event) override;
    bool event(QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void pan(double pixels);
    TimeAxis axis() const;
    void startRows();
    void rowsChanged();
    void updateScrollBar();

    ZoomState* m_zoom;
    std::shared_ptr<const TraceData> m_data;
    std::optional<Frame> m_frame;
    const std::vector<Marker>* m_bookmarks = nullptr;
    FramePalette m_palette;
    QString m_emptyText;
    Overlay m_overlay;
    double m_lastBuildMs = 0;
    enum class Drag { None, Select, Pan } m_drag = Drag::None;
    QPointF m_pressPos;
    int64_t m_pressNs = 0;
    TimeWindow m_pressWindow;
    bool m_showLanes = false;
    bool m_showDeques = false;
    bool m_showUtilisation = false;
    bool m_showCriticalPath = false;
    int m_ledgerHighlight = -1;
    bool m_colourBySite = false;
    TimelineRows m_rows;
    // Cancelled on every new trace and switch-off: late results are dropped.
    LatestJob<std::shared_ptr<const core::ContextLanes>> m_lanesJob { this };
    LatestJob<std::shared_ptr<const DequeRows>> m_dequesJob { this };
    int m_scrollY = 0;
    QElapsedTimer m_wheelZoom; // since the last Ctrl+wheel zoom: a new gesture goes into the history
    QScrollBar* m_scrollBar;
};

} // namespace sparkscope::ui
