// sparkscope-demo: workloads for SparkScope's runtime, each also runnable sequentially (--baseline
// seq) or with TBB's task_group (--baseline tbb) for comparison. Every workload checks its result
// (exit 1 if wrong) and prints it with elapsed_ns=<n> (the computation only, not start-up).
//
//   sparkscope-demo WORKLOAD [--engines N] [--trace FILE | --no-trace] [--baseline seq|tbb]
//                   [--max-contexts-per-engine N] [options]
//   sparkscope-demo --list
// After a run on the runtime it prints the context counters (created, peak live, the limit, stack
// hand-overs) and the sparks stolen.
//
// The workloads live in app/demo/ (workloads.h), shared with the runtime benchmark; this file reads
// the command line, starts the runtime (or limits TBB) and runs the chosen one.
#include "demo/workloads.h"

#include "sparkscope/runtime/runtime.h"

#include <tbb/global_control.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>

namespace rt = sparkscope::runtime;
using namespace sparkscope::demo;

namespace {

int usage(FILE* out)
{
    std::fprintf(out,
        "usage: sparkscope-demo WORKLOAD [--engines N] [--trace FILE | --no-trace] [--baseline seq|tbb] "
        "[--max-contexts-per-engine N] [workload options]\n       sparkscope-demo --list\n"
        "Without --trace, the environment variable SPARKSCOPE_TRACE=<file> turns tracing on; without\n"
        "--max-contexts-per-engine, SPARKSCOPE_MAX_CONTEXTS_PER_ENGINE=<n> sets the runtime's bound on live\n"
        "contexts per engine; SPARKSCOPE_TRACE_FLUSH_MS=<ms> has each engine write its events at least that\n"
        "often, to follow the trace while it runs (sparkscope --follow). --no-trace ignores them all.\n");
    return 2;
}

} // namespace

int main(int argc, char** argv)
{
    if (argc < 2)
        return usage(stderr);
    std::string first = argv[1];
    if (first == "--list") {
        for (const auto& w : workloads())
            std::printf("%-11s %s\n", w.name, w.help);
        return 0;
    }
    if (first == "--help" || first == "-h") {
        usage(stdout);
        std::printf("\nWorkloads (their options and defaults):\n");
        for (const auto& w : workloads())
            std::printf("  %-11s %s\n", w.name, w.help);
        return 0;
    }
    const Workload* workload = nullptr;
    for (const auto& w : workloads())
        if (first == w.name)
            workload = &w;
    if (!workload) {
        std::fprintf(stderr, "sparkscope-demo: unknown workload '%s' (see --list)\n", first.c_str());
        return 2;
    }

    unsigned engines = std::max(1u, std::thread::hardware_concurrency());
    std::string tracePath;
    bool noTrace = false;
    unsigned maxContextsPerEngine = 0; // the runtime's default (or its environment variable)
    Mode mode = Mode::Runtime;
    Options opt;
    for (int i = 2; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--help" || a == "-h") {
            std::printf("%s: %s\n", workload->name, workload->help);
            usage(stdout);
            return 0;
        }
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "sparkscope-demo: %s needs a value\n", a.c_str());
                std::exit(2);
            }
            return argv[++i];
        };
        if (a == "--engines") {
            long n = std::strtol(value().c_str(), nullptr, 10);
            if (n < 1 || n > 4096) {
                std::fprintf(stderr, "sparkscope-demo: --engines must be 1..4096\n");
                return 2;
            }
            engines = unsigned(n);
        } else if (a == "--max-contexts-per-engine") {
            const std::string v = value();
            char* end = nullptr;
            const long n = std::strtol(v.c_str(), &end, 10);
            if (v.empty() || *end || n < 1 || n > long(rt::RuntimeOptions::kMaxContextsTotal)) {
                std::fprintf(stderr, "sparkscope-demo: --max-contexts-per-engine must be 1..%u, not '%s'\n",
                    rt::RuntimeOptions::kMaxContextsTotal, v.c_str());
                return 2;
            }
            maxContextsPerEngine = unsigned(n);
        } else if (a == "--trace") {
            tracePath = value();
        } else if (a == "--no-trace") {
            noTrace = true;
        } else if (a == "--baseline") {
            std::string b = value();
            if (b == "seq")
                mode = Mode::Seq;
            else if (b == "tbb")
                mode = Mode::Tbb;
            else {
                std::fprintf(stderr, "sparkscope-demo: --baseline is seq or tbb, not '%s'\n", b.c_str());
                return 2;
            }
        } else if (a.rfind("--", 0) == 0 && a.size() > 2) {
            opt.values[a.substr(2)] = value();
        } else {
            std::fprintf(stderr, "sparkscope-demo: unexpected argument '%s'\n", a.c_str());
            return usage(stderr);
        }
    }
    if (noTrace && !tracePath.empty()) {
        std::fprintf(stderr, "sparkscope-demo: --trace and --no-trace exclude each other\n");
        return 2;
    }

    Runner runner;
    runner.mode = mode;
    runner.engines = engines;
    std::unique_ptr<rt::Runtime> runtime;
    std::unique_ptr<tbb::global_control> tbbLimit;
    if (mode == Mode::Runtime) {
        // Made when the workload's computation starts and ended when it is done: the trace holds the
        // computation alone (Runner).
        runner.start = [&]() -> rt::Runtime* {
            rt::RuntimeOptions o;
            o.engines = engines;
            o.tracePath = tracePath;
            o.useEnvironment = !noTrace;
            o.maxContextsPerEngine = maxContextsPerEngine;
            auto created = rt::Runtime::create(o);
            if (!created.ok()) {
                std::fprintf(stderr, "sparkscope-demo: %s\n", created.error().toString().c_str());
                std::exit(2);
            }
            runtime = std::move(created.value());
            return runtime.get();
        };
        runner.finish = [&] {
            const rt::RuntimeStats st = runtime->stats();
            std::printf("contexts created=%llu peak_live=%llu limit=%llu stack_handoffs=%llu sparks_stolen=%llu\n",
                (unsigned long long)st.contextsCreated, (unsigned long long)st.peakLiveContexts,
                (unsigned long long)st.contextLimit, (unsigned long long)st.stackHandoffs,
                (unsigned long long)st.sparksStolen);
            const bool traced = runtime->tracing();
            const std::string path = runtime->tracePath();
            const bool failed = runtime->traceFailed();
            runtime.reset(); // flushes and closes the trace
            if (traced)
                std::printf("trace=%s%s\n", path.c_str(), failed ? " (some events were lost: write failed)" : "");
        };
    } else if (mode == Mode::Tbb) {
        tbbLimit = std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism, engines);
    }
    int rc = workload->fn(runner, opt);
    for (const auto& [name, value] : opt.values) {
        if (!opt.used.count(name)) {
            std::fprintf(stderr, "sparkscope-demo: %s does not take --%s\n", workload->name, name.c_str());
            return 2;
        }
    }
    if (rc != 0)
        std::fprintf(stderr, "sparkscope-demo: %s computed a WRONG result\n", workload->name);
    return rc;
}
