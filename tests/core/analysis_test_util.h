#pragma once
// Helpers shared by the analysis tests: ledger look-ups by key, a ledger built from an initializer,
// and the critical path's segments in a compact, comparable form.
#include "sparkscope/core/analysis.h"

#include <catch2/catch.hpp>

#include <functional>
#include <string>
#include <vector>

namespace sparkscope::test {

// {running_in, running_out, gc, searching, work_available, future, barrier, other, no_work}
inline core::LossLedger ledgerOf(std::array<uint64_t, core::kLossCategoryCount> ns)
{
    core::LossLedger l;
    l.ns = ns;
    return l;
}

inline std::string describe(const core::LossLedger& l)
{
    std::string s;
    for (size_t i = 0; i < core::kLossCategoryCount; ++i)
        s += std::string(core::lossCategoryKey(core::LossCategory(i))) + "=" + std::to_string(l.ns[i]) + " ";
    return s;
}

inline void checkLedger(const core::LossLedger& actual, const core::LossLedger& expected)
{
    INFO("actual:   " << describe(actual));
    INFO("expected: " << describe(expected));
    CHECK(actual.ns == expected.ns);
}

// The entry of `site` in a report's per-site list (SiteLedger, SiteWorkSpan).
template <class Site> const Site& findSite(const std::vector<Site>& sites, const std::string& site)
{
    for (const auto& s : sites)
        if (s.site == site)
            return s;
    FAIL("no entry for site " << site);
    static Site none;
    return none;
}

inline const core::SiteLedger& siteLedger(const core::Analysis& a, const std::string& site)
{
    return findSite(a.ledger.perConjunction, site);
}

inline const core::SiteWorkSpan& siteWorkSpan(const core::Analysis& a, const std::string& site)
{
    return findSite(a.workSpan.perConjunction, site);
}

// A segment as "kind from-to ctx/position" (position 0: outside every conjunct).
inline std::vector<std::string> pathOf(const core::Analysis& a)
{
    std::vector<std::string> out;
    REQUIRE(a.criticalPath);
    for (const auto& s : a.criticalPath->segments)
        out.push_back(std::string(core::pathKindKey(s.kind)) + " " + std::to_string(s.fromNs) + "-"
            + std::to_string(s.toNs) + " c" + std::to_string(s.context) + "/" + std::to_string(s.position));
    return out;
}

// The sums every analysis satisfies (analysis_invariants_test.cpp); `intact`: the trace is not
// damaged, so no dependency may be left out either.
void checkAnalysisSums(const core::Analysis& a, const std::string& what, bool intact);

// Each demo workload (parfib, sumeuler, quicksort, pipeline, imbalanced; small sizes) recorded on 2
// engines by sparkscope-demo into the scratch directory `scratch`, handed to f(name, trace). False,
// with a warning, when sparkscope-demo is not built.
bool forEachDemoTrace(const std::string& scratch, const std::function<void(const std::string&, const core::Trace&)>& f);

// A random program (metrics_sim.h) cut short at a random instant, as a file that ends early.
core::Trace truncatedRandomProgram(uint64_t seed);
// A random program with six events lost or posted twice.
core::Trace damagedRandomProgram(uint64_t seed);

} // namespace sparkscope::test
