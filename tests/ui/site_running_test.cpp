// Which code ran where (ui/analysis/site_running.h) on the panels tests' conjunction trace: the running
// time per static id equals the analysis ledger's running time in and outside conjuncts (the same
// model segments, and no GC or search overlaps a run in this trace), splits of adjacent ranges add
// up, and the sites' level-of-detail index holds the same time per colour slot as runningBySite.
#include "panels_test_trace.h"
#include "ui/analysis/site_running.h"

#include "sparkscope/core/analysis.h"

#include <catch2/catch.hpp>

#include <map>

using namespace sparkscope;
using namespace sparkscope::ui;

namespace {
std::map<std::string, uint64_t> byName(const std::vector<SiteTime>& split)
{
    std::map<std::string, uint64_t> out;
    for (const SiteTime& s : split)
        out[s.site] += s.ns;
    return out;
}
} // namespace

TEST_CASE("running time by static id matches the ledger and adds up over ranges", "[ui][sites]")
{
    const core::Trace trace = test::panelsTraceBuilder().roundTrip();
    const core::AnalysisSession session(trace);
    const core::ParModel& model = session.model();
    const core::Analysis a = session.analyze();
    const auto whole = runningBySite(model, 0, UINT64_MAX);
    REQUIRE(whole.size() == 2);
    const auto names = byName(whole);
    CHECK(names.at("fib.m:12") == a.ledger.total[core::LossCategory::RunningInConjunct]);
    CHECK(names.at("outside every conjunct") == a.ledger.total[core::LossCategory::RunningOutsideConjunct]);
    CHECK(whole[0].ns >= whole[1].ns); // largest first
    // Context 1 runs [100, 200) before the conjunction starts: sequential code only.
    const auto before = byName(runningBySite(model, 100, 200));
    CHECK(before.size() == 1);
    CHECK(before.at("outside every conjunct") == 100);
    // Adjacent ranges add up.
    for (uint64_t cut : { 250, 420, 700, 805 }) {
        auto left = byName(runningBySite(model, 0, cut)), right = byName(runningBySite(model, cut, 1100));
        for (const auto& [site, ns] : names)
            CHECK(left[site] + right[site] == ns);
    }
    // The index by colour slot: slot 0 sequential, slot 1 the one static id.
    const auto rows = computeSiteRows(model, trace.engines.size(), 0, 1100);
    REQUIRE(rows->slots.size() == 1);
    CHECK(rows->slots[0].site == "fib.m:12");
    std::array<uint64_t, core::LodIndex::kMaxStates> busy {}, sum {};
    for (size_t e = 0; e < rows->lod.engineCount(); ++e) {
        rows->lod.busy(e, 0, 1100, std::span(busy).first(rows->lod.stateCount()));
        for (size_t k = 0; k < rows->lod.stateCount(); ++k)
            sum[k] += busy[k];
    }
    CHECK(sum[0] == names.at("outside every conjunct"));
    CHECK(sum[1] == names.at("fib.m:12"));
    CHECK(sum[kSiteSlots + 1] == 0);
}
