#pragma once
// Two small maps from trace ids to uint32 indexes, for passes that look an id up on nearly every
// event (the model pass: spark, context, conjunction and future ids). std::unordered_map allocates a
// node per entry and chases a pointer per lookup, which made it most of the model pass's cost.
//
// Why hand-written rather than a library: the Boost on our platform (1.74) predates
// boost::unordered_flat_map, and both maps are short and tested directly (tests/core/id_maps_test.cpp).
// Values are uint32 indexes; kNoIndex (0xFFFFFFFF) means "absent" and cannot be stored.
#include <algorithm>
#include <array>
#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

namespace sparkscope::core {

// IdMap: 32-bit ids -> uint32. The ids a runtime writes are usually dense within their top byte
// (SparkScope's spark ids are (engine << 24) | sequence number; context ids count up from 1), so
// each top byte gets a plain vector indexed by the low 24 bits: one load per lookup, no allocation
// per entry. An id far beyond those stored so far in its page (sparse ids from another writer, or
// damaged input) goes to a hash map instead, so memory stays linear in the number of set() calls.
// Invariant: an id's value lives in the vector when the id fit there at its last set(), else in the
// hash map. Not thread-safe for writing. get(), set(): O(1) (amortised for set()).
class IdMap {
public:
    static constexpr uint32_t kAbsent = 0xFFFFFFFF;

    uint32_t get(uint32_t id) const
    {
        const auto& page = m_pages[id >> 24];
        const uint32_t low = id & 0xFFFFFF;
        if (low < page.size() && page[low] != kAbsent)
            return page[low];
        if (m_sparse.empty())
            return kAbsent;
        auto it = m_sparse.find(id);
        return it == m_sparse.end() ? kAbsent : it->second;
    }

    // Stores value for id; kAbsent removes it.
    void set(uint32_t id, uint32_t value)
    {
        const uint32_t pageIndex = id >> 24, low = id & 0xFFFFFF;
        auto& page = m_pages[pageIndex];
        if (value != kAbsent) {
            ++m_sets[pageIndex];
            if (low >= page.size() && (low < kDenseMinimum || low < 2 * m_sets[pageIndex]))
                page.resize(std::max<size_t>(size_t(low) + 1, 2 * page.size()), kAbsent);
        }
        if (low < page.size()) {
            page[low] = value;
            if (!m_sparse.empty())
                m_sparse.erase(id);
        } else if (value != kAbsent) {
            m_sparse[id] = value;
        } else {
            m_sparse.erase(id);
        }
    }

    // Stores value for id (kAbsent removes it) and returns the value it had: get() and set() in one
    // look-up when the id lies in its page's vector and no id is in the hash map.
    uint32_t exchange(uint32_t id, uint32_t value)
    {
        const uint32_t pageIndex = id >> 24, low = id & 0xFFFFFF;
        auto& page = m_pages[pageIndex];
        if (low < page.size() && m_sparse.empty()) {
            if (value != kAbsent)
                ++m_sets[pageIndex];
            return std::exchange(page[low], value);
        }
        const uint32_t old = get(id);
        set(id, value);
        return old;
    }

    size_t sparseSize() const noexcept { return m_sparse.size(); } // ids kept in the hash map (for tests)

private:
    static constexpr uint32_t kDenseMinimum = 1u << 16; // low parts below this always go to the vector
    std::array<std::vector<uint32_t>, 256> m_pages; // by id >> 24, indexed by id & 0xFFFFFF
    std::array<uint64_t, 256> m_sets {}; // set() calls with a value, per page: bounds the vector's growth
    std::unordered_map<uint32_t, uint32_t> m_sparse;
};

// AddressMap: 64-bit keys (addresses used as dynamic ids, reused over time) -> uint32. Open
// addressing with linear probing, at most half full, and backward-shift deletion (no tombstones),
// so the insert and erase that every conjunction and future does allocate nothing.
// Not thread-safe for writing. find(), set(), erase(): O(1) expected (amortised for set()).
class AddressMap {
public:
    static constexpr uint32_t kAbsent = 0xFFFFFFFF;

    AddressMap() { m_slots.assign(size_t(1) << kInitialBits, Slot {}); }

    uint32_t find(uint64_t key) const
    {
        for (size_t i = slotOf(key);; i = (i + 1) & mask()) {
            const Slot& s = m_slots[i];
            if (s.value == kAbsent)
                return kAbsent;
            if (s.key == key)
                return s.value;
        }
    }

    // Inserts or replaces; value must not be kAbsent.
    void set(uint64_t key, uint32_t value)
    {
        if (2 * (m_size + 1) > m_slots.size())
            grow();
        size_t i = slotOf(key);
        for (; m_slots[i].value != kAbsent; i = (i + 1) & mask())
            if (m_slots[i].key == key) {
                m_slots[i].value = value;
                return;
            }
        m_slots[i] = { key, value };
        ++m_size;
    }

    // Inserts or replaces, and returns the value the key had (kAbsent if none): find() and set() in
    // one probe. value must not be kAbsent.
    uint32_t exchange(uint64_t key, uint32_t value)
    {
        if (2 * (m_size + 1) > m_slots.size())
            grow();
        size_t i = slotOf(key);
        for (; m_slots[i].value != kAbsent; i = (i + 1) & mask())
            if (m_slots[i].key == key)
                return std::exchange(m_slots[i].value, value);
        m_slots[i] = { key, value };
        ++m_size;
        return kAbsent;
    }

    void erase(uint64_t key) { take(key); }

    // Removes the key and returns its value (kAbsent if it had none): find() and erase() in one probe.
    uint32_t take(uint64_t key)
    {
        size_t i = slotOf(key);
        for (;; i = (i + 1) & mask()) {
            if (m_slots[i].value == kAbsent)
                return kAbsent;
            if (m_slots[i].key == key)
                break;
        }
        const uint32_t value = m_slots[i].value;
        // Backward shift: move each later entry of the probe run into the hole when the hole lies
        // between its home slot and its slot, so every entry stays reachable from its home.
        for (size_t j = (i + 1) & mask(); m_slots[j].value != kAbsent; j = (j + 1) & mask()) {
            const size_t home = slotOf(m_slots[j].key);
            if (((j - home) & mask()) >= ((j - i) & mask())) {
                m_slots[i] = m_slots[j];
                i = j;
            }
        }
        m_slots[i] = Slot {};
        --m_size;
        return value;
    }

    size_t size() const noexcept { return m_size; }

    // Calls f(key, value) for every entry, in no particular order.
    template <class F> void forEach(F&& f) const
    {
        for (const Slot& s : m_slots)
            if (s.value != kAbsent)
                f(s.key, s.value);
    }

private:
    struct Slot {
        uint64_t key = 0;
        uint32_t value = kAbsent; // kAbsent: empty slot
    };
    static constexpr unsigned kInitialBits = 4;

    size_t mask() const noexcept { return m_slots.size() - 1; }
    // Fibonacci hashing: the top bits of key * 2^64/phi, so addresses that differ only in their low
    // (aligned) bits or only in their high bits still spread over the table.
    size_t slotOf(uint64_t key) const noexcept { return size_t((key * 0x9E3779B97F4A7C15ull) >> m_shift); }
    void grow()
    {
        std::vector<Slot> old = std::move(m_slots);
        m_slots.assign(old.size() * 2, Slot {});
        --m_shift;
        m_size = 0;
        for (const Slot& s : old)
            if (s.value != kAbsent)
                set(s.key, s.value);
    }

    std::vector<Slot> m_slots; // size a power of two
    size_t m_size = 0;
    unsigned m_shift = 64 - kInitialBits; // 64 - log2(slot count)
};

} // namespace sparkscope::core
