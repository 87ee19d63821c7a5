// The pre-pass of metrics.md: one forward walk in global time order that renames reused dynamic ids
// apart and reconstructs conjunction instances, conjuncts, futures and context timelines (rules in
// par_model.h). Why one sequential pass rather than per-engine parallel work: conjunctions, sparks
// and futures cross engines (a spark created on one engine runs on another), so the walk needs the
// global order; it does O(1) work per event, and everything after it (metrics.cpp) is parallel per
// static id.
//
// Where the time goes, and what keeps it small (sparkscope-model-bench, 728 k-event demo parfib:
// 60-70 ms before these measures, ~20 ms after, cold memory each run):
//   - ids are looked up in flat maps (id_maps.h): dense vectors for spark and context ids, open
//     addressing for addresses; std::unordered_map's node per entry was most of the old cost;
//   - the walk is Trace::forEachInTimeOrder itself, skipping unused event types inline, instead of
//     a pointer list merged through a heap;
//   - no heap block per instance (a conjunction's conjuncts and futures sit in 16-byte IndexLists)
//     and instance arrays sized exactly from a parallel count of their events;
//   - the output is ~50 MB for that trace and, on a virtual machine, first-touch page faults cost
//     as much as the walk's own work: large arrays are advised for huge pages and the instance
//     arrays prefaulted in a parallel task (adviseLargeArray);
//   - completeness is decided when each conjunction ends, and the piece and child indexes are
//     built in parallel over contexts, from counters kept during the walk (calloc'd: no memset).
// On the 13 M-event demo parfib (n 37) the walk is ~85% of the pass (~18 ns/event), and its profile
// is flat: decoding and merging, the id maps, the instance and segment writes (~300 bytes per
// conjunction) each take a modest share. Tried and measured there, not kept: merging and decoding
// on a second thread a ring of chunks ahead of the walk (~13% less wall time on an idle machine,
// slower as soon as another process wants the other core), and splitting the walk into an id stage
// and a context stage on two threads (slower: the instance cache lines then travel between cores).
#include "sparkscope/core/par_model.h"

#include "sparkscope/core/engine_states.h"
#include "sparkscope/core/id_maps.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <new>
#include <tbb/parallel_for.h>
#include <tbb/parallel_invoke.h>
#include <tbb/task_group.h>

#ifdef __linux__
#include <sys/mman.h>
#endif

namespace sparkscope::core {

std::string ParModel::stringOr(uint32_t id, const char* prefix) const
{
    auto it = strings.find(id);
    if (it != strings.end())
        return it->second;
    return std::string(prefix) + std::to_string(id);
}

std::string ParModel::staticName(uint32_t staticId) const { return stringOr(staticId, "static#"); }

std::array<uint64_t, 4> ParModel::contextTimeInStates(uint32_t contextIndex, uint64_t a, uint64_t b) const
{
    std::array<uint64_t, 4> out {};
    if (contextIndex >= contexts.size() || b <= a)
        return out;
    const auto& segs = contexts[contextIndex].states;
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

namespace {

    // The model's large arrays are first touched page by page as the pass fills them, and on a
    // virtual machine a page fault costs ~0.5-1 us: for a 700 k-event trace that was a third of the
    // pass. So once an array's final size is reserved, the kernel is asked to back it with huge pages
    // where it can (MADV_HUGEPAGE) and to map it all in one call (MADV_POPULATE_WRITE, Linux 5.14),
    // which callers run in a parallel task while the walk starts filling the array. Both are hints
    // that change no content; an older kernel or another system just skips them.
    void adviseLargeArray(const void* data, size_t bytes, bool populate)
    {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
        constexpr uintptr_t kPage = 4096;
        constexpr size_t kWorthIt = size_t(1) << 20; // smaller arrays fault in a few hundred pages
        if (bytes < kWorthIt)
            return;
        // Whole pages around the block: a large block is a mapping of its own that starts a few bytes
        // before the data (the allocator's header) and ends within a page after it; advising only
        // the pages inside would split the mapping and lose its first and last huge pages. The
        // advice changes no content, so the bytes outside the block are not affected.
        const uintptr_t from = reinterpret_cast<uintptr_t>(data) & ~(kPage - 1);
        const uintptr_t to = (reinterpret_cast<uintptr_t>(data) + bytes + kPage - 1) & ~(kPage - 1);
        if (to <= from)
            return;
        void* start = reinterpret_cast<void*>(from);
        madvise(start, to - from, MADV_HUGEPAGE);
#ifdef MADV_POPULATE_WRITE
        if (populate)
            madvise(start, to - from, MADV_POPULATE_WRITE);
#endif
#else
        (void)data, (void)bytes, (void)populate;
#endif
    }

    // An element count for a large block, rounded up to fill whole huge pages: the kernel aligns an
    // anonymous mapping for huge pages only when its length is a multiple of 2 MiB, and the allocator
    // maps the block plus a small header rounded to pages, so a block of just under k x 2 MiB is one
    // aligned mapping that huge pages can cover, all but the first (the allocator writes its header
    // there before the advice, so that one is mapped in 4 KiB pages). Smaller blocks are left alone.
    template <class T> size_t hugePageFriendly(size_t count)
    {
        constexpr size_t kHuge = size_t(2) << 20, kHeaderRoom = 64;
        const size_t bytes = count * sizeof(T);
        if (bytes + kHeaderRoom < kHuge)
            return count;
        return ((bytes + kHeaderRoom + kHuge - 1) / kHuge * kHuge - kHeaderRoom) / sizeof(T);
    }

    template <class T> void adviseLargeArray(const std::vector<T>& v, bool populate)
    {
        adviseLargeArray(v.data(), v.capacity() * sizeof(T), populate);
    }

    // A zero-filled array from calloc, for counters: the C library gets a large block as fresh
    // zero pages from the kernel and writes none of it, where a vector would memset it all.
    struct FreeDeleter {
        void operator()(void* p) const noexcept { std::free(p); }
    };
    template <class T> using ZeroedArray = std::unique_ptr<T[], FreeDeleter>;
    template <class T> ZeroedArray<T> zeroedArray(size_t n)
    {
        void* p = std::calloc(std::max<size_t>(n, 1), sizeof(T));
        if (!p)
            throw std::bad_alloc(); // as a vector of that size would
        return ZeroedArray<T>(static_cast<T*>(p));
    }

    bool isBlockingStatus(uint16_t status) { return status == 4 || (status >= 6 && status <= 18) || status == 20; }

    static_assert(IdMap::kAbsent == kNoIndex && AddressMap::kAbsent == kNoIndex);
    constexpr uint32_t kSparkRan = kNoIndex - 1; // IdMap value of a spark id whose spark has run

} // namespace

namespace detail {

    // The walk of buildParModel (rules in par_model.h). A friend of ParModel: it counts each
    // conjunct's top pieces and children and builds the contexts' state lists as it goes, so the
    // indexes need no second pass over the segments.
    class ParModelBuilder {
    public:
        ParModelBuilder(const Trace& trace, ParModel& m)
            : m_trace(trace)
            , m_bytes(trace.bytes())
            , m(m)
        {
            m.endNs = trace.lastTimeNs;
            m_engines.resize(trace.engines.size());
        }

        // One walk over the events in time order (Trace::forEachInTimeOrder: time, then global before
        // engines, then engine number, then file order); events the model does not use are skipped
        // by type, or not merged at all when they are most of the trace (reserve). The instance
        // vectors are sized first from a count of their events, so they never reallocate while the
        // walk fills them.
        void run()
        {
            reserve();
            tbb::task_group prefault;
            prefault.run([this] {
                adviseLargeArray(m.conjuncts, true);
                adviseLargeArray(m.conjunctions, true);
                adviseLargeArray(m.futures, true);
                adviseLargeArray(m_pieceCounts.get(), m_countsSize * sizeof(uint32_t), true);
                adviseLargeArray(m_childCounts.get(), m_countsSize * sizeof(uint32_t), true);
                adviseLargeArray(m_parentOf.get(), m_parentsSize * sizeof(uint32_t), true);
            });
            // Events of other types fall through onEvent's switch (no separate relevant() test).
            m_walked->forEachInTimeOrder([this](const Event& e) { onEvent(e); });
            prefault.wait();
            finish();
            m.indexFromCounts(m_pieceCounts.get(), m_childCounts.get(), m_parentOf.get());
        }

        static bool relevant(uint16_t type)
        {
            switch (type) {
            case ev::CreateThread:
            case ev::RunThread:
            case ev::StopThread:
            case ev::ThreadRunnable:
            case ev::ThreadWakeup:
            case ev::InternString:
                return true;
            default:
                return type >= ev::MerStartParConj && type <= ev::MerReuseContext;
            }
        }

    private:
        // A conjunct a context executes, with its conjunction: matching an END_PAR_CONJUNCT and
        // finding a parent's depth then need no look-up in the large conjunct array (a cache miss
        // for conjuncts bound long ago).
        struct OpenConjunct {
            uint32_t conjunct = kNoIndex;
            uint32_t conjunction = kNoIndex;
        };
        struct EngineCursor {
            uint32_t running = kNoIndex; // context index
            OpenConjunct pending; // spark started, waiting for a context
        };
        struct ContextCursor {
            ContextState state = ContextState::Runnable;
            uint16_t engine = kNoEngine;
            std::vector<OpenConjunct> stack; // innermost last
            std::vector<uint32_t> pendingFutures;
            bool suspendedWait = false;
            uint64_t suspendedAtNs = 0;
            uint16_t suspendedEngine = kNoEngine;
            uint16_t lastEngine = kNoEngine; // where it last ran
            bool wokenBlocked = false; // made runnable after blocking, not yet running again
        };

        // Counts, in parallel per engine, the events that create instances, to size their arrays
        // exactly. In a GHC eventlog the events the model uses are a small fraction (most are spark
        // and GC events): then they are first copied out per engine, in parallel, and the counting
        // and the walk go over those only. In our runtime's traces nearly every event is used, and
        // both go over the trace itself. Which case it is, a sample of each engine's first events
        // tells.
        void reserve()
        {
            const size_t lists = m_trace.engines.size() + 1;
            auto list = [&](size_t i) -> const std::vector<Event>& {
                return i == 0 ? m_trace.global : m_trace.engines[i - 1];
            };
            constexpr size_t kSample = 4096;
            size_t sampled = 0, sampledRelevant = 0;
            for (size_t i = 0; i < lists; ++i) {
                const auto& events = list(i);
                const size_t n = std::min(events.size(), kSample);
                sampled += n;
                for (size_t j = 0; j < n; ++j)
                    sampledRelevant += relevant(events[j].type);
            }
            const bool filter = sampledRelevant * 2 < sampled;
            if (filter) {
                m_filtered.engines.resize(m_trace.engines.size());
                tbb::parallel_for(size_t(0), lists, [&](size_t i) {
                    auto& out = i == 0 ? m_filtered.global : m_filtered.engines[i - 1];
                    for (const Event& e : list(i))
                        if (relevant(e.type))
                            out.push_back(e);
                });
                m_walked = &m_filtered;
            }
            std::vector<std::array<size_t, 3>> counts(lists); // START_PAR_CONJ, SPARK_CREATE, FUT_CREATE
            tbb::parallel_for(size_t(0), lists, [&](size_t i) {
                std::array<size_t, 3> n {};
                for (const Event& e : i == 0 ? m_walked->global : m_walked->engines[i - 1]) {
                    n[0] += e.type == ev::MerStartParConj;
                    n[1] += e.type == ev::MerSparkCreate;
                    n[2] += e.type == ev::MerFutCreate;
                }
                counts[i] = n;
            });
            std::array<size_t, 3> total {};
            for (const auto& n : counts)
                for (size_t k = 0; k < 3; ++k)
                    total[k] += n[k];
            m.conjunctions.reserve(total[0]);
            m.conjuncts.reserve(total[0] + total[1]);
            m.futures.reserve(total[2]);
            // Piece and child counts per conjunct, kept as the walk goes. From calloc: a large block
            // comes as fresh zero pages with no memset, mapped in the prefault task (see run) while
            // the walk starts; explicit zeroing here was a third of the time before the walk.
            m_countsSize = total[0] + total[1];
            m_pieceCounts = zeroedArray<uint32_t>(m_countsSize);
            m_childCounts = zeroedArray<uint32_t>(total[0] + total[1]);
            m_parentsSize = total[0];
            m_parentOf = zeroedArray<uint32_t>(m_parentsSize);
            // Each conjunct makes about two segments (bound, ended) in the context that runs it, and
            // in our runtime the contexts created first, one per engine, do nearly all the work.
            // Those get room for all of them at once (address space only: untouched capacity is
            // never mapped), capped so that many engines cannot reserve an unreasonable amount.
            constexpr size_t kMaxReservedBytes = size_t(256) << 20;
            m_bigContexts = m_trace.engines.size();
            m_bigContextSegments = std::min(2 * (total[0] + total[1]),
                kMaxReservedBytes / sizeof(ContextSegment) / std::max<size_t>(1, m_bigContexts));
        }

        void problem(const Event& e, std::string message)
        {
            m.problems.push_back({ e.timeNs, e.engine, std::move(message), false });
        }

        uint32_t context(uint32_t id, uint64_t t, bool createFresh = false)
        {
            const uint32_t known = m_contextById.get(id);
            if (known != kNoIndex && !(createFresh && m_ctx[known].state == ContextState::Finished))
                return known;
            const uint32_t index = static_cast<uint32_t>(m.contexts.size());
            // Room for a short life at once: traces with thousands of contexts (GHC threads, our
            // runtime's contexts under deep recursion) otherwise spend their time regrowing these.
            ContextTimeline timeline;
            timeline.id = id;
            if (m.contexts.size() < m_bigContexts
                && m_bigContextSegments * sizeof(ContextSegment) >= (size_t(2) << 20)) {
                timeline.segments.reserve(hugePageFriendly<ContextSegment>(m_bigContextSegments));
                adviseLargeArray(timeline.segments, false);
            } else {
                timeline.segments.reserve(16);
            }
            timeline.states.reserve(8);
            timeline.segments.push_back({ t, ContextState::Runnable, kNoEngine, kNoIndex });
            timeline.states.push_back({ t, ContextState::Runnable });
            m.contexts.push_back(std::move(timeline));
            m_ctx.emplace_back().stack.reserve(8);
            m_contextById.set(id, index);
            return index;
        }

        // Records the context's (state, engine, top) at t if it changed.
        void touch(uint32_t c, uint64_t t)
        {
            ContextCursor& cc = m_ctx[c];
            const uint32_t top = cc.stack.empty() ? kNoIndex : cc.stack.back().conjunct;
            const uint16_t engine = cc.state == ContextState::Running ? cc.engine : kNoEngine;
            ContextTimeline& timeline = m.contexts[c];
            auto& segs = timeline.segments;
            const ContextSegment& last = segs.back();
            if (last.state == cc.state && last.engine == engine && last.top == top)
                return;
            if (last.startNs == t) {
                // A zero-length piece: replaced. Segment start times strictly increase, so the state
                // change starting at t, if any, was this segment's.
                if (last.top != kNoIndex)
                    --m_pieceCounts[last.top];
                if (!timeline.states.empty() && timeline.states.back().startNs == t)
                    timeline.states.pop_back();
                segs.pop_back();
            }
            if (!segs.empty() && segs.back().state == cc.state && segs.back().engine == engine
                && segs.back().top == top)
                return;
            if (segs.size() == segs.capacity())
                growSegments(segs);
            segs.push_back({ t, cc.state, engine, top });
            if (top != kNoIndex)
                ++m_pieceCounts[top];
            if (timeline.states.empty() || timeline.states.back().state != cc.state)
                timeline.states.push_back({ t, cc.state });
        }

        // A context's segments grow by doubling like any vector until a block reaches a huge page;
        // from then on by four, which halves the copying and page faults of growth (untouched
        // capacity costs only address space), and each new block is advised for huge pages before
        // the old segments are copied in (see adviseLargeArray).
        static void growSegments(std::vector<ContextSegment>& segs)
        {
            const size_t growth = segs.capacity() * sizeof(ContextSegment) >= (size_t(2) << 20) ? 4 : 2;
            std::vector<ContextSegment> bigger;
            bigger.reserve(hugePageFriendly<ContextSegment>(std::max<size_t>(16, growth * segs.capacity())));
            adviseLargeArray(bigger, false);
            bigger.insert(bigger.end(), segs.begin(), segs.end());
            segs.swap(bigger);
        }

        uint32_t runningOn(const Event& e) const
        {
            return e.engine < m_engines.size() ? m_engines[e.engine].running : kNoIndex;
        }

        uint32_t topOf(uint32_t c) const
        {
            return (c == kNoIndex || m_ctx[c].stack.empty()) ? kNoIndex : m_ctx[c].stack.back().conjunct;
        }

        void bindConjunct(OpenConjunct k, uint32_t c, uint64_t t)
        {
            m.conjuncts[k.conjunct].context = c;
            m_ctx[c].stack.push_back(k);
            touch(c, t);
        }

        void onEvent(const Event& e)
        {
            // As Trace::payload, with the byte span looked up once rather than per event.
            const Payload p = e.endOffset() <= m_bytes.size()
                ? Payload(m_bytes.subspan(e.payloadOffset(), e.payloadSize))
                : Payload();
            const uint64_t t = e.timeNs;
            if (e.engine != kNoEngine && e.engine >= m_engines.size())
                m_engines.resize(e.engine + 1u);
            switch (e.type) {
            case ev::InternString: {
                if (p.size() >= 4) {
                    std::string_view text = p.text(0).substr(0, p.size() - 4);
                    while (!text.empty() && text.back() == '\0')
                        text.remove_suffix(1);
                    m.strings[p.u32(p.size() - 4)] = std::string(text);
                }
                break;
            }
            case ev::CreateThread:
                ++m.contextsCreated;
                context(p.u32(0), t, true);
                break;
            case ev::MerReuseContext:
                ++m.contextsReused;
                context(p.u32(0), t, true);
                break;
            case ev::MerReleaseContext: {
                ++m.contextsReleased;
                const uint32_t c = context(p.u32(0), t);
                m_ctx[c].state = ContextState::Finished;
                touch(c, t);
                break;
            }
            case ev::RunThread: {
                if (!e.hasEngine())
                    break;
                const uint32_t c = context(p.u32(0), t);
                ContextCursor& cc = m_ctx[c];
                EngineCursor& ec = m_engines[e.engine];
                if (cc.state == ContextState::Running && cc.engine != e.engine)
                    problem(e,
                        "context " + std::to_string(p.u32(0)) + " runs on engine " + std::to_string(e.engine)
                            + " while still running on engine " + std::to_string(cc.engine));
                if (cc.state == ContextState::Running && cc.engine < m_engines.size()
                    && m_engines[cc.engine].running == c)
                    m_engines[cc.engine].running = kNoIndex;
                if (ec.running != kNoIndex && ec.running != c) {
                    // A lost STOP_THREAD: the previous context stops here.
                    m_ctx[ec.running].state = ContextState::Runnable;
                    touch(ec.running, t);
                }
                cc.suspendedWait = false;
                if ((cc.state == ContextState::Blocked || cc.wokenBlocked) && cc.lastEngine != kNoEngine)
                    m.resumes.push_back({ t, cc.lastEngine, e.engine });
                cc.wokenBlocked = false;
                cc.state = ContextState::Running;
                cc.engine = e.engine;
                cc.lastEngine = e.engine;
                ec.running = c;
                if (ec.pending.conjunct != kNoIndex) {
                    const OpenConjunct k = ec.pending;
                    ec.pending = OpenConjunct {};
                    bindConjunct(k, c, t);
                }
                touch(c, t);
                break;
            }
            case ev::StopThread: {
                if (!e.hasEngine())
                    break;
                const uint32_t c = context(p.u32(0), t);
                ContextCursor& cc = m_ctx[c];
                const uint16_t status = p.u16(4);
                if (m_engines[e.engine].running == c)
                    m_engines[e.engine].running = kNoIndex;
                if (status == kStopFinished)
                    cc.state = ContextState::Finished;
                else if (isBlockingStatus(status))
                    cc.state = ContextState::Blocked;
                else if (cc.state != ContextState::Blocked)
                    cc.state = ContextState::Runnable;
                touch(c, t);
                break;
            }
            case ev::ThreadRunnable:
            case ev::ThreadWakeup: {
                const uint32_t c = context(p.u32(0), t);
                if (m_ctx[c].state == ContextState::Blocked) {
                    m_ctx[c].state = ContextState::Runnable;
                    m_ctx[c].wokenBlocked = true;
                    touch(c, t);
                }
                break;
            }
            case ev::MerFutCreate: {
                const uint32_t c = runningOn(e);
                const uint32_t f = static_cast<uint32_t>(m.futures.size());
                FutureInstance fi;
                fi.futureId = p.u64(0);
                fi.nameId = p.u32(8);
                fi.createNs = t;
                m.futures.push_back(std::move(fi));
                m_activeFuture.set(m.futures.back().futureId, f);
                if (c != kNoIndex)
                    m_ctx[c].pendingFutures.push_back(f);
                else
                    problem(e, "FUT_CREATE on an engine that runs no context");
                break;
            }
            case ev::MerStartParConj: {
                const uint64_t dyn = p.u64(0);
                const uint32_t c = runningOn(e);
                if (c == kNoIndex)
                    problem(e, "START_PAR_CONJ on an engine that runs no context");
                const uint32_t j = static_cast<uint32_t>(m.conjunctions.size());
                const uint32_t k = static_cast<uint32_t>(m.conjuncts.size());
                if (m_openConj.exchange(dyn, j) != kNoIndex) // the older instance is forgotten
                    problem(
                        e, "START_PAR_CONJ for dyn id " + hex(dyn) + " while an instance with that id is still open");
                ConjunctionInstance& ci = m.conjunctions.emplace_back();
                ci.dynId = dyn;
                ci.staticId = p.u32(8);
                ci.startNs = t;
                ci.startEngine = e.engine;
                ci.startContext = c;
                if (c != kNoIndex && !m_ctx[c].stack.empty()) {
                    const OpenConjunct parent = m_ctx[c].stack.back();
                    ci.parentConjunct = parent.conjunct;
                    ci.depth = m.conjunctions[parent.conjunction].depth + 1;
                    ++m_childCounts[parent.conjunct];
                }
                m_parentOf[j] = ci.parentConjunct;
                if (c != kNoIndex && !m_ctx[c].pendingFutures.empty()) {
                    ci.futures.assign(m_ctx[c].pendingFutures.begin(), m_ctx[c].pendingFutures.end());
                    m_ctx[c].pendingFutures.clear();
                    for (uint32_t f : ci.futures)
                        m.futures[f].conjunction = j;
                }
                ci.conjuncts.push_back(k);
                ConjunctInstance& g1 = m.conjuncts.emplace_back();
                g1.conjunction = j;
                g1.position = 1;
                g1.started = true;
                g1.startNs = t;
                g1.startEngine = e.engine;
                if (c != kNoIndex)
                    bindConjunct({ k, j }, c, t);
                break;
            }
            case ev::MerSparkCreate: {
                const uint64_t dyn = p.u64(0);
                const uint32_t j = m_openConj.find(dyn);
                if (j == kNoIndex) {
                    problem(e, "SPARK_CREATE for dyn id " + hex(dyn) + ", which names no open conjunction");
                    break;
                }
                ConjunctionInstance& ci = m.conjunctions[j];
                const uint32_t k = static_cast<uint32_t>(m.conjuncts.size());
                ConjunctInstance& g = m.conjuncts.emplace_back();
                g.conjunction = j;
                g.position = static_cast<uint32_t>(ci.conjuncts.size() + 1);
                g.fromSpark = true;
                g.sparkId = p.u32(8);
                g.sparkCreateNs = t;
                g.sparkEngine = e.engine;
                ci.conjuncts.push_back(k);
                const uint32_t pending = m_sparks.exchange(g.sparkId, k);
                if (pending != kNoIndex && pending != kSparkRan)
                    problem(e, "spark id " + std::to_string(g.sparkId) + " created again before it ran");
                break;
            }
            case ev::MerSparkRun:
            case ev::MerSparkSteal: {
                const bool stolen = e.type == ev::MerSparkSteal;
                const uint32_t spark = stolen ? p.u32(2) : p.u32(0);
                const uint32_t k = m_sparks.exchange(spark, kSparkRan);
                if (k == kNoIndex || k == kSparkRan) {
                    if (k == kNoIndex)
                        m_sparks.set(spark, kNoIndex); // still unknown, not run
                    problem(e,
                        std::string(stolen ? "SPARK_STEAL" : "SPARK_RUN") + " of spark " + std::to_string(spark)
                            + (k == kSparkRan ? ", which already ran" : ", which was never created"));
                    break;
                }
                ConjunctInstance& g = m.conjuncts[k];
                g.started = true;
                g.stolen = stolen;
                g.startNs = t;
                g.startEngine = e.engine;
                if (!e.hasEngine())
                    break;
                const uint32_t c = runningOn(e);
                if (c != kNoIndex)
                    bindConjunct({ k, g.conjunction }, c, t);
                else
                    m_engines[e.engine].pending = { k, g.conjunction };
                break;
            }
            case ev::MerEndParConjunct: {
                const uint64_t dyn = p.u64(0);
                const uint32_t j = m_openConj.find(dyn);
                if (j == kNoIndex) {
                    problem(e, "END_PAR_CONJUNCT for dyn id " + hex(dyn) + ", which names no open conjunction");
                    break;
                }
                const uint32_t c = runningOn(e);
                uint32_t k = kNoIndex;
                if (c != kNoIndex) {
                    auto& stack = m_ctx[c].stack;
                    for (size_t i = stack.size(); i-- > 0;)
                        if (stack[i].conjunction == j) {
                            k = stack[i].conjunct;
                            if (i + 1 != stack.size())
                                problem(e, "END_PAR_CONJUNCT ends a conjunct under a still open nested conjunct");
                            stack.erase(stack.begin() + static_cast<std::ptrdiff_t>(i));
                            break;
                        }
                }
                if (k == kNoIndex) {
                    problem(
                        e, "END_PAR_CONJUNCT for dyn id " + hex(dyn) + " with no open conjunct in the running context");
                    break;
                }
                ConjunctInstance& g = m.conjuncts[k];
                g.ended = true;
                g.endNs = t;
                g.endEngine = e.engine;
                touch(c, t);
                break;
            }
            case ev::MerEndParConj: {
                const uint64_t dyn = p.u64(0);
                const uint32_t j = m_openConj.take(dyn);
                if (j == kNoIndex) {
                    problem(e, "END_PAR_CONJ for dyn id " + hex(dyn) + " without a START_PAR_CONJ");
                    break;
                }
                ConjunctionInstance& ci = m.conjunctions[j];
                ci.ended = true;
                ci.endNs = t;
                ci.endEngine = e.engine;
                bool allEnded = true;
                for (uint32_t k : ci.conjuncts)
                    allEnded = allEnded && m.conjuncts[k].ended;
                if (!allEnded)
                    problem(e, "END_PAR_CONJ for dyn id " + hex(dyn) + " before all its conjuncts ended");
                ci.complete = allEnded;
                // Completeness is final here: later events cannot reach this instance, its conjuncts
                // or its futures any more (their ids now name nothing, or a newer instance).
                if (allEnded) {
                    ++m_completeConjunctions;
                    for (uint32_t k : ci.conjuncts) {
                        ConjunctInstance& g = m.conjuncts[k];
                        g.complete = g.started && g.endNs <= t; // every one ended (allEnded)
                        m_completeConjuncts += g.complete;
                    }
                    for (uint32_t f : ci.futures) {
                        FutureInstance& fi = m.futures[f];
                        fi.complete = fi.signalled && fi.signalCount == 1;
                        m_completeFutures += fi.complete;
                    }
                }
                for (uint32_t f : ci.futures) {
                    const uint64_t fid = m.futures[f].futureId;
                    if (m_activeFuture.find(fid) == f)
                        m_activeFuture.erase(fid);
                }
                break;
            }
            case ev::MerFutWaitNoSuspend:
            case ev::MerFutWaitSuspended: {
                const uint64_t fid = p.u64(0);
                const uint32_t f = m_activeFuture.find(fid);
                const bool suspended = e.type == ev::MerFutWaitSuspended;
                const uint32_t c = runningOn(e);
                if (f == kNoIndex)
                    problem(e, "wait on unknown future " + hex(fid));
                else
                    m.futures[f].waits.push_back({ t, suspended, c, topOf(c), e.engine });
                if (suspended && c != kNoIndex) {
                    ContextCursor& cc = m_ctx[c];
                    cc.state = ContextState::Blocked;
                    cc.suspendedWait = true;
                    cc.suspendedAtNs = t;
                    cc.suspendedEngine = e.engine;
                    touch(c, t);
                }
                break;
            }
            case ev::MerFutSignal: {
                const uint64_t fid = p.u64(0);
                const uint32_t fi = m_activeFuture.find(fid);
                if (fi == kNoIndex) {
                    problem(e, "signal of unknown future " + hex(fid));
                    break;
                }
                FutureInstance& f = m.futures[fi];
                if (f.signalled) {
                    problem(e, "future " + hex(fid) + " signalled again");
                } else {
                    f.signalled = true;
                    f.signalNs = t;
                    f.signalConjunct = topOf(runningOn(e));
                }
                ++f.signalCount;
                break;
            }
            default:
                break;
            }
        }

        void finish()
        {
            Event none;
            none.timeNs = m.endNs;
            // Conjunctions still open at the end, in start order.
            std::vector<uint32_t> open;
            m_openConj.forEach([&](uint64_t, uint32_t j) { open.push_back(j); });
            std::sort(open.begin(), open.end());
            for (uint32_t j : open)
                problem(none,
                    "conjunction with dyn id " + hex(m.conjunctions[j].dynId) + " never ended (truncated trace?)");
            for (size_t c = 0; c < m_ctx.size(); ++c)
                if (m_ctx[c].suspendedWait)
                    m.problems.push_back({ m_ctx[c].suspendedAtNs, m_ctx[c].suspendedEngine,
                        "context " + std::to_string(m.contexts[c].id) + " suspended on a future and never ran again",
                        false });
            // Instances were marked complete as their conjunctions ended; the rest stay incomplete.
            m.incompleteConjunctions = m.conjunctions.size() - m_completeConjunctions;
            m.incompleteConjuncts = m.conjuncts.size() - m_completeConjuncts;
            m.incompleteFutures = m.futures.size() - m_completeFutures;
            std::stable_sort(m.problems.begin(), m.problems.end(),
                [](const Problem& a, const Problem& b) { return a.timeNs < b.timeNs; });
        }

        static std::string hex(uint64_t v)
        {
            char buf[24];
            std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
            return buf;
        }

    private:
        const Trace& m_trace;
        Trace m_filtered; // only the events the model uses, when they are few (see reserve)
        const Trace* m_walked = &m_trace; // the events the walk goes over: m_trace or m_filtered
        const std::span<const uint8_t> m_bytes; // the trace's decoded stream
        ParModel& m;
        std::vector<EngineCursor> m_engines;
        std::vector<ContextCursor> m_ctx;
        IdMap m_contextById; // context id -> index into m.contexts (its latest timeline)
        AddressMap m_openConj; // dyn id -> open conjunction instance
        AddressMap m_activeFuture; // future id -> future instance not yet retired
        IdMap m_sparks; // spark id -> conjunct waiting to run, or kSparkRan
        ZeroedArray<uint32_t> m_pieceCounts; // per conjunct: its top pieces so far (its segments: < 2^32)
        ZeroedArray<uint32_t> m_childCounts; // per conjunct: conjunctions started directly inside it
        // Per conjunction: its parentConjunct again, packed, so the child index reads 4 bytes per
        // conjunction rather than a cache line of each.
        ZeroedArray<uint32_t> m_parentOf;
        size_t m_countsSize = 0, m_parentsSize = 0; // elements in the counters and in m_parentOf
        size_t m_bigContexts = 0, m_bigContextSegments = 0; // see reserve()
        size_t m_completeConjunctions = 0, m_completeConjuncts = 0, m_completeFutures = 0;
    };

} // namespace detail

void ParModel::indexChildren()
{
    // The state changes of each context, and the counts of every conjunct's top pieces and children.
    // Contexts are independent, and all segments of a conjunct lie in the one context that ran it, so
    // this runs in parallel over contexts: each context writes only its own conjuncts' counters.
    std::vector<uint32_t> pieceCounts(conjuncts.size());
    tbb::parallel_for(size_t(0), contexts.size(), [&](size_t c) {
        ContextTimeline& ctx = contexts[c];
        ctx.states.clear();
        for (const auto& seg : ctx.segments) {
            if (ctx.states.empty() || ctx.states.back().state != seg.state)
                ctx.states.push_back({ seg.startNs, seg.state });
            if (seg.top != kNoIndex)
                ++pieceCounts[seg.top];
        }
    });
    std::vector<uint32_t> childCounts(conjuncts.size());
    for (const auto& ci : conjunctions)
        if (ci.parentConjunct != kNoIndex)
            ++childCounts[ci.parentConjunct];
    std::vector<uint32_t> parentOf(conjunctions.size());
    for (size_t j = 0; j < conjunctions.size(); ++j)
        parentOf[j] = conjunctions[j].parentConjunct;
    indexFromCounts(pieceCounts.data(), childCounts.data(), parentOf.data());
}

void ParModel::indexFromCounts(const uint32_t* pieceCounts, const uint32_t* childCounts, const uint32_t* parentOf)
{
    // Both indexes are CSR arrays filled by the counting-sort pattern: offsets[k] = the start of k's
    // range (an exclusive prefix sum of the counts), fill using offsets[k] as k's cursor (which
    // leaves it at k's end, the start of k + 1), then shift the offsets back by one slot.
    const size_t n = conjuncts.size();
    auto pieces = [&] {
        m_pieceOffsets.clear();
        m_pieceOffsets.resize(n + 1, boost::container::default_init);
        adviseLargeArray(m_pieceOffsets.data(), m_pieceOffsets.size() * sizeof(size_t), false);
        size_t sum = 0;
        for (size_t k = 0; k < n; ++k) {
            m_pieceOffsets[k] = sum;
            sum += pieceCounts[k];
        }
        m_pieceOffsets[n] = sum;
        // Every slot is written below, so the pieces are not zeroed first.
        m_pieces.reserve(sum);
        adviseLargeArray(m_pieces.data(), m_pieces.capacity() * sizeof(TopPiece), false);
        m_pieces.resize(sum, boost::container::default_init);
        // A context's segments are in time order, so each conjunct's pieces come out sorted.
        tbb::parallel_for(size_t(0), contexts.size(), [&](size_t c) {
            const auto& segs = contexts[c].segments;
            for (size_t i = 0; i < segs.size(); ++i) {
                const auto& seg = segs[i];
                if (seg.top == kNoIndex)
                    continue;
                const uint64_t end = i + 1 < segs.size() ? segs[i + 1].startNs : std::max(endNs, seg.startNs);
                m_pieces[m_pieceOffsets[seg.top]++] = { seg.startNs, end, seg.state };
            }
        });
        std::copy_backward(m_pieceOffsets.begin(), m_pieceOffsets.end() - 1, m_pieceOffsets.end());
        m_pieceOffsets[0] = 0;
    };
    auto children = [&] {
        m_childOffsets.clear();
        m_childOffsets.resize(n + 1, boost::container::default_init);
        uint32_t sum = 0;
        for (size_t k = 0; k < n; ++k) {
            m_childOffsets[k] = sum;
            sum += childCounts[k];
        }
        m_childOffsets[n] = sum;
        m_children.assign(sum, 0);
        for (uint32_t j = 0; j < conjunctions.size(); ++j)
            if (parentOf[j] != kNoIndex)
                m_children[m_childOffsets[parentOf[j]]++] = j;
        std::copy_backward(m_childOffsets.begin(), m_childOffsets.end() - 1, m_childOffsets.end());
        m_childOffsets[0] = 0;
    };
    tbb::parallel_invoke(pieces, children);
}

ParModel buildParModel(const Trace& trace)
{
    ParModel m;
    detail::ParModelBuilder b(trace, m);
    b.run();
    return m;
}

} // namespace sparkscope::core
