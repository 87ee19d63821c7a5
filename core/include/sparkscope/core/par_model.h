#pragma once
// ParModel: the parallel-execution model reconstructed from a trace's events — unique conjunction
// instances (reused dynamic ids renamed apart), their conjuncts with positions, the conjunction
// tree, futures with their waits and signals, and each context's state over time. Every
// conjunction, conjunct and future metric (metrics.h) and the semantic check (check_model.h) is
// computed from it.
//
// The pre-pass (metrics.md "Pre-pass: unique instances") is one forward walk over the events in
// global time order (Trace::forEachInTimeOrder), with these rules:
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
// Context states: Running between RUN_THREAD and STOP_THREAD; Blocked from FUT_WAIT_SUSPENDED or a
// blocking STOP_THREAD (status 4, or GHC's 6..18 and 20) until THREAD_RUNNABLE / THREAD_WAKEUP /
// RUN_THREAD; Finished after STOP_THREAD(5) or RELEASE_CONTEXT; Runnable otherwise (from creation).
//
// Damaged input never stops the pass: an END without START, a spark run twice or never created, a
// conjunction that never ends (truncated file), ... is recorded in `problems` (with time and engine)
// and the affected instance gets complete = false; summaries leave incomplete instances out.
//
// Cost: O(n) for the merge of a few engines (O(n log k) for many) plus O(1) work per event in flat
// id maps (id_maps.h); ~22 ns/event on 2-engine demo traces (728 k and 13 M events), page faults on
// the output included (sparkscope-model-bench). Immutable after build; safe to share between threads for reading.
#include "sparkscope/core/check.h"
#include "sparkscope/core/trace.h"

#include <algorithm>
#include <array>
#include <boost/container/small_vector.hpp>
#include <boost/container/vector.hpp>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace sparkscope::core {

inline constexpr uint32_t kNoIndex = 0xFFFFFFFF;

namespace detail {
    class ParModelBuilder;
}

enum class ContextState : uint8_t { Runnable = 0, Running = 1, Blocked = 2, Finished = 3 };

// IndexList: a short list of uint32 indexes in 16 bytes, the first two inline (no heap block), more
// in a heap block. A conjunction's conjuncts and futures are such lists: nearly every conjunction
// has two conjuncts and no futures, and a large trace holds millions of conjunctions, so each byte
// of the instance costs (boost's small_vector<uint32_t, 2> is 32 bytes, std::vector 24). Reads as a
// contiguous range (begin/end, size, [], front/back); push_back is amortised O(1).
class IndexList {
public:
    IndexList() noexcept { }
    IndexList(std::initializer_list<uint32_t> items) { assign(items.begin(), items.end()); }
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

    uint32_t* begin() noexcept { return data(); }
    uint32_t* end() noexcept { return data() + m_size; }
    const uint32_t* begin() const noexcept { return data(); }
    const uint32_t* end() const noexcept { return data() + m_size; }
    uint32_t* data() noexcept { return onHeap() ? m_heap : m_inline; }
    const uint32_t* data() const noexcept { return onHeap() ? m_heap : m_inline; }
    size_t size() const noexcept { return m_size; }
    bool empty() const noexcept { return m_size == 0; }
    uint32_t operator[](size_t i) const noexcept { return data()[i]; }
    uint32_t& operator[](size_t i) noexcept { return data()[i]; }
    uint32_t front() const noexcept { return data()[0]; }
    uint32_t back() const noexcept { return data()[m_size - 1]; }
    void clear() noexcept { m_size = 0; }

    void push_back(uint32_t value)
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
        uint32_t* out = data();
        for (; first != last; ++first)
            *out++ = static_cast<uint32_t>(*first);
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
        uint32_t* bigger = new uint32_t[capacity];
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
        uint32_t m_inline[kInline];
        uint32_t* m_heap;
    };
};
static_assert(sizeof(IndexList) == 16);

// Fields are ordered by size so the instance arrays have no padding holes: the model of a large
// trace holds hundreds of thousands of each, and every byte is a page fault on first touch.
struct ConjunctionInstance {
    uint64_t dynId = 0;
    uint64_t startNs = 0;
    uint64_t endNs = 0; // valid when ended
    uint32_t staticId = 0; // INTERN_STRING id of the source location
    uint32_t startContext = kNoIndex; // index into ParModel::contexts
    uint32_t parentConjunct = kNoIndex; // index into ParModel::conjuncts
    uint32_t depth = 0; // 0 for a root conjunction
    uint16_t startEngine = kNoEngine;
    uint16_t endEngine = kNoEngine;
    bool ended = false;
    bool complete = false; // ended, and every conjunct ended before it
    // By position: conjuncts[k-1] is position k. Two inline slots (IndexList): nearly every
    // conjunction has two conjuncts, and a heap block per instance was a fifth of the model pass.
    IndexList conjuncts;
    IndexList futures; // indexes into ParModel::futures
};

struct ConjunctInstance {
    uint64_t sparkCreateNs = 0;
    uint64_t startNs = 0; // START_PAR_CONJ for position 1, SPARK_RUN/SPARK_STEAL otherwise
    uint64_t endNs = 0; // END_PAR_CONJUNCT
    uint32_t conjunction = kNoIndex;
    uint32_t position = 0; // 1-based
    uint32_t sparkId = 0;
    uint32_t context = kNoIndex; // index into ParModel::contexts of the executing context, once bound
    uint16_t sparkEngine = kNoEngine; // engine whose deque held the spark
    uint16_t startEngine = kNoEngine;
    uint16_t endEngine = kNoEngine;
    bool fromSpark = false; // false for position 1 (run by the starting context)
    bool started = false;
    bool stolen = false;
    bool ended = false;
    bool complete = false;
};

struct FutureWait {
    uint64_t timeNs = 0;
    bool suspended = false; // 106 (before the signal) rather than 105
    uint32_t context = kNoIndex; // index into ParModel::contexts
    uint32_t conjunct = kNoIndex; // the waiting conjunct (innermost of the context), if any
    uint16_t engine = kNoEngine;
};

struct FutureInstance {
    uint64_t futureId = 0;
    uint32_t nameId = 0; // INTERN_STRING id of the variable name
    uint32_t conjunction = kNoIndex; // the instance it was created for
    uint64_t createNs = 0;
    bool signalled = false;
    uint64_t signalNs = 0;
    uint32_t signalConjunct = kNoIndex;
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
    uint32_t top = kNoIndex; // innermost conjunct being executed, if any
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

    // Extra counts used by the whole-program metrics.
    uint64_t contextsCreated = 0, contextsReused = 0, contextsReleased = 0;

    // "file.m:12" for a static id, or "static#<id>" when the trace has no such string.
    std::string staticName(uint32_t staticId) const;
    std::string stringOr(uint32_t id, const char* prefix) const;

    // Conjunction instances started directly inside conjunct k (its children in the conjunction tree).
    std::span<const uint32_t> childConjunctions(uint32_t conjunct) const noexcept
    {
        if (conjunct + 1 >= m_childOffsets.size())
            return {};
        return { m_children.data() + m_childOffsets[conjunct],
            m_childOffsets[conjunct + 1] - m_childOffsets[conjunct] };
    }

    // Time a context spent in each ContextState within [a, b), innermost-conjunct-agnostic.
    // Returns {runnable, running, blocked, finished}. O(log n + segments in range).
    std::array<uint64_t, 4> contextTimeInStates(uint32_t contextIndex, uint64_t a, uint64_t b) const;

    // Pieces of time during which conjunct k was the innermost conjunct of its context, with the
    // context's state: every context segment belongs to exactly one conjunct (or none), so all
    // pieces together are linear in the segments. Sorted by time.
    struct TopPiece {
        uint64_t startNs, endNs;
        ContextState state;
    };
    std::span<const TopPiece> topPieces(uint32_t conjunct) const noexcept
    {
        if (conjunct + 1 >= m_pieceOffsets.size())
            return {};
        return { m_pieces.data() + m_pieceOffsets[conjunct], m_pieceOffsets[conjunct + 1] - m_pieceOffsets[conjunct] };
    }

    // Fills the child, state and top-piece indexes from the instances and segments. buildParModel
    // builds them as it goes instead; this is for a model assembled by other means.
    void indexChildren();

private:
    friend class detail::ParModelBuilder; // the pass of buildParModel: counts pieces and children as it goes
    // With the piece and child counts of conjunct k in pieceCounts[k] and childCounts[k] (one per
    // conjunct), each conjunction's parentConjunct in parentOf[j], and the contexts' states built,
    // fills both indexes.
    void indexFromCounts(const uint32_t* pieceCounts, const uint32_t* childCounts, const uint32_t* parentOf);

    // The offset arrays are boost's vectors for the same reason as m_pieces: every slot is written.
    boost::container::vector<uint32_t> m_childOffsets; // CSR: children of k are m_children[off[k], off[k+1])
    std::vector<uint32_t> m_children;
    boost::container::vector<size_t> m_pieceOffsets; // CSR: top pieces of conjunct k
    boost::container::vector<TopPiece> m_pieces; // boost's: can grow without zeroing (all slots get written)
};

ParModel buildParModel(const Trace& trace);

} // namespace sparkscope::core
