// The pre-pass of metrics.md: one forward walk in global time order that renames reused dynamic ids
// apart and reconstructs conjunction instances, conjuncts, futures and context timelines (rules in
// par_model.h). Why one sequential pass rather than per-engine parallel work: conjunctions, sparks
// and futures cross engines (a spark created on one engine runs on another), so the walk needs the
// global order; it does O(1) work per event, and everything after it (metrics.cpp) is parallel per
// static id. The walk is ParModelBuilder (par_model_builder.h, one file per family of events); this
// file holds the model's own functions and the indexes built after the walk.
//
// What keeps the pass small (figures: docs/performance.md, "Model and reader"):
//   - ids are looked up in flat maps (id_maps.h): dense vectors for spark and context ids, open
//     addressing for addresses, where a node-based hash map's node per entry would dominate;
//   - the walk is Trace::forEachInTimeOrder itself, skipping unused event types inline, instead of
//     a pointer list merged through a heap;
//   - no heap block per instance (a conjunction's conjuncts sit in a 16-byte IndexList; its futures,
//     which most have none of, in an index built after the walk) and instance arrays sized exactly
//     from a parallel count of their events;
//   - the output is large (tens of MB for a 700 k-event trace) and first-touch page faults would
//     cost as much as the walk's own work, so large arrays are advised for huge pages and the
//     instance arrays prefaulted in a parallel task (util/large_array.h);
//   - completeness is decided when each conjunction ends, and the piece and child indexes are
//     built in parallel over contexts, from counters kept during the walk (calloc'd: no memset).
// The walk stays on one thread: the ways of splitting it across two that were measured lost
// as soon as another process wanted the second core (docs/performance.md).
#include "sparkscope/core/par_model.h"

#include "model/par_model_builder.h"
#include "util/large_array.h"

#include <algorithm>
#include <tbb/parallel_for.h>
#include <tbb/parallel_invoke.h>

namespace sparkscope::core {

std::string ParModel::stringOr(uint32_t id, const char* prefix) const
{
    auto it = strings.find(id);
    if (it != strings.end())
        return it->second;
    return std::string(prefix) + std::to_string(id);
}

std::string ParModel::staticName(uint32_t staticId) const { return stringOr(staticId, "static#"); }

std::array<uint64_t, 4> ParModel::contextTimeInStates(ContextIndex c, uint64_t a, uint64_t b) const
{
    std::array<uint64_t, 4> out {};
    if (!contains(c) || b <= a)
        return out;
    const auto& segs = context(c).states;
    auto it = std::upper_bound(
        segs.begin(), segs.end(), a, [](uint64_t t, const ContextStateChange& s) { return t < s.startNs; });
    if (it != segs.begin())
        --it;
    for (; it != segs.end() && it->startNs < b; ++it) {
        const uint64_t next = (it + 1 != segs.end()) ? (it + 1)->startNs : std::max(endNs, b);
        const uint64_t from = std::max(a, it->startNs), to = std::min(b, next);
        if (to > from)
            out[static_cast<size_t>(it->state)] += to - from;
    }
    return out;
}

void ParModel::indexChildren()
{
    // The state changes of each context, and the counts of every conjunct's top pieces and children.
    tbb::parallel_for(size_t(0), contexts.size(), [&](size_t c) {
        ContextTimeline& ctx = contexts[c];
        ctx.states.clear();
        for (const auto& seg : ctx.segments)
            if (ctx.states.empty() || ctx.states.back().state != seg.state)
                ctx.states.push_back({ seg.startNs, seg.state });
    });
    const std::vector<uint32_t> pieceCounts = countPieces();
    std::vector<uint32_t> childCounts(conjuncts.size());
    for (const auto& ci : conjunctions)
        if (ci.parentConjunct.valid())
            ++childCounts[ci.parentConjunct.value()];
    std::vector<uint32_t> parentOf(conjunctions.size()); // raw, as the builder's packed copy
    for (size_t j = 0; j < conjunctions.size(); ++j)
        parentOf[j] = conjunctions[j].parentConjunct.value();
    indexFromCounts(pieceCounts.data(), childCounts.data(), parentOf.data());
    indexFutures();
}

void ParModel::indexFutures()
{
    m_futureOffsets.clear();
    m_futuresByConjunction.clear();
    if (futures.empty())
        return; // futuresOf is then empty for every conjunction, with no offsets at all
    // A counting sort by conjunction, as the indexes below: futures are in creation order, so each
    // conjunction's come out in it.
    m_futureOffsets.assign(conjunctions.size() + 1, 0);
    for (const FutureInstance& f : futures)
        if (contains(f.conjunction))
            ++m_futureOffsets[f.conjunction.value() + 1];
    for (size_t j = 0; j < conjunctions.size(); ++j)
        m_futureOffsets[j + 1] += m_futureOffsets[j];
    m_futuresByConjunction.resize(m_futureOffsets.back());
    std::vector<uint32_t> fill(m_futureOffsets.begin(), m_futureOffsets.end() - 1);
    for (uint32_t f = 0; f < futures.size(); ++f)
        if (contains(futures[f].conjunction))
            m_futuresByConjunction[fill[futures[f].conjunction.value()]++] = FutureIndex(f);
}

void ParModel::indexPieces(const uint32_t* pieceCounts)
{
    // The counting-sort pattern of indexFromCounts (below).
    const size_t n = conjuncts.size();
    m_pieceOffsets.clear();
    m_pieceOffsets.resize(n + 1, boost::container::default_init);
    detail::adviseHugePages(m_pieceOffsets.data(), m_pieceOffsets.size() * sizeof(size_t));
    size_t sum = 0;
    for (size_t k = 0; k < n; ++k) {
        m_pieceOffsets[k] = sum;
        sum += pieceCounts[k];
    }
    m_pieceOffsets[n] = sum;
    // Every slot is written below, so the pieces are not zeroed first.
    m_pieces.reserve(sum);
    detail::adviseHugePages(m_pieces.data(), m_pieces.capacity() * sizeof(PieceRef));
    m_pieces.resize(sum, boost::container::default_init);
    // A context's segments are in time order, so each conjunct's pieces come out sorted.
    tbb::parallel_for(size_t(0), contexts.size(), [&](size_t c) {
        const auto& segs = contexts[c].segments;
        for (size_t i = 0; i < segs.size(); ++i)
            if (const ConjunctIndex top = segs[i].top; top.valid())
                m_pieces[m_pieceOffsets[top.value()]++] = { uint32_t(c), uint32_t(i) };
    });
    std::copy_backward(m_pieceOffsets.begin(), m_pieceOffsets.end() - 1, m_pieceOffsets.end());
    m_pieceOffsets[0] = 0;
}

std::vector<uint32_t> ParModel::countPieces() const
{
    // Contexts are independent, and all segments of a conjunct lie in the one context that ran it, so
    // this runs in parallel over contexts: each context writes only its own conjuncts' counters.
    std::vector<uint32_t> counts(conjuncts.size());
    tbb::parallel_for(size_t(0), contexts.size(), [&](size_t c) {
        for (const auto& seg : contexts[c].segments)
            if (seg.top.valid())
                ++counts[seg.top.value()];
    });
    return counts;
}

void ParModel::indexTopPieces()
{
    const std::vector<uint32_t> counts = countPieces();
    indexPieces(counts.data());
}

void ParModel::releaseTopPieces() noexcept
{
    boost::container::vector<size_t>().swap(m_pieceOffsets);
    boost::container::vector<PieceRef>().swap(m_pieces);
}

void ParModel::indexFromCounts(const uint32_t* pieceCounts, const uint32_t* childCounts, const uint32_t* parentOf)
{
    // Both indexes are CSR arrays filled by the counting-sort pattern: offsets[k] = the start of k's
    // range (an exclusive prefix sum of the counts), fill using offsets[k] as k's cursor (which
    // leaves it at k's end, the start of k + 1), then shift the offsets back by one slot. Counts,
    // offsets and parents are raw integer arrays by position (packed, calloc'd by the builder); the
    // typed indexes are read and made at their edges.
    const size_t n = conjuncts.size();
    auto children = [&] {
        m_childOffsets.clear();
        m_childOffsets.resize(n + 1, boost::container::default_init);
        uint32_t sum = 0;
        for (size_t k = 0; k < n; ++k) {
            m_childOffsets[k] = sum;
            sum += childCounts[k];
        }
        m_childOffsets[n] = sum;
        m_children.assign(sum, ConjunctionIndex(0));
        for (uint32_t j = 0; j < conjunctions.size(); ++j)
            if (parentOf[j] != kNoIndex)
                m_children[m_childOffsets[parentOf[j]]++] = ConjunctionIndex(j);
        std::copy_backward(m_childOffsets.begin(), m_childOffsets.end() - 1, m_childOffsets.end());
        m_childOffsets[0] = 0;
    };
    if (pieceCounts)
        tbb::parallel_invoke([&] { indexPieces(pieceCounts); }, children);
    else
        children();
}

ParModel buildParModel(const Trace& trace, bool withTopPieces)
{
    ParModel m;
    detail::ParModelBuilder b(trace, m);
    b.run(withTopPieces);
    return m;
}

} // namespace sparkscope::core
