// The frame's colours: what each ink is called (legend, tooltips) and its colour in light and dark
// themes (see frame.h).
#include "ui/timeline/frame.h"

namespace sparkscope::ui {

Ink inkOfTick(TickKind kind) noexcept { return Ink(size_t(Ink::TickSparkCreate) + size_t(kind)); }

Ink inkOfLedger(core::LossCategory category) noexcept
{
    return Ink(size_t(Ink::LedgerRunningInConjunct) + size_t(category));
}

const char* inkName(Ink ink) noexcept
{
    switch (ink) {
    case Ink::Idle:
        return "idle";
    case Ink::Running:
        return "running";
    case Ink::Gc:
        return "GC";
    case Ink::Searching:
        return "searching for work";
    case Ink::Sleeping:
        return "sleeping";
    case Ink::Marker:
        return "user marker";
    case Ink::LaneRunnable:
        return "context runnable";
    case Ink::LaneBlocked:
        return "context blocked";
    case Ink::Deque:
        return "spark deque size";
    case Ink::LedgerRunningInConjunct:
        return "running in a conjunct";
    case Ink::LedgerRunningOutsideConjunct:
        return "running outside conjuncts";
    case Ink::LedgerGc:
        return "in GC";
    case Ink::LedgerSearching:
        return "looking for work";
    case Ink::LedgerIdleWorkAvailable:
        return "idle, work waiting";
    case Ink::LedgerIdleBlockedFuture:
        return "idle, blocked on a future";
    case Ink::LedgerIdleBlockedBarrier:
        return "idle, blocked at a barrier";
    case Ink::LedgerIdleBlockedOther:
        return "idle, blocked otherwise";
    case Ink::LedgerIdleNoWork:
        return "idle, no work";
    case Ink::LedgerFaded:
        return "other categories";
    case Ink::PathRunning:
        return "critical path";
    case Ink::PathWaiting:
        return "critical path waiting";
    case Ink::SiteSequential:
        return "outside every conjunct";
    case Ink::SiteOther:
        return "other static ids";
    case Ink::Site1:
    case Ink::Site2:
    case Ink::Site3:
    case Ink::Site4:
    case Ink::Site5:
    case Ink::Site6:
        return "static id";
    case Ink::Count:
        return "";
    default:
        return tickKindName(TickKind(size_t(ink) - size_t(Ink::TickSparkCreate)));
    }
}

QColor FramePalette::over(const QColor& top, const QColor& under)
{
    const double a = top.alphaF();
    auto mix = [a](double t, double u) { return t * a + u * (1 - a); };
    return QColor::fromRgbF(float(mix(top.redF(), under.redF())), float(mix(top.greenF(), under.greenF())),
        float(mix(top.blueF(), under.blueF())));
}

QColor FramePalette::faintGridOver(const QColor& under) const
{
    QColor faint = grid;
    faint.setAlphaF(faint.alphaF() * 0.45);
    return over(faint, under);
}

FramePalette FramePalette::fromPalette(const QPalette& palette)
{
    FramePalette p;
    p.background = palette.color(QPalette::Base);
    p.text = palette.color(QPalette::Text);
    const bool dark = p.background.lightnessF() < 0.5;
    p.grid = dark ? QColor(255, 255, 255, 60) : QColor(0, 0, 0, 50);
    // Every other row a shade darker (lighter when dark), mixed here once: big translucent fills
    // are blended per pixel on Qt's thread pool, opaque ones are plain fills.
    p.rowBackground = over(dark ? QColor(255, 255, 255, 14) : QColor(0, 0, 0, 10), p.background);
    // The curve's area as a translucent green over the background, mixed here once: painted
    // opaque it costs a copy per pixel rather than a blend (frame_paint.cpp draws the grid over it).
    p.curveFill = over(dark ? QColor(90, 200, 110, 150) : QColor(40, 150, 60, 130), p.background);
    p.curveLine = dark ? QColor(130, 230, 150) : QColor(20, 110, 40);
    auto set = [&](Ink ink, QColor light, QColor darkColour) { p.ink[size_t(ink)] = dark ? darkColour : light; };
    set(Ink::Idle, QColor(222, 222, 222), QColor(70, 70, 74));
    set(Ink::Running, QColor(46, 158, 68), QColor(70, 190, 90));
    set(Ink::Gc, QColor(236, 132, 22), QColor(245, 150, 50));
    set(Ink::Searching, QColor(66, 124, 214), QColor(100, 160, 240));
    set(Ink::Sleeping, QColor(166, 130, 200), QColor(150, 120, 190));
    set(Ink::TickSparkCreate, QColor(200, 30, 30), QColor(255, 90, 90));
    set(Ink::TickSparkRun, QColor(20, 20, 20), QColor(235, 235, 235));
    set(Ink::TickSparkSteal, QColor(170, 0, 170), QColor(240, 100, 240));
    set(Ink::TickConjunction, QColor(0, 120, 140), QColor(60, 200, 220));
    set(Ink::TickFuture, QColor(150, 110, 0), QColor(230, 200, 60));
    set(Ink::TickThread, QColor(90, 90, 90), QColor(170, 170, 170));
    set(Ink::TickMessage, QColor(0, 70, 200), QColor(120, 170, 255));
    set(Ink::TickOther, QColor(130, 130, 130), QColor(140, 140, 140));
    set(Ink::Marker, QColor(200, 0, 90), QColor(255, 90, 160));
    set(Ink::LaneRunnable, QColor(232, 200, 70), QColor(200, 175, 60));
    set(Ink::LaneBlocked, QColor(200, 60, 60), QColor(220, 85, 85));
    set(Ink::Deque, QColor(60, 110, 170), QColor(110, 160, 225));
    // The ledger: running in greens, the costs of parallelism (GC, searching) as on the engine rows,
    // idle time from amber (work was waiting: the scheduler's fault) through reds and purples (the
    // program made engines wait) to grey (nothing existed to run).
    set(Ink::LedgerRunningInConjunct, QColor(46, 158, 68), QColor(70, 190, 90));
    set(Ink::LedgerRunningOutsideConjunct, QColor(150, 190, 70), QColor(160, 205, 90));
    set(Ink::LedgerGc, QColor(236, 132, 22), QColor(245, 150, 50));
    set(Ink::LedgerSearching, QColor(66, 124, 214), QColor(100, 160, 240));
    set(Ink::LedgerIdleWorkAvailable, QColor(240, 196, 40), QColor(215, 180, 50));
    set(Ink::LedgerIdleBlockedFuture, QColor(205, 60, 60), QColor(225, 90, 90));
    set(Ink::LedgerIdleBlockedBarrier, QColor(190, 70, 140), QColor(215, 110, 170)); // not the rows' sleeping lavender
    set(Ink::LedgerIdleBlockedOther, QColor(150, 105, 75), QColor(175, 130, 100));
    set(Ink::LedgerIdleNoWork, QColor(205, 205, 205), QColor(85, 85, 90));
    set(Ink::LedgerFaded, QColor(238, 238, 238), QColor(55, 55, 58));
    set(Ink::PathRunning, QColor(15, 15, 15), QColor(250, 250, 250));
    set(Ink::PathWaiting, QColor(225, 0, 80), QColor(255, 80, 140));
    // Static ids: sequential code neutral, the sites in a qualitative palette told apart by hue. They
    // stand beside the other states on the same rows, so none is near searching's blue, GC's orange,
    // sleeping's lavender or the greys (frame_test checks the distances in both themes).
    set(Ink::SiteSequential, QColor(150, 150, 150), QColor(120, 120, 125));
    set(Ink::Site1, QColor(0, 140, 70), QColor(40, 190, 110));
    set(Ink::Site2, QColor(200, 30, 70), QColor(240, 80, 110));
    set(Ink::Site3, QColor(0, 160, 170), QColor(40, 205, 215));
    set(Ink::Site4, QColor(130, 80, 40), QColor(185, 130, 90));
    set(Ink::Site5, QColor(230, 80, 190), QColor(245, 120, 215));
    set(Ink::Site6, QColor(120, 170, 0), QColor(165, 210, 40));
    set(Ink::SiteOther, QColor(90, 60, 130), QColor(200, 180, 240));
    return p;
}

} // namespace sparkscope::ui
