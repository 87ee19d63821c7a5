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
// Cost: O(changes x (instances where two sides meet on the way up)), plus a settlement per
// instance leaving a stream (O(log) for its maxima), plus one sort of the changes. A split moves
// the shorter side of a stream, and an instance whose other side has finished absorbs the stream
// below it again, so a right-recursive loop 20,000 deep stays in one stream. Not bounded by
// O(changes x log) as the segment trees are: where many levels keep work on two sides at once,
// each change visits each of them.
//
// Files: sweep_changes.h/.cpp (the entries: generated from the items' pieces, sorted, and summed
// into the items' states at the slices' cuts), sweep_state.h (an open instance's state, a stream's),
// sweep_slice.h/.cpp (one slice: each change's walk up the open instances), sweep_streams.cpp (the
// streams: subscribe, settle, split, absorb), and this file (the pass: slices cut, entries made and
// sorted, slices swept in parallel, the parts of straddling instances combined).
#include "metrics/descendant/sweep_changes.h"
#include "metrics/descendant/sweep_slice.h"

#include <algorithm>
#include <deque>
#include <limits>
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

    // Slices: cut at the start times of every (n / slices)th conjunction (instances are numbered in
    // start order, and the changes follow them closely enough to balance the work).
    // cut[s] <= t < cut[s + 1] for the entries of slice s.
    std::vector<int64_t> sliceCuts(const ParModel& m, size_t slices)
    {
        const size_t nConj = m.conjunctions.size();
        if (slices == 0)
            slices = m.conjuncts.size() < 20000 ? 1 : size_t(std::max(1, tbb::this_task_arena::max_concurrency()));
        std::vector<int64_t> cut { std::numeric_limits<int64_t>::min() };
        for (size_t s = 1; s < slices; ++s)
            if (const int64_t t = I(m.conjunctions[nConj * s / slices].startNs); t > cut.back())
                cut.push_back(t);
        cut.push_back(std::numeric_limits<int64_t>::max());
        return cut;
    }

    // Every change, start and end, generated in parallel over conjunctions into per-thread parts
    // per slice. The parts are deques: growing one never copies what it holds (a vector's doublings
    // copied the entries and faulted in fresh pages for each copy; docs/performance.md).
    struct Parts {
        std::vector<std::deque<Entry>> slice;
        std::vector<Delta4> scratch;
    };
    using PartsPerThread = tbb::enumerable_thread_specific<Parts>;

    void generateEntries(const ParModel& m, const std::vector<uint8_t>& measured, const Producers& producers,
        const std::vector<int64_t>& cut, PartsPerThread& parts)
    {
        const size_t nSlices = cut.size() - 1;
        tbb::parallel_for(tbb::blocked_range<uint32_t>(0, uint32_t(m.conjunctions.size())), [&](const auto& range) {
            Parts& out = parts.local();
            auto emit = [&](const Entry& e) {
                const size_t s = nSlices == 1
                    ? 0
                    : size_t(std::upper_bound(cut.begin() + 1, cut.end() - 1, e.t) - cut.begin() - 1);
                out.slice[s].push_back(e);
            };
            for (uint32_t j = range.begin(); j != range.end(); ++j) {
                const ConjunctionInstance& ci = m.conjunctions[j];
                const uint64_t endLimit = ci.ended ? ci.endNs : m.endNs;
                for (ConjunctIndex k : ci.conjuncts)
                    itemEntries(m, k, endLimit, producers.direct.of(k), producers.transitive.of(k), out.scratch, emit);
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
        const StepFunction& cpus, size_t engines, std::vector<DescValues>& values)
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
            values[j] = Slice::finish(m.conjunctions[j], acc, cpus, engines);
        }
    }

} // namespace

std::vector<DescValues> descendantPassSweep(
    const ParModel& m, const StepFunction& cpus, size_t engines, uint64_t fromNs, uint64_t toNs, size_t slices)
{
    const size_t nConj = m.conjunctions.size(), nItems = m.conjuncts.size();
    std::vector<DescValues> values(nConj);
    if (nConj == 0)
        return values;
    std::vector<uint8_t> measured(nConj);
    tbb::parallel_for(size_t(0), nConj, [&](size_t j) {
        const ConjunctionInstance& ci = m.conjunctions[j];
        measured[j] = ci.complete && ci.startNs >= fromNs && ci.startNs < toNs;
    });
    // The chains are sequential, so built while the changes are generated.
    std::vector<Link> items(nItems), up(nConj);
    tbb::task_group chains;
    chains.run([&] { buildChains(m, items, up); });

    // Every change, start and end, into per-thread parts per slice; then each slice's parts sorted
    // into one array, the slices in parallel, beside the items' states at the cuts.
    const Producers producers = suspendedWaitsByProducer(m);
    const std::vector<int64_t> cut = sliceCuts(m, slices);
    const size_t nSlices = cut.size() - 1;
    PartsPerThread parts([&] { return Parts { std::vector<std::deque<Entry>>(nSlices), {} }; });
    generateEntries(m, measured, producers, cut, parts);
    chains.wait();
    std::vector<Entries> bucket(nSlices);
    std::vector<std::vector<std::pair<uint32_t, Delta4>>> liveAt(nSlices);
    tbb::parallel_invoke(
        [&] {
            tbb::parallel_for(size_t(0), nSlices, [&](size_t s) {
                std::vector<std::deque<Entry>*> sources;
                for (Parts& p : parts)
                    sources.push_back(&p.slice[s]);
                bucket[s] = sortEntries(sources);
            });
        },
        [&] {
            if (nSlices > 1)
                liveAt = statesAtCuts(m, cut, producers);
        });

    Sweep sweep { m, items, up, measured, {}, {} };
    cpuSteps(cpus, sweep.cpuT, sweep.cpuV);
    std::vector<std::vector<std::pair<uint32_t, Raw>>> partial(nSlices);
    std::vector<std::vector<uint32_t>> slots(nSlices);
    tbb::parallel_for(size_t(0), nSlices, [&](size_t s) {
        slots[s].assign(nConj, kNoIndex);
        Slice slice(sweep, slots[s]);
        slice.openAt(cut[s], liveAt[s]);
        slice.run(bucket[s].begin(), bucket[s].end(), cut[s + 1], values, partial[s], cpus, engines);
    });
    for (uint32_t j = 0; j < nConj; ++j)
        values[j].done = measured[j]; // (instances of no length have no figures to sweep)
    combinePartial(m, partial, cpus, engines, values);
    return values;
}

} // namespace sparkscope::core::detail
