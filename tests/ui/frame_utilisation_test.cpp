// The utilisation row (frame_utilisation.cpp): every column's split into the loss ledger's categories
// equals a brute-force sum of the analysis' ledger pieces clipped to the column (forEachLedgerPiece),
// on random traces and the conjunction trace of the panels tests, at random zooms down to columns
// narrower than a nanosecond; and the row as drawn: a column that is half running and half idle is a
// bar half in each colour.
#include "panels_test_trace.h"
#include "support/test_data.h"
#include "support/trace_builder.h"
#include "ui/export/timeline_export.h"
#include "ui/timeline/frame.h"
#include "ui/timeline/frame_builders.h"

#include "sparkscope/core/event_types.h"
#include "sparkscope/core/ledger_curves.h"
#include "sparkscope/core/reader.h"

#include <catch2/catch.hpp>

#include <random>

using namespace sparkscope;
using namespace sparkscope::ui;

namespace {

// Three engines running random contexts with random stops (blocked, yielding, finished), wake-ups
// and garbage collections: every idle category of a GHC-like trace turns up.
core::Trace randomTrace(uint64_t seed)
{
    std::mt19937_64 rng(seed);
    test::TraceBuilder b(3);
    uint32_t nextContext = 1;
    for (uint16_t e = 0; e < 3; ++e) {
        uint64_t t = rng() % 50;
        for (int i = 0; i < 40; ++i) {
            t += rng() % 80;
            if (rng() % 6 == 0) {
                b.gcStart(e, t);
                t += 1 + rng() % 40;
                b.gcEnd(e, t);
                continue;
            }
            const uint32_t c = nextContext++;
            b.createThread(e, t, c).runThread(e, t + 1, c);
            t += 2 + rng() % 120;
            const uint16_t status = rng() % 3 == 0 ? core::kStopBlocked : rng() % 2 ? core::kStopYielding
                                                                                  : core::kStopFinished;
            b.stopThread(e, t, c, status);
            if (status != core::kStopFinished)
                b.threadRunnable(e, t + 1 + rng() % 60, c);
        }
    }
    b.endAt(6000);
    return b.roundTrip();
}

// Brute force: the ledger pieces inside each column, summed per category.
std::vector<core::LossLedger> bruteForce(const core::AnalysisSession& session, const FrameColumns& c)
{
    std::vector<core::LossLedger> out(size_t(c.count));
    for (long i = 0; i < c.count; ++i) {
        int64_t a = c.bounds[size_t(i)], b = c.bounds[size_t(i) + 1];
        if (a == b) {
            a = c.mid(i);
            b = a + 1;
        }
        if (b <= 0)
            continue;
        session.forEachLedgerPiece(uint64_t(std::max<int64_t>(0, a)), uint64_t(b), [&](const core::LedgerPiece& p) {
            for (core::LossCategory k : p.categories)
                out[size_t(i)][k] += p.toNs - p.fromNs;
        });
    }
    return out;
}

void checkAgainstBruteForce(const core::Trace& trace, uint64_t seed)
{
    const core::AnalysisSession session(trace);
    const core::LedgerCurves curves = core::computeLedgerCurves(session);
    std::mt19937_64 rng(seed);
    const int64_t first = curves.beginNs, last = curves.endNs;
    for (int round = 0; round < 12; ++round) {
        // Windows from the whole trace (and beyond it) down to a few ns over hundreds of columns.
        const int64_t span = std::max<int64_t>(1, (last - first) >> (rng() % 12));
        const int64_t start = first - span / 4 + int64_t(rng() % uint64_t(std::max<int64_t>(1, last - first)));
        const double width = double(1 + rng() % 600);
        const double dpr = rng() % 2 ? 1.0 : 2.0;
        const TimeAxis axis { start, start + span, FrameLayout::kGutter, width };
        const FrameColumns columns(axis, dpr);
        INFO("window " << start << " + " << span << " over " << columns.count << " columns");
        const auto fast = utilisationColumns(curves, columns);
        const auto slow = bruteForce(session, columns);
        REQUIRE(fast.size() == slow.size());
        for (size_t i = 0; i < fast.size(); ++i) {
            INFO("column " << i);
            CHECK(fast[i].ns == slow[i].ns);
        }
    }
}

} // namespace

TEST_CASE("the utilisation row's columns are the exact ledger of their time ranges", "[ui][frame][utilisation]")
{
    for (uint64_t seed = 1; seed <= 6; ++seed) {
        INFO("random trace " << seed);
        checkAgainstBruteForce(randomTrace(seed), seed);
    }
    checkAgainstBruteForce(test::panelsTraceBuilder().roundTrip(), 99);
    if (const auto path = test::sharedTestData("ghc/parfib-12-30.eventlog")) {
        auto trace = core::readTrace(path->string());
        REQUIRE(trace);
        checkAgainstBruteForce(trace.value(), 5);
    }
}

TEST_CASE("the utilisation row draws a half-running column half in each colour", "[ui][frame][utilisation]")
{
    // Engine 0 runs context 1 over [0, 1000); engine 1 never runs: in one column over [0, 1000) half
    // the engine time is sequential code (running outside every conjunct), half idle with no work.
    test::TraceBuilder b(2);
    b.createThread(0, 0, 1).runThread(0, 0, 1).stopThread(0, 1000, 1, core::kStopFinished);
    b.endAt(1000);
    auto data = buildTraceData(b.roundTrip());
    const core::AnalysisSession session(*data->trace);
    TimelineRows rows;
    rows.ledger = std::make_shared<const core::LedgerCurves>(core::computeLedgerCurves(session));
    Viewport v { int(FrameLayout::kGutter) + 1 + 4, 600, 1.0, { 0, 1000 } };
    v.showUtilisation = true;
    const Frame f = frame(*data, v, nullptr, &rows);
    REQUIRE(f.layout.hasUtilisation());
    const QImage& strip = f.utilisationStrip.pixels;
    REQUIRE(strip.width() == 1);
    const int h = strip.height();
    CHECK(h == int(f.layout.utilisationHeight));
    const auto ink = [&](int y) { return Ink(strip.pixelIndex(0, y)); };
    CHECK(ink(h - 1) == Ink::LedgerRunningOutsideConjunct); // running at the bottom
    CHECK(ink(0) == Ink::LedgerIdleNoWork); // idle on top
    int running = 0;
    for (int y = 0; y < h; ++y)
        running += ink(y) == Ink::LedgerRunningOutsideConjunct;
    CHECK(std::abs(running - h / 2) <= 1);
    // Highlighting "no work" fades the other category.
    v.ledgerHighlight = int(core::LossCategory::IdleNoWork);
    const Frame g = frame(*data, v, nullptr, &rows);
    CHECK(Ink(g.utilisationStrip.pixels.pixelIndex(0, h - 1)) == Ink::LedgerFaded);
    CHECK(Ink(g.utilisationStrip.pixels.pixelIndex(0, 0)) == Ink::LedgerIdleNoWork);
    // Without the ledger yet, the row says it is being computed; switched off, it takes no room.
    TimelineRows pending;
    pending.ledgerPending = true;
    const Frame p = frame(*data, v, nullptr, &pending);
    CHECK(p.layout.hasUtilisation());
    CHECK(p.utilisationStrip.pixels.isNull());
    v.showUtilisation = false;
    CHECK_FALSE(frame(*data, v, nullptr, &rows).layout.hasUtilisation());

    // The timeline export (PNG here; SVG and PDF replay the same frame) draws the row when it is on.
    v.showUtilisation = true;
    v.ledgerHighlight = -1;
    v.width = 400;
    const FramePalette palette = FramePalette::fromPalette(QPalette());
    const QImage image = renderTimelineImage(*data, v, palette, nullptr, &rows);
    const FrameLayout layout = frame(*data, v, nullptr, &rows).layout;
    const int x = int(FrameLayout::kGutter) + 100;
    const QColor bottom = image.pixelColor(x, int(layout.utilisationTop() + layout.utilisationHeight - 3));
    const QColor top = image.pixelColor(x, int(layout.utilisationTop() + 2));
    CHECK(bottom == palette.ink[size_t(Ink::LedgerRunningOutsideConjunct)]);
    CHECK(top == palette.ink[size_t(Ink::LedgerIdleNoWork)]);
}
