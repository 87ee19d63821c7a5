// The conjunction instances and futures grouped by name (named_groups.h). Inputs first get a slot
// per site, in order of first appearance, from one lookup each; the slots are then sorted by name
// and merged where names repeat, and the inputs' slots turned into groups.
#include "metrics/named_groups.h"

#include "sparkscope/core/id_maps.h"

#include <algorithm>

namespace sparkscope::core::detail {

namespace {

    // Slots (one per site, in order of first appearance) become groups in name order: slots of the
    // same name share a group. keys holds each input's slot, or kNoGroup; it is turned into groups.
    NamedGroups groupsByName(const std::vector<std::string>& nameOfSlot, const std::vector<uint64_t>& incompleteOfSlot,
        std::vector<uint32_t>& keys)
    {
        NamedGroups out;
        out.names = nameOfSlot;
        std::sort(out.names.begin(), out.names.end());
        out.names.erase(std::unique(out.names.begin(), out.names.end()), out.names.end());
        out.incomplete.assign(out.names.size(), 0);
        std::vector<uint32_t> groupOfSlot(nameOfSlot.size());
        for (size_t slot = 0; slot < nameOfSlot.size(); ++slot) {
            groupOfSlot[slot]
                = uint32_t(std::lower_bound(out.names.begin(), out.names.end(), nameOfSlot[slot]) - out.names.begin());
            out.incomplete[groupOfSlot[slot]] += incompleteOfSlot[slot];
        }
        for (uint32_t& key : keys)
            if (key != IndexGroups::kNoGroup)
                key = groupOfSlot[key];
        out.complete = IndexGroups(keys, out.names.size());
        return out;
    }

} // namespace

ConjunctionGroups groupConjunctions(const ParModel& m, Range r)
{
    // Each instance's static id becomes a slot (ids in order of first appearance): one IdMap load
    // per instance, and none while the id stays the same (a run of one conjunction site).
    constexpr uint32_t kNoGroup = IndexGroups::kNoGroup;
    IdMap slotOfId;
    std::vector<uint32_t> idOfSlot;
    std::vector<uint64_t> incompleteOfSlot;
    std::vector<uint32_t> keys(m.conjunctions.size(), kNoGroup);
    uint32_t lastId = 0, lastSlot = kNoGroup;
    for (size_t j = 0; j < m.conjunctions.size(); ++j) {
        const ConjunctionInstance& ci = m.conjunctions[j];
        if (!r.startsIn(ci.startNs))
            continue;
        if (lastSlot == kNoGroup || ci.staticId != lastId) {
            lastId = ci.staticId;
            lastSlot = slotOfId.get(lastId);
            if (lastSlot == IdMap::kAbsent) {
                lastSlot = uint32_t(idOfSlot.size());
                slotOfId.set(lastId, lastSlot);
                idOfSlot.push_back(lastId);
                incompleteOfSlot.push_back(0);
            }
        }
        if (ci.complete)
            keys[j] = lastSlot;
        else
            ++incompleteOfSlot[lastSlot];
    }
    std::vector<std::string> nameOfSlot;
    for (uint32_t id : idOfSlot)
        nameOfSlot.push_back(m.staticName(id));
    ConjunctionGroups out { groupsByName(nameOfSlot, incompleteOfSlot, keys), {} };
    out.groupOf = std::move(keys);
    return out;
}

FutureGroups groupFutures(const ParModel& m, Range r)
{
    // Each (static id, variable) pair becomes a slot, in order of first appearance: one hash
    // lookup per future rather than building its name and looking that up in a map.
    constexpr uint32_t kNoGroup = IndexGroups::kNoGroup;
    AddressMap slotOfPair;
    std::vector<std::string> nameOfSlot;
    std::vector<uint64_t> incompleteOfSlot;
    std::vector<uint32_t> keys(m.futures.size(), kNoGroup);
    for (size_t f = 0; f < m.futures.size(); ++f) {
        const FutureInstance& future = m.futures[f];
        if (!future.conjunction.valid() || !r.startsIn(m.conjunction(future.conjunction).startNs))
            continue;
        const uint32_t staticId = m.conjunction(future.conjunction).staticId;
        const uint64_t pair = uint64_t(staticId) << 32 | future.nameId;
        uint32_t slot = slotOfPair.find(pair);
        if (slot == AddressMap::kAbsent) {
            slot = uint32_t(nameOfSlot.size());
            slotOfPair.set(pair, slot);
            nameOfSlot.push_back(m.staticName(staticId) + "/" + m.stringOr(future.nameId, "var#"));
            incompleteOfSlot.push_back(0);
        }
        if (future.complete)
            keys[f] = slot;
        else
            ++incompleteOfSlot[slot];
    }
    return groupsByName(nameOfSlot, incompleteOfSlot, keys);
}

} // namespace sparkscope::core::detail
