#include "ui/hover/hover_controller.h"

#include "sparkscope/core/event_types.h"
#include "ui/panels/metrics_session.h"
#include "ui/timeline/timeline_widget.h"

#include <QElapsedTimer>
#include <QMenu>
#include <QPainter>

namespace sparkscope::ui {

namespace {
    using core::OwnerKind;

    const char* const kConjunctionKeys[] = { "PARCONJ_TIME", "PARCONJ_RUNNABLE_SELF", "PARCONJ_RUNNABLE_SELF_AND_DESC",
        "PARCONJ_RUNNING_SELF", "PARCONJ_RUNNING_SELF_AND_DESC", "PARCONJ_AVAIL_CPUS", "PARCONJ_CONTINUE_ON_BEFORE",
        "PARCONJ_CONTINUE_ON_LAST" };
    // Only for conjunctions of two or more conjuncts (pairs of conjuncts split there).
    const char* const kSchedulingKeys[] = { "OUT_OF_ORDER_PROBABILITY",
        "OUT_OF_ORDER_SCHEDULING_BLOCKS_ANOTHER_CONTEXT", "OUT_OF_ORDER_SCHEDULING_BLOCKS_ANOTHER_CONTEXT_TC" };
    const char* const kConjunctKeys[] = { "CONJUNCT_TIME_AS_SPARK", "CONJUNCT_TIME_AS_CONTEXT", "CONJUNCT_TIME_BLOCKED",
        "CONJUNCT_TIME_RUNNABLE", "CONJUNCT_TIME_RUNNING", "CONJUNCT_TIME_AFTER" };
    const char* const kFutureKeys[] = { "FUTURE_SUSPEND_TIME_FIRST_WAITS", "FUTURE_SUSPEND_TIME_ALL_WAITS",
        "FUTURE_SUSPEND_PROBABILITY_FIRST_WAIT", "FUTURE_SUSPEND_PROBABILITY_ALL_WAITS",
        "WAITED_FUTURE_SIGNAL_TO_CONJUNCT_END_TIME", "FUTURE_SIGNAL_TO_CONJUNCT_END_TIME" };
} // namespace

std::optional<HoverHit> hitTest(
    const TraceData& data, const Frame& f, const core::ParModel& model, const core::ParEventIndex& index, QPointF pos)
{
    if (!f.ticksShown || pos.x() < f.axis.left - 4 || pos.x() > f.axis.left + f.axis.width + 4)
        return std::nullopt;
    const long engine = f.layout.engineAt(pos.y(), f.engines);
    if (engine < 0 || size_t(engine) >= data.trace->engines.size())
        return std::nullopt;
    const size_t e = size_t(engine);
    // Ticks are shown, so few events lie within the 8 px around the pointer; a bound all the same.
    constexpr size_t kMaxEventsNearPointer = 4096;
    const auto window
        = data.events(e, f.axis.timeAt(pos.x() - 4), f.axis.timeAt(pos.x() + 4) + 1, kMaxEventsNearPointer);
    if (!window)
        return std::nullopt;
    std::optional<HoverHit> best;
    double bestDistance = 4.5;
    for (const core::Event& ev : window->events) {
        const double d = std::abs(f.axis.xOf(int64_t(ev.timeNs)) - pos.x());
        if (d >= bestDistance)
            continue;
        const core::EventOwner owner = index.ownerOf(model, ev.type, ev.timeNs, uint16_t(e));
        if (owner.kind() == OwnerKind::None)
            continue;
        bestDistance = d;
        best = HoverHit { uint16_t(e), ev.type, int64_t(ev.timeNs), owner };
    }
    return best;
}

QPointF tickPosition(const Frame& f, uint16_t engine, int64_t timeNs)
{
    return { f.axis.xOf(timeNs), f.layout.barTop(engine) + f.layout.barHeight / 2 };
}

bool isCurveMetric(const QString& key)
{
    for (const char* k : core::kConjunctionCurveKeys)
        if (key == QLatin1String(k))
            return true;
    return false;
}

std::vector<MetricChoice> menuChoices(const core::ParModel& m, core::EventOwner owner)
{
    std::vector<MetricChoice> out;
    auto conjunctChoices = [&](core::ConjunctIndex k) {
        if (!m.contains(k))
            return;
        for (const char* key : kConjunctKeys) {
            if (!m.conjunct(k).fromSpark && QLatin1String(key) == QLatin1String("CONJUNCT_TIME_AS_SPARK"))
                continue; // absent for the first conjunct
            out.push_back({ core::EventOwner(k), QString::fromLatin1(key) });
        }
    };
    switch (owner.kind()) {
    case OwnerKind::Conjunction:
        for (const char* key : kConjunctionKeys)
            out.push_back({ owner, QString::fromLatin1(key) });
        if (m.contains(owner.conjunction()) && m.conjunction(owner.conjunction()).conjuncts.size() >= 2)
            for (const char* key : kSchedulingKeys)
                out.push_back({ owner, QString::fromLatin1(key) });
        break;
    case OwnerKind::Conjunct:
        conjunctChoices(owner.conjunct());
        break;
    case OwnerKind::Future:
        for (const char* key : kFutureKeys)
            out.push_back({ owner, QString::fromLatin1(key) });
        if (owner.inConjunct().valid())
            conjunctChoices(owner.inConjunct());
        break;
    case OwnerKind::None:
        break;
    }
    return out;
}

QString ownerTitle(const core::ParModel& m, core::EventOwner owner)
{
    const auto group = core::summaryGroupOf(m, owner);
    switch (owner.kind()) {
    case OwnerKind::Conjunction:
        return QStringLiteral("conjunction %1, instance #%2")
            .arg(QString::fromStdString(group.second))
            .arg(owner.conjunction().value());
    case OwnerKind::Conjunct: {
        const auto& g = m.conjunct(owner.conjunct());
        return QStringLiteral("conjunct %1 (position %2) of instance #%3")
            .arg(QString::fromStdString(group.second))
            .arg(g.position)
            .arg(g.conjunction.value());
    }
    case OwnerKind::Future:
        return QStringLiteral("future %1 of instance #%2")
            .arg(QString::fromStdString(group.second))
            .arg(m.future(owner.future()).conjunction.value());
    case OwnerKind::None:
        break;
    }
    return {};
}

HoverController::HoverController(TimelineWidget* timeline, MetricsSession* session, QObject* parent)
    : QObject(parent)
    , m_timeline(timeline)
    , m_session(session)
{
    qRegisterMetaType<MetricChoice>();
    m_timeline->setOverlay([this](QPainter& painter, const Frame& f) { paintOverlay(painter, f); });
    connect(m_timeline, &TimelineWidget::pointerMoved, this, [this](QPointF pos) { hoverAt(pos); });
    connect(m_timeline, &TimelineWidget::clickedAt, this, &HoverController::onClicked);
    // Leaving the timeline ends the hover, except into the hover menu it opened.
    connect(m_timeline, &TimelineWidget::pointerLeft, this, [this] {
        if (m_menu && m_menu->isVisible())
            return;
        hoverAt(QPointF(-1e6, -1e6));
    });
    connect(m_session, &MetricsSession::fullReady, this, [this] {
        m_hover = {};
        m_pinned = {};
        m_hoveredOwner.reset();
        m_curve.reset();
        m_timeline->update();
        Q_EMIT pinnedChanged();
    });
}

std::optional<HoverHit> HoverController::hoverAt(QPointF pos)
{
    QElapsedTimer timer;
    timer.start();
    const auto bundle = m_session->full();
    std::optional<HoverHit> hit;
    if (bundle && m_timeline->data())
        hit = hitTest(*m_timeline->data(), m_timeline->currentFrame(), bundle->metrics.model, bundle->index, pos);
    const std::optional<core::EventOwner> owner = hit ? std::optional(hit->owner) : std::nullopt;
    if (owner != m_hoveredOwner) {
        m_hoveredOwner = owner;
        m_hover = owner ? highlightFor(bundle->metrics.model, *owner) : HighlightSet {};
        m_timeline->update();
        Q_EMIT hoveredChanged(owner ? ownerTitle(bundle->metrics.model, *owner) : QString());
    }
    m_lastHoverMs = double(timer.nsecsElapsed()) / 1e6;
    return hit;
}

QMenu* HoverController::menuAt(QPointF pos)
{
    const auto hit = hoverAt(pos);
    const auto bundle = m_session->full();
    if (!hit || !bundle)
        return nullptr;
    const core::ParModel& m = bundle->metrics.model;
    auto* menu = new QMenu(m_timeline);
    menu->setObjectName(QStringLiteral("metricsHoverMenu"));
    auto* title = menu->addAction(ownerTitle(m, hit->owner));
    title->setEnabled(false);
    menu->addSeparator();
    core::EventOwner section = hit->owner;
    for (const MetricChoice& c : menuChoices(m, hit->owner)) {
        if (!(c.owner == section)) {
            menu->addSeparator();
            auto* sub = menu->addAction(ownerTitle(m, c.owner));
            sub->setEnabled(false);
            section = c.owner;
        }
        QString text = c.key;
        if (isCurveMetric(c.key))
            text += QStringLiteral("  (curve)");
        auto* action = menu->addAction(text);
        action->setData(QVariant::fromValue(c));
        connect(action, &QAction::triggered, this, [this, c] { choose(c); });
    }
    return menu;
}

void HoverController::onClicked(QPointF pos, QPoint globalPos)
{
    QMenu* menu = menuAt(pos);
    if (!menu)
        return;
    menu->setAttribute(Qt::WA_DeleteOnClose);
    m_menu = menu;
    menu->popup(globalPos);
}

void HoverController::choose(const MetricChoice& choice)
{
    const auto bundle = m_session->full();
    if (!bundle)
        return;
    m_curve.reset();
    m_curveName.clear();
    if (choice.owner.kind() == OwnerKind::Conjunction && isCurveMetric(choice.key)) {
        const core::ConjunctionIndex j = choice.owner.conjunction();
        const auto curves = core::conjunctionCurves(
            bundle->metrics.model, bundle->metrics.cpusOverTime, bundle->metrics.trace.engines, j);
        if (const core::StepFunction* f = core::curveOf(curves, choice.key.toStdString()); f && !f->empty()) {
            m_curve = *f;
            m_curveName = QStringLiteral("%1 of instance #%2").arg(choice.key).arg(j.value());
        }
    }
    m_pinned = highlightFor(bundle->metrics.model, choice.owner);
    m_timeline->update();
    Q_EMIT pinnedChanged();
    Q_EMIT metricChosen(choice);
}

void HoverController::setPinned(HighlightSet set)
{
    m_pinned = std::move(set);
    m_timeline->update();
    Q_EMIT pinnedChanged();
}

void HoverController::clearCurve()
{
    m_curve.reset();
    m_curveName.clear();
    m_timeline->update();
}

void HoverController::paintOverlay(QPainter& painter, const Frame& f)
{
    // The hover highlight in the text colour (black on light, white on dark): no state or tick
    // colour of the timeline is near it, unlike the palette's highlight blue (searching is blue).
    const QColor accent = m_timeline->palette().color(QPalette::WindowText);
    if (!m_pinned.empty())
        paintHighlight(painter, f, m_pinned, QColor(0, 150, 160)); // teal: not a state colour (GC is orange)
    if (!m_hover.empty())
        paintHighlight(painter, f, m_hover, accent);
    if (m_curve)
        paintCurveOverlay(painter, f, *m_curve, m_curveName, QColor(200, 30, 120));
}

} // namespace sparkscope::ui
