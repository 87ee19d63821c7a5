// The runtime's traces: they decode with core's reader, declare Mercury's header, carry the events
// Mercury posts, and satisfy the runtime's invariants (trace_checks.h). A program killed mid-run
// leaves a readable prefix.
#include "trace_checks.h"

#include "sparkscope/core/event_types.h"
#include "sparkscope/core/metrics.h"
#include "sparkscope/core/reader.h"
#include "sparkscope/runtime/future.h"
#include "sparkscope/runtime/par_conj.h"
#include "sparkscope/runtime/runtime.h"
#include "support/scoped_env.h"
#include "support/test_data.h"

#include <catch2/catch.hpp>

#include <chrono>
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
                            // sleeps first (20 ms: longer than a busy machine keeps this thread from its wait), so the
                            // consumer nearly always suspends.
                            parConj([&] { got = f.wait(); },
                                [&] {
                                    std::this_thread::sleep_for(std::chrono::milliseconds(20));
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
    o.traceBufferBytes = 4096; // the smallest buffer: each engine writes a block every few hundred events
    auto rt = Runtime::create(o);
    if (!rt.ok())
        _exit(3);
    (void)rt.value()->run([] {
        for (;;) {
            parfib(16);
            // A pause (this engine's thread sleeps; the other runs out of sparks and sleeps, writing
            // its block first) keeps the file from growing by megabytes before the test sees it.
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
    });
}

namespace {

// What the kill test needs of a trace: whole blocks of both engines and enough events to show a run.
bool holdsBothEnginesBlocks(const core::Trace& t)
{
    return t.engines.size() == 2 && !t.engines[0].empty() && !t.engines[1].empty() && t.eventCount() > 1000;
}

// Waits until the trace `child` is writing into `path` holds whole blocks of both engines (read back
// with core's reader), the child has exited (its wait status goes to `status`), or `limit` has
// passed. Returns whether the trace got there.
bool waitForBothEngines(pid_t child, const std::string& path, std::chrono::seconds limit, int& status, bool& exited)
{
    const auto deadline = std::chrono::steady_clock::now() + limit;
    std::uintmax_t readSize = 0;
    while (std::chrono::steady_clock::now() < deadline) {
        if (waitpid(child, &status, WNOHANG) == child) {
            exited = true;
            return false;
        }
        std::error_code ec;
        const std::uintmax_t size = std::filesystem::file_size(path, ec);
        if (!ec && size != readSize) {
            readSize = size;
            auto t = core::readTrace(path, oneThread());
            if (t.ok() && holdsBothEnginesBlocks(t.value()))
                return true;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
}

} // namespace

TEST_CASE("the kill test's condition needs whole blocks of both engines", "[runtime]")
{
    core::Trace t;
    t.engines.resize(2);
    t.engines[0].resize(2000);
    CHECK_FALSE(holdsBothEnginesBlocks(t)); // engine 1 has written nothing yet
    t.engines[1].resize(1);
    CHECK(holdsBothEnginesBlocks(t));
    t.engines[0].resize(500);
    CHECK_FALSE(holdsBothEnginesBlocks(t)); // too few events
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
    // Kill it without warning, but only once the file holds whole blocks of both engines. An engine
    // writes a block when its buffer fills or before it sleeps; on a busy machine one engine can get
    // the CPU long before the other, so waiting for a file size or a delay is not enough: the test
    // waits for what it checks (the limit only ends a child that never gets there).
    int status = 0;
    bool exited = false;
    const bool ready = waitForBothEngines(child, path, std::chrono::seconds(120), status, exited);
    if (!exited) {
        kill(child, SIGKILL);
        waitpid(child, &status, 0);
    }
    INFO("child status " << status);
    REQUIRE(ready);
    REQUIRE(WIFSIGNALED(status));
    auto t = core::readTrace(path, oneThread());
    REQUIRE(t.ok());
    CHECK(t.value().truncated); // no DATA_END
    CHECK(holdsBothEnginesBlocks(t.value())); // what was written before the kill is still there
}

namespace {

// USER_MARKER texts of engine 0 in the file as it is now (a trace still being written: its complete
// blocks; every block the runtime writes is whole). Called inside a context too, so no REQUIRE (an
// exception must not cross a context switch): an unreadable file gives {"unreadable"}.
std::vector<std::string> markersWritten(const std::string& path)
{
    auto t = core::readTrace(path, oneThread());
    if (!t)
        return { "unreadable" };
    std::vector<std::string> out;
    if (!t->engines.empty())
        for (const core::Event& e : t->engines[0])
            if (e.type == core::ev::UserMarker)
                out.emplace_back(t->payload(e).text(0));
    return out;
}

void busyFor(std::chrono::milliseconds d)
{
    const auto until = std::chrono::steady_clock::now() + d;
    while (std::chrono::steady_clock::now() < until) { }
}

} // namespace

TEST_CASE("with a flush interval an engine's events reach the file while the program runs", "[runtime]")
{
    // One engine; markers a, b, c each 5 ms apart (busy, no sleep: nothing else flushes). With a 1 ms
    // interval, posting b (past a's block's deadline) writes the block holding a, and c the one
    // holding b; without one, the 2 MB buffer holds them all until the end.
    for (const unsigned flushMs : { 1u, 0u }) {
        INFO("flush interval " << flushMs << " ms");
        const auto path
            = (test::scratchDir("runtime-flush") / ("flush" + std::to_string(flushMs) + ".eventlog")).string();
        RuntimeOptions o;
        o.engines = 1;
        o.tracePath = path;
        o.useEnvironment = false;
        o.traceFlushMs = flushMs;
        o.stackBytes = 8 * 1024 * 1024; // the context reads the trace back
        auto rt = Runtime::create(o);
        REQUIRE(rt.ok());
        std::vector<std::string> afterB, afterC;
        REQUIRE(rt.value()
                    ->run([&] {
                        mark("a");
                        busyFor(std::chrono::milliseconds(5));
                        mark("b");
                        afterB = markersWritten(path);
                        busyFor(std::chrono::milliseconds(5));
                        mark("c");
                        afterC = markersWritten(path);
                    })
                    .ok());
        rt.value().reset();
        if (flushMs) {
            CHECK(afterB == std::vector<std::string> { "a" });
            CHECK(afterC == std::vector<std::string> { "a", "b" });
        } else {
            CHECK(afterB.empty());
            CHECK(afterC.empty());
        }
        // Finished, the trace holds them all, and the runtime's invariants hold.
        CHECK(markersWritten(path) == std::vector<std::string> { "a", "b", "c" });
        const core::Trace t = readBack(path);
        // The trace says it was written to be followed (a follower reads wake-ups as written at once).
        CHECK(core::flushMsOf(t) == (flushMs ? std::optional<uint64_t>(flushMs) : std::nullopt));
        const auto s = test::checkRuntimeTrace(t);
        INFO(problemsText(s));
        CHECK(s.problems.empty());
    }
}

TEST_CASE("SPARKSCOPE_TRACE_FLUSH_MS must be a number of milliseconds", "[runtime]")
{
    test::ScopedEnv bad("SPARKSCOPE_TRACE_FLUSH_MS", "soon");
    RuntimeOptions o;
    o.engines = 1;
    o.tracePath = (test::scratchDir("runtime-flush") / "env.eventlog").string();
    auto rt = Runtime::create(o);
    REQUIRE_FALSE(rt.ok());
    CHECK(rt.error().message.find("SPARKSCOPE_TRACE_FLUSH_MS must be 1..3600000") != std::string::npos);
}

namespace {

// The type of `engine`'s last event in the file as it is now (its complete blocks), or nullopt when
// it has written none or the file is unreadable. Called inside a context: no REQUIRE.
std::optional<uint16_t> lastWrittenType(const std::string& path, size_t engine)
{
    auto t = core::readTrace(path, oneThread());
    if (!t || t->engines.size() <= engine || t->engines[engine].empty())
        return std::nullopt;
    return t->engines[engine].back().type;
}

} // namespace

TEST_CASE("with a flush interval an engine's wake-up reaches the file at once", "[runtime]")
{
    // Two engines, an interval of a minute (so only sleeps and wake-ups write an engine's blocks).
    // The engine not running the main context finds no work and sleeps, writing its block (waited
    // for in the file); then the main context makes a spark, which wakes that engine to steal it.
    // While it runs that conjunct, the main context reads the file: the sleeper's last written event
    // must not be its sleep, or a follower would take it for asleep while it runs. (When the main
    // context's engine runs both conjuncts itself, there is nothing to check.)
    const auto path = (test::scratchDir("runtime-flush-wake") / "wake.eventlog").string();
    RuntimeOptions o;
    o.engines = 2;
    o.tracePath = path;
    o.useEnvironment = false;
    o.traceFlushMs = 60'000;
    o.stackBytes = 8 * 1024 * 1024; // the context reads the trace back
    auto rt = Runtime::create(o);
    REQUIRE(rt.ok());
    std::optional<uint16_t> seen;
    bool slept = false;
    size_t sleeper = 1; // the engine that slept (the other runs the main context)
    REQUIRE(rt.value()
                ->run([&] {
                    // The engine that is not running this context finds nothing and sleeps, writing its
                    // block: wait for that to be in the file (not for a time, which a busy machine may
                    // not honour).
                    const auto limit = std::chrono::steady_clock::now() + std::chrono::seconds(20);
                    while (!slept && std::chrono::steady_clock::now() < limit) {
                        for (size_t e = 0; e < 2 && !slept; ++e)
                            if (lastWrittenType(path, e) == core::ev::MerEngineSleeping) {
                                sleeper = e;
                                slept = true;
                            }
                        if (!slept)
                            std::this_thread::sleep_for(std::chrono::milliseconds(1));
                    }
                    if (!slept)
                        return; // (checked below: nothing to see)
                    std::atomic<int> stage { 0 }; // 1: conjunct 2 runs elsewhere; 2: conjunct 1 has read
                    parConj(
                        [&] {
                            while (stage.load() == 0 && std::chrono::steady_clock::now() < limit) { }
                            if (stage.load() == 1)
                                seen = lastWrittenType(path, sleeper);
                            stage.store(2);
                        },
                        [&] {
                            int idle = 0;
                            if (!stage.compare_exchange_strong(idle, 1))
                                return; // run after conjunct 1, on its engine
                            while (stage.load() != 2 && std::chrono::steady_clock::now() < limit) { }
                        });
                })
                .ok());
    rt.value().reset();
    if (!seen) {
        WARN("no engine slept, or the sleeper did not run the second conjunct while the first waited: nothing to "
             "check");
        return;
    }
    INFO("engine " << sleeper << "'s last written event while it ran the conjunct: " << *seen);
    CHECK(slept); // it did sleep (so its wake-up was there to be written)
    CHECK(*seen != core::ev::MerEngineSleeping);
}
