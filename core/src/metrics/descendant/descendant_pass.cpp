// The descendant pass behind PARCONJ_RUNNABLE/RUNNING_SELF_AND_DESC, PARCONJ_AVAIL_CPUS and
// OUT_OF_ORDER_*: its entry point, and what both of its forms read (an item's pieces, and the
// suspended waits blamed on each producer).
//
// Two forms give the same figures, exactly. descendantPass runs the sweep over time
// (descendant_sweep.cpp): it is faster on every trace measured, deep ones included (figures:
// docs/performance.md, "Descendant pass: figures behind the code's choices"). The segment-tree merge
// (descendant_reference.cpp) is O(changes x log(times)) whatever the nesting depth; it is the tests'
// second, independent computation of every figure, and it computes one instance alone from its
// subtree (the app's hover menu), which the sweep, made for the whole trace, does not.
#include "metrics/descendant/descendant_pass.h"

#include <algorithm>
#include <functional>

#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

namespace sparkscope::core::detail {

namespace {
    using I = int64_t;
} // namespace

uint64_t bindTime(const ParModel& m, const ConjunctInstance& g, ConjunctIndex k)
{
    if (!g.context.valid())
        return g.endNs;
    const auto pieces = m.topPieces(k);
    return pieces.empty() ? g.startNs : std::max(pieces.front().startNs, g.startNs);
}

std::vector<DescValues> descendantPass(
    const ParModel& m, const StepFunction& cpus, size_t engines, uint64_t fromNs, uint64_t toNs)
{
    return descendantPassSweep(m, cpus, engines, fromNs, toNs);
}

void descendantPassInto(
    const ParModel& m, const StepFunction& cpus, size_t engines, uint64_t fromNs, uint64_t toNs, DescSink& sink)
{
    descendantSweepInto(m, cpus, engines, fromNs, toNs, sink);
}

SpansByConjunct::SpansByConjunct(size_t conjuncts, std::vector<std::pair<uint32_t, Interval>> spans)
{
    std::sort(spans.begin(), spans.end());
    m_offsets.assign(conjuncts + 1, 0);
    for (size_t i = 0; i < spans.size();) {
        const uint32_t k = spans[i].first;
        Interval current = spans[i].second;
        auto emit = [&] {
            if (current.second > current.first) {
                m_spans.push_back(current);
                ++m_offsets[k + 1];
            }
        };
        for (++i; i < spans.size() && spans[i].first == k; ++i) {
            const Interval& next = spans[i].second;
            if (next.first <= current.second)
                current.second = std::max(current.second, next.second);
            else {
                emit();
                current = next;
            }
        }
        emit();
    }
    for (size_t k = 0; k < conjuncts; ++k)
        m_offsets[k + 1] += m_offsets[k];
}

Producers suspendedWaitsByProducer(const ParModel& m)
{
    // A graph search over raw integer arrays (CSR offsets, blame per conjunct, a heap of conjunct
    // positions): the model's typed indexes are read as value() where they enter it.
    const size_t nk = m.conjuncts.size();
    auto counts = [](const FutureInstance& f, const FutureWait& w) {
        return f.signalled && f.signalConjunct.valid() && w.suspended && w.timeNs < f.signalNs;
    };
    // The futures each conjunct signals, and the direct spans.
    std::vector<uint32_t> offsets(nk + 1, 0), signalled;
    std::vector<std::pair<uint32_t, Interval>> direct;
    for (const FutureInstance& f : m.futures)
        if (f.signalled && m.contains(f.signalConjunct)) {
            const uint32_t producer = f.signalConjunct.value();
            ++offsets[producer + 1];
            for (const FutureWait& w : f.waits)
                if (counts(f, w))
                    direct.push_back({ producer, { w.timeNs, f.signalNs } });
        }
    for (size_t k = 0; k < nk; ++k)
        offsets[k + 1] += offsets[k];
    signalled.resize(offsets[nk]);
    {
        std::vector<uint32_t> fill(offsets.begin(), offsets.end() - 1);
        for (uint32_t i = 0; i < m.futures.size(); ++i)
            if (const FutureInstance& f = m.futures[i]; f.signalled && m.contains(f.signalConjunct))
                signalled[fill[f.signalConjunct.value()]++] = i;
    }
    std::vector<uint32_t> roots;
    for (const auto& d : direct)
        if (roots.empty() || roots.back() != d.first)
            roots.push_back(d.first);
    std::sort(roots.begin(), roots.end());
    roots.erase(std::unique(roots.begin(), roots.end()), roots.end());

    // Transitive: from each producer A, the earliest blame of every conjunct reached through
    // suspended waits (Dijkstra on blame times: a path's blame only grows along it).
    struct Local {
        std::vector<int64_t> blame;
        std::vector<uint32_t> touched;
        std::vector<std::pair<uint32_t, Interval>> spans;
    };
    tbb::enumerable_thread_specific<Local> locals;
    tbb::parallel_for(size_t(0), roots.size(), [&](size_t r) {
        Local& l = locals.local();
        if (l.blame.empty())
            l.blame.assign(nk, INT64_MAX);
        const uint32_t a = roots[r];
        const ConjunctInstance& g = m.conjuncts[a];
        const int64_t lifeEnd = I(g.ended ? g.endNs : m.endNs);
        using Item = std::pair<int64_t, uint32_t>;
        std::vector<Item> heap { { INT64_MIN, a } };
        l.blame[a] = INT64_MIN;
        l.touched.push_back(a);
        while (!heap.empty()) {
            std::pop_heap(heap.begin(), heap.end(), std::greater<> {});
            const auto [blame, x] = heap.back();
            heap.pop_back();
            if (blame > l.blame[x])
                continue;
            for (uint32_t i = offsets[x]; i < offsets[x + 1]; ++i) {
                const FutureInstance& f = m.futures[signalled[i]];
                for (const FutureWait& w : f.waits) {
                    const int64_t from = std::max(I(w.timeNs), blame);
                    if (!counts(f, w) || from >= I(f.signalNs) || from >= lifeEnd)
                        continue;
                    l.spans.push_back({ a, { uint64_t(from), uint64_t(std::min(I(f.signalNs), lifeEnd)) } });
                    if (const uint32_t c = w.conjunct.value(); c < nk && from < l.blame[c]) {
                        if (l.blame[c] == INT64_MAX)
                            l.touched.push_back(c);
                        l.blame[c] = from;
                        heap.push_back({ from, c });
                        std::push_heap(heap.begin(), heap.end(), std::greater<> {});
                    }
                }
            }
        }
        for (uint32_t x : l.touched)
            l.blame[x] = INT64_MAX;
        l.touched.clear();
    });
    std::vector<std::pair<uint32_t, Interval>> transitive;
    for (auto& l : locals)
        transitive.insert(transitive.end(), l.spans.begin(), l.spans.end());
    return { SpansByConjunct(nk, std::move(direct)), SpansByConjunct(nk, std::move(transitive)) };
}

} // namespace sparkscope::core::detail
