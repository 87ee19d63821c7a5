#include "ui/timeline/timeline_widget.h"
#include "ui/timeline/direct_paint.h"

#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>

namespace sparkscope::ui {

TimelineWidget::TimelineWidget(ZoomState* zoom, QWidget* parent)
    : QWidget(parent)
    , m_zoom(zoom)
    , m_palette(FramePalette::fromPalette(palette()))
    , m_scrollBar(new QScrollBar(Qt::Vertical, this))
{
    m_scrollBar->hide();
    m_scrollBar->setCursor(Qt::ArrowCursor);
    connect(m_scrollBar, &QScrollBar::valueChanged, this, [this](int value) {
        if (value != m_scrollY) {
            m_scrollY = value;
            update();
        }
    });
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setMinimumSize(400, 200);
    connect(m_zoom, &ZoomState::windowChanged, this, [this] { update(); });
    connect(m_zoom, &ZoomState::selectionChanged, this, [this] { update(); });
    connect(m_zoom, &ZoomState::cursorChanged, this, [this] { update(); });
}

QSize TimelineWidget::sizeHint() const { return { 1200, 500 }; }

void TimelineWidget::setData(std::shared_ptr<const TraceData> data)
{
    m_data = std::move(data);
    m_frame.reset();
    m_rows = {};
    // Until the analysis hands its ledger over (setLedger); a streamed trace gets none.
    m_rows.ledgerPending = m_data && !m_data->isStreamed();
    m_ledgerHighlight = -1;
    m_lanesJob.cancel();
    m_dequesJob.cancel();
    m_scrollY = 0;
    if (m_data)
        m_zoom->reset(m_data->startNs, m_data->endNs);
    startRows();
    updateScrollBar();
    update();
}

void TimelineWidget::extendData(std::shared_ptr<const TraceData> data)
{
    m_data = std::move(data);
    m_frame.reset();
    // The lanes and deques are computed again for the longer trace. The analysis' rows stay until
    // the newer part's analysis replaces them (AnalysisView, or clears them when it does not keep the
    // part before's): true for the time they cover, rather than a row that vanishes at every block.
    TimelineRows kept;
    kept.ledger = std::move(m_rows.ledger);
    kept.criticalPath = std::move(m_rows.criticalPath);
    kept.sites = std::move(m_rows.sites);
    kept.ledgerPending = m_rows.ledgerPending;
    m_rows = std::move(kept);
    m_lanesJob.cancel();
    m_dequesJob.cancel();
    if (m_data)
        m_zoom->extendTo(m_data->startNs, m_data->endNs);
    startRows();
    updateScrollBar();
    update();
}

void TimelineWidget::setShowContextLanes(bool on)
{
    if (on == m_showLanes)
        return;
    m_showLanes = on;
    if (!on) {
        m_rows.lanes.reset(); // the rows cost nothing while off
        m_rows.lanesPending = false;
        m_lanesJob.cancel();
    }
    startRows();
    rowsChanged();
}

void TimelineWidget::setShowDequeSizes(bool on)
{
    if (on == m_showDeques)
        return;
    m_showDeques = on;
    if (!on) {
        m_rows.deques.reset();
        m_rows.dequesPending = false;
        m_dequesJob.cancel();
    }
    startRows();
    rowsChanged();
}

void TimelineWidget::setLedger(std::shared_ptr<const core::LedgerCurves> ledger)
{
    m_rows.ledger = std::move(ledger);
    m_rows.ledgerPending = !m_rows.ledger && m_data && !m_data->isStreamed();
    rowsChanged();
}

void TimelineWidget::setCriticalPath(std::shared_ptr<const CriticalPathRows> path)
{
    m_rows.criticalPath = std::move(path);
    rowsChanged();
}

void TimelineWidget::setUnwritten(std::shared_ptr<const std::vector<int64_t>> unwritten)
{
    m_rows.unwritten = std::move(unwritten);
    rowsChanged();
}

void TimelineWidget::setEmptyText(const QString& text)
{
    m_emptyText = text;
    update();
}

void TimelineWidget::setShowUtilisation(bool on)
{
    if (on == m_showUtilisation)
        return;
    m_showUtilisation = on;
    rowsChanged();
}

void TimelineWidget::setShowCriticalPath(bool on)
{
    if (on == m_showCriticalPath)
        return;
    m_showCriticalPath = on;
    rowsChanged();
}

void TimelineWidget::setSites(std::shared_ptr<const SiteRows> sites)
{
    m_rows.sites = std::move(sites);
    rowsChanged();
}

void TimelineWidget::setColourBySite(bool on)
{
    if (on == m_colourBySite)
        return;
    m_colourBySite = on;
    rowsChanged();
}

void TimelineWidget::setLedgerHighlight(int category)
{
    if (category == m_ledgerHighlight)
        return;
    m_ledgerHighlight = category;
    rowsChanged();
}

void TimelineWidget::startRows()
{
    if (!m_data || m_data->isStreamed()) // both rows need every event
        return;
    // Each computation holds the trace alive; its result is dropped if the trace changed or its row
    // was switched off meanwhile (the job was cancelled then).
    auto shown = [this] {
        rowsChanged();
        Q_EMIT rowsReady();
    };
    const std::shared_ptr<const TraceData> data = m_data;
    if (m_showLanes && !m_rows.lanes && !m_rows.lanesPending) {
        m_rows.lanesPending = true;
        m_lanesJob.start([data] { return computeContextLaneRows(*data->trace); },
            [this, shown](std::shared_ptr<const core::ContextLanes> lanes) {
                m_rows.lanes = std::move(lanes);
                m_rows.lanesPending = false;
                shown();
            });
    }
    if (m_showDeques && !m_rows.deques && !m_rows.dequesPending) {
        m_rows.dequesPending = true;
        m_dequesJob.start([data] { return computeDequeRows(*data->trace); },
            [this, shown](std::shared_ptr<const DequeRows> deques) {
                m_rows.deques = std::move(deques);
                m_rows.dequesPending = false;
                shown();
            });
    }
}

void TimelineWidget::rowsChanged()
{
    m_frame.reset();
    updateScrollBar();
    update();
}

int TimelineWidget::maxRowsScroll() const
{
    if (!m_data)
        return 0;
    return int(std::ceil(frameLayout(*m_data, viewport(), &m_rows).maxScrollY()));
}

void TimelineWidget::setRowsScroll(int pixels)
{
    m_scrollY = std::clamp(pixels, 0, maxRowsScroll());
    m_scrollBar->setValue(m_scrollY);
    update();
}

void TimelineWidget::updateScrollBar()
{
    if (!m_data) {
        m_scrollBar->hide();
        return;
    }
    const FrameLayout L = frameLayout(*m_data, viewport(), &m_rows);
    const int maximum = int(std::ceil(L.maxScrollY()));
    if (maximum <= 0) {
        m_scrollBar->hide();
        m_scrollY = 0;
        return;
    }
    m_scrollY = std::min(m_scrollY, maximum);
    const QSignalBlocker block(m_scrollBar);
    m_scrollBar->setRange(0, maximum);
    m_scrollBar->setPageStep(int(L.extrasHeight));
    m_scrollBar->setSingleStep(int(L.laneHeight));
    m_scrollBar->setValue(m_scrollY);
    m_scrollBar->setGeometry(width() - int(FrameLayout::kScrollBarWidth) - 2, int(L.extrasTop),
        int(FrameLayout::kScrollBarWidth), int(L.extrasHeight));
    m_scrollBar->show();
}

void TimelineWidget::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    updateScrollBar();
}

void TimelineWidget::setBookmarks(const std::vector<Marker>* bookmarks)
{
    m_bookmarks = bookmarks;
    m_frame.reset();
    update();
}

void TimelineWidget::setOverlay(Overlay overlay)
{
    m_overlay = std::move(overlay);
    update();
}

Viewport TimelineWidget::viewport() const
{
    return { width(), height(), devicePixelRatioF(), m_zoom->window(), m_showDeques, m_showLanes, m_scrollY,
        m_showUtilisation, m_showCriticalPath, m_ledgerHighlight, m_colourBySite };
}

TimeAxis TimelineWidget::axis() const
{
    if (m_frame && m_frame->viewport == viewport())
        return m_frame->axis;
    const TimeWindow w = m_zoom->window();
    const double margin = m_data ? frameLayout(*m_data, viewport(), &m_rows).rightMargin : 4;
    return { w.startNs, w.endNs, FrameLayout::kGutter, std::max(1.0, double(width()) - FrameLayout::kGutter - margin) };
}

const Frame& TimelineWidget::currentFrame()
{
    const Viewport v = viewport();
    if (!m_frame || !(m_frame->viewport == v)) {
        QElapsedTimer timer;
        timer.start();
        m_frame = frame(*m_data, v, m_bookmarks, &m_rows);
        m_lastBuildMs = double(timer.nsecsElapsed()) / 1e6;
    }
    return *m_frame;
}

void TimelineWidget::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    if (!m_data) {
        painter.fillRect(rect(), m_palette.background);
        painter.setPen(m_palette.text);
        painter.drawText(rect(), Qt::AlignCenter,
            !m_emptyText.isEmpty() ? m_emptyText
                                   : tr("Open a trace: File ▸ Open, a recent file, or drop an eventlog here."));
        return;
    }
    const Frame& f = currentFrame();
    paintFrame(painter, f, m_palette);
    if (m_overlay)
        m_overlay(painter, f);

    const TimeAxis& ax = f.axis;
    const double bottom = f.layout.bottom(f.engines);
    QFont font = painter.font();
    font.setPixelSize(11);
    painter.setFont(font);
    // Selection with its duration.
    if (auto sel = m_zoom->selection()) {
        const double x0 = ax.xOf(sel->startNs), x1 = ax.xOf(sel->endNs);
        QColor fill = palette().color(QPalette::Highlight);
        fill.setAlpha(50);
        fillRect(
            painter, QRectF(x0, f.layout.kRulerHeight, std::max(1.0, x1 - x0), bottom - f.layout.kRulerHeight), fill);
        painter.setPen(palette().color(QPalette::Highlight));
        painter.drawLine(QLineF(x0, f.layout.kRulerHeight, x0, bottom));
        painter.drawLine(QLineF(x1, f.layout.kRulerHeight, x1, bottom));
        const QString text = formatDuration(sel->spanNs());
        QRectF box(std::max(x0, ax.left) + 2, f.layout.kRulerHeight + 2,
            painter.fontMetrics().horizontalAdvance(text) + 8, 15);
        painter.fillRect(box, palette().color(QPalette::Highlight));
        painter.setPen(palette().color(QPalette::HighlightedText));
        painter.drawText(box, Qt::AlignCenter, text);
    }
    // Cursor line with the time under the mouse.
    if (auto c = m_zoom->cursorNs()) {
        const double x = ax.xOf(*c);
        if (x >= ax.left && x <= ax.left + ax.width) {
            painter.setPen(QPen(m_palette.text, 0, Qt::DotLine));
            painter.drawLine(QLineF(x, f.layout.kRulerHeight, x, bottom));
            const QString text = formatDuration(*c, 7);
            const double w = painter.fontMetrics().horizontalAdvance(text) + 8;
            QRectF box(std::min(x + 2, double(width()) - w), 1, w, 14);
            painter.fillRect(box, m_palette.text);
            painter.setPen(m_palette.background);
            painter.drawText(box, Qt::AlignCenter, text);
        }
    }
}

void TimelineWidget::pan(double pixels)
{
    const TimeWindow w = m_zoom->window();
    const int64_t d = std::llround(pixels * axis().nsPerPixel());
    m_zoom->moveTo({ w.startNs + d, w.endNs + d });
}

void TimelineWidget::mousePressEvent(QMouseEvent* event)
{
    if (!m_data)
        return;
    m_pressPos = event->position();
    m_pressNs = axis().timeAt(event->position().x());
    m_pressWindow = m_zoom->window();
    if (event->button() == Qt::LeftButton && !(event->modifiers() & Qt::ShiftModifier))
        m_drag = Drag::Select;
    else
        m_drag = Drag::Pan;
    if (m_drag == Drag::Pan)
        setCursor(Qt::ClosedHandCursor);
}

void TimelineWidget::mouseMoveEvent(QMouseEvent* event)
{
    if (!m_data)
        return;
    const int64_t t = axis().timeAt(event->position().x());
    m_zoom->setCursor(t);
    Q_EMIT hoveredTimeChanged(t);
    if (m_drag == Drag::None)
        Q_EMIT pointerMoved(event->position());
    if (m_drag == Drag::Select && std::abs(event->position().x() - m_pressPos.x()) >= 3)
        m_zoom->setSelection(TimeWindow { std::min(m_pressNs, t), std::max(m_pressNs, t) });
    else if (m_drag == Drag::Pan) {
        const double dx = event->position().x() - m_pressPos.x();
        const int64_t d = std::llround(dx * (double(m_pressWindow.spanNs()) / axis().width));
        m_zoom->moveTo({ m_pressWindow.startNs - d, m_pressWindow.endNs - d });
    }
}

void TimelineWidget::mouseReleaseEvent(QMouseEvent* event)
{
    if (m_drag == Drag::Select && std::abs(event->position().x() - m_pressPos.x()) < 3) {
        m_zoom->setSelection(std::nullopt); // a click clears the selection
        Q_EMIT clickedAt(event->position(), event->globalPosition().toPoint());
    } else if (m_drag == Drag::Pan && m_zoom->window() != m_pressWindow) {
        // Record the pan as one history step.
        const TimeWindow now = m_zoom->window();
        m_zoom->moveTo(m_pressWindow);
        m_zoom->zoomTo(now);
    }
    m_drag = Drag::None;
    unsetCursor();
}

void TimelineWidget::mouseDoubleClickEvent(QMouseEvent* event)
{
    if (!m_data)
        return;
    if (m_zoom->selection())
        m_zoom->zoomToSelection();
    else
        m_zoom->zoomBy(2.0, axis().timeAt(event->position().x()));
}

void TimelineWidget::wheelEvent(QWheelEvent* event)
{
    if (!m_data)
        return;
    const QPoint delta = event->angleDelta();
    // Over the optional rows, a vertical wheel scrolls them (when they do not all fit).
    if (!(event->modifiers() & Qt::ControlModifier) && delta.y() != 0 && m_scrollBar->isVisible()) {
        const FrameLayout L = frameLayout(*m_data, viewport(), &m_rows);
        if (event->position().y() >= L.extrasTop && event->position().y() < L.extrasBottom()) {
            setRowsScroll(m_scrollY - int(std::lround(double(delta.y()) / 120.0 * 3 * L.laneHeight)));
            event->accept();
            return;
        }
    }
    if (event->modifiers() & Qt::ControlModifier) {
        const double factor = std::pow(2.0, double(delta.y()) / 240.0); // one notch = √2
        const TimeWindow to = zoomWindow(m_zoom->window(), factor, axis().timeAt(event->position().x()));
        // One gesture (notches less than half a second apart) is one step back in the history.
        if (!m_wheelZoom.isValid() || m_wheelZoom.elapsed() > 500)
            m_zoom->zoomTo(to);
        else
            m_zoom->moveTo(to);
        m_wheelZoom.start();
    } else {
        const int d = delta.x() != 0 ? delta.x() : delta.y();
        pan(-double(d) / 120.0 * axis().width / 10.0);
    }
    event->accept();
}

void TimelineWidget::keyPressEvent(QKeyEvent* event)
{
    if (!m_data)
        return QWidget::keyPressEvent(event);
    const TimeWindow w = m_zoom->window();
    const int64_t centre = m_zoom->cursorNs().value_or(w.startNs + w.spanNs() / 2);
    switch (event->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal:
        m_zoom->zoomBy(2.0, centre);
        break;
    case Qt::Key_Minus:
        m_zoom->zoomBy(0.5, centre);
        break;
    case Qt::Key_Left:
        pan(-axis().width / 8);
        break;
    case Qt::Key_Right:
        pan(axis().width / 8);
        break;
    case Qt::Key_Home:
        m_zoom->zoomTo({ m_data->startNs, m_data->startNs + w.spanNs() });
        break;
    case Qt::Key_End:
        m_zoom->zoomTo({ m_data->endNs - w.spanNs(), m_data->endNs });
        break;
    case Qt::Key_0:
        m_zoom->zoomToFit();
        break;
    case Qt::Key_Return:
    case Qt::Key_Enter:
        m_zoom->zoomToSelection();
        break;
    case Qt::Key_Escape:
        m_zoom->setSelection(std::nullopt);
        break;
    case Qt::Key_PageDown:
    case Qt::Key_PageUp:
        if (m_scrollBar->isVisible()) {
            const int page = m_scrollBar->pageStep();
            setRowsScroll(m_scrollY + (event->key() == Qt::Key_PageDown ? page : -page));
        }
        break;
    default:
        QWidget::keyPressEvent(event);
    }
}

void TimelineWidget::leaveEvent(QEvent*)
{
    m_zoom->setCursor(std::nullopt);
    Q_EMIT pointerLeft();
}

void TimelineWidget::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::StyleChange) {
        m_palette = FramePalette::fromPalette(palette());
        update();
    }
    QWidget::changeEvent(event);
}

bool TimelineWidget::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip && m_data) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QString text = describeAt(*m_data, currentFrame(), help->pos(), m_bookmarks, &m_rows);
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    return QWidget::event(event);
}

} // namespace sparkscope::ui
