#pragma once
// Internal to core. The simulated machine's parts (simulate.cpp): an engine's state, what it runs
// next and its spark deque; what it picks; a simulated context's place. The rules that move them are
// the simulator's (simulate.h); these are only its records, apart so that the rules read alone.
#include "analysis/sim_queues.h"

#include <cstdint>
#include <vector>

namespace sparkscope::core::detail::sim {

// Running: a node until its end. Starting: paying a cost before a node. Notified: a spinning engine
// told of new work, searching now. Spinning: searching, found nothing. Waking: asleep, woken, searches
// at the event. Sleeping: no event pending.
enum class State : uint8_t { Running, Starting, Notified, Spinning, Waking, Sleeping };
// Why the non-carrier strand an engine ran last cannot go on.
enum class Stop : uint8_t { None, Future, Barrier };
// A simulated context: on an engine, parked (at a barrier or on a future), runnable, or released.
enum class Ctx : uint8_t { Active, Barrier, Future, Runnable, Released };
enum Slot : uint8_t { kIn, kOut, kSearch, kIdle, kSlots };

struct Work {
    uint32_t node, strand;
};

struct Pick {
    uint32_t node = kNone, strand = kNone;
    uint64_t cost = 0;
};

struct SimEngine {
    State state = State::Sleeping;
    Stop stop = Stop::None;
    bool inConjunct = false; // Running: the node's strand is a conjunct
    uint32_t strand = kNone, node = kNone; // Running or Starting
    uint32_t context = kNone; // the context it holds
    uint32_t ended = kNone; // a conjunct that just ended here without being its conjunction's last
    uint64_t rng = 0; // the victim scan's start, as the runtime's xorshift
    uint32_t solo = kNone; // Running a sub-tree as one step (simulate.h, "Shortcut"): its strand
    uint64_t soloStart = 0; // when the step began, in ns and on the work clock
    double soloWork = 0;
    std::vector<Work> next; // released nodes this engine runs next, top last
    std::vector<uint32_t> deque; // sparks (conjunct ids), oldest at `head`, newest at the back
    size_t head = 0;
};

} // namespace sparkscope::core::detail::sim
