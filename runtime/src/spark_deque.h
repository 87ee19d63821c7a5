#pragma once
// SparkDeque: the per-engine work-stealing deque of sparks (Chase and Lev, "Dynamic circular
// work-stealing deque", SPAA 2005), with the C11 memory orders of Lê, Pop, Cohen and Zappa Nardelli,
// "Correct and efficient work-stealing for weak memory models" (PPoPP 2013).
//
// Why this shape: the owner pushes and pops at the bottom without any read-modify-write except when
// the deque holds a single element; thieves take from the top with one CAS. The paper's two
// seq_cst fences are expressed here as seq_cst operations on `bottom` and `top` instead, which
// costs the same on x86 (one locked instruction) and lets ThreadSanitizer see the synchronisation
// (it does not model stand-alone fences). Slots hold pointers in relaxed atomics; a thief only
// dereferences what it took after its CAS on `top` succeeded, and the spark's fields were published
// by the owner's release of `bottom` that the thief acquired.
//
// The array grows (doubling) when full. Old arrays are kept until the deque is destroyed, because
// a thief may still be reading a slot of the array it loaded; the total retired memory is bounded
// by the final array's size.
//
// Thread safety: push/pop only from the owning engine's thread; steal and looksNonEmpty from any
// thread. Cost: push and pop are a few loads and stores plus one seq_cst store (pop) or one
// seq_cst store (push, for the sleeping-engine handshake); steal is two seq_cst loads and a CAS.
#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

namespace sparkscope::runtime::detail {

template <class T> class SparkDeque {
public:
    explicit SparkDeque(int64_t initialCapacity = 1024)
    {
        auto a = std::make_unique<Array>(initialCapacity);
        m_array.store(a.get(), std::memory_order_relaxed);
        m_arrays.push_back(std::move(a));
    }
    SparkDeque(const SparkDeque&) = delete;
    SparkDeque& operator=(const SparkDeque&) = delete;

    // Owner only. The store of `bottom` is seq_cst so that a following seq_cst load of the
    // sleeping-engine count is ordered after it (the wake-up handshake in the scheduler).
    void push(T* item)
    {
        int64_t b = m_bottom.load(std::memory_order_relaxed);
        int64_t t = m_top.load(std::memory_order_acquire);
        Array* a = m_array.load(std::memory_order_relaxed);
        if (b - t > a->capacity - 1)
            a = grow(a, b, t);
        a->put(b, item);
        m_bottom.store(b + 1, std::memory_order_seq_cst);
    }

    // Owner only: the most recently pushed item, or nullptr.
    T* pop()
    {
        int64_t b = m_bottom.load(std::memory_order_relaxed) - 1;
        Array* a = m_array.load(std::memory_order_relaxed);
        m_bottom.store(b, std::memory_order_seq_cst);
        int64_t t = m_top.load(std::memory_order_seq_cst);
        if (t > b) {
            m_bottom.store(b + 1, std::memory_order_relaxed);
            return nullptr;
        }
        T* item = a->get(b);
        if (t == b) {
            // Last element: race the thieves for it.
            if (!m_top.compare_exchange_strong(t, t + 1, std::memory_order_seq_cst, std::memory_order_relaxed))
                item = nullptr;
            m_bottom.store(b + 1, std::memory_order_relaxed);
        }
        return item;
    }

    // Any thread: the oldest item, or nullptr when empty or when another thief won the race.
    T* steal()
    {
        int64_t t = m_top.load(std::memory_order_seq_cst);
        int64_t b = m_bottom.load(std::memory_order_seq_cst);
        if (t >= b)
            return nullptr;
        Array* a = m_array.load(std::memory_order_acquire);
        T* item = a->get(t);
        if (!m_top.compare_exchange_strong(t, t + 1, std::memory_order_seq_cst, std::memory_order_relaxed))
            return nullptr;
        return item;
    }

    // Any thread: a seq_cst snapshot used by an engine about to sleep (may be stale immediately).
    bool looksNonEmpty() const noexcept
    {
        return m_top.load(std::memory_order_seq_cst) < m_bottom.load(std::memory_order_seq_cst);
    }

    int64_t capacity() const noexcept { return m_array.load(std::memory_order_relaxed)->capacity; }

private:
    struct Array {
        explicit Array(int64_t cap)
            : capacity(cap)
            , mask(cap - 1)
            , slots(new std::atomic<T*>[static_cast<size_t>(cap)])
        {
        }
        T* get(int64_t i) const noexcept { return slots[i & mask].load(std::memory_order_relaxed); }
        void put(int64_t i, T* v) noexcept { slots[i & mask].store(v, std::memory_order_relaxed); }
        const int64_t capacity;
        const int64_t mask;
        std::unique_ptr<std::atomic<T*>[]> slots;
    };

    Array* grow(Array* old, int64_t b, int64_t t)
    {
        auto bigger = std::make_unique<Array>(old->capacity * 2);
        for (int64_t i = t; i < b; ++i)
            bigger->put(i, old->get(i));
        Array* raw = bigger.get();
        m_arrays.push_back(std::move(bigger));
        m_array.store(raw, std::memory_order_release);
        return raw;
    }

    alignas(64) std::atomic<int64_t> m_top { 0 };
    alignas(64) std::atomic<int64_t> m_bottom { 0 };
    std::atomic<Array*> m_array { nullptr };
    std::vector<std::unique_ptr<Array>> m_arrays; // owner only; every array ever used
};

} // namespace sparkscope::runtime::detail
