// listsum: a sum over a singly linked list of n cells, written as Mercury's right recursion over a
// list, `sum(Chunk) & sum(Rest)`, with --chunk cells per level. The conjuncts are cheap (a few ns
// per cell), so the recursion is as deep as the list is long: a million cells at the default chunk
// of one are a million nested parallel conjunctions, the shape whose stolen sparks used to keep one
// blocked context per level until the kernel's map limit ran out (docs/runtime.md, "Bounded
// contexts"). TBB's baseline spawns one task per chunk while walking the list (a million levels of
// tbb::parallel_invoke would overflow its workers' stacks); seq walks the list in a loop.
#include "demo/workloads.h"

#include "sparkscope/runtime/par_conj.h"

#include <tbb/task_group.h>

#include <algorithm>
#include <cinttypes>
#include <numeric>
#include <vector>

namespace sparkscope::demo {

namespace rt = sparkscope::runtime;

namespace {

    // The work per cell: splitmix64's finaliser, so that the sum is not a closed formula.
    uint64_t mix(uint64_t x)
    {
        x ^= x >> 30;
        x *= 0xBF58476D1CE4E5B9ull;
        x ^= x >> 27;
        x *= 0x94D049BB133111EBull;
        return x ^ (x >> 31);
    }

    // Cells [from, to) of the list.
    uint64_t sumCells(const ListCell* from, const ListCell* to)
    {
        uint64_t s = 0;
        for (const ListCell* c = from; c != to; c = c->next)
            s += mix(c->value);
        return s;
    }

    const ListCell* skip(const ListCell* c, long cells)
    {
        for (long i = 0; i < cells && c; ++i)
            c = c->next;
        return c;
    }

} // namespace

std::vector<ListCell> makeList(size_t n)
{
    std::vector<ListCell> cells(n);
    for (size_t i = 0; i < n; ++i)
        cells[i] = { i, i + 1 < n ? &cells[i + 1] : nullptr };
    return cells;
}

uint64_t listSumExpected(size_t n)
{
    uint64_t want = 0;
    for (uint64_t i = 0; i < n; ++i)
        want += mix(i);
    return want;
}

uint64_t listSumSeq(const ListCell* list) { return sumCells(list, nullptr); }

uint64_t listSumPar(const ListCell* list, long chunk)
{
    if (!list)
        return 0;
    const ListCell* rest = skip(list, chunk);
    if (!rest)
        return sumCells(list, nullptr);
    uint64_t here = 0, there = 0;
    rt::parConj([&] { here = sumCells(list, rest); }, [&] { there = listSumPar(rest, chunk); });
    return here + there;
}

uint64_t listSumTbb(const ListCell* list, long chunk)
{
    std::vector<std::pair<const ListCell*, const ListCell*>> pieces;
    for (const ListCell* c = list; c;) {
        const ListCell* next = skip(c, chunk);
        pieces.emplace_back(c, next);
        c = next;
    }
    std::vector<uint64_t> parts(pieces.size(), 0);
    tbb::task_group g;
    for (size_t i = 0; i < pieces.size(); ++i)
        g.run([&, i] { parts[i] = sumCells(pieces[i].first, pieces[i].second); });
    g.wait();
    return std::accumulate(parts.begin(), parts.end(), uint64_t(0));
}

int listsum(Runner& run, const Options& opt)
{
    const long n = opt.get("n", 1000000), chunk = std::max(1L, opt.get("chunk", 1));
    const std::vector<ListCell> cells = makeList(size_t(n));
    const ListCell* list = cells.empty() ? nullptr : &cells[0];
    uint64_t r = 0;
    uint64_t ns = run.time([&] {
        if (run.mode == Mode::Seq)
            r = listSumSeq(list);
        else if (run.mode == Mode::Tbb)
            r = listSumTbb(list, chunk);
        else
            r = listSumPar(list, chunk);
    });
    const uint64_t want = listSumExpected(size_t(n)); // a loop over the values, not the list
    std::printf("listsum n=%ld chunk=%ld levels=%ld result=%" PRIu64 "\nelapsed_ns=%" PRIu64 "\n", n, chunk,
        n ? (n + chunk - 1) / chunk : 0, r, ns);
    return r == want ? 0 : 1;
}

} // namespace sparkscope::demo
