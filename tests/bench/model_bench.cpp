// Model-pass benchmark (not a test): time of buildParModel alone — the pre-pass of metrics.md that
// renames dynamic ids apart and rebuilds conjunction instances, conjuncts, futures and context
// timelines — on one eventlog read once. Prints the median of RUNS runs in ms and M events/s, with
// the model's sizes and what each part of it holds in bytes per event (the model is what every phase
// of `metrics` holds, so the first place to look for its memory), and the time and size of the
// hover's event index (ParEventIndex::build, which the app builds once per trace), then one RESULT
// line for scripts. Each run gets fresh memory, as a one-shot
// `sparkscope-cli metrics` does, so page faults on the model's arrays are part of its time.
//
//   sparkscope-model-bench FILE [RUNS]
//
// To compare two builds (before/after a change), run this program from each build on the same file
// in the same session: scripts/bench model does that when SPARKSCOPE_BENCH_MODEL_BASELINE names the
// baseline build's binary.
#include "bench_stats.h"
#include "sparkscope/core/metrics_query.h"
#include "sparkscope/core/par_model.h"
#include "sparkscope/core/reader.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <malloc.h>
#include <string>
#include <vector>

using namespace sparkscope::core;

using sparkscope::bench::median;

namespace {

// CPU time of the whole process (all threads): steadier than wall time on a shared machine.
double processCpuMs()
{
    timespec ts {};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

// What the model's arrays hold, by part, in bytes per event: their items (size x item size, what is
// written and so resident) and, in all, what the arrays reserved (capacity; a grown vector's unwritten
// tail is address space, not resident memory, but it was the old and new block side by side while
// the vector grew).
void printModelBytes(const ParModel& m, size_t events)
{
    size_t listHeap = 0, segments = 0, states = 0, reserved = 0, pieces = 0, children = 0, waits = 0;
    for (const ConjunctionInstance& j : m.conjunctions)
        listHeap += j.conjuncts.size() > 2 ? j.conjuncts.size() * sizeof(ConjunctIndex) : 0;
    for (const ContextTimeline& c : m.contexts) {
        segments += c.segments.size();
        states += c.states.size();
        reserved += c.segments.capacity() * sizeof(ContextSegment) + c.states.capacity() * sizeof(ContextStateChange);
    }
    for (size_t k = 0; k < m.conjuncts.size(); ++k) {
        const ConjunctIndex ki(static_cast<uint32_t>(k));
        pieces += m.hasTopPieces() ? m.topPieces(ki).size() : 0;
        children += m.childConjunctions(ki).size();
    }
    for (const FutureInstance& f : m.futures)
        waits += f.waits.size() > 1 ? f.waits.size() : 0;
    const double e = double(std::max<size_t>(events, 1));
    const auto line = [&](const char* what, size_t count, size_t bytes) {
        std::printf("    %-44s %12zu  %9.1f MB  %6.2f B/event\n", what, count, double(bytes) / 1e6, double(bytes) / e);
        return bytes;
    };
    std::printf("  model's arrays (count, bytes of the items):\n");
    size_t total = 0;
    total += line("conjunctions", m.conjunctions.size(), m.conjunctions.size() * sizeof(ConjunctionInstance));
    total += line("  their conjunct lists past 2", m.conjunctions.size(), listHeap);
    total += line("conjuncts", m.conjuncts.size(), m.conjuncts.size() * sizeof(ConjunctInstance));
    total += line("futures (and waits past 1)", m.futures.size(),
        m.futures.size() * sizeof(FutureInstance) + waits * sizeof(FutureWait));
    total += line("contexts", m.contexts.size(), m.contexts.size() * sizeof(ContextTimeline));
    total += line("  their segments", segments, segments * sizeof(ContextSegment));
    total += line("  their state changes", states, states * sizeof(ContextStateChange));
    total += line("top-piece index (8 B/piece, 8/conjunct)", pieces,
        m.hasTopPieces() ? pieces * 8 + (m.conjuncts.size() + 1) * 8 : 0);
    total += line("child index (4 B/child, 4/conjunct)", children, children * 4 + (m.conjuncts.size() + 1) * 4);
    total += line("futures' index (4 B/future, 4/conjunction)", m.futures.size(),
        m.futures.empty() ? 0 : m.futures.size() * 4 + (m.conjunctions.size() + 1) * 4);
    std::printf("    %-44s %12s  %9.1f MB  %6.2f B/event\n", "total", "", double(total) / 1e6, double(total) / e);
    reserved += m.conjunctions.capacity() * sizeof(ConjunctionInstance) + m.conjuncts.capacity() * sizeof(ConjunctInstance)
        + m.futures.capacity() * sizeof(FutureInstance) + m.contexts.capacity() * sizeof(ContextTimeline);
    std::printf("    (the instance and segment arrays reserved %.1f MB, where their items are %.1f MB)\n",
        double(reserved) / 1e6,
        double(m.conjunctions.size() * sizeof(ConjunctionInstance) + m.conjuncts.size() * sizeof(ConjunctInstance)
            + m.futures.size() * sizeof(FutureInstance) + m.contexts.size() * sizeof(ContextTimeline)
            + segments * sizeof(ContextSegment) + states * sizeof(ContextStateChange))
            / 1e6);
}

} // namespace

int main(int argc, char** argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: sparkscope-model-bench FILE [RUNS]\n");
        return 2;
    }
    // Every run starts as cold as a one-shot `sparkscope-cli metrics`: large blocks are always fresh
    // mappings (glibc would otherwise raise its mmap threshold after the first free and hand later
    // runs warm, already-faulted memory), and freed memory goes back to the system between runs.
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
    const std::string path = argv[1];
    const int runs = argc > 2 ? std::max(1, std::atoi(argv[2])) : 5;
    auto trace = readTrace(path);
    if (!trace) {
        std::fprintf(stderr, "read failed: %s\n", trace.error().toString().c_str());
        return 2;
    }
    const size_t events = trace->eventCount();
    std::vector<double> ms, cpuMs;
    size_t conjunctions = 0, conjuncts = 0, futures = 0, contexts = 0, problems = 0;
    ParModel lastModel;
    for (int i = 0; i < runs; ++i) {
        const bool last = i + 1 == runs;
        const double c0 = processCpuMs();
        const auto t0 = std::chrono::steady_clock::now();
        ParModel m = buildParModel(trace.value());
        const auto t1 = std::chrono::steady_clock::now();
        cpuMs.push_back(processCpuMs() - c0);
        ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
        conjunctions = m.conjunctions.size();
        conjuncts = m.conjuncts.size();
        futures = m.futures.size();
        contexts = m.contexts.size();
        problems = m.problems.size();
        if (last) {
            lastModel = std::move(m); // looked into below, once the timings are printed
            continue;
        }
        m = ParModel {};
        malloc_trim(0);
    }
    const double wall = median(ms), cpu = median(cpuMs);
    std::printf("%s: %zu events; model: %zu conjunctions, %zu conjuncts, %zu futures, %zu contexts, %zu problems\n",
        path.c_str(), events, conjunctions, conjuncts, futures, contexts, problems);
    std::printf("  buildParModel  %8.2f ms  %7.1f M events/s  %6.1f ns/event  (median of %d runs, min %.2f ms)\n", wall,
        double(events) / wall / 1e3, wall * 1e6 / double(events), runs, *std::min_element(ms.begin(), ms.end()));
    std::printf("  CPU time       %8.2f ms  (median; all threads)\n", cpu);
    printModelBytes(lastModel, events);
    std::vector<double> indexMs;
    size_t indexed = 0;
    for (int r = 0; r < runs; ++r) {
        const auto i0 = std::chrono::steady_clock::now();
        const ParEventIndex index = ParEventIndex::build(lastModel);
        indexMs.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - i0).count());
        indexed = index.size();
    }
    // A position (4 bytes) per conjunction or conjunct event; futures' events are copied entries
    // (metrics_query.h), one per creation, signal and wait.
    size_t futureEvents = 0;
    for (const FutureInstance& f : lastModel.futures)
        futureEvents += 1 + (f.signalled ? 1 : 0) + f.waits.size();
    std::printf("  ParEventIndex::build %8.2f ms (median of %d), %zu events indexed (%zu of futures), ~%.1f MB\n",
        median(indexMs), runs, indexed, futureEvents, double((indexed - futureEvents) * 4 + futureEvents * 24) / 1e6);
    std::printf("RESULT events=%zu model_ms=%.3f cpu_ms=%.3f\n", events, wall, cpu);
    return 0;
}
