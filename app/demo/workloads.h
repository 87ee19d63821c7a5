#pragma once
// The demo programs: workloads for SparkScope's runtime, each also runnable sequentially
// (Mode::Seq) or with TBB's task_group (Mode::Tbb) for comparison. Every workload checks its result
// (returns 1 if wrong) and prints it with elapsed_ns=<n> (the computation only, not start-up).
//
// sparkscope-demo (app/demo_main.cpp) runs them by name; the runtime benchmark
// (tests/bench/runtime_bench.cpp) times parfib's and listsum's kernels, so both measure the same code.
//
// Thread safety: a workload runs on the calling thread (and the runtime's engines or TBB's
// workers); Options and Runner belong to that call.
#include "sparkscope/runtime/runtime.h"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <vector>

namespace sparkscope::demo {

enum class Mode { Runtime, Seq, Tbb };

// Workload options: "--name value" pairs, read with defaults; unknown names are reported.
class Options {
public:
    std::map<std::string, std::string> values;
    mutable std::map<std::string, bool> used;

    // The value of --name as a non-negative integer, or `fallback`; exits with status 2 when the
    // value is not one.
    long get(const std::string& name, long fallback) const;
};

// Runs `body` the chosen way; returns elapsed ns of the body.
struct Runner {
    Mode mode = Mode::Runtime;
    runtime::Runtime* runtime = nullptr;
    // Mode::Runtime without `runtime`: `start` makes it just before the body runs and `finish` ends
    // it just after, so that its trace holds the computation, not the workload's set-up before it
    // nor its sequential check of the result after (half of a short run's trace, idle engines all).
    std::function<runtime::Runtime*()> start;
    std::function<void()> finish;
    unsigned engines = 1;

    template <class F> uint64_t time(F&& body)
    {
        uint64_t ns = 0;
        auto timed = [&] {
            auto t0 = std::chrono::steady_clock::now();
            body();
            ns = uint64_t((std::chrono::steady_clock::now() - t0).count());
        };
        if (mode == Mode::Runtime) {
            runtime::Runtime* rt = runtime ? runtime : start();
            auto r = rt->run(timed);
            if (!r.ok()) {
                std::fprintf(stderr, "sparkscope-demo: %s\n", r.error().toString().c_str());
                std::exit(2);
            }
            if (finish)
                finish();
        } else {
            timed();
        }
        return ns;
    }
};

struct Workload {
    const char* name;
    const char* help;
    int (*fn)(Runner&, const Options&);
};

// Every workload, in the order --list prints them.
std::span<const Workload> workloads();

int parfib(Runner& run, const Options& opt);
int sumeuler(Runner& run, const Options& opt);
int quicksort(Runner& run, const Options& opt);
int pipeline(Runner& run, const Options& opt);
int imbalanced(Runner& run, const Options& opt);
int listsum(Runner& run, const Options& opt);

// parfib's kernels (doubly recursive Fibonacci; below the cut-off the recursion is sequential).
uint64_t fibSeq(long n);
uint64_t fibPar(long n, long cutoff); // parConj on the runtime's engines
uint64_t fibTbb(long n, long cutoff); // tbb::task_group

// listsum's kernels: a singly linked list of n cells (cell i holds i, linked in order) summed with
// `chunk & rest` right recursion (one level of nested conjunctions per `chunk` cells), with
// tbb::task_group (one task per chunk), or in a loop.
struct ListCell {
    uint64_t value;
    const ListCell* next;
};
std::vector<ListCell> makeList(size_t n);
uint64_t listSumExpected(size_t n); // the sum, computed from the values without the list
uint64_t listSumSeq(const ListCell* list);
uint64_t listSumPar(const ListCell* list, long chunk);
uint64_t listSumTbb(const ListCell* list, long chunk);

} // namespace sparkscope::demo
