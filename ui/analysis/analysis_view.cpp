#include "ui/analysis/analysis_view.h"

#include "sparkscope/core/ledger_curves.h"
#include "ui/analysis/speedup_chart.h"
#include "ui/analysis/why_panel.h"
#include "ui/docks/dock.h"
#include "ui/hover/hover_controller.h"
#include "ui/panels/metrics_panels.h"
#include "ui/panels/metrics_session.h"
#include "ui/panels/summary_panel.h"
#include "ui/timeline/timeline_widget.h"
#include "ui/timeline/zoom_state.h"

#include <QAction>
#include <QDockWidget>
#include <QSettings>

#include <algorithm>
#include <map>
#include <optional>

namespace sparkscope::ui {

namespace {
    constexpr size_t kMaxHighlighted = 20000; // spans or instances highlighted at once (one frame's worth)

    // Engine counts of the speed-up chart: 1, 2, 4 … 64 and the trace's own.
    std::vector<uint32_t> chartEngines(size_t traceEngines)
    {
        std::vector<uint32_t> out;
        for (uint32_t p = 1; p <= 64; p *= 2)
            out.push_back(p);
        if (traceEngines >= 1 && traceEngines <= 64
            && std::find(out.begin(), out.end(), uint32_t(traceEngines)) == out.end())
            out.insert(std::upper_bound(out.begin(), out.end(), uint32_t(traceEngines)), uint32_t(traceEngines));
        return out;
    }

    // Speed-ups over `oneEngineNs`, the program as recorded predicted on one engine: a what-if's own
    // P = 1 would put a site made faster below the program as it is, as if the change made it slower.
    std::vector<SpeedupPoint> speedups(const std::vector<core::Prediction>& predictions, uint64_t oneEngineNs)
    {
        std::vector<SpeedupPoint> out;
        for (const core::Prediction& p : predictions)
            out.push_back({ double(p.engines), p.wallNs ? double(oneEngineNs) / double(p.wallNs) : 0.0 });
        return out;
    }
} // namespace

AnalysisView::AnalysisView(QWidget* window, TimelineWidget* timeline, ZoomState* zoom, MetricsPanels* metrics)
    : QObject(window)
    , m_window(window)
    , m_timeline(timeline)
    , m_zoom(zoom)
    , m_metrics(metrics)
{
    setObjectName(QStringLiteral("analysisView"));
    m_panel = new WhyPanel(window);
    m_dock = makeDock(m_panel, tr("Why"), "whyDock", window);
    m_utilisation = newToggle(tr("&Utilisation Row"), "timeline/utilisation", true);
    m_utilisation->setObjectName(QStringLiteral("utilisationAction"));
    m_criticalPath = newToggle(tr("Critical &Path"), "timeline/criticalPath", false);
    m_criticalPath->setObjectName(QStringLiteral("criticalPathAction"));
    m_criticalPath->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_P));
    m_colourBySite = newToggle(tr("Colour by &Static Id"), "timeline/colourBySite", false);
    m_colourBySite->setObjectName(QStringLiteral("colourBySiteAction"));
    m_timeline->setColourBySite(m_colourBySite->isChecked());
    connect(m_colourBySite, &QAction::toggled, this, [this](bool on) {
        m_timeline->setColourBySite(on);
        if (on) {
            startSites();
        } else {
            m_sitesJob.cancel();
            m_timeline->setSites(nullptr); // costs nothing while off
        }
    });
    m_timeline->setShowUtilisation(m_utilisation->isChecked());
    m_timeline->setShowCriticalPath(m_criticalPath->isChecked());
    connect(m_utilisation, &QAction::toggled, m_timeline, &TimelineWidget::setShowUtilisation);
    connect(m_criticalPath, &QAction::toggled, m_timeline, &TimelineWidget::setShowCriticalPath);
    m_panel->setCriticalPathAction(m_criticalPath);

    MetricsSession* session = m_metrics->session();
    connect(session, &MetricsSession::computing, this, &AnalysisView::refresh);
    connect(session, &MetricsSession::unavailableSet, this, &AnalysisView::refresh);
    connect(session, &MetricsSession::viewReady, this, &AnalysisView::refresh);
    connect(session, &MetricsSession::analysisReady, this, &AnalysisView::refresh);
    connect(m_metrics, &MetricsPanels::liveStoppedChanged, this, &AnalysisView::refresh);
    connect(m_panel, &WhyPanel::findingActivated, this, &AnalysisView::activateFinding);
    connect(m_panel, &WhyPanel::categoryClicked, this, &AnalysisView::highlightCategory);
    connect(m_panel, &WhyPanel::whatIfChanged, this, &AnalysisView::startPredictions);
    connect(m_panel, &WhyPanel::pathSiteClicked, this, [this](uint32_t staticId) {
        const auto path = m_timeline->rows().criticalPath;
        if (!path)
            return;
        HighlightSet set;
        for (const core::PathSegment& s : path->segments)
            if (s.staticId == staticId && s.kind == core::PathKind::Running && set.spans.size() < kMaxHighlighted)
                set.spans.push_back({ s.engine, int64_t(s.fromNs), int64_t(s.toNs) });
        m_criticalPath->setChecked(true);
        m_metrics->hover()->setPinned(std::move(set));
    });
}

QAction* AnalysisView::newToggle(const QString& text, const char* settingsKey, bool byDefault)
{
    auto* action = new QAction(text, this);
    action->setCheckable(true);
    action->setChecked(QSettings().value(QString::fromLatin1(settingsKey), byDefault).toBool());
    connect(action, &QAction::toggled, this,
        [settingsKey](bool on) { QSettings().setValue(QString::fromLatin1(settingsKey), on); });
    return action;
}

// The dock shows the analysis of the view's range; the timeline gets the whole trace's data once.
void AnalysisView::refresh()
{
    MetricsSession* session = m_metrics->session();
    const auto bundle = session->analysis();
    // A followed trace's newer part is computed: its analysis is not ready yet, and the part
    // before's stays on the timeline and in the dock until it is (MetricsPanels::keepsShown).
    const bool keep = m_metrics->keepsShown() && session->unavailable().isEmpty();
    if (bundle != m_analysis && !(keep && !bundle)) {
        m_analysis = bundle;
        m_base.clear(); // (and the previous trace's analysis is not kept alive by them)
        m_baseFor.reset();
        m_timelineJob.cancel();
        m_predictionJob.cancel();
        m_timeline->setLedgerHighlight(-1);
        m_panel->setHighlight(-1);
        m_sitesJob.cancel();
        m_timeline->setSites(nullptr);
        m_siteSplitRange = { 1, 0 };
        if (m_analysis) {
            startTimelineData(m_analysis);
            startPredictions();
            if (m_colourBySite->isChecked())
                startSites();
        } else {
            m_timeline->setLedger(nullptr);
            m_timeline->setCriticalPath(nullptr);
            m_panel->chart()->setNote(tr("Computing the analysis…"));
            m_panel->setPredictionText({});
        }
    }
    const core::MetricsOptions& o = session->viewOptions();
    if (keep && m_panel->report() && !session->analysisFor(o.fromNs, o.toNs))
        return; // the part before's report stays, under its own range's label, until this part's comes
    if (!session->hasTrace()) {
        m_panel->setPending(!session->unavailable().isEmpty() ? session->unavailable()
                : session->isLoading()
                ? tr("Reading the trace again for its metrics and analysis (it was opened by streaming)…")
                : tr("Open a trace to see where its engines' time went."));
        return;
    }
    const bool whole = o.fromNs == 0 && o.toNs == UINT64_MAX;
    const bool live = o.fromNs == 0 && m_metrics->liveHorizon() == o.toNs;
    const QString range = whole ? tr("Whole trace")
        : live ? (m_metrics->liveStopped() ? tr("To %1 (what every engine wrote before following stopped)")
                                           : tr("Live, to %1 (what every engine has written so far)"))
                     .arg(formatDuration(int64_t(o.toNs), 6))
               : tr("Selection %1 – %2").arg(formatDuration(int64_t(o.fromNs), 6), formatDuration(int64_t(o.toNs), 6));
    const auto report = session->analysisFor(o.fromNs, o.toNs);
    if (!report)
        m_panel->setPending(tr("Computing the analysis of the %1…")
                                .arg(whole     ? tr("whole trace")
                                        : live ? tr("part every engine has written")
                                               : tr("selection")));
    else if (report != m_panel->report() || range != m_panel->range())
        m_panel->setReport(report, range);
    startSiteSplit();
}

void AnalysisView::startSites()
{
    if (!m_analysis || !m_timeline->data())
        return;
    const auto analysis = m_analysis;
    const auto data = m_timeline->data();
    m_sitesJob.start(
        [analysis, data] {
            return computeSiteRows(analysis->session->model(), data->engineCount(),
                uint64_t(std::max<int64_t>(0, data->startNs)), uint64_t(std::max<int64_t>(1, data->endNs)));
        },
        [this](std::shared_ptr<const SiteRows> sites) { m_timeline->setSites(std::move(sites)); });
}

// The Summary's split of the view range's running time by static id, once per range.
void AnalysisView::startSiteSplit()
{
    if (!m_analysis)
        return;
    const core::MetricsOptions& o = m_metrics->session()->viewOptions();
    const std::pair<uint64_t, uint64_t> range { o.fromNs, o.toNs };
    if (range == m_siteSplitRange)
        return;
    m_siteSplitRange = range;
    const auto analysis = m_analysis;
    m_siteSplitJob.start(
        [analysis, range] { return runningBySite(analysis->session->model(), range.first, range.second); },
        [this](std::vector<SiteTime> split) {
            m_siteSplit = std::move(split);
            m_metrics->summary()->setSiteSplit(m_siteSplit);
        });
}

void AnalysisView::startTimelineData(std::shared_ptr<const AnalysisBundle> analysis)
{
    m_timelineJob.start(
        [analysis] {
            TimelineData out;
            out.ledger = std::make_shared<const core::LedgerCurves>(core::computeLedgerCurves(*analysis->session));
            const auto& path = analysis->whole->analysis.criticalPath;
            if (path) {
                auto rows = std::make_shared<CriticalPathRows>();
                rows->segments = path->segments;
                std::map<uint32_t, std::string> names;
                for (const core::PathSegment& s : rows->segments)
                    if (s.staticId != 0 && !names.count(s.staticId))
                        names.emplace(s.staticId, analysis->session->model().staticName(s.staticId));
                rows->sites.assign(names.begin(), names.end());
                out.path = std::move(rows);
            }
            return out;
        },
        [this](TimelineData data) {
            m_timeline->setLedger(std::move(data.ledger));
            m_timeline->setCriticalPath(std::move(data.path));
            Q_EMIT timelineDataReady();
        });
}

void AnalysisView::startPredictions()
{
    if (!m_analysis)
        return;
    const auto analysis = m_analysis;
    const core::Analysis& whole = analysis->whole->analysis;
    if (!whole.recordsJoins) {
        m_panel->chart()->setNote(tr("A GHC eventlog records no joins: which thread waited for which is unknown, "
                                     "so the run cannot be re-simulated on other engine counts."));
        m_panel->setPredictionText({});
        return;
    }
    const WhyPanel::WhatIf whatIf = m_panel->whatIf();
    const size_t engines = whole.ledger.engines;
    if (m_panel->chart()->data().predicted.empty())
        m_panel->chart()->setNote(tr("Predicting the run on 1 to 64 engines…"));
    m_panel->setPredictionText(whatIf.any() ? tr("Computing the what-if…") : QString());
    std::optional<std::vector<core::Prediction>> cached;
    if (m_baseFor == analysis)
        cached = m_base;
    m_predictionJob.start(
        [analysis, whatIf, engines, cached] {
            Predictions out;
            core::WhatIfOptions options;
            options.engines = chartEngines(engines);
            out.base = cached ? *cached : analysis->session->predict(options);
            out.costNotes = analysis->session->costNotes(analysis->session->measuredCosts());
            if (whatIf.any()) {
                if (whatIf.zeroCosts)
                    options.costs = core::CostModel {};
                if (whatIf.staticId != 0)
                    options.scales = { { whatIf.staticId, whatIf.factor, {} } };
                out.whatIf = analysis->session->predict(options);
            }
            return out;
        },
        [this, engines, analysis](Predictions p) {
            m_base = p.base;
            m_baseFor = analysis;
            SpeedupChartData data;
            const uint64_t oneEngine = p.base.empty() ? 0 : p.base.front().wallNs;
            data.predicted = speedups(p.base, oneEngine);
            data.whatIf = speedups(p.whatIf, oneEngine);
            for (const core::Prediction& q : p.base) {
                data.upper.push_back({ double(q.engines), q.bound.upper });
                data.lower.push_back({ double(q.engines), q.bound.lower });
            }
            const uint64_t recorded = analysis->session->recordedWallNs();
            const auto at = [&](const std::vector<core::Prediction>& v) -> const core::Prediction* {
                for (const core::Prediction& q : v)
                    if (q.engines == engines)
                        return &q;
                return nullptr;
            };
            if (!p.base.empty() && recorded > 0)
                data.measured = SpeedupPoint { double(engines), double(p.base.front().wallNs) / double(recorded) };
            QString text;
            if (const core::Prediction* q = at(p.base))
                text = tr("Recorded on %1: %2; predicted %3")
                           .arg(formatEngines(engines))
                           .arg(formatDuration(int64_t(recorded)), formatDuration(int64_t(q->wallNs)));
            if (const core::Prediction* q = at(p.whatIf); q && q->wallNs && oneEngine)
                text += tr("; with the what-if %1 (%2× the program as it is on one engine)")
                            .arg(formatDuration(int64_t(q->wallNs)))
                            .arg(double(oneEngine) / double(q->wallNs), 0, 'f', 2);
            // As `analyze` marks them: a prediction under Brent's bound is not a broken chart but the
            // scheduling costs the simulation charges, which the bound leaves out.
            QStringList below;
            for (const core::Prediction& q : p.base)
                if (q.bound.upper > 0 && q.speedup < q.bound.lower)
                    below << QString::number(q.engines);
            if (!below.isEmpty())
                text += tr("\nBelow the lower bound at %1 engines: the costs the simulation charges each search, "
                           "steal and wake-up (measured in the trace) outweigh the parallelism there.")
                            .arg(below.join(QStringLiteral(", ")));
            // As `analyze` notes them: one delayed wake-up can set a cost every prediction pays.
            for (const std::string& n : p.costNotes)
                text += QStringLiteral("\n") + tr("Note: %1.").arg(QString::fromStdString(n));
            m_panel->chart()->setData(std::move(data));
            m_panel->setPredictionText(text);
            Q_EMIT predictionsReady();
        });
}

void AnalysisView::activateFinding(int index)
{
    const auto report = m_panel->report();
    if (!report || index < 0 || size_t(index) >= report->findings.size())
        return;
    const core::Finding& f = report->findings[size_t(index)];
    if (f.ranges.empty())
        return;
    uint64_t from = UINT64_MAX, to = 0;
    for (const core::TimeRange& r : f.ranges) {
        from = std::min(from, r.fromNs);
        to = std::max(to, r.toNs);
    }
    const int64_t margin = std::max<int64_t>(1, int64_t(to - from) / 20);
    m_zoom->zoomTo({ int64_t(from) - margin, int64_t(to) + margin });
    HighlightSet set;
    if (!f.site.empty() && m_analysis) {
        // The instances of the finding's static id within its ranges.
        const core::ParModel& model = m_analysis->session->model();
        std::map<uint32_t, bool> named; // static id -> is it the finding's site
        std::vector<core::ConjunctionIndex> instances;
        for (size_t j = 0; j < model.conjunctions.size() && instances.size() < kMaxHighlighted; ++j) {
            const core::ConjunctionInstance& c = model.conjunctions[j];
            auto it = named.find(c.staticId);
            if (it == named.end())
                it = named.emplace(c.staticId, model.staticName(c.staticId) == f.site).first;
            if (!it->second)
                continue;
            const uint64_t end = c.ended ? c.endNs : UINT64_MAX;
            for (const core::TimeRange& r : f.ranges)
                if (c.startNs < r.toNs && end > r.fromNs) {
                    instances.push_back(core::ConjunctionIndex(uint32_t(j)));
                    break;
                }
        }
        set = highlightConjunctions(model, instances);
    }
    if (set.empty()) { // a whole-program finding: its stretches on every engine
        const size_t engines = report->analysis.ledger.engines;
        for (const core::TimeRange& r : f.ranges)
            for (size_t e = 0; e < engines; ++e)
                set.spans.push_back({ uint16_t(e), int64_t(r.fromNs), int64_t(r.toNs) });
        set.startNs = int64_t(from);
        set.endNs = int64_t(to);
    }
    m_metrics->hover()->setPinned(std::move(set));
}

void AnalysisView::highlightCategory(int category)
{
    if (category == m_timeline->ledgerHighlight())
        category = -1;
    if (category >= 0)
        m_utilisation->setChecked(true);
    m_timeline->setLedgerHighlight(category);
    m_panel->setHighlight(category);
}

} // namespace sparkscope::ui
