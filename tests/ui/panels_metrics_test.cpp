// Panels: the core queries they are built on (event -> instance, per-instance values), hover hit
// testing from the frame geometry and the hover menus, the conjunction list and its navigation,
// the summary panel and the metrics export — checked against hand-worked answers and core's numbers.
#include "panels_test_trace.h"

#include "sparkscope/core/metrics_export.h"
#include "sparkscope/core/metrics_query.h"
#include "sparkscope/core/reader.h"
#include "sparkscope/core/writer.h"
#include "support/test_data.h"
#include "ui/export/metrics_export_action.h"
#include "ui/hover/hover_controller.h"
#include "ui/loading/trace_data.h"
#include "ui/panels/conjunctions_model.h"
#include "ui/panels/conjunctions_panel.h"
#include "ui/panels/granularity_chart.h"
#include "ui/panels/metric_detail_panel.h"
#include "ui/panels/metric_format.h"
#include "ui/panels/summary_panel.h"
#include "ui/timeline/frame.h"

#include <catch2/catch.hpp>

#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QListWidget>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTest>

using namespace sparkscope;
using namespace sparkscope::ui;
using core::OwnerKind;

namespace {

double figure(const std::vector<core::InstanceFigure>& figures, const char* key, const char* stat)
{
    for (const auto& f : figures)
        if (f.key == key && f.statistic == stat)
            return f.value;
    FAIL("no figure " << key << "." << stat);
    return 0;
}

std::shared_ptr<const core::Metrics> handMetrics(core::MetricsOptions options = {})
{
    static const core::Trace trace = test::panelsTraceBuilder().roundTrip();
    return std::make_shared<const core::Metrics>(core::computeMetrics(trace, options));
}

} // namespace

TEST_CASE("the event index finds the instance of every parallel event", "[ui][panels]")
{
    const auto metrics = handMetrics();
    const core::ParModel& m = metrics->model;
    REQUIRE(m.conjunctions.size() == 1);
    REQUIRE(m.conjuncts.size() == 2);
    REQUIRE(m.futures.size() == 1);
    const auto index = core::ParEventIndex::build(m);
    namespace ev = core::ev;
    CHECK(index.ownerOf(m, ev::MerStartParConj, 200, 0) == core::EventOwner(core::ConjunctionIndex(0)));
    CHECK(index.ownerOf(m, ev::MerEndParConj, 900, 0) == core::EventOwner(core::ConjunctionIndex(0)));
    const core::ConjunctIndex second = m.conjunctions[0].conjuncts[1];
    CHECK(index.ownerOf(m, ev::MerSparkCreate, 250, 0) == core::EventOwner(second));
    CHECK(index.ownerOf(m, ev::MerSparkSteal, 400, 1) == core::EventOwner(second));
    CHECK(index.ownerOf(m, ev::MerEndParConjunct, 800, 1) == core::EventOwner(second));
    const auto wait = index.ownerOf(m, ev::MerFutWaitSuspended, 300, 0);
    CHECK(wait.kind() == OwnerKind::Future);
    CHECK(wait.inConjunct() == m.conjunctions[0].conjuncts[0]); // the wait happened in conjunct 1
    CHECK(index.ownerOf(m, ev::MerFutSignal, 600, 1).inConjunct() == second);
    // Wrong engine, wrong time or an event that is not parallel: nothing.
    CHECK(index.ownerOf(m, ev::MerSparkSteal, 400, 0).kind() == OwnerKind::None);
    CHECK(index.ownerOf(m, ev::MerStartParConj, 201, 0).kind() == OwnerKind::None);
    CHECK(index.ownerOf(m, ev::RunThread, 100, 0).kind() == OwnerKind::None);
}

TEST_CASE("per-instance values match the hand-worked answers and the report", "[ui][panels]")
{
    const auto metrics = handMetrics({ .callCount = std::nullopt, .instances = true });
    const core::ParModel& m = metrics->model;
    const auto conj = core::instanceMetrics(*metrics, core::EventOwner(core::ConjunctionIndex(0)));
    CHECK(figure(conj, "PARCONJ_TIME", "value") == 700);
    CHECK(figure(conj, "PARCONJ_CONTINUE_ON_BEFORE", "value") == 1);
    CHECK(figure(conj, "PARCONJ_CONTINUE_ON_LAST", "value") == 0);
    // Every per-instance value equals the report's --instances group and its one-instance summary.
    for (const char* key : core::kConjunctionCurveKeys)
        for (const char* stat : { "max", "average" }) {
            const auto* inst = metrics->find("conjunctions", "instance:0", key);
            REQUIRE(inst);
            double reported = -1;
            for (const auto& [name, v] : inst->fields)
                if (name == stat)
                    reported = std::get<double>(v);
            CHECK(figure(conj, key, stat) == Approx(reported));
        }
    const core::ConjunctIndex first = m.conjunctions[0].conjuncts[0], second = m.conjunctions[0].conjuncts[1];
    const auto g2 = core::instanceMetrics(*metrics, core::EventOwner(second));
    CHECK(figure(g2, "CONJUNCT_TIME_AS_SPARK", "value") == 150);
    CHECK(figure(g2, "CONJUNCT_TIME_AS_CONTEXT", "value") == 400);
    CHECK(figure(g2, "CONJUNCT_TIME_AFTER", "value") == 100);
    CHECK(figure(g2, "CONJUNCT_TIME_BLOCKED", "value") + figure(g2, "CONJUNCT_TIME_RUNNABLE", "value")
            + figure(g2, "CONJUNCT_TIME_RUNNING", "value")
        == 400);
    const auto g1 = core::instanceMetrics(*metrics, core::EventOwner(first));
    CHECK(figure(g1, "CONJUNCT_TIME_AS_CONTEXT", "value") == 500);
    CHECK(figure(g1, "CONJUNCT_TIME_AFTER", "value") == 200);
    for (const char* key : { "CONJUNCT_TIME_BLOCKED", "CONJUNCT_TIME_RUNNING", "CONJUNCT_TIME_AS_CONTEXT" }) {
        const auto* summary = metrics->find("conjuncts", "fib.m:12/1", key);
        REQUIRE(summary);
        CHECK(summary->stat->mean == figure(g1, key, "value"));
    }
    const auto fut = core::instanceMetrics(*metrics, core::EventOwner(core::FutureIndex(0)));
    CHECK(figure(fut, "FUTURE_SUSPEND_TIME_FIRST_WAITS", "mean") == -300);
    CHECK(figure(fut, "FUTURE_SUSPEND_PROBABILITY_FIRST_WAIT", "suspended") == 1);
    CHECK(figure(fut, "FUTURE_SIGNAL_TO_CONJUNCT_END_TIME", "value") == 200);
    CHECK(figure(fut, "WAITED_FUTURE_SIGNAL_TO_CONJUNCT_END_TIME", "value") == 200);
    CHECK(metrics->find("futures", "fib.m:12/x", "FUTURE_SIGNAL_TO_CONJUNCT_END_TIME")->stat->mean == 200);
    CHECK(core::summaryGroupOf(m, core::EventOwner(second)).second == "fib.m:12/2");
}

TEST_CASE("hovering a tick at the position the frame drew it finds its instance and offers its metrics",
    "[ui][panels][hover]")
{
    const auto metrics = handMetrics();
    const auto data = buildTraceData(test::panelsTraceBuilder().roundTrip());
    const auto index = core::ParEventIndex::build(metrics->model);
    const Viewport v { int(FrameLayout::kGutter) + 1100 + 4, 500, 1.0, { 0, 1100 } };
    const Frame f = frame(*data, v);
    REQUIRE(f.ticksShown);
    // START_PAR_CONJ at 200 on engine 0, a pixel off its tick.
    auto hit = hitTest(*data, f, metrics->model, index, tickPosition(f, 0, 200) + QPointF(1, 0));
    REQUIRE(hit);
    CHECK(hit->owner == core::EventOwner(core::ConjunctionIndex(0)));
    CHECK(hit->timeNs == 200);
    auto choices = menuChoices(metrics->model, hit->owner);
    CHECK(choices.size() == 8 + 3); // with the three scheduling-order metrics (two conjuncts)
    CHECK(choices.front().key == QStringLiteral("PARCONJ_TIME"));
    CHECK(choices.back().key == QStringLiteral("OUT_OF_ORDER_SCHEDULING_BLOCKS_ANOTHER_CONTEXT_TC"));
    // The spark steal on engine 1 is conjunct 2's; its menu offers TIME_AS_SPARK.
    hit = hitTest(*data, f, metrics->model, index, tickPosition(f, 1, 400));
    REQUIRE(hit);
    CHECK(hit->owner.kind() == OwnerKind::Conjunct);
    choices = menuChoices(metrics->model, hit->owner);
    CHECK(choices.front().key == QStringLiteral("CONJUNCT_TIME_AS_SPARK"));
    // The wait on engine 0 offers the future's metrics then its conjunct's (position 1: no AS_SPARK).
    hit = hitTest(*data, f, metrics->model, index, tickPosition(f, 0, 300));
    REQUIRE(hit);
    CHECK(hit->owner.kind() == OwnerKind::Future);
    choices = menuChoices(metrics->model, hit->owner);
    CHECK(choices.size() == 6 + 5);
    CHECK(choices[6].owner.kind() == OwnerKind::Conjunct);
    // Nothing parallel under the pointer: empty space, the wrong row, the gutter.
    CHECK_FALSE(hitTest(*data, f, metrics->model, index, tickPosition(f, 0, 500)));
    CHECK_FALSE(hitTest(*data, f, metrics->model, index, tickPosition(f, 1, 200)));
    CHECK_FALSE(hitTest(*data, f, metrics->model, index, QPointF(5, tickPosition(f, 0, 200).y())));
    // Highlighting the conjunction covers both engines: conjunct 1 on 0, conjunct 2 on 1.
    const HighlightSet h = highlightFor(metrics->model, core::EventOwner(core::ConjunctionIndex(0)));
    bool on0 = false, on1 = false;
    for (const auto& s : h.spans) {
        on0 = on0 || (s.engine == 0 && s.startNs <= 200 && s.endNs >= 300);
        on1 = on1 || (s.engine == 1 && s.startNs <= 410 && s.endNs >= 800);
    }
    CHECK(on0);
    CHECK(on1);
    CHECK(h.startNs == 200);
    CHECK(h.endNs == 900);
    CHECK_FALSE(h.truncated);
    // The marks: the conjunction's start and end (engine 0 at 200 and 900), its conjuncts' events
    // (the spark made at 250 and conjunct 1's end at 700 on 0; the steal at 400 and conjunct 2's end
    // at 800 on 1), and its future's (the model's futuresOf): waited for on 0 at 300, signalled on 1
    // at 600. The conjunction list's "highlight all" marks the same.
    using Points = std::vector<std::string>; // "engine@ns", sorted
    auto points = [](const HighlightSet& set) {
        Points out;
        for (const auto& p : set.points)
            out.push_back(std::to_string(p.engine) + '@' + std::to_string(p.timeNs));
        std::sort(out.begin(), out.end());
        return out;
    };
    CHECK(points(h) == Points { "0@200", "0@250", "0@300", "0@700", "0@900", "1@400", "1@600", "1@800" });
    CHECK(points(highlightConjunctions(metrics->model, { core::ConjunctionIndex(0) })) == points(h));
    // With a limit of one conjunct the set stops early and says so (hover on a root stays cheap).
    const HighlightSet small = highlightFor(metrics->model, core::EventOwner(core::ConjunctionIndex(0)), 1);
    CHECK(small.truncated);
    CHECK(small.spans.size() < h.spans.size());
}

TEST_CASE("the metric detail panel shows the instance value and the static-id summary", "[ui][panels]")
{
    const auto metrics = handMetrics();
    MetricDetailPanel panel;
    panel.showMetric(*metrics, core::EventOwner(core::ConjunctionIndex(0)), QStringLiteral("PARCONJ_TIME"));
    CHECK(panel.shownValue(QStringLiteral("instance"), QStringLiteral("value")) == formatDuration(700));
    CHECK(panel.shownValue(QStringLiteral("summary"), QStringLiteral("count")) == QStringLiteral("1"));
    CHECK(panel.shownValue(QStringLiteral("summary"), QStringLiteral("mean")) == formatDuration(700));
    panel.showMetric(*metrics, core::EventOwner(core::ConjunctionIndex(0)), QStringLiteral("PARCONJ_RUNNING_SELF"));
    CHECK(panel.title().contains(QStringLiteral("curve")));
    CHECK(!panel.shownValue(QStringLiteral("instance"), QStringLiteral("max")).isEmpty());
    CHECK(!panel.shownValue(QStringLiteral("summary"), QStringLiteral("average.mean")).isEmpty());
}

TEST_CASE(
    "the conjunction list is sortable and filterable, and steps the timeline through instances", "[ui][panels][list]")
{
    // Two static ids: "a.m:1" with two instances of 100 and 300 ns, "b.m:2" with one of 50 ns.
    test::TraceBuilder b(1);
    b.internString(0, 1, "a.m:1").internString(0, 2, "b.m:2").createThread(0, 0, 1).runThread(0, 10, 1);
    b.startParConj(0, 100, 0xA, 1).endParConjunct(0, 200, 0xA).endParConj(0, 200, 0xA);
    b.startParConj(0, 300, 0xA, 1).endParConjunct(0, 600, 0xA).endParConj(0, 600, 0xA);
    b.startParConj(0, 700, 0xB, 2).endParConjunct(0, 750, 0xB).endParConj(0, 750, 0xB);
    b.stopThread(0, 800, 1, core::kStopFinished).endAt(900);
    const core::Trace trace = b.roundTrip();
    auto metrics = std::make_shared<const core::Metrics>(core::computeMetrics(trace));

    ConjunctionsPanel panel;
    QAbstractItemModelTester tester(panel.model(), QAbstractItemModelTester::FailureReportingMode::Warning);
    QAbstractItemModelTester proxyTester(panel.proxy(), QAbstractItemModelTester::FailureReportingMode::Warning);
    QSignalSpy highlight(&panel, &ConjunctionsPanel::highlightRequested);
    panel.setMetrics(metrics, true);
    REQUIRE(panel.proxy()->rowCount() == 2);
    // The static id chosen on load is not highlighted, and the box says so.
    CHECK(highlight.isEmpty());
    CHECK_FALSE(panel.highlightAllBox()->isChecked());
    // Sorted by total time, descending: a.m:1 (400 ns) first.
    CHECK(panel.proxy()->index(0, 0).data().toString() == QStringLiteral("a.m:1"));
    const int aRow = panel.model()->staticId(0) == QStringLiteral("a.m:1") ? 0 : 1;
    CHECK(panel.model()->number(aRow, ConjunctionsModel::Instances) == 2);
    CHECK(panel.model()->number(aRow, ConjunctionsModel::TimeMean)
        == metrics->find("conjunctions", "a.m:1", "PARCONJ_TIME")->stat->mean);
    CHECK(panel.model()->number(aRow, ConjunctionsModel::TimeMean) == 200);
    panel.table()->sortByColumn(ConjunctionsModel::TimeMean, Qt::AscendingOrder);
    CHECK(panel.proxy()->index(0, 0).data().toString() == QStringLiteral("b.m:2"));
    panel.filter()->setText(QStringLiteral("A.M"));
    CHECK(panel.proxy()->rowCount() == 1);
    panel.filter()->clear();

    REQUIRE(panel.selectStaticId(QStringLiteral("a.m:1")));
    CHECK(panel.selectedStaticId() == QStringLiteral("a.m:1"));
    CHECK(panel.instanceList()->model()->rowCount() == 2);
    REQUIRE(!highlight.isEmpty());
    CHECK(highlight.last().at(0).value<std::vector<core::ConjunctionIndex>>().size() == 2);
    CHECK(panel.highlightAllBox()->isChecked()); // a person's choice is highlighted
    // Unticked by the person: nothing highlighted, and the next choice is not highlighted either.
    panel.highlightAllBox()->click();
    CHECK(highlight.last().at(0).value<std::vector<core::ConjunctionIndex>>().empty());
    const qsizetype emitted = highlight.size();
    REQUIRE(panel.selectStaticId(QStringLiteral("b.m:2")));
    CHECK(highlight.size() == emitted);
    CHECK_FALSE(panel.highlightAllBox()->isChecked());
    panel.highlightAllBox()->click(); // ticked again: b.m:2's one instance
    CHECK(highlight.last().at(0).value<std::vector<core::ConjunctionIndex>>().size() == 1);
    REQUIRE(panel.selectStaticId(QStringLiteral("a.m:1")));
    CHECK(panel.detail()->shownValue(QStringLiteral("summary"), QStringLiteral("mean")) == formatDuration(200));

    QSignalSpy navigate(&panel, &ConjunctionsPanel::navigateTo);
    panel.showNext();
    panel.showNext();
    REQUIRE(navigate.size() == 2);
    auto window = navigate.at(1).at(0).value<TimeWindow>();
    CHECK(window.startNs < 300);
    CHECK(window.endNs > 600);
    panel.showPrevious();
    window = navigate.last().at(0).value<TimeWindow>();
    CHECK(window.startNs < 100);
    CHECK(window.endNs > 200);
    CHECK(window.endNs < 300);
    // The granularity chart of a.m:1: running times 100 and 300 ns land in buckets 6 and 8.
    const auto& counts = panel.chart()->counts();
    REQUIRE(counts.size() > 8);
    CHECK(counts[6] == 1);
    CHECK(counts[8] == 1);
    CHECK(panel.chart()->cumulativeCounts()[8] == 2);
}

TEST_CASE("the summary panel shows core's program figures and asks for a call count", "[ui][panels][summary]")
{
    const auto metrics = handMetrics({ .callCount = 10 });
    SummaryPanel panel;
    QSignalSpy spy(&panel, &SummaryPanel::callCountChanged);
    panel.setMetrics(metrics, true);
    CHECK(panel.figure(QStringLiteral("Run time")) == formatDuration(1100));
    const auto* npc = metrics->find("program", "all", "NANOSECS_PER_CALL");
    REQUIRE(npc);
    CHECK(panel.figure(QStringLiteral("NANOSECS_PER_CALL"))
              .startsWith(QString::number(std::get<double>(npc->fields.front().second), 'f', 2)));
    QTest::keyClicks(panel.callCountField(), QStringLiteral("1234"));
    QTest::keyClick(panel.callCountField(), Qt::Key_Return);
    REQUIRE(!spy.isEmpty());
    CHECK(spy.last().at(0).value<std::optional<uint64_t>>() == std::optional<uint64_t>(1234));
}

TEST_CASE("exporting metrics writes exactly what the CLI's core functions write", "[ui][panels][export]")
{
    const core::Trace built = test::panelsTraceBuilder().roundTrip();
    const QString dir = QString::fromStdString(test::scratchDir("panels-export").string());
    const QString tracePath = dir + QStringLiteral("/hand.eventlog");
    const auto bytes = core::writeTrace(built);
    REQUIRE(core::writeFile(tracePath.toStdString(), bytes));
    auto trace = core::readTrace(tracePath.toStdString());
    REQUIRE(trace);
    auto read = [](const QString& path) {
        QFile f(path);
        REQUIRE(f.open(QIODevice::ReadOnly));
        return f.readAll().toStdString();
    };
    core::MetricsOptions options;
    options.callCount = 99;
    options.instances = true;
    // The file the CLI writes: the metrics and the analysis of the same range, with its findings.
    const core::MetricsFile file = core::computeMetricsFile(trace.value(), options);
    CHECK(writeMetricsFile(
        dir + QStringLiteral("/m.csv"), file.metrics, metricsFormatForPath(QStringLiteral("m.csv")), file.analysis)
              .isEmpty());
    CHECK(read(dir + QStringLiteral("/m.csv")) == core::formatMetricsFile(file, core::MetricsFormat::Csv));
    CHECK(exportMetricsHeadless(tracePath, dir + QStringLiteral("/h.json"),
              { QStringLiteral("--csc"), QStringLiteral("99"), QStringLiteral("--instances") })
        == 0);
    CHECK(read(dir + QStringLiteral("/h.json")) == core::formatMetricsFile(file, core::MetricsFormat::Json));
    CHECK(exportMetricsHeadless(tracePath, dir + QStringLiteral("/x.json"), { QStringLiteral("--bogus") }) == 2);
    CHECK(exportMetricsHeadless(dir + QStringLiteral("/missing.eventlog"), dir + QStringLiteral("/x.json"), {}) == 2);
}

TEST_CASE("a statistic without samples reads as absent, not as 0", "[ui][panels]")
{
    // ENGINE_WAKE_LATENCY of an engine that never slept (a GHC eventlog's capabilities): count 0. Its
    // mean would read "0 ns", an instant wake-up; with samples the figures are the numbers.
    core::MetricValue none;
    none.stat = core::Stat {};
    const auto rows = statisticRows(QStringLiteral("ENGINE_WAKE_LATENCY"), none);
    REQUIRE(rows.size() == 6);
    CHECK(rows[0].statistic == QStringLiteral("count"));
    CHECK(rows[0].text == QStringLiteral("0"));
    for (size_t i = 1; i < rows.size(); ++i)
        CHECK(rows[i].text == QStringLiteral("— (no samples)"));
    core::MetricValue some;
    some.stat = core::Stat {};
    some.stat->count = 2;
    some.stat->mean = 1500;
    CHECK(statisticRows(QStringLiteral("ENGINE_WAKE_LATENCY"), some)[3].text == formatDuration(1500));
}

TEST_CASE("highlight all holds whole instances up to its limit, and the box names the part shown", "[ui][panels][list]")
{
    // One engine, static id "a.m:1": A [100,200) with one conjunct, B [300,500) with two (the second
    // its spark, run inline at 400), C [600,700) with one. Conjuncts: A 1, B 2, C 1.
    test::TraceBuilder b(1);
    b.internString(0, 1, "a.m:1").createThread(0, 0, 1).runThread(0, 10, 1);
    b.startParConj(0, 100, 0xA, 1).endParConjunct(0, 200, 0xA).endParConj(0, 200, 0xA);
    b.startParConj(0, 300, 0xB, 1).sparkCreate(0, 310, 0xB, 5).endParConjunct(0, 400, 0xB);
    b.sparkRun(0, 400, 5).endParConjunct(0, 500, 0xB).endParConj(0, 500, 0xB);
    b.startParConj(0, 600, 0xC, 1).endParConjunct(0, 700, 0xC).endParConj(0, 700, 0xC);
    b.stopThread(0, 800, 1, core::kStopFinished).endAt(900);
    const core::Trace trace = b.roundTrip();
    auto metrics = std::make_shared<const core::Metrics>(core::computeMetrics(trace));
    const std::vector<core::ConjunctionIndex> all
        = core::conjunctionsOfStatic(metrics->model, std::string("a.m:1"));
    REQUIRE(all.size() == 3);
    auto lastTime = [](const HighlightSet& s) {
        int64_t t = 0;
        for (const auto& sp : s.spans)
            t = std::max(t, sp.endNs);
        for (const auto& p : s.points)
            t = std::max(t, p.timeNs);
        return t;
    };
    // Limit 2: A fits; B's two conjuncts would pass it, and half of B is not drawn.
    const HighlightSet two = highlightConjunctions(metrics->model, all, 2);
    CHECK(two.truncated);
    CHECK(two.instances == 1);
    CHECK(lastTime(two) == 200);
    // Limit 3: A and B (three conjuncts), not C.
    const HighlightSet three = highlightConjunctions(metrics->model, all, 3);
    CHECK(three.truncated);
    CHECK(three.instances == 2);
    CHECK(lastTime(three) == 500);
    const HighlightSet four = highlightConjunctions(metrics->model, all, 4);
    CHECK_FALSE(four.truncated);
    CHECK(four.instances == 3);
    CHECK(lastTime(four) == 700);

    ConjunctionsPanel panel;
    panel.setMetrics(metrics, true);
    REQUIRE(panel.selectStaticId(QStringLiteral("a.m:1")));
    REQUIRE(panel.highlightAllBox()->isChecked());
    CHECK(panel.highlightAllBox()->text() == QStringLiteral("Highlight all"));
    panel.setHighlighted(2);
    CHECK(panel.highlightAllBox()->text().contains(QStringLiteral("the first 2 of 3")));
    CHECK(panel.highlightAllBox()->toolTip().contains(QStringLiteral("only the first 2 instances")));
    panel.setHighlighted(3);
    CHECK(panel.highlightAllBox()->text() == QStringLiteral("Highlight all"));
    // Another tool took the highlight: the box no longer says the list is highlighted.
    panel.setHighlighted(2);
    panel.highlightReplaced();
    CHECK_FALSE(panel.highlightAllBox()->isChecked());
    CHECK(panel.highlightAllBox()->text() == QStringLiteral("Highlight all"));
    QSignalSpy highlight(&panel, &ConjunctionsPanel::highlightRequested);
    // A hover menu's choice of instance B (the timeline highlights B alone): its static id is shown,
    // and all of its instances are not highlighted over B.
    panel.showChoice(core::EventOwner(all[1]), QStringLiteral("PARCONJ_TIME"));
    CHECK(panel.selectedStaticId() == QStringLiteral("a.m:1"));
    CHECK(panel.currentInstance() == 1);
    CHECK(highlight.isEmpty());
    CHECK_FALSE(panel.highlightAllBox()->isChecked());
    panel.highlightAllBox()->click();
    REQUIRE(highlight.size() == 1);
    CHECK(highlight.last().at(0).value<std::vector<core::ConjunctionIndex>>().size() == 3);
}
