// Structural checks (see check.h). Each check is one pass over the header or the events; the
// per-engine inversion count uses the fact that each engine's events are already sorted by time
// (stably): an event whose file offset is below the largest offset seen so far in time order was
// written after an event with a later time.
#include "sparkscope/core/check.h"

#include "sparkscope/core/event_types.h"

#include <algorithm>
#include <optional>
#include <unordered_map>

namespace sparkscope::core {

namespace {

    // The smallest payload size any known layout of `number` has (older GHCs and Mercury wrote
    // shorter forms of a few events); std::nullopt when SparkScope cannot tell.
    std::optional<uint16_t> smallestLayout(uint16_t number, uint16_t canonical)
    {
        switch (number) {
        case ev::StopThread:
            return 6; // GHC < 7.7 and Mercury
        case ev::GcStatsGhc:
            return 50; // before par_balanced_copied
        case ev::NonmovingHeapCensus:
            return 13; // before GHC 9.10
        case ev::OsProcessPid:
        case ev::OsProcessPpid:
            return 4; // Mercury: the pid alone
        case ev::CreateSparkOld:
        case ev::SparkToThreadOld:
        case ev::RunSparkOld:
        case ev::StealSparkOld:
            return std::nullopt; // deprecated; GHC 6.12 declared RUN_SPARK and STEAL_SPARK with other sizes
        default:
            return canonical;
        }
    }

    std::string engineText(uint16_t engine) { return engine == kNoEngine ? "-" : std::to_string(engine); }

    void checkHeader(const Trace& trace, std::vector<Problem>& out)
    {
        std::unordered_map<uint16_t, const EventTypeDecl*> seen;
        for (const auto& decl : trace.header.types) {
            const std::string what = "header: event type " + std::to_string(decl.number);
            if (auto [it, fresh] = seen.emplace(decl.number, &decl); !fresh) {
                if (it->second->size != decl.size)
                    out.push_back({ 0, kNoEngine,
                        what + " is declared twice, with sizes " + std::to_string(it->second->size) + " and "
                            + std::to_string(decl.size) });
                continue;
            }
            const EventTypeInfo* info = knownEventType(decl.number);
            if (!info)
                continue;
            const std::string name = " (" + std::string(info->name) + ")";
            if (info->size == kVariableSize && !decl.isVariable()) {
                out.push_back({ 0, kNoEngine,
                    what + name + " is declared with fixed size " + std::to_string(decl.size)
                        + " but is a variable-size event" });
            } else if (info->size != kVariableSize && decl.isVariable()) {
                out.push_back({ 0, kNoEngine,
                    what + name + " is declared variable-size but has a fixed size of " + std::to_string(info->size) });
            } else if (info->size != kVariableSize) {
                const auto smallest = smallestLayout(decl.number, info->size);
                if (smallest && decl.size < *smallest)
                    out.push_back({ 0, kNoEngine,
                        what + name + " is declared with size " + std::to_string(decl.size)
                            + ", smaller than any known layout (" + std::to_string(*smallest) + " bytes)" });
            }
        }
    }

    void checkBlocks(const Trace& trace, const std::vector<Event>& events, std::vector<Problem>& out)
    {
        for (const auto& e : events) {
            if (e.type != ev::BlockMarker)
                continue;
            const Payload p = trace.payload(e);
            if (p.size() < 14)
                continue;
            const uint64_t endNs = p.u64(4);
            const uint16_t cap = p.u16(12);
            if (endNs == 0) {
                // A block GHC never closed has size 0 too, which the reader already warned of at its byte.
                const bool warned = std::any_of(trace.warnings.begin(), trace.warnings.end(),
                    [&](const Warning& w) { return w.byteOffset == e.offset; });
                if (!warned)
                    out.push_back({ e.timeNs, e.engine,
                        "the block of engine " + engineText(cap) + " at byte " + std::to_string(e.offset)
                            + " was never closed (end time 0)" });
            } else if (endNs < e.timeNs)
                out.push_back({ e.timeNs, e.engine,
                    "the block of engine " + engineText(cap) + " at byte " + std::to_string(e.offset) + " ends at "
                        + std::to_string(endNs) + " ns, before it begins" });
        }
    }

    // `events` in time order (ties in file order): an event is written after one with a later time
    // when some event after it in time order lies before it in the file. Counted from the end, the
    // first such event (the earliest) is the last one met.
    void countInversions(const std::vector<Event>& events, uint16_t engine, std::vector<Problem>& out)
    {
        uint64_t minOffset = UINT64_MAX; // of the events later in time than the one looked at
        size_t inversions = 0;
        uint64_t firstNs = 0;
        for (auto e = events.rbegin(); e != events.rend(); ++e) {
            if (e->offset > minOffset) {
                firstNs = e->timeNs;
                ++inversions;
            }
            minOffset = std::min(minOffset, e->offset);
        }
        if (inversions > 0)
            out.push_back({ firstNs, engine,
                std::to_string(inversions) + " event(s) of "
                    + (engine == kNoEngine ? "the global buffer" : "this engine")
                    + " are written after events with a later time (timestamps run backwards in the file; the first at "
                    + std::to_string(firstNs) + " ns)",
                true });
    }

    // STARTUP (17) declares the engine count: an engine at or past it that posts events contradicts
    // it (a damaged block marker naming engine 65,534, say); engines it declares that post nothing are
    // worth a note (every per-engine figure counts them, idle).
    void checkEngineCount(const Trace& trace, std::vector<Problem>& out)
    {
        std::optional<uint64_t> declared;
        auto find = [&](const std::vector<Event>& events) {
            for (const Event& e : events)
                if (e.type == ev::Startup && !declared) {
                    declared = trace.payload(e).u16(0);
                    return;
                }
        };
        find(trace.global);
        for (size_t i = 0; i < trace.engines.size() && !declared; ++i)
            find(trace.engines[i]);
        if (!declared)
            return;
        size_t posting = 0;
        for (size_t i = 0; i < trace.engines.size(); ++i) {
            if (trace.engines[i].empty())
                continue;
            ++posting;
            if (i >= *declared)
                out.push_back({ trace.engines[i].front().timeNs, uint16_t(i),
                    "engine " + std::to_string(i) + " posts events, but STARTUP declared " + std::to_string(*declared)
                        + " engine(s) (at byte " + std::to_string(trace.engines[i].front().offset) + ")" });
        }
        if (*declared > kMaxDeclaredEngines)
            out.push_back({ 0, kNoEngine,
                "STARTUP declares " + std::to_string(*declared) + " engines, more than the "
                    + std::to_string(kMaxDeclaredEngines) + " SparkScope takes it at: only the "
                    + std::to_string(posting) + " that post events are counted",
                true });
        else if (*declared > posting)
            out.push_back({ 0, kNoEngine,
                "STARTUP declared " + std::to_string(*declared) + " engine(s), and " + std::to_string(posting)
                    + " post events: the others count as idle throughout",
                true });
    }

    // GHC posts CAP_CREATE (45) for each capability it makes, and GHC and our runtime assign each one
    // to the process's capset (CAPSET_ASSIGN_CAP, 27): an engine that posts events but was neither
    // created nor assigned is a damaged block marker's engine number, where no STARTUP (GHC ≥ 7)
    // would catch it. Traces that post neither say nothing either way.
    void checkCreatedEngines(const Trace& trace, std::vector<Problem>& out)
    {
        std::vector<bool> named(trace.engines.size(), false);
        bool any = false;
        auto scan = [&](const std::vector<Event>& events) {
            for (const Event& e : events) {
                const bool create = e.type == ev::CapCreate && e.payloadSize >= 2;
                const bool assign = e.type == ev::CapsetAssignCap && e.payloadSize >= 6;
                if (!create && !assign)
                    continue;
                any = true;
                const uint16_t cap = trace.payload(e).u16(create ? 0 : 4);
                if (cap < named.size())
                    named[cap] = true;
            }
        };
        scan(trace.global);
        for (const auto& engine : trace.engines)
            scan(engine);
        if (!any)
            return;
        for (size_t i = 0; i < trace.engines.size(); ++i)
            if (!trace.engines[i].empty() && !named[i])
                out.push_back({ trace.engines[i].front().timeNs, uint16_t(i),
                    "engine " + std::to_string(i) + " posts events, but no CAP_CREATE or CAPSET_ASSIGN_CAP names it (at byte "
                        + std::to_string(trace.engines[i].front().offset) + ")" });
    }

} // namespace

std::vector<Problem> checkStructure(const Trace& trace)
{
    std::vector<Problem> out;
    for (const auto& w : trace.warnings)
        out.push_back({ 0, kNoEngine, w.message + " (at byte " + std::to_string(w.byteOffset) + ")" });
    if (trace.truncated && trace.warnings.empty())
        out.push_back({ trace.lastTimeNs, kNoEngine, "the file ends before DATA_END" });
    std::vector<Problem> format = checkFormat(trace);
    out.insert(out.end(), std::make_move_iterator(format.begin()), std::make_move_iterator(format.end()));
    return out;
}

std::vector<Problem> checkFormat(const Trace& trace)
{
    std::vector<Problem> out;
    checkHeader(trace, out);
    checkEngineCount(trace, out);
    checkCreatedEngines(trace, out);
    checkBlocks(trace, trace.global, out);
    for (const auto& engine : trace.engines)
        checkBlocks(trace, engine, out);
    countInversions(trace.global, kNoEngine, out);
    for (size_t i = 0; i < trace.engines.size(); ++i)
        countInversions(trace.engines[i], static_cast<uint16_t>(i), out);
    return out;
}

} // namespace sparkscope::core
