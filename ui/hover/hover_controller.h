#pragma once
// HoverController: the timeline's metric hover menus. It hit-tests the event under the pointer from
// the timeline's current Frame (the same geometry the ticks were drawn with) and the precomputed
// core::ParEventIndex, highlights everything that belongs to the hovered conjunction / conjunct /
// future, and on a click offers a menu of the metrics that apply; choosing one emits metricChosen
// (the metric detail panel shows it) and, for a curve metric, draws the instance's curve over the
// timeline's CPUs band. It also draws the conjunction list's "highlight all" set.
//
// Cost per pointer move: a binary search over the engine's instant events (±4 px), one per hit
// event in the index, and building the highlight set (capped) — well under a frame. GUI thread only.
#include "sparkscope/core/metrics_query.h"
#include "ui/hover/highlight_set.h"

#include <QObject>
#include <QPointF>
#include <QPointer>
#include <QString>

#include <memory>
#include <optional>

class QMenu;

namespace sparkscope::ui {

class TimelineWidget;
class MetricsSession;
struct MetricsBundle;
struct TraceData;

// An event under the pointer that belongs to the parallel model.
struct HoverHit {
    uint16_t engine = 0;
    uint16_t type = 0;
    int64_t timeNs = 0;
    core::EventOwner owner;
};

// The hit under `pos`, or nullopt: the nearest instant event within 4 px on the engine row under pos
// (only when the frame shows ticks) whose owner the index, built from `model`, knows.
std::optional<HoverHit> hitTest(const TraceData& data, const Frame& frame, const core::ParModel& model,
    const core::ParEventIndex& index, QPointF pos);
// Where the tick of the event at timeNs on `engine` is drawn in `frame` (centre of the tick).
QPointF tickPosition(const Frame& frame, uint16_t engine, int64_t timeNs);

// One entry of a hover menu: a metric of one owner.
struct MetricChoice {
    core::EventOwner owner;
    QString key;
    bool operator==(const MetricChoice&) const = default;
};
// The menu entries for a hit: conjunction metrics for START/END_PAR_CONJ; conjunct metrics for its
// sparks and end; future metrics plus the enclosing conjunct's metrics for waits and signals.
std::vector<MetricChoice> menuChoices(const core::ParModel& model, core::EventOwner owner);
bool isCurveMetric(const QString& key);
QString ownerTitle(const core::ParModel& model, core::EventOwner owner);

class HoverController : public QObject {
    Q_OBJECT
public:
    HoverController(TimelineWidget* timeline, MetricsSession* session, QObject* parent = nullptr);

    // Hover at pos (timeline coordinates): updates the highlight; returns the hit.
    std::optional<HoverHit> hoverAt(QPointF pos);
    // Builds (does not show) the menu for the hit at pos; null when nothing is there. Caller owns it.
    QMenu* menuAt(QPointF pos);
    void choose(const MetricChoice& choice);
    // Highlights a set independent of hovering (the conjunction list's instances); empty clears.
    void setPinned(HighlightSet set);
    void clearCurve();

    const HighlightSet& hoverHighlight() const { return m_hover; }
    const HighlightSet& pinnedHighlight() const { return m_pinned; }
    const std::optional<core::EventOwner>& hovered() const { return m_hoveredOwner; }
    // The curve currently drawn over the timeline (null when none).
    const core::StepFunction* curve() const { return m_curve ? &*m_curve : nullptr; }
    const QString& curveName() const { return m_curveName; }
    double lastHoverMs() const { return m_lastHoverMs; }

Q_SIGNALS:
    void hoveredChanged(const QString& description); // "" when nothing is hovered
    void metricChosen(sparkscope::ui::MetricChoice choice);
    // The pinned highlight was replaced or cleared (by a click, setPinned or new metrics).
    void pinnedChanged();

private:
    void onClicked(QPointF pos, QPoint globalPos);
    void paintOverlay(QPainter& painter, const Frame& frame);

    TimelineWidget* m_timeline;
    MetricsSession* m_session;
    HighlightSet m_hover, m_pinned;
    std::optional<core::EventOwner> m_hoveredOwner;
    std::optional<core::StepFunction> m_curve;
    QString m_curveName;
    double m_lastHoverMs = 0;
    QPointer<QMenu> m_menu; // the menu opened by the last click, while it exists
};

} // namespace sparkscope::ui

Q_DECLARE_METATYPE(sparkscope::ui::MetricChoice)
