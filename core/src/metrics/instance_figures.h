#pragma once
// Internal to core (not installed): the per-instance figures the conjunctions, conjuncts and
// scheduling sections summarise (instance_figures.cpp). On our runtime's traces there are millions
// of instances, so none of these figures is kept per instance: a Stat does not depend on the order
// of its values (exact_stat.h), so the figures pass folds each instance's own figures and its
// conjuncts', and the descendant pass each instance's values as it closes, into per-group Stats
// (GroupStats), on several threads whose Stats merge.
#include "metrics/descendant/descendant_pass.h"
#include "metrics/exact_stat.h"
#include "metrics/metrics_sections.h"
#include "metrics/named_groups.h"

#include <array>
#include <mutex>
#include <vector>

namespace sparkscope::core::detail {

// TIME_BLOCKED and TIME_RUNNING of one conjunct, as conjunctTimeSplit gives them (TIME_RUNNABLE
// is the rest of its life: conjunctRunnableNs).
struct ConjunctSplit {
    uint64_t blockedNs, runningNs;
};

inline uint64_t conjunctRunnableNs(const ConjunctInstance& g, const ConjunctSplit& split)
{
    // conjunctTimeSplit's guard: a conjunct that never started or ended, or ended before it
    // started, has no split at all.
    if (!g.started || !g.ended || g.endNs < g.startNs)
        return 0;
    return (g.endNs - g.startNs) - split.blockedNs - split.runningNs;
}

// The figures of one complete instance that do not come from the descendant pass: PARCONJ_TIME,
// RUNNABLE_SELF and RUNNING_SELF (max and average over its lifetime), and CONTINUE_ON_*. The
// maxima fit 32 bits: a conjunct's pieces are disjoint, so they count at most its conjuncts.
struct SelfFigures {
    uint64_t timeNs;
    double runnableAverage, runningAverage;
    uint32_t runnableMax, runningMax;
    bool continueOnBefore, continueOnLast;
};

// The scheduling section counts only instances with two conjuncts or more (pairs to order).
inline bool hasPairs(const ConjunctionInstance& ci) { return ci.conjuncts.size() >= 2; }

// SelfFigures of complete instance j, as the figures pass computes them (for --instances).
SelfFigures instanceSelfFigures(const ParModel& m, ConjunctionIndex j);

// One complete instance's figures: its SelfFigures and its descendant-pass values.
inline ConjunctionFigures figuresFrom(const SelfFigures& self, const DescValues& d)
{
    ConjunctionFigures v;
    v.time = double(self.timeNs);
    v.runnableSelfMax = double(self.runnableMax), v.runnableSelfAverage = self.runnableAverage;
    v.runningSelfMax = double(self.runningMax), v.runningSelfAverage = self.runningAverage;
    v.runnableSelfAndDescMax = d.rdMax, v.runnableSelfAndDescAverage = d.rdAvg;
    v.runningSelfAndDescMax = d.ndMax, v.runningSelfAndDescAverage = d.ndAvg;
    v.availCpusMax = d.avMax, v.availCpusAverage = d.avAvg;
    v.outOfOrderNs = d.outOfOrder, v.eitherRunningNs = d.eitherRunning, v.blockingNs = d.blocking;
    v.blockingTcNs = d.blockingTc;
    v.continueOnBefore = self.continueOnBefore ? 1.0 : 0.0;
    v.continueOnLast = self.continueOnLast ? 1.0 : 0.0;
    return v;
}

// One conjunct's figures in whole nanoseconds, given its split (from conjunctTimeSplit or the
// figures pass); ConjunctFigures holds them as doubles.
struct ConjunctDurations {
    bool fromSpark;
    uint64_t asSpark, asContext, blocked, runnable, running, after;
};

[[gnu::always_inline]] inline ConjunctDurations conjunctDurations(
    const ParModel& m, ConjunctIndex k, const ConjunctSplit& split)
{
    const ConjunctInstance& g = m.conjunct(k);
    return { g.fromSpark, g.startNs - g.sparkCreateNs, g.endNs - g.startNs, split.blockedNs,
        conjunctRunnableNs(g, split), split.runningNs, m.conjunction(g.conjunction).endNs - g.endNs };
}

[[gnu::always_inline]] inline ConjunctFigures conjunctFiguresFrom(
    const ParModel& m, ConjunctIndex k, const ConjunctSplit& split)
{
    const ConjunctDurations d = conjunctDurations(m, k, split);
    ConjunctFigures f;
    if (d.fromSpark)
        f.timeAsSpark = double(d.asSpark);
    f.timeAsContext = double(d.asContext);
    f.timeBlocked = double(d.blocked);
    f.timeRunnable = double(d.runnable);
    f.timeRunning = double(d.running);
    f.timeAfter = double(d.after);
    return f;
}

// CONJUNCT_GRANULARITY's counts of TIME_RUNNING per log2 bucket (bucket 0 holds 0 and 1 ns).
// Counts add up in any order, so the per-group histograms, built in parallel, merge into the
// program's.
class Log2Histogram {
public:
    void add(double runningNs)
    {
        const uint64_t ns = uint64_t(runningNs);
        const size_t b = ns <= 1 ? 0 : size_t(63 - __builtin_clzll(ns));
        if (m_buckets.size() <= b)
            m_buckets.resize(b + 1, 0);
        ++m_buckets[b];
    }
    void merge(const Log2Histogram& other)
    {
        if (m_buckets.size() < other.m_buckets.size())
            m_buckets.resize(other.m_buckets.size(), 0);
        for (size_t b = 0; b < other.m_buckets.size(); ++b)
            m_buckets[b] += other.m_buckets[b];
    }
    const std::vector<int64_t>& buckets() const noexcept { return m_buckets; }

private:
    std::vector<int64_t> m_buckets;
};

// The per-conjunct values the conjuncts section summarises that every conjunct has (TIME_AS_SPARK,
// only for spawned conjuncts, is apart), in output order.
enum ConjunctValue : size_t { kAsContext, kBlocked, kRunnable, kRunning, kAfter, kConjunctValueCount };

// The Stats of one (static id, position)'s conjunct values (ConjunctValue, then TIME_AS_SPARK).
// Empty for a position no conjunct of the group has (position 0, which none has: positions count
// from 1).
struct ConjunctStats {
    std::array<ExactStat, kConjunctValueCount> values;
    ExactStat asSpark; // spawned conjuncts only

    bool any() const noexcept { return values[kAsContext].count() > 0; }
};

// The per-instance values the conjunctions section summarises, in output order.
enum ConjunctionValue : size_t {
    kTime,
    kRunnableSelfMax,
    kRunnableSelfAverage,
    kRunnableSelfAndDescMax,
    kRunnableSelfAndDescAverage,
    kRunningSelfMax,
    kRunningSelfAverage,
    kRunningSelfAndDescMax,
    kRunningSelfAndDescAverage,
    kAvailCpusMax,
    kAvailCpusAverage,
    kContinueOnBefore,
    kContinueOnLast,
    kConjunctionValueCount
};
using ConjunctionStats = std::array<ExactStat, kConjunctionValueCount>;

// OUT_OF_ORDER_* (docs/metrics.md "Scheduling order"). A is logically before B when, at the
// conjunction instance J where their ancestry splits, A is in the subtree of conjunct Gi and B in
// that of Gj with i < j; so each pair is counted at exactly one J. Items are conjuncts, each in
// its innermost-only state (a conjunct whose context runs a nested conjunct is represented by
// that nested conjunct) plus its spark phase (waiting). With, per subtree i at time t,
// w_i = waiting items, r_i = running items, n_i = items, and bw_i = waiting items that produce a
// future some context is suspended on (from its FUT_WAIT_SUSPENDED to the signal), and bt_i the
// same through the transitive closure (suspendedWaitsByProducer in descendant_pass.h):
//   out-of-order pairs      = sum over i<j of w_i * r_j
//   pairs where A or B runs = sum over i<j of r_i n_j + r_j n_i - r_i r_j
//   blocking pairs          = sum over i<j of bw_i * r_j   (_TC: bt_i * r_j)
// The integrals come from the descendant pass (descendant_pass.cpp).
struct OutOfOrder {
    double outOfOrder = 0, eitherRunning = 0, blocking = 0, blockingTc = 0;
};

// One group of the scheduling section: the totals over its instances and the per-instance
// ratios (each only where its denominator is not 0).
struct SchedulingSummary {
    uint64_t instances = 0;
    OutOfOrder total;
    Stat probability, blocks, blocksTc;
};

// What a SchedulingSummary is made of, exactly, so that pieces merge: add() every instance with two
// conjuncts or more, in any order and in any pieces (scheduling_section.cpp).
class SchedulingSums {
public:
    void add(const DescValues& d);
    void merge(const SchedulingSums& other);
    SchedulingSummary summary() const;

private:
    uint64_t m_instances = 0;
    ExactSum m_outOfOrder, m_eitherRunning, m_blocking, m_blockingTc;
    ExactStat m_probability, m_blocks, m_blocksTc;
};

// Per group, what the figures pass and the descendant pass fold in: the Stats of the instances'
// values (their SelfFigures and descendant values), the scheduling order's sums, the Stats of their
// conjuncts' values per position, and the granularity histogram. An ExactStat is 1.7 KB, so a
// thread does not keep a GroupStats of every group: it folds into a GroupStatsBuffer of the few
// groups its recent instances belong to, which it merges into the one total from time to time.
struct GroupStats {
    std::vector<ConjunctionStats> conjunctions; // [group]
    std::vector<SchedulingSums> scheduling; // [group]
    std::vector<std::vector<ConjunctStats>> conjuncts; // [group][position]
    std::vector<Log2Histogram> running; // [group]

    GroupStats() = default;
    explicit GroupStats(size_t groups)
        : conjunctions(groups)
        , scheduling(groups)
        , conjuncts(groups)
        , running(groups)
    {
    }
    void addInstance(uint32_t group, const SelfFigures& self);
    // `pairs`: the instance has two conjuncts or more, so the scheduling order counts it.
    void addDescendant(uint32_t group, const DescValues& d, bool pairs);
    void addConjunct(uint32_t group, uint32_t position, const ConjunctDurations& d);
    // Group `at` of `other` into group `into` of this.
    void mergeGroup(uint32_t into, const GroupStats& other, uint32_t at);
};

// One thread's recent additions to a GroupStats `total` shared by all threads, by group: kept for
// the groups added to since the last flush (a handful: instances near one another in time are of
// few static ids), merged into `total` under `lock` every kFlushEvery additions, when more than
// kMaxGroups groups are held, and by flush(). Its memory stays within kMaxGroups groups' Stats,
// whatever the number of groups and threads. Not thread-safe itself (one per thread).
class GroupStatsBuffer {
public:
    GroupStatsBuffer(GroupStats& total, std::mutex& lock)
        : m_total(total)
        , m_lock(lock)
    {
    }
    GroupStatsBuffer(const GroupStatsBuffer&) = delete;
    GroupStatsBuffer& operator=(const GroupStatsBuffer&) = delete;
    ~GroupStatsBuffer() { flush(); }

    void addInstance(uint32_t group, const SelfFigures& self) { m_held.addInstance(slot(group), self), added(); }
    void addDescendant(uint32_t group, const DescValues& d, bool pairs)
    {
        m_held.addDescendant(slot(group), d, pairs), added();
    }
    void addConjunct(uint32_t group, uint32_t position, const ConjunctDurations& d)
    {
        m_held.addConjunct(slot(group), position, d);
    }
    void flush();

private:
    static constexpr size_t kFlushEvery = 65536, kMaxGroups = 8;

    uint32_t slot(uint32_t group);
    void added()
    {
        if (++m_added >= kFlushEvery)
            flush();
    }

    GroupStats& m_total;
    std::mutex& m_lock;
    GroupStats m_held; // slot i holds group m_groups[i]
    std::vector<uint32_t> m_groups;
    size_t m_added = 0;
};

// What the figures pass leaves for the summaries.
struct InstanceFigures {
    ConjunctionGroups groups; // the complete instances starting in the range, per static id
    GroupStats stats; // per group: every figure folded in
    // With --instances only (MetricsOptions::instances), per instance as in the model: the
    // descendant pass's values, which the listing prints. Empty otherwise.
    std::vector<DescValues> desc;

    size_t groupCount() const noexcept { return groups.names.size(); }
};

// The descendant pass, and beside it the grouping per static id and the figures of every grouped
// instance and its conjuncts (in parallel).
InstanceFigures computeInstanceFigures(const MetricsBasis& b);

} // namespace sparkscope::core::detail
