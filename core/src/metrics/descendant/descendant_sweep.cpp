// The descendant pass by one sweep over time: what descendantPass runs. Exact; the segment-tree
// reference (descendant_reference.cpp) computes the same figures another way, and the tests check
// one against the other.
//
// Items are conjuncts, each in its innermost-only state (a conjunct whose context runs a nested
// conjunct is represented by that nested conjunct) plus its spark phase and unbound start (waiting).
// An item's own changes are +1/-1 on runnable and running, and on the two blocked-waiting counts
// while it waits and some context is suspended on a future it produces (directly, or through the
// transitive closure: see suspendedWaitsByProducer).
//
// Why a sweep: a change of an item at time t changes the curves of exactly its ancestor
// conjunctions, which are constant between their subtree's changes. So the sweep takes every item's
// changes in time order and carries each up its chain of ancestors, updating each ancestor J's
// counts. Only open instances hold state (taken at START_PAR_CONJ, turned into figures at
// END_PAR_CONJ), so the working set is the instances open at one time — the chains above what the
// engines run now — and stays in L1. Per J the sweep keeps, per conjunct position i, the counts w_i
// (waiting), r_i (running), bw_i / bt_i (blocked-waiting producers, direct / transitive) and n_i
// (items under position i):
//   out-of-order pairs      P = sum over i<j of w_i * r_j
//   blocking pairs          B = sum over i<j of bw_i * r_j   (and the same with bt)
//   pairs where A or B runs E = sum over i<j of r_i n_j + r_j n_i - r_i r_j
//                             = sum_i r_i (N - n_i) - ((sum_i r_i)^2 - sum_i r_i^2) / 2
// Every curve Q is integrated lazily (Q x T - sum of dQ x t, see Open), so a visit only adds the
// change's effect: dP = dw_i * sum_{j>i} r_j + dr_i * sum_{j<i} w_j (Fenwick prefixes for wide
// conjunctions), dE = dr_i (N - n_i - sum_j r_j + r_i). Maxima are taken from the values held since
// the previous visit. AVAIL_CPUS needs the minimum of CPUS_OVER_TIME since then: per level of
// CPUS, the end of its latest step (few levels: one per engine). Integrals are exact int64.
//
// Visiting every ancestor would cost changes x depth. But most ancestors, most of the time, see
// changes through one position only: the chain above the conjunction an engine is working in.
// Those ancestors subscribe to a stream (see Stream) and are passed in one step; a change visits
// its own instance, its stream, and the few instances where work from two sides meets (how many of
// each on parfib: docs/performance.md, "Descendant pass: figures behind the code's choices").
//
// Many changes are handovers: a conjunct's context starting a nested conjunction passes its
// state to the nested first conjunct at that instant, and takes it back from the last one. They
// cancel above the nested conjunction, so the pair is applied there alone (see Slice::handover).
//
// Parallel: the time axis is cut into slices with about equal numbers of changes (at quantiles of
// the instances' starts), sorted and swept at once. A slice starts with the instances open at its
// start, their counts rebuilt from the items' states there; a straddling instance's integrals add
// up and its maxima combine across slices.
//
// Bounded memory: the entries are 16 bytes per change, several changes per conjunct — on a big
// trace of our runtime, more than the model itself. So a big trace is swept in rounds: each round
// is a run of consecutive slices (one per worker), and only its entries exist at once. A round's
// entries come from the conjunctions whose entries can fall in its time range (entryBounds), each
// generating its changes and keeping those in the range; a long-lived instance generates again in
// every round it spans (few do: the chains above what the engines run). A round covers about
// kConjunctionsPerRound instance starts, so the entries held stay near fifty megabytes whatever
// the trace's length (figures: docs/performance.md, "Descendant pass: figures behind the code's
// choices").
//
// Cost: O(changes x (instances where two sides meet on the way up)), plus a settlement per
// instance leaving a stream (O(log) for its maxima), plus one sort of each round's changes, plus
// per round the changes again of the instances it shares with other rounds (an item's top pieces
// are bisected to the round's window, so a long-lived item costs the pieces in it). A split moves
// the shorter side of a stream, and an instance whose other side has finished absorbs the stream
// below it again, so a right-recursive loop 20,000 deep stays in one stream. Not bounded by
// O(changes x log) as the segment trees are: where many levels keep work on two sides at once,
// each change visits each of them.
//
// Files: sweep_changes.h/.cpp (the entries: generated from the items' pieces, sorted, and summed
// into the items' states at the slices' cuts), sweep_state.h (an open instance's state, a stream's),
// sweep_slice.h/.cpp (one slice: each change's walk up the open instances), sweep_streams.cpp (the
// streams: subscribe, settle, split, absorb), and this file (the pass: slices cut and grouped in
// rounds, each round's entries made and sorted and its slices swept in parallel, the parts of
// straddling instances combined).
#include "metrics/descendant/sweep_changes.h"
#include "metrics/descendant/sweep_slice.h"

#include <algorithm>
#include <atomic>
#include <deque>
#include <limits>
#include <numeric>
#include <span>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_invoke.h>
#include <tbb/task_arena.h>
#include <tbb/task_group.h>
#include <utility>

namespace sparkscope::core::detail {

using namespace sweep;

namespace {
    // The chains: each conjunct's conjunction and position, each conjunction's parent and position,
    // and the items under every conjunct (children start after their parents, so reverse start
    // order sums subtrees bottom-up).
    void buildChains(const ParModel& m, std::vector<Link>& items, std::vector<Link>& up)
    {
        const size_t nConj = m.conjunctions.size();
        std::vector<int64_t> under(nConj, 0);
        // Links and counts are raw arrays by position: the typed indexes' values pick the slots.
        for (uint32_t j = uint32_t(nConj); j-- > 0;) {
            const ConjunctionInstance& ci = m.conjunctions[j];
            for (size_t i = 0; i < ci.conjuncts.size(); ++i) {
                const ConjunctIndex k = ci.conjuncts[i];
                int64_t n = 1;
                for (ConjunctionIndex child : m.childConjunctions(k))
                    n += under[child.value()];
                items[k.value()] = { j, uint32_t(i), n };
                under[j] += n;
            }
        }
        for (uint32_t j = 0; j < nConj; ++j)
            if (const ConjunctIndex p = m.conjunctions[j].parentConjunct; p.valid())
                up[j] = items[p.value()];
    }

    // Conjunctions per round (see the top of this file): on parfib, about 11 entries each, so a round
    // holds about 45 MB of entries, and twice that while they are sorted. (2^19 held twice that for
    // the same CPU time; the sweep's peak sits beside the model's, so its share counts.)
    constexpr size_t kConjunctionsPerRound = size_t(1) << 18;

    // Slices: cut at the start times of every (n / slices)th conjunction (instances are numbered in
    // start order, and the changes follow them closely enough to balance the work).
    // cut[s] <= t < cut[s + 1] for the entries of slice s.
    std::vector<int64_t> sliceCuts(const ParModel& m, size_t slices)
    {
        const size_t nConj = m.conjunctions.size();
        std::vector<int64_t> cut { std::numeric_limits<int64_t>::min() };
        for (size_t s = 1; s < slices; ++s)
            if (const int64_t t = I(m.conjunctions[nConj * s / slices].startNs); t > cut.back())
                cut.push_back(t);
        cut.push_back(std::numeric_limits<int64_t>::max());
        return cut;
    }

    // The times between which conjunction j's entries lie: its start and end when measured, and
    // each item's changes, which forEachItemPiece begins no earlier than the item's spark or start
    // and ends no later than its end (every piece is cut there). lo > hi: it has none.
    std::pair<uint64_t, uint64_t> entryBounds(const ParModel& m, const std::vector<uint8_t>& measured, uint32_t j)
    {
        const ConjunctionInstance& ci = m.conjunctions[j];
        uint64_t lo = UINT64_MAX, hi = 0;
        if (measured[j]) // (its start and end entries; either order, for damaged input)
            lo = std::min(ci.startNs, ci.endNs), hi = std::max(ci.startNs, ci.endNs);
        const uint64_t endLimit = ci.ended ? ci.endNs : m.endNs;
        for (ConjunctIndex k : ci.conjuncts) {
            const ConjunctInstance& g = m.conjunct(k);
            if (!g.fromSpark && !g.started)
                continue;
            if (g.fromSpark)
                lo = std::min(lo, g.sparkCreateNs);
            if (g.started)
                lo = std::min(lo, g.startNs);
            hi = std::max(hi, g.ended ? g.endNs : endLimit);
        }
        return { lo, hi };
    }

    // The rounds: runs of `perRound` consecutive slices, and for each the conjunctions whose entries
    // can fall in it (CSR, in instance order).
    struct Rounds {
        size_t perRound = 1;
        std::vector<size_t> offsets; // round r's conjunctions: members[offsets[r], offsets[r + 1])
        std::vector<uint32_t> members;
        size_t count() const { return offsets.size() - 1; }
        std::span<const uint32_t> of(size_t r) const
        {
            return { members.data() + offsets[r], offsets[r + 1] - offsets[r] };
        }
    };

    Rounds roundsOf(const ParModel& m, const std::vector<uint8_t>& measured, const std::vector<int64_t>& cut,
        size_t perRound)
    {
        const size_t nConj = m.conjunctions.size(), nSlices = cut.size() - 1;
        Rounds out;
        out.perRound = perRound;
        const size_t nRounds = (nSlices + perRound - 1) / perRound;
        out.offsets.assign(nRounds + 1, 0);
        if (nRounds == 1) {
            out.members.resize(nConj);
            std::iota(out.members.begin(), out.members.end(), 0u);
            out.offsets[1] = nConj;
            return out;
        }
        // Each conjunction's first and last round, then counted and placed. The entries' times are
        // signed (I): a time past INT64_MAX (damaged input) would not order as it does here, so such
        // a trace is swept in one round, as it was before rounds.
        std::vector<std::pair<uint32_t, uint32_t>> span(nConj, { 1, 0 }); // (none: first > last)
        std::atomic<bool> huge { false };
        tbb::parallel_for(tbb::blocked_range<uint32_t>(0, uint32_t(nConj)), [&](const auto& range) {
            for (uint32_t j = range.begin(); j != range.end(); ++j) {
                const auto [lo, hi] = entryBounds(m, measured, j);
                if (lo > hi)
                    continue;
                if (hi > uint64_t(std::numeric_limits<int64_t>::max()))
                    huge.store(true, std::memory_order_relaxed);
                else
                    span[j] = { uint32_t(sliceOf(cut, I(lo)) / perRound), uint32_t(sliceOf(cut, I(hi)) / perRound) };
            }
        });
        if (huge.load())
            return roundsOf(m, measured, cut, nSlices);
        for (const auto& [first, last] : span)
            for (uint32_t r = first; r <= last; ++r)
                ++out.offsets[r + 1];
        for (size_t r = 1; r <= nRounds; ++r)
            out.offsets[r] += out.offsets[r - 1];
        out.members.resize(out.offsets.back());
        std::vector<size_t> next(out.offsets.begin(), out.offsets.end() - 1);
        for (uint32_t j = 0; j < nConj; ++j)
            for (uint32_t r = span[j].first; r <= span[j].second; ++r)
                out.members[next[r]++] = j;
        return out;
    }

    // The changes, starts and ends of the round whose slices are [firstSlice, endSlice), generated in
    // parallel over its conjunctions into per-thread parts per slice; those outside it are dropped.
    // The parts are deques: growing one never copies what it holds (a vector's doublings copied the
    // entries and faulted in fresh pages for each copy; docs/performance.md).
    struct Parts {
        std::vector<std::deque<Entry>> slice;
        std::vector<Delta4> scratch;
    };
    using PartsPerThread = tbb::enumerable_thread_specific<Parts>;

    void generateEntries(const ParModel& m, const std::vector<uint8_t>& measured, const Producers& producers,
        const std::vector<int64_t>& cut, size_t firstSlice, size_t endSlice, std::span<const uint32_t> conjunctions,
        PartsPerThread& parts)
    {
        // The window: from the first slice's cut (none before the first) to the next round's (none
        // after the last). Its times are not negative when there are several rounds (roundsOf).
        const size_t nSlices = cut.size() - 1;
        const int64_t from = cut[firstSlice], to = cut[endSlice];
        const bool first = firstSlice == 0, last = endSlice == nSlices;
        const uint64_t fromNs = first ? 0 : uint64_t(from), toNs = last ? UINT64_MAX : uint64_t(to);
        tbb::parallel_for(tbb::blocked_range<size_t>(0, conjunctions.size()), [&](const auto& range) {
            Parts& out = parts.local();
            auto emit = [&](const Entry& e) {
                if ((!first && e.t < from) || (!last && e.t >= to))
                    return;
                const size_t s = endSlice - firstSlice == 1 ? firstSlice : sliceOf(cut, e.t);
                out.slice[s - firstSlice].push_back(e);
            };
            for (size_t i = range.begin(); i != range.end(); ++i) {
                const uint32_t j = conjunctions[i];
                const ConjunctionInstance& ci = m.conjunctions[j];
                const uint64_t endLimit = ci.ended ? ci.endNs : m.endNs;
                for (ConjunctIndex k : ci.conjuncts)
                    itemEntries(m, k, endLimit, producers.direct.of(k), producers.transitive.of(k), out.scratch, emit,
                        fromNs, toNs);
                if (measured[j]) {
                    emit({ I(ci.startNs), kStart | j, 0, 0, 0, 0 });
                    emit({ I(ci.endNs), kEnd | j, 0, 0, 0, 0 });
                }
            }
        });
    }

    // CPUS_OVER_TIME as the sweep reads it: steps, with 0 before its start and after its end.
    void cpuSteps(const StepFunction& cpus, std::vector<int64_t>& t, std::vector<int32_t>& v)
    {
        t.reserve(cpus.steps().size() + 2);
        t.push_back(INT64_MIN);
        v.push_back(0);
        for (const auto& s : cpus.steps()) {
            t.push_back(s.timeNs);
            v.push_back(int32_t(s.value));
        }
        if (!cpus.empty()) {
            t.push_back(cpus.endNs());
            v.push_back(0);
        }
    }

    // Instances seen by several slices: their parts combined.
    void combinePartial(const ParModel& m, std::vector<std::vector<std::pair<uint32_t, Raw>>>& partial,
        const StepFunction& cpus, size_t engines, DescSink& sink)
    {
        std::vector<std::pair<uint32_t, Raw>> all;
        for (auto& p : partial)
            all.insert(all.end(), p.begin(), p.end());
        std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        for (size_t i = 0; i < all.size();) {
            Raw acc = all[i].second;
            const uint32_t j = all[i].first;
            for (++i; i < all.size() && all[i].first == j; ++i)
                acc.combine(all[i].second);
            sink.put(j, Slice::finish(m.conjunctions[j], acc, cpus, engines));
        }
    }

    // Passes the values on, noting which instances had some: the sweep puts those of no length
    // itself, at the end (no entry of theirs closes them).
    class NotingSink final : public DescSink {
    public:
        NotingSink(DescSink& next, size_t conjunctions)
            : m_next(next)
            , m_put(conjunctions, 0)
        {
        }
        void put(uint32_t j, const DescValues& values) override
        {
            m_put[j] = 1; // (a byte per instance: threads write different ones)
            m_next.put(j, values);
        }
        bool wasPut(uint32_t j) const { return m_put[j] != 0; }

    private:
        DescSink& m_next;
        std::vector<uint8_t> m_put;
    };

    class VectorSink final : public DescSink {
    public:
        explicit VectorSink(std::vector<DescValues>& values)
            : m_values(values)
        {
        }
        void put(uint32_t j, const DescValues& values) override { m_values[j] = values; }

    private:
        std::vector<DescValues>& m_values;
    };

} // namespace

std::vector<DescValues> descendantPassSweep(const ParModel& m, const StepFunction& cpus, size_t engines,
    uint64_t fromNs, uint64_t toNs, size_t slices, size_t perRound)
{
    std::vector<DescValues> values(m.conjunctions.size());
    VectorSink sink(values);
    descendantSweepInto(m, cpus, engines, fromNs, toNs, sink, slices, perRound);
    return values;
}

void descendantSweepInto(const ParModel& m, const StepFunction& cpus, size_t engines, uint64_t fromNs, uint64_t toNs,
    DescSink& out, size_t slices, size_t perRound)
{
    const size_t nConj = m.conjunctions.size(), nItems = m.conjuncts.size();
    if (nConj == 0)
        return;
    NotingSink sink(out, nConj);
    std::vector<uint8_t> measured(nConj);
    tbb::parallel_for(size_t(0), nConj, [&](size_t j) {
        const ConjunctionInstance& ci = m.conjunctions[j];
        measured[j] = ci.complete && ci.startNs >= fromNs && ci.startNs < toNs;
    });
    // The chains are sequential, so built while the rounds are planned.
    std::vector<Link> items(nItems), up(nConj);
    tbb::task_group chains;
    chains.run([&] { buildChains(m, items, up); });

    // Slices, one per worker in each round (one in all for a small trace), and rounds enough to keep
    // each near kConjunctionsPerRound starts.
    if (perRound == 0)
        perRound = slices != 0 ? slices
            : nItems < 20000   ? 1
                               : size_t(std::max(1, tbb::this_task_arena::max_concurrency()));
    if (slices == 0)
        slices = perRound * ((nConj + kConjunctionsPerRound - 1) / kConjunctionsPerRound);
    const Producers producers = suspendedWaitsByProducer(m);
    const std::vector<int64_t> cut = sliceCuts(m, slices);
    const size_t nSlices = cut.size() - 1;
    const Rounds rounds = roundsOf(m, measured, cut, std::min(perRound, nSlices));
    const std::vector<std::vector<std::pair<uint32_t, Delta4>>> liveAt = statesAtCuts(m, cut, producers);
    chains.wait();

    Sweep sweep { m, items, up, measured, {}, {} };
    cpuSteps(cpus, sweep.cpuT, sweep.cpuV);
    std::vector<std::vector<std::pair<uint32_t, Raw>>> partial(nSlices);
    // Per slice of a round: each conjunction's Open, set back after the slice for the next round's.
    std::vector<std::vector<uint32_t>> slots(rounds.perRound, std::vector<uint32_t>(nConj, kNoIndex));
    for (size_t r = 0; r < rounds.count(); ++r) {
        // The round's entries into per-thread parts per slice; each slice's parts sorted into one
        // array, the slices in parallel; then the slices swept at once.
        const size_t first = r * rounds.perRound, end = std::min(nSlices, first + rounds.perRound);
        PartsPerThread parts([&] { return Parts { std::vector<std::deque<Entry>>(end - first), {} }; });
        generateEntries(m, measured, producers, cut, first, end, rounds.of(r), parts);
        std::vector<Entries> bucket(end - first);
        tbb::parallel_for(first, end, [&](size_t s) {
            std::vector<std::deque<Entry>*> sources;
            for (Parts& p : parts)
                sources.push_back(&p.slice[s - first]);
            bucket[s - first] = sortEntries(sources);
        });
        tbb::parallel_for(first, end, [&](size_t s) {
            Slice slice(sweep, slots[s - first]);
            slice.openAt(cut[s], rounds.of(r), liveAt[s]);
            const Entries& entries = bucket[s - first];
            slice.run(entries.begin(), entries.end(), cut[s + 1], sink, partial[s], cpus, engines);
            slice.clearSlots();
        });
    }
    combinePartial(m, partial, cpus, engines, sink);
    DescValues none;
    none.done = true;
    for (uint32_t j = 0; j < nConj; ++j)
        if (measured[j] && !sink.wasPut(j))
            out.put(j, none); // (instances of no length have no figures to sweep)
}

} // namespace sparkscope::core::detail
