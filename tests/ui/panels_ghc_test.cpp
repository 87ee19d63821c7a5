// A GHC eventlog in the real main window: once the metrics are ready, the Conjunctions dock says
// plainly that a GHC program has no parallel conjunctions (and hides the empty list and chart), and
// the Summary shows ThreadScope's figures — spark outcomes, the GC table per generation and the
// sparks per capability — with core's numbers. Needs ../shared (NOT RUN without it).
#include "support/test_data.h"
#include "ui/main_window.h"
#include "ui/panels/conjunctions_panel.h"
#include "ui/panels/metrics_panels.h"
#include "ui/panels/metrics_session.h"
#include "ui/panels/summary_panel.h"

#include <QSignalSpy>
#include <QTest>
#include <QTreeWidget>
#include <catch2/catch.hpp>

using namespace sparkscope;
using namespace sparkscope::ui;

namespace {

int64_t intField(const core::MetricValue* v, const char* name)
{
    REQUIRE(v);
    for (const auto& [n, s] : v->fields)
        if (n == name)
            return std::get<int64_t>(s);
    FAIL("no field " << name);
    return 0;
}

QTreeWidgetItem* topItem(QTreeWidget* tree, const QString& text)
{
    for (int i = 0; i < tree->topLevelItemCount(); ++i)
        if (tree->topLevelItem(i)->text(0) == text)
            return tree->topLevelItem(i);
    return nullptr;
}

} // namespace

TEST_CASE("a GHC eventlog's panels say there are no conjunctions and show ThreadScope's figures", "[ui][panels][ghc]")
{
    const auto path = test::sharedTestData("ghc/parfib-12-30.eventlog");
    if (!path)
        return;
    MainWindow window;
    window.resize(1400, 900);
    window.show();
    auto* panels = window.findChild<MetricsPanels*>();
    REQUIRE(panels);
    QSignalSpy ready(panels->session(), &MetricsSession::fullReady);
    window.openTrace(QString::fromStdString(path->string()));
    REQUIRE(ready.wait(30000));
    REQUIRE(QTest::qWaitFor([&] { return panels->session()->view() != nullptr; }, 10000));
    const auto full = panels->session()->full();
    REQUIRE_FALSE(full->conjunctionEvents);

    // The Conjunctions dock: a plain statement, no empty table or "no complete conjunct" chart.
    const QString note = panels->conjunctions()->note();
    CHECK(note.contains(QStringLiteral("No parallel conjunctions: this is a GHC eventlog")));
    CHECK(note.contains(QStringLiteral("A GHC program has no parallel conjunctions")));
    CHECK_FALSE(note.contains(QStringLiteral("No complete conjunct")));
    CHECK_FALSE(panels->conjunctions()->listShown());

    // The Summary: spark outcomes as ThreadScope counts them, with core's numbers.
    const core::Metrics& m = full->metrics;
    const auto* sparks = m.find("program", "all", "SPARK_COUNTS");
    const QString sparkLine = panels->summary()->figure(QStringLiteral("Sparks"));
    CHECK(sparkLine.startsWith(QStringLiteral("%1 created, %2 converted, %3 fizzled")
                                   .arg(intField(sparks, "created"))
                                   .arg(intField(sparks, "converted"))
                                   .arg(intField(sparks, "fizzled"))));
    const auto* gc = m.find("program", "all", "GC_STATS");
    REQUIRE(gc);
    REQUIRE(gc->stat);
    CHECK(panels->summary()
              ->figure(QStringLiteral("GC"))
              .startsWith(QStringLiteral("%1 collections").arg(gc->stat->count)));

    auto* tree = panels->summary()->findChild<QTreeWidget*>(QStringLiteral("programMetrics"));
    REQUIRE(tree);
    // The GC table: one group per generation of the program section.
    const core::MetricSection* program = m.section("program");
    REQUIRE(program);
    int generations = 0;
    for (const auto& g : program->groups)
        if (g.id.rfind("gen", 0) == 0) {
            ++generations;
            CHECK(topItem(tree, QStringLiteral("GC table: generation %1").arg(QString::fromStdString(g.id.substr(3)))));
        }
    CHECK(generations >= 1);
    // Conjunction-only metrics are not listed for a GHC program.
    QTreeWidgetItem* all = topItem(tree, QStringLiteral("program"));
    REQUIRE(all);
    for (int i = 0; i < all->childCount(); ++i) {
        CHECK(all->child(i)->text(0) != QStringLiteral("CONJUNCT_GRANULARITY"));
        CHECK(all->child(i)->text(0) != QStringLiteral("INCOMPLETE_INSTANCES"));
    }
    // Sparks per capability: one line per engine with core's counts.
    QTreeWidgetItem* perCap = topItem(tree, QStringLiteral("sparks per capability"));
    REQUIRE(perCap);
    const core::MetricSection* engines = m.section("engines");
    REQUIRE(engines);
    std::vector<const core::MetricGroup*> capabilities; // the engine groups but "all"
    for (const auto& g : engines->groups)
        if (g.id != "all")
            capabilities.push_back(&g);
    REQUIRE(perCap->childCount() == int(capabilities.size()));
    for (int i = 0; i < perCap->childCount(); ++i) {
        const auto& g = *capabilities[size_t(i)];
        const auto* v = m.find("engines", g.id, "SPARK_COUNTS");
        CHECK(perCap->child(i)->text(0) == QStringLiteral("capability %1").arg(QString::fromStdString(g.id)));
        CHECK(perCap->child(i)->text(1).startsWith(QStringLiteral("%1 created, %2 converted, %3 fizzled")
                                                       .arg(intField(v, "created"))
                                                       .arg(intField(v, "converted"))
                                                       .arg(intField(v, "fizzled"))));
    }
}
