// The Engines dock shows the search metrics only for a trace that can measure them: our runtime's
// traces declare an engine's search for work (108, 109, 112), GHC's eventlogs do not, and there the
// rows would read as measured zeros and "no samples". The GHC case needs ../shared (NOT RUN without).
#include "panels_test_trace.h"
#include "support/test_data.h"
#include "ui/panels/engines_panel.h"

#include "sparkscope/core/metrics.h"
#include "sparkscope/core/reader.h"

#include <QLabel>
#include <QTreeWidget>
#include <catch2/catch.hpp>

using namespace sparkscope;
using namespace sparkscope::ui;

namespace {

// Every key and sub-row under an engine's item, as "KEY" and "KEY/row".
QStringList rowsOf(QTreeWidgetItem* engine)
{
    QStringList rows;
    for (int i = 0; i < engine->childCount(); ++i) {
        QTreeWidgetItem* item = engine->child(i);
        rows << item->text(0);
        for (int c = 0; c < item->childCount(); ++c)
            rows << item->text(0) + QLatin1Char('/') + item->child(c)->text(0);
    }
    return rows;
}

} // namespace

TEST_CASE("the Engines dock lists the search metrics of a trace that posts an engine's search", "[ui][panels]")
{
    const core::Trace trace = test::panelsTraceBuilder().roundTrip();
    auto metrics = std::make_shared<core::Metrics>(core::computeMetrics(trace));
    REQUIRE(metrics->trace.engineSearch);
    EnginesPanel panel;
    panel.setMetrics(metrics);
    REQUIRE(panel.tree()->topLevelItemCount() == 3); // engines 0 and 1, then "all"
    CHECK(panel.searchNote()->isHidden());
    for (int e = 0; e < panel.tree()->topLevelItemCount(); ++e) {
        const QStringList rows = rowsOf(panel.tree()->topLevelItem(e));
        CHECK(rows.contains(QStringLiteral("ENGINE_SEARCH_SUCCESS")));
        CHECK(rows.contains(QStringLiteral("STEAL_CONTENTION")));
        CHECK(rows.contains(QStringLiteral("ENGINE_STATE_TIME/searching_ns")));
        CHECK(rows.contains(QStringLiteral("ENGINE_STATE_TIME/sleeping_ns")));
    }
}

TEST_CASE("the Engines dock of a GHC eventlog says the search is not in the trace instead of listing zeros",
    "[ui][panels][ghc]")
{
    const auto path = test::sharedTestData("ghc/parfib-8-32.eventlog");
    if (!path)
        return;
    auto trace = core::readTrace(path->string());
    REQUIRE(trace);
    auto metrics = std::make_shared<core::Metrics>(core::computeMetrics(trace.value()));
    REQUIRE_FALSE(metrics->trace.engineSearch);
    EnginesPanel panel;
    panel.setMetrics(metrics);
    REQUIRE(panel.tree()->topLevelItemCount() == 3); // capabilities 0 and 1, then "all"
    CHECK_FALSE(panel.searchNote()->isHidden());
    CHECK(panel.searchNote()->text().contains(QStringLiteral("not in this trace")));
    for (int e = 0; e < panel.tree()->topLevelItemCount(); ++e) {
        const QStringList rows = rowsOf(panel.tree()->topLevelItem(e));
        // What GHC's events do measure stays: the state times it has; per capability the spark
        // counts and the pool's size, in all the contexts' resumes.
        CHECK(rows.contains(QStringLiteral("ENGINE_STATE_TIME/running_ns")));
        CHECK(rows.contains(QStringLiteral("ENGINE_STATE_TIME/gc_ns")));
        const bool all = e == panel.tree()->topLevelItemCount() - 1;
        CHECK(rows.contains(QStringLiteral("SPARK_COUNTS")) == !all);
        CHECK(rows.contains(QStringLiteral("SPARK_DEQUE_SIZE")) == !all);
        CHECK(rows.contains(QStringLiteral("CONTEXT_RESUME_LOCALITY")) == all);
        for (const char* gone :
            { "ENGINE_SEARCH_SUCCESS", "ENGINE_TIME_TO_FIND_WORK", "ENGINE_TIME_TO_SLEEP", "ENGINE_WAKE_LATENCY",
                "STEAL_CONTENTION", "ENGINE_STATE_TIME/searching_ns", "ENGINE_STATE_TIME/sleeping_ns" })
            CHECK_FALSE(rows.contains(QLatin1String(gone)));
    }
    // The metrics file keeps every key, and says why they are zero.
    CHECK(metrics->find("engines", "all", "ENGINE_SEARCH_SUCCESS"));
    // Back to a trace that measures them: the note goes and the rows come back.
    panel.setMetrics(std::make_shared<core::Metrics>(core::computeMetrics(test::panelsTraceBuilder().roundTrip())));
    CHECK(panel.searchNote()->isHidden());
    CHECK(rowsOf(panel.tree()->topLevelItem(0)).contains(QStringLiteral("ENGINE_SEARCH_SUCCESS")));
}
