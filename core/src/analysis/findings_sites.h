#pragma once
// Internal to core (not installed). What the findings (findings.h) read from the parallel model
// itself, beyond the metrics and the ledger: the instances and waits a finding points at, and the
// conjunction a stretch of sequential code belongs to. Every direct use of ParModel's fields by the
// findings is in this file's .cpp. All instance lists take the complete instances that start in
// [from, to), as the metrics' summaries do, and clip the time ranges they give to [from, to).
#include "sparkscope/core/findings.h"
#include "sparkscope/core/par_model.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace sparkscope::core::detail {

// The conjunction a piece of a context's sequential code (outside every conjunct) is next to: the
// next conjunction the context starts (the code runs before it), else the last one of its
// conjunctions to end by then (the code runs after it: the outermost, since a nested one ends
// inside it), else the last one it started (one still open), else none.
class SequentialSites {
public:
    explicit SequentialSites(const ParModel& model);

    enum class Relation : uint8_t { None, Before, After };
    struct Site {
        uint32_t staticId = 0;
        Relation relation = Relation::None;
        auto operator<=>(const Site&) const = default;
    };
    // For context `context` (index into ParModel::contexts) running sequential code at `timeNs`. O(log n).
    Site at(uint32_t context, uint64_t timeNs) const;

private:
    std::vector<std::vector<std::pair<uint64_t, uint32_t>>> m_starts; // per context: (start, static id), sorted
    std::vector<std::vector<std::pair<uint64_t, uint32_t>>> m_ends; // per context: (end, static id) of the ended, sorted
};

// The static ids of which some instance runs inside another instance of the same static id (directly
// or through other conjunctions): recursive parallel code. O(instances × nesting depth).
std::vector<uint32_t> recursiveSites(const ParModel& model);

// The `limit` longest instances of `staticId`, longest first: [START_PAR_CONJ, END_PAR_CONJ).
std::vector<TimeRange> longestInstances(
    const ParModel& model, uint32_t staticId, uint64_t fromNs, uint64_t toNs, size_t limit);

// The `limit` instances of `staticId` whose first conjunct to end waited longest for the conjunction
// to end, longest first: [that conjunct's END_PAR_CONJUNCT, END_PAR_CONJ) (its TIME_AFTER).
std::vector<TimeRange> longestTimesAfter(
    const ParModel& model, uint32_t staticId, uint64_t fromNs, uint64_t toNs, size_t limit);

// The first waits on futures that suspended, per (static id, variable) as the metrics name them
// ("<site>/<variable>"): each consumer's (conjunct's, else context's) first wait that came before the
// signal suspends from the wait to the signal.
struct FirstWaitSuspensions {
    std::string group; // "<site>/<variable>", the futures section's group id
    uint32_t staticId = 0;
    std::string variable;
    uint64_t suspensions = 0;
    uint64_t suspendedNs = 0; // summed over them
    std::vector<TimeRange> longest; // [wait, signal), longest first, at most `limit`
};
std::vector<FirstWaitSuspensions> firstWaitSuspensions(
    const ParModel& model, uint64_t fromNs, uint64_t toNs, size_t limit);

} // namespace sparkscope::core::detail
