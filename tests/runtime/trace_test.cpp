// The runtime's traces: they decode with core's reader, declare Mercury's header, carry the events
// Mercury posts, and satisfy the runtime's invariants (trace_checks.h). A program killed mid-run
// leaves a readable prefix.
#include "trace_checks.h"

#include "sparkscope/core/reader.h"
#include "sparkscope/runtime/future.h"
#include "sparkscope/runtime/par_conj.h"
#include "sparkscope/runtime/runtime.h"
#include "support/test_data.h"

#include <catch2/catch.hpp>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace sparkscope;
using namespace sparkscope::runtime;

namespace {

uint64_t parfib(int n)
{
    if (n < 2)
        return uint64_t(n);
    uint64_t a = 0, b = 0;
    parConj([&] { a = parfib(n - 1); }, [&] { b = parfib(n - 2); });
    return a + b;
}

// Single-threaded reading: TBB's prebuilt library is not instrumented, so TSan would flag it.
core::ReadOptions oneThread()
{
    core::ReadOptions o;
    o.threads = 1;
    return o;
}

core::Trace readBack(const std::string& path)
{
    auto t = core::readTrace(path, oneThread());
    INFO(path << ": " << (t.ok() ? "" : t.error().toString()));
    REQUIRE(t.ok());
    return std::move(t.value());
}

std::string problemsText(const test::RuntimeTraceSummary& s)
{
    std::string out;
    for (auto& p : s.problems)
        out += p + "\n";
    return out;
}

} // namespace

TEST_CASE("a traced run decodes, declares Mercury's events and satisfies the runtime invariants", "[runtime]")
{
    const auto path = (test::scratchDir("runtime-trace") / "parfib.eventlog").string();
    RuntimeStats stats;
    {
        RuntimeOptions o;
        o.engines = 2;
        o.tracePath = path;
        auto rt = Runtime::create(o);
        REQUIRE(rt.ok());
        REQUIRE(rt.value()->tracing());
        uint64_t r = 0;
        REQUIRE(rt.value()
                    ->run([&] {
                        mark("phase: parfib");
                        r = parfib(18);
                        message("parfib done");
                        Future<int> f("answer");
                        int got = 0;
                        parConj([&] { got = f.wait(); },
                            [&] {
                                std::this_thread::sleep_for(std::chrono::milliseconds(2));
                                f.signal(42);
                            });
                        CHECK(got == 42);
                    })
                    .ok());
        CHECK(r == 2584);
        stats = rt.value()->stats();
        CHECK_FALSE(rt.value()->traceFailed());
    }
    core::Trace t = readBack(path);
    CHECK_FALSE(t.truncated);
    CHECK(t.engines.size() == 2);
    for (uint16_t n : { 100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115, 116 })
        CHECK(t.header.find(n) != nullptr);
    CHECK(t.header.extends(114) == 38);
    CHECK(t.header.find(core::ev::StopThread)->size == 10);

    auto s = test::checkRuntimeTrace(t);
    INFO(problemsText(s));
    CHECK(s.problems.empty());
    // parfib(18) has fib(19) - 1 = 4180 conjunctions, plus the future's conjunction.
    CHECK(s.conjunctions == 4181);
    CHECK(s.conjunctEnds == 2 * 4181);
    CHECK(s.counts[core::ev::MerSparkCreate] == stats.sparksCreated);
    CHECK(s.counts[core::ev::MerSparkRun] + s.counts[core::ev::MerSparkSteal] == stats.sparksCreated);
    CHECK(s.counts[core::ev::MerFutCreate] == 1);
    CHECK(s.counts[core::ev::MerFutSignal] == 1);
    CHECK(s.counts[core::ev::MerFutWaitSuspended] + s.counts[core::ev::MerFutWaitNoSuspend] == 1);
    CHECK(s.counts[core::ev::MerCallingMain] == 1);
    CHECK(s.counts[core::ev::UserMarker] == 1);
    CHECK(s.counts[core::ev::UserMsg] == 1);
    CHECK(s.counts[core::ev::Shutdown] == 2);
    CHECK(s.counts[core::ev::Startup] == 1);
    CHECK(s.counts[core::ev::CapsetAssignCap] == 2);
    CHECK(s.counts[core::ev::RtsIdentifier] == 1);
    CHECK(s.counts[core::ev::InternString] >= 3); // parfib's and the future test's call sites, "answer"
    CHECK(s.counts[core::ev::CreateThread] >= 1);
    CHECK(s.counts[core::ev::StopThread] == s.counts[core::ev::RunThread]);
}

TEST_CASE("the waiting side of a future posts wait-suspended, a blocked stop and runs again", "[runtime]")
{
    const auto path = (test::scratchDir("runtime-trace-future") / "future.eventlog").string();
    {
        RuntimeOptions o;
        o.engines = 2;
        o.tracePath = path;
        auto rt = Runtime::create(o);
        REQUIRE(rt.ok());
        REQUIRE(rt.value()
                    ->run([&] {
                        for (int i = 0; i < 20; ++i) {
                            Future<int> f("slow");
                            int got = 0;
                            // The consumer is the first conjunct (run by this context at once); the producer
                            // sleeps first, so the consumer nearly always suspends.
                            parConj([&] { got = f.wait(); },
                                [&] {
                                    std::this_thread::sleep_for(std::chrono::milliseconds(1));
                                    f.signal(i);
                                });
                            CHECK(got == i);
                        }
                    })
                    .ok());
    }
    core::Trace t = readBack(path);
    auto s = test::checkRuntimeTrace(t);
    INFO(problemsText(s));
    CHECK(s.problems.empty());
    CHECK(s.counts[core::ev::MerFutWaitSuspended] >= 10);
    CHECK(s.counts[core::ev::ThreadRunnable] >= s.counts[core::ev::MerFutWaitSuspended]);
}

// The child of the next test: traces parfib forever into $SPARKSCOPE_TEST_KILL_TRACE. Hidden ([.]); it
// runs in a fresh exec of this binary, so no sanitizer has to support threads after fork().
TEST_CASE("child: trace forever until killed", "[.][runtime-kill-child]")
{
    const char* path = std::getenv("SPARKSCOPE_TEST_KILL_TRACE");
    if (!path)
        return;
    RuntimeOptions o;
    o.engines = 2;
    o.tracePath = path;
    o.traceBufferBytes = 64 * 1024; // flush often
    auto rt = Runtime::create(o);
    if (!rt.ok())
        _exit(3);
    (void)rt.value()->run([] {
        for (;;)
            parfib(16);
    });
}

TEST_CASE("a traced program killed mid-run leaves a readable prefix", "[runtime]")
{
    const auto dir = test::scratchDir("runtime-trace-kill");
    const auto path = (dir / "killed.eventlog").string();
    pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        setenv("SPARKSCOPE_TEST_KILL_TRACE", path.c_str(), 1);
        execl("/proc/self/exe", "sparkscope-runtime-tests", "[runtime-kill-child]", static_cast<char*>(nullptr));
        _exit(4);
    }
    // Wait until a few blocks are out, then kill it without warning.
    for (int i = 0; i < 3000 && (!std::filesystem::exists(path) || std::filesystem::file_size(path) < 512 * 1024); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    kill(child, SIGKILL);
    int status = 0;
    waitpid(child, &status, 0);
    INFO("child status " << status);
    REQUIRE(WIFSIGNALED(status));
    auto t = core::readTrace(path, oneThread());
    REQUIRE(t.ok());
    CHECK(t.value().truncated); // no DATA_END
    CHECK(t.value().eventCount() > 1000);
    CHECK(t.value().engines.size() == 2);
}
