// IdMap and AddressMap (id_maps.h), the model pass's id lookups: hand-checked cases for the paths
// that are easy to get wrong (an id stored in the hash map before its page's vector grew over it;
// erasing from the middle of a probe run), and long random operation sequences checked against
// std::unordered_map.
#include "sparkscope/core/id_maps.h"

#include <catch2/catch.hpp>

#include <random>
#include <unordered_map>

using namespace sparkscope::core;

TEST_CASE("an IdMap keeps dense ids in its vectors and far ids in its hash map", "[core][model]")
{
    IdMap m;
    CHECK(m.get(7) == IdMap::kAbsent);
    // Spark ids of engines 0 and 1: (engine << 24) | sequence.
    for (uint32_t seq = 0; seq < 1000; ++seq) {
        m.set(seq, seq * 2);
        m.set((1u << 24) | seq, seq * 3);
    }
    CHECK(m.sparseSize() == 0);
    CHECK(m.get(999) == 1998);
    CHECK(m.get((1u << 24) | 999) == 2997);
    CHECK(m.get(1000) == IdMap::kAbsent);
    // Low part 0xF00000 on page 2, which holds nothing yet: far beyond 2 x its 1 set() call and above
    // the always-dense 65536, so it goes to the hash map.
    const uint32_t far = (2u << 24) | 0xF00000;
    m.set(far, 5);
    CHECK(m.sparseSize() == 1);
    CHECK(m.get(far) == 5);
    m.set(far, IdMap::kAbsent);
    CHECK(m.get(far) == IdMap::kAbsent);
    CHECK(m.sparseSize() == 0);
}

TEST_CASE("an IdMap finds an id stored in its hash map after the vector grew past it", "[core][model]")
{
    IdMap m;
    // 70000 is beyond 65536 and beyond 2 x 1 set() call: hash map.
    m.set(70000, 1);
    CHECK(m.sparseSize() == 1);
    // Dense ids 0..65999: the vector doubles up to 65536 slots while ids stay below 65536; id 65536
    // (set() call 65538, and 65536 < 2 x 65538) doubles it to 131072 slots, covering 70000.
    for (uint32_t id = 0; id < 66000; ++id)
        m.set(id, id);
    CHECK(m.get(70000) == 1); // still found in the hash map, the vector slot being empty
    m.set(70000, 2); // now fits the vector: moves there
    CHECK(m.sparseSize() == 0);
    CHECK(m.get(70000) == 2);
    m.set(70000, IdMap::kAbsent);
    CHECK(m.get(70000) == IdMap::kAbsent);
}

TEST_CASE("an IdMap agrees with std::unordered_map on random dense and sparse ids", "[core][model]")
{
    std::mt19937_64 rng(42);
    IdMap m;
    std::unordered_map<uint32_t, uint32_t> ref;
    for (int i = 0; i < 200000; ++i) {
        uint32_t id;
        switch (rng() % 3) {
        case 0:
            id = uint32_t(rng() % 4) << 24 | uint32_t(rng() % 5000); // dense spark-like ids
            break;
        case 1:
            id = uint32_t(rng()); // anywhere
            break;
        default:
            id = uint32_t(rng() % 200000); // page 0, sometimes beyond the vector
        }
        if (rng() % 4 == 0) {
            m.set(id, IdMap::kAbsent);
            ref.erase(id);
        } else if (rng() % 2 == 0) {
            const uint32_t v = uint32_t(rng() % 1000000);
            m.set(id, v);
            ref[id] = v;
        }
        auto it = ref.find(id);
        REQUIRE(m.get(id) == (it == ref.end() ? IdMap::kAbsent : it->second));
    }
    for (const auto& [id, v] : ref)
        REQUIRE(m.get(id) == v);
}

TEST_CASE("an AddressMap erases from the middle of a probe run and keeps the rest reachable", "[core][model]")
{
    AddressMap m;
    // Barrier addresses 0x40 apart, as the runtime reuses them: enough to grow the table several times.
    for (uint32_t i = 0; i < 100; ++i)
        m.set(0x7f0000001000ull + 0x40ull * i, i);
    CHECK(m.size() == 100);
    for (uint32_t i = 0; i < 100; i += 3)
        m.erase(0x7f0000001000ull + 0x40ull * i);
    for (uint32_t i = 0; i < 100; ++i)
        CHECK(m.find(0x7f0000001000ull + 0x40ull * i) == (i % 3 == 0 ? AddressMap::kAbsent : i));
    m.set(0x7f0000001040ull, 77); // replaces the value of i = 1
    CHECK(m.find(0x7f0000001040ull) == 77);
    CHECK(m.size() == 66);
    m.erase(0x1234); // absent: no change
    CHECK(m.size() == 66);
}

TEST_CASE("an AddressMap agrees with std::unordered_map on random inserts and erases", "[core][model]")
{
    std::mt19937_64 rng(7);
    AddressMap m;
    std::unordered_map<uint64_t, uint32_t> ref;
    std::vector<uint64_t> keys;
    for (int i = 0; i < 3000; ++i)
        keys.push_back(i % 2 ? rng() : 0x7f0000000000ull + 0x20ull * uint64_t(i)); // random and aligned
    for (int i = 0; i < 300000; ++i) {
        const uint64_t key = keys[rng() % keys.size()];
        if (rng() % 2) {
            const uint32_t v = uint32_t(rng() % 1000);
            m.set(key, v);
            ref[key] = v;
        } else {
            m.erase(key);
            ref.erase(key);
        }
        auto it = ref.find(key);
        REQUIRE(m.find(key) == (it == ref.end() ? AddressMap::kAbsent : it->second));
        REQUIRE(m.size() == ref.size());
    }
    for (uint64_t key : keys) {
        auto it = ref.find(key);
        REQUIRE(m.find(key) == (it == ref.end() ? AddressMap::kAbsent : it->second));
    }
}

TEST_CASE("IdMap::exchange and AddressMap's exchange and take return the old value as a look-up would", "[core][model]")
{
    // The same random operations as above, each done both ways: exchange() must return what get()
    // returned before and leave what set() leaves; take() what find() returned before erase().
    std::mt19937_64 rng(11);
    IdMap ids;
    std::unordered_map<uint32_t, uint32_t> idRef;
    AddressMap addresses;
    std::unordered_map<uint64_t, uint32_t> addressRef;
    auto lookUp = [](const auto& ref, auto key, uint32_t absent) {
        auto it = ref.find(key);
        return it == ref.end() ? absent : it->second;
    };
    for (int i = 0; i < 200000; ++i) {
        const uint32_t id = rng() % 2 ? uint32_t(rng() % 3) << 24 | uint32_t(rng() % 3000) : uint32_t(rng());
        const uint32_t v = rng() % 5 == 0 ? IdMap::kAbsent : uint32_t(rng() % 1000);
        REQUIRE(ids.exchange(id, v) == lookUp(idRef, id, IdMap::kAbsent));
        if (v == IdMap::kAbsent)
            idRef.erase(id);
        else
            idRef[id] = v;
        REQUIRE(ids.get(id) == lookUp(idRef, id, IdMap::kAbsent));

        const uint64_t key = rng() % 2 ? rng() % 4000 : 0x7f0000000000ull + 0x40ull * (rng() % 4000);
        if (rng() % 2) {
            const uint32_t value = uint32_t(rng() % 1000);
            REQUIRE(addresses.exchange(key, value) == lookUp(addressRef, key, AddressMap::kAbsent));
            addressRef[key] = value;
        } else {
            REQUIRE(addresses.take(key) == lookUp(addressRef, key, AddressMap::kAbsent));
            addressRef.erase(key);
        }
        REQUIRE(addresses.find(key) == lookUp(addressRef, key, AddressMap::kAbsent));
        REQUIRE(addresses.size() == addressRef.size());
    }
    for (const auto& [id, v] : idRef)
        REQUIRE(ids.get(id) == v);
    for (const auto& [key, v] : addressRef)
        REQUIRE(addresses.find(key) == v);
}
