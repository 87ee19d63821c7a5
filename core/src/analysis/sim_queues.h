#pragma once
// Internal to core. The what-if simulator's two queues over engine numbers (simulate.cpp): which
// engines are in a state (EngineSet) and which engine's event comes next (EventTree). Not
// thread-safe; one per simulation.
#include "sparkscope/core/indices.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <vector>

namespace sparkscope::core::detail::sim {

inline constexpr uint32_t kNone = kNoIndex; // no engine

// A set of engine numbers as a bitmap: insert, erase and the first member from a place, O(P / 64).
class EngineSet {
public:
    explicit EngineSet(uint32_t engines)
        : m_words((engines + 63) / 64, 0)
        , m_size(engines)
    {
    }
    bool empty() const noexcept { return m_count == 0; }
    void insert(uint32_t e) noexcept
    {
        uint64_t& w = m_words[e >> 6];
        m_count += (w >> (e & 63) & 1) == 0;
        w |= uint64_t(1) << (e & 63);
    }
    void erase(uint32_t e) noexcept
    {
        uint64_t& w = m_words[e >> 6];
        m_count -= (w >> (e & 63) & 1) != 0;
        w &= ~(uint64_t(1) << (e & 63));
    }
    // The first member at or after `from`, going round, other than `skip`; kNone when there is none.
    uint32_t firstFrom(uint32_t from, uint32_t skip = kNone) const noexcept
    {
        auto round = [&](uint32_t a) {
            const uint32_t x = scan(a);
            return x == kNone && a > 0 ? scan(0) : x;
        };
        uint32_t e = round(from % m_size);
        if (e == skip && e != kNone) {
            e = round((skip + 1) % m_size);
            if (e == skip)
                e = kNone;
        }
        return e;
    }

private:
    uint32_t scan(uint32_t a) const noexcept // first member ≥ a, or kNone
    {
        for (uint32_t i = a >> 6; i < m_words.size(); ++i) {
            const uint64_t w = i == (a >> 6) ? m_words[i] & (~uint64_t(0) << (a & 63)) : m_words[i];
            if (w)
                return i * 64 + uint32_t(std::countr_zero(w));
        }
        return kNone;
    }
    std::vector<uint64_t> m_words;
    uint32_t m_size;
    uint32_t m_count = 0;
};

// The engines' next events: a tournament tree with one leaf per engine (its event's time, or none),
// each inner node a copy of the earlier of its two children's keys (ties: the lower engine, always on
// the left). Setting a leaf redoes its path, log2 P steps over a few cache lines with no dependent
// look-ups; the root is the next event. Nothing is ever stale.
template <class Time> class EventTree {
public:
    static constexpr Time kNever = std::numeric_limits<Time>::max();
    explicit EventTree(uint32_t engines)
    {
        while (m_leaves < engines)
            m_leaves *= 2;
        m_keys.assign(2 * m_leaves, { kNever, 0 });
        for (uint32_t i = 0; i < m_leaves; ++i)
            m_keys[m_leaves + i].engine = i;
        for (uint32_t i = m_leaves - 1; i >= 1; --i)
            m_keys[i] = m_keys[2 * i];
    }
    uint32_t next() const noexcept { return m_keys[1].engine; } // with one leaf, the leaf itself
    Time time(uint32_t e) const noexcept { return m_keys[m_leaves + e].time; } // engine e's event
    Time nextTime() const noexcept { return m_keys[1].time; }
    void set(uint32_t e, Time t) noexcept
    {
        uint32_t i = m_leaves + e;
        m_keys[i].time = t;
        for (i /= 2; i >= 1; i /= 2) // the child's index computed, not branched on: its order is random
            m_keys[i] = m_keys[2 * i + uint32_t(m_keys[2 * i + 1].time < m_keys[2 * i].time)];
        m_set = m_set || e == m_consumed;
    }
    // The root's event is being handled: its leaf is emptied now, its path only in settle(), unless
    // the engine set a new event meanwhile (the usual case: one path update per event, not two).
    // Only the root may be read after settle().
    void consume(uint32_t e) noexcept
    {
        m_keys[m_leaves + e].time = kNever;
        m_consumed = e;
        m_set = false;
    }
    void settle(uint32_t e) noexcept
    {
        if (!m_set)
            set(e, kNever);
    }

private:
    struct Key {
        Time time;
        uint32_t engine;
    };
    uint32_t m_leaves = 1;
    std::vector<Key> m_keys; // [1, leaves): inner nodes; [leaves, 2 leaves): the leaves
    uint32_t m_consumed = 0;
    bool m_set = true;
};

} // namespace sparkscope::core::detail::sim
