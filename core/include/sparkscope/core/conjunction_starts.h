#pragma once
// The start of every conjunction instance, by site, from one pass over the trace's START_PAR_CONJ and
// INTERN_STRING events, without building the model (par_model.h): the instants one can align two
// runs at (the app's comparison, ui/compare/time_alignment.h). The same instants in the same order
// as ParModel::conjunctions grouped by ParModel::staticName (tested), since the model makes one
// instance of every START_PAR_CONJ, in the trace's time order, and names a static id by the last
// INTERN_STRING of it.
//
// Thread safety: a pure function of the trace. Cost: one scan of every event's type, and a merge of
// each site's start times (each stream's come sorted); 8 bytes per START_PAR_CONJ, and the strings.
#include "sparkscope/core/trace.h"

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace sparkscope::core {

using ConjunctionStarts = std::map<std::string, std::vector<uint64_t>>;

// Site (its INTERN_STRING text, else "static#<id>") → the start times of its instances, in the order
// Trace::forEachInTimeOrder meets their START_PAR_CONJ.
ConjunctionStarts conjunctionStartsBySite(const Trace& trace);

// The same, fed one event at a time: how a streaming pass (trace_stream.h), which holds no trace,
// gathers them. Each event comes with its stream (0: the global events, e + 1: engine e's) and its
// index in that stream's order (readTrace's: StreamBatch hands each stream's events out in it), which
// is what places events at one time as forEachInTimeOrder does.
class ConjunctionStartScanner {
public:
    void add(const Event& e, Payload payload, uint32_t stream, uint32_t index);
    // The starts of the events added so far; the scanner can go on (a followed trace's snapshots).
    // O(n log k) for n starts in k streams: each stream's come in time order and are merged.
    ConjunctionStarts finish() const;

private:
    // An event's place in Trace::forEachInTimeOrder: time, then the global stream before the engines'
    // (by number), then the order within its stream.
    struct Place {
        uint64_t timeNs;
        uint32_t stream;
        uint32_t index;
        auto operator<=>(const Place&) const = default;
    };
    // Per static id, per stream: the start times in the order they came. A site keeps only times,
    // so the order among equal times cannot show, and 8 bytes per start are enough.
    std::unordered_map<uint32_t, std::vector<std::vector<uint64_t>>> m_starts;
    std::vector<std::pair<Place, std::pair<uint32_t, std::string>>> m_strings; // id, text
};

} // namespace sparkscope::core
