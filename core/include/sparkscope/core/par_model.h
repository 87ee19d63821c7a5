#pragma once
// ParModel: the parallel-execution model reconstructed from a trace's events — unique conjunction
// instances (reused dynamic ids renamed apart), their conjuncts with positions, the conjunction
// tree, futures with their waits and signals, and each context's state over time. Every
// conjunction, conjunct and future metric (metrics.h) and the semantic check (check_model.h) is
// computed from it.
//
// The pre-pass (metrics.md "Pre-pass: unique instances") is one forward walk over the events in
// global time order (Trace::forEachInTimeOrder), except at an instant shared by several engines'
// events, which have no order of their own (a microsecond clock gives many): there an event that
// would contradict the model — END_PAR_CONJ with a conjunct still open, RUN_THREAD of a context still
// running on another engine, SPARK_RUN/SPARK_STEAL of a spark not made yet — waits for the other
// engines' events of that instant (each engine's in file order), and goes anyway when nothing else
// can go. So an END_PAR_CONJ whose last conjunct ends at the same instant on a higher-numbered
// engine finds it ended. The rules:
//   - START_PAR_CONJ(dyn, static) on engine E opens a new conjunction instance; its first conjunct
//     (position 1) starts there, in the context running on E. FUTURE_CREATEs that context posted
//     since its previous START_PAR_CONJ belong to the new instance.
//   - SPARK_CREATE(dyn, spark) adds the next conjunct (position 2, 3, ... in creation order) to the
//     open instance with that dyn id; it exists as a spark from then on.
//   - SPARK_RUN / SPARK_STEAL(spark) starts that conjunct's execution. Its context is the one running
//     on that engine, or else the next context to RUN_THREAD there.
//   - A context keeps a stack of the conjuncts it is executing (a conjunct that starts a nested
//     conjunction stays on the stack under the nested one's conjunct). END_PAR_CONJUNCT(dyn) ends
//     the innermost open conjunct of that conjunction in the posting context.
//   - END_PAR_CONJ(dyn) closes the open instance with that dyn id and retires its futures, so the
//     same address may name a later conjunction or future.
//   - The parent of a conjunction is the innermost conjunct of the starting context at its start.
// Context states: Running between RUN_THREAD and STOP_THREAD but for its engine's collections
// (GC_START..GC_END, as the engine states read them: Runnable then); Blocked from FUT_WAIT_SUSPENDED or a
// blocking STOP_THREAD (status 4, or GHC's 6..18 and 20) until THREAD_RUNNABLE / THREAD_WAKEUP /
// RUN_THREAD; Finished after STOP_THREAD(5) or RELEASE_CONTEXT; Runnable otherwise (from creation).
//
// The instances point at each other by typed index (indices.h: ContextIndex, ConjunctionIndex,
// ConjunctIndex, FutureIndex; none where there is nothing to point at), read through
// ParModel::context(), conjunction(), conjunct() and future(); the compiler rejects an index of one
// array used for another.
//
// Damaged input never stops the pass: an END without START, a spark run twice or never created, a
// conjunction that never ends (truncated file), ... is recorded in `problems` (with time and engine)
// and the affected instance gets complete = false; summaries leave incomplete instances out.
//
// Cost: O(n) for the merge of a few engines (O(n log k) for many) plus O(1) work per event in flat
// id maps (id_maps.h); ~22 ns/event on 2-engine demo traces (728 k and 13 M events), page faults on
// the output included (sparkscope-model-bench). Immutable after build; safe to share between threads for reading.
#include "sparkscope/core/check.h"
#include "sparkscope/core/indices.h"
#include "sparkscope/core/trace.h"

#include <algorithm>
#include <array>
#include <boost/container/small_vector.hpp>
#include <boost/container/vector.hpp>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <span>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <vector>

namespace sparkscope::core {

namespace detail {
    class ParModelBuilder;
}

enum class ContextState : uint8_t { Runnable = 0, Running = 1, Blocked = 2, Finished = 3 };

// IndexList<I>: a short list of indexes of one kind (indices.h) in 16 bytes, the first two inline
// (no heap block), more in a heap block. A conjunction's conjuncts are such a list: nearly every
// conjunction has two, and a large trace holds millions of conjunctions, so each byte of the
// instance costs (boost's small_vector<uint32_t, 2> is 32 bytes, std::vector 24). Reads as a
// contiguous range (begin/end, size, [], front/back); push_back is amortised O(1).
template <class I> class IndexList {
    static_assert(sizeof(I) == sizeof(uint32_t) && std::is_trivially_copyable_v<I>);

public:
    IndexList() noexcept { }
    IndexList(std::initializer_list<I> items) { assign(items.begin(), items.end()); }
    IndexList(const IndexList& other) { assign(other.begin(), other.end()); }
    IndexList(IndexList&& other) noexcept { take(other); }
    IndexList& operator=(const IndexList& other)
    {
        if (this != &other) {
            clear();
            assign(other.begin(), other.end());
        }
        return *this;
    }
    IndexList& operator=(IndexList&& other) noexcept
    {
        if (this != &other) {
            release();
            take(other);
        }
        return *this;
    }
    ~IndexList() { release(); }

    I* begin() noexcept { return data(); }
    I* end() noexcept { return data() + m_size; }
    const I* begin() const noexcept { return data(); }
    const I* end() const noexcept { return data() + m_size; }
    I* data() noexcept { return onHeap() ? m_heap : m_inline; }
    const I* data() const noexcept { return onHeap() ? m_heap : m_inline; }
    size_t size() const noexcept { return m_size; }
    bool empty() const noexcept { return m_size == 0; }
    I operator[](size_t i) const noexcept { return data()[i]; }
    I& operator[](size_t i) noexcept { return data()[i]; }
    I front() const noexcept { return data()[0]; }
    I back() const noexcept { return data()[m_size - 1]; }
    void clear() noexcept { m_size = 0; }

    void push_back(I value)
    {
        if (m_size == m_capacity)
            grow(2 * size_t(m_capacity));
        data()[m_size++] = value;
    }
    template <class It> void assign(It first, It last)
    {
        clear();
        const size_t n = size_t(std::distance(first, last));
        if (n > m_capacity)
            grow(n);
        I* out = data();
        for (; first != last; ++first)
            *out++ = *first;
        m_size = static_cast<uint32_t>(n);
    }

    friend bool operator==(const IndexList& a, const IndexList& b) noexcept
    {
        return std::equal(a.begin(), a.end(), b.begin(), b.end());
    }

private:
    static constexpr uint32_t kInline = 2;
    bool onHeap() const noexcept { return m_capacity > kInline; }
    void grow(size_t capacity)
    {
        I* bigger = new I[capacity];
        std::copy(begin(), end(), bigger);
        release();
        m_heap = bigger;
        m_capacity = static_cast<uint32_t>(capacity);
    }
    void release() noexcept
    {
        if (onHeap())
            delete[] m_heap;
        m_capacity = kInline;
    }
    void take(IndexList& other) noexcept
    {
        m_size = other.m_size;
        m_capacity = other.m_capacity;
        if (other.onHeap())
            m_heap = other.m_heap;
        else
            std::copy(other.m_inline, other.m_inline + other.m_size, m_inline);
        other.m_size = 0;
        other.m_capacity = kInline;
    }

    uint32_t m_size = 0;
    uint32_t m_capacity = kInline; // more than kInline: the items are in m_heap
    union {
        I m_inline[kInline];
        I* m_heap;
    };
};
static_assert(sizeof(IndexList<ConjunctIndex>) == 16 && sizeof(IndexList<FutureIndex>) == 16);

// Fields are ordered by size so the instance arrays have no padding holes: the model of a large
// trace holds hundreds of thousands of each, and every byte is a page fault on first touch.
struct ConjunctionInstance {
    uint64_t dynId = 0;
    uint64_t startNs = 0;
    uint64_t endNs = 0; // valid when ended
    uint32_t staticId = 0; // INTERN_STRING id of the source location
    ContextIndex startContext;
    ConjunctIndex parentConjunct; // none for a root conjunction
    uint32_t depth = 0; // 0 for a root conjunction
    uint16_t startEngine = kNoEngine;
    uint16_t endEngine = kNoEngine;
    bool ended = false;
    bool complete = false; // ended, and every conjunct ended before it
    // By position: conjuncts[k-1] is position k. Two inline slots (IndexList): nearly every
    // conjunction has two conjuncts, and a heap block per instance was a fifth of the model pass.
    // (Its futures are ParModel::futuresOf: most conjunctions have none, and a list here took 16 bytes
    // of every instance.)
    IndexList<ConjunctIndex> conjuncts;
};
static_assert(sizeof(ConjunctionInstance) == 64);

struct ConjunctInstance {
    uint64_t sparkCreateNs = 0;
    uint64_t startNs = 0; // START_PAR_CONJ for position 1, SPARK_RUN/SPARK_STEAL otherwise
    uint64_t endNs = 0; // END_PAR_CONJUNCT
    ConjunctionIndex conjunction;
    uint32_t position = 0; // 1-based
    uint32_t sparkId = 0;
    ContextIndex context; // the executing context, once bound
    uint16_t sparkEngine = kNoEngine; // engine whose deque held the spark
    uint16_t startEngine = kNoEngine;
    uint16_t endEngine = kNoEngine;
    // One byte for the five flags (bit-fields): a big trace holds millions of conjuncts, and the
    // record is 48 bytes with them packed where five bools made it 56.
    bool fromSpark : 1 = false; // false for position 1 (run by the starting context)
    bool started : 1 = false;
    bool stolen : 1 = false;
    bool ended : 1 = false;
    bool complete : 1 = false;
};
static_assert(sizeof(ConjunctInstance) == 48);

struct FutureWait {
    uint64_t timeNs = 0;
    bool suspended = false; // 106 (before the signal) rather than 105
    ContextIndex context;
    ConjunctIndex conjunct; // the waiting conjunct (innermost of the context), if any
    uint16_t engine = kNoEngine;
};

struct FutureInstance {
    uint64_t futureId = 0;
    uint32_t nameId = 0; // INTERN_STRING id of the variable name
    ConjunctionIndex conjunction; // the instance it was created for
    uint64_t createNs = 0;
    bool signalled = false;
    uint64_t signalNs = 0;
    ConjunctIndex signalConjunct;
    uint32_t signalCount = 0;
    // Inline room for one wait (most futures are waited on once or not at all): no heap block each.
    boost::container::small_vector<FutureWait, 1> waits;
    bool complete = false; // signalled exactly once, and its conjunction is complete
};

// One piece of a context's life: from startNs until the next segment's start (or the trace end).
struct ContextSegment {
    uint64_t startNs = 0;
    ContextState state = ContextState::Runnable;
    uint16_t engine = kNoEngine; // the engine when Running
    ConjunctIndex top; // innermost conjunct being executed, if any
};

// A context id is given a new timeline when it is created again after it finished (ids are reused).
struct ContextStateChange {
    uint64_t startNs = 0;
    ContextState state = ContextState::Runnable;
};

struct ContextTimeline {
    uint32_t id = 0;
    std::vector<ContextStateChange> states; // the segments merged where only engine or top changed
    std::vector<ContextSegment> segments; // sorted; a new one whenever state, engine or top changes
};

class ParModel {
public:
    std::vector<ConjunctionInstance> conjunctions; // in start order
    std::vector<ConjunctInstance> conjuncts;
    std::vector<FutureInstance> futures;
    std::vector<ContextTimeline> contexts; // in order of first appearance
    std::unordered_map<uint32_t, std::string> strings; // INTERN_STRING id -> text
    std::vector<Problem> problems; // contradictions found by the pass, in time order
    uint64_t endNs = 0; // the trace's last time: open segments end here

    size_t incompleteConjunctions = 0;
    size_t incompleteConjuncts = 0;
    size_t incompleteFutures = 0;

    // A context that had blocked running again: where it last ran and where it resumed.
    struct Resume {
        uint64_t timeNs;
        uint16_t fromEngine, toEngine;
    };
    std::vector<Resume> resumes;

    // When contexts were created (CREATE_THREAD, or CREATE_SPARK_THREAD for an id not already live),
    // reused (REUSE_THREAD) and released, in time order: the whole-program metrics count those in
    // their range (a few per context: our runtime reuses its contexts, GHC threads are thousands).
    std::vector<uint64_t> contextCreations, contextReuses, contextReleases;

    // The element an index names (unchecked, as vector's []); contains() tests an index first.
    const ContextTimeline& context(ContextIndex c) const noexcept { return contexts[c.value()]; }
    const ConjunctionInstance& conjunction(ConjunctionIndex j) const noexcept { return conjunctions[j.value()]; }
    const ConjunctInstance& conjunct(ConjunctIndex k) const noexcept { return conjuncts[k.value()]; }
    const FutureInstance& future(FutureIndex f) const noexcept { return futures[f.value()]; }
    ContextTimeline& context(ContextIndex c) noexcept { return contexts[c.value()]; }
    ConjunctionInstance& conjunction(ConjunctionIndex j) noexcept { return conjunctions[j.value()]; }
    ConjunctInstance& conjunct(ConjunctIndex k) noexcept { return conjuncts[k.value()]; }
    FutureInstance& future(FutureIndex f) noexcept { return futures[f.value()]; }
    // Whether the index names an element (false for none).
    bool contains(ContextIndex c) const noexcept { return c.value() < contexts.size(); }
    bool contains(ConjunctionIndex j) const noexcept { return j.value() < conjunctions.size(); }
    bool contains(ConjunctIndex k) const noexcept { return k.value() < conjuncts.size(); }
    bool contains(FutureIndex f) const noexcept { return f.value() < futures.size(); }

    // "file.m:12" for a static id, or "static#<id>" when the trace has no such string.
    std::string staticName(uint32_t staticId) const;
    std::string stringOr(uint32_t id, const char* prefix) const;

    // Conjunction instances started directly inside conjunct k (its children in the conjunction tree).
    std::span<const ConjunctionIndex> childConjunctions(ConjunctIndex k) const noexcept
    {
        const size_t i = k.value(); // the CSR offsets are raw positions
        if (i + 1 >= m_childOffsets.size())
            return {};
        return { m_children.data() + m_childOffsets[i], m_childOffsets[i + 1] - m_childOffsets[i] };
    }

    // The futures created for conjunction j (those whose `conjunction` is j), in creation order.
    std::span<const FutureIndex> futuresOf(ConjunctionIndex j) const noexcept
    {
        const size_t i = j.value(); // the CSR offsets are raw positions
        if (i + 1 >= m_futureOffsets.size())
            return {};
        return { m_futuresByConjunction.data() + m_futureOffsets[i], m_futureOffsets[i + 1] - m_futureOffsets[i] };
    }

    // Time a context spent in each ContextState within [a, b), innermost-conjunct-agnostic.
    // Returns {runnable, running, blocked, finished}. O(log n + segments in range).
    std::array<uint64_t, 4> contextTimeInStates(ContextIndex c, uint64_t a, uint64_t b) const;

    // Pieces of time during which conjunct k was the innermost conjunct of its context, with the
    // context's state: every context segment belongs to exactly one conjunct (or none), so all
    // pieces together are linear in the segments. Sorted by time. Each piece is one segment of the
    // context, read as a TopPiece (its start, the next segment's start, its state); the index holds
    // only where the segment is, 8 bytes where a copy of the piece took 24 (a big trace has about one
    // piece per event in three).
    struct TopPiece {
        uint64_t startNs, endNs;
        ContextState state;
    };
    class TopPieces;
    TopPieces topPieces(ConjunctIndex k) const noexcept;

    // Whether topPieces can be read: the index is built (buildParModel, indexChildren, indexTopPieces)
    // and not released.
    bool hasTopPieces() const noexcept { return m_pieceOffsets.size() == conjuncts.size() + 1; }
    // Frees the top-piece index (8 bytes per piece and 8 per conjunct: ~105 MB of the 13 M-event demo
    // parfib), for a caller done with the metrics' passes over the conjuncts' pieces — their only
    // readers (conjunctionCurves, conjunctionFigures and conjunctTimeSplit, so conjunctFigures, refuse
    // a model without it) — before what it builds next (computeMetricsWithSession, before the
    // analysis' DAG). indexTopPieces builds it again from the segments.
    void releaseTopPieces() noexcept;
    void indexTopPieces();

    // Fills the child, state, top-piece and future indexes from the instances and segments.
    // buildParModel builds them as it goes instead; this is for a model assembled by other means.
    void indexChildren();
    // Fills the index futuresOf reads from each future's `conjunction` (buildParModel does, at its end).
    void indexFutures();

private:
    friend class detail::ParModelBuilder; // the pass of buildParModel: counts pieces and children as it goes
    // With the piece and child counts of conjunct k in pieceCounts[k] and childCounts[k] (one per
    // conjunct), the value of each conjunction's parentConjunct in parentOf[j], and the contexts'
    // states built, fills both indexes (the child index alone when pieceCounts is null). Raw arrays
    // by position: the builder's packed counters.
    void indexFromCounts(const uint32_t* pieceCounts, const uint32_t* childCounts, const uint32_t* parentOf);
    void indexPieces(const uint32_t* pieceCounts); // the top-piece index alone, from its counts
    std::vector<uint32_t> countPieces() const; // per conjunct, from the segments

    // Where a top piece is: a context, and the position of the segment in its segments.
    struct PieceRef {
        uint32_t context, segment;
    };
    TopPiece piece(PieceRef r) const noexcept
    {
        const std::vector<ContextSegment>& segs = contexts[r.context].segments;
        const ContextSegment& s = segs[r.segment];
        const uint64_t end = r.segment + 1 < segs.size() ? segs[r.segment + 1].startNs : std::max(endNs, s.startNs);
        return { s.startNs, end, s.state };
    }

    // The offset arrays are boost's vectors for the same reason as m_pieces: every slot is written.
    boost::container::vector<uint32_t> m_childOffsets; // CSR: children of k are m_children[off[k], off[k+1])
    std::vector<ConjunctionIndex> m_children;
    std::vector<uint32_t> m_futureOffsets; // CSR: futures of conjunction j; empty when there are none
    std::vector<FutureIndex> m_futuresByConjunction; // their futures, conjunction after conjunction
    boost::container::vector<size_t> m_pieceOffsets; // CSR: top pieces of conjunct k
    boost::container::vector<PieceRef> m_pieces; // boost's: can grow without zeroing (all slots get written)
};

// The top pieces of one conjunct (ParModel::topPieces): a range of TopPiece values, each read from
// its segment when reached. It points into the model it came from (as a span into a vector would),
// so it is for use while that model stays where it is.
class ParModel::TopPieces {
public:
    class iterator {
    public:
        using iterator_category = std::input_iterator_tag;
        using value_type = TopPiece;
        using difference_type = std::ptrdiff_t;
        using pointer = void;
        using reference = TopPiece;
        iterator() = default;
        iterator(const ParModel* m, const PieceRef* at) noexcept
            : m_model(m)
            , m_at(at)
        {
        }
        TopPiece operator*() const noexcept { return m_model->piece(*m_at); }
        iterator& operator++() noexcept
        {
            ++m_at;
            return *this;
        }
        iterator operator++(int) noexcept
        {
            iterator old = *this;
            ++m_at;
            return old;
        }
        friend bool operator==(const iterator& a, const iterator& b) noexcept { return a.m_at == b.m_at; }

    private:
        const ParModel* m_model = nullptr;
        const PieceRef* m_at = nullptr;
    };

    TopPieces() = default;
    TopPieces(const ParModel* m, std::span<const PieceRef> refs) noexcept
        : m_model(m)
        , m_refs(refs)
    {
    }
    iterator begin() const noexcept { return { m_model, m_refs.data() }; }
    iterator end() const noexcept { return { m_model, m_refs.data() + m_refs.size() }; }
    size_t size() const noexcept { return m_refs.size(); }
    bool empty() const noexcept { return m_refs.empty(); }
    TopPiece operator[](size_t i) const noexcept { return m_model->piece(m_refs[i]); }
    TopPiece front() const noexcept { return (*this)[0]; }

private:
    const ParModel* m_model = nullptr;
    std::span<const PieceRef> m_refs;
};

inline ParModel::TopPieces ParModel::topPieces(ConjunctIndex k) const noexcept
{
    const size_t i = k.value(); // the CSR offsets are raw positions
    if (i + 1 >= m_pieceOffsets.size())
        return {};
    return { this, { m_pieces.data() + m_pieceOffsets[i], m_pieceOffsets[i + 1] - m_pieceOffsets[i] } };
}

// withTopPieces = false leaves the top-piece index out (hasTopPieces() is false until indexTopPieces):
// for a caller that reads the pieces only after it has let the trace go (computeMetrics when its
// caller gives the trace up), so the index is not built beside the events.
ParModel buildParModel(const Trace& trace, bool withTopPieces = true);

} // namespace sparkscope::core
