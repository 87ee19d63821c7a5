// LatestJob: the newest job's result reaches the owner's thread, a superseded or cancelled job's
// result and progress never do, and an owner destroyed with a job in flight is safe. Jobs block on
// gates the test opens (std::promise), so the order of events is the test's, never the scheduler's;
// settle() waits for every pool job to end and then delivers what they posted.
#include "ui/util/latest_job.h"

#include <QCoreApplication>
#include <QTest>
#include <QThread>
#include <QThreadPool>
#include <catch2/catch.hpp>

#include <algorithm>

#include <future>
#include <vector>

using namespace sparkscope::ui;

namespace {

// A gate a job waits at until the test opens it.
struct Gate {
    std::promise<void> opener;
    std::shared_future<void> passage = opener.get_future().share();
    void open() { opener.set_value(); }
};

// Every pool job has returned, and what they posted to this thread has been delivered.
void settle()
{
    QThreadPool::globalInstance()->waitForDone();
    QCoreApplication::sendPostedEvents();
}

struct Owner : QObject {
    LatestJob<int> job { this };
    std::vector<int> results;
    std::vector<int> progress;
    QThread* deliveredOn = nullptr;

    void start(std::shared_future<void> gate, int value)
    {
        job.start(
            [gate, value] {
                gate.wait();
                return value;
            },
            [this](int result) {
                results.push_back(result);
                deliveredOn = QThread::currentThread();
            });
    }
};

} // namespace

TEST_CASE("a latest job's result reaches its owner's thread and ends the job", "[ui][latest-job]")
{
    Owner owner;
    Gate gate;
    owner.start(gate.passage, 42);
    CHECK(owner.job.isRunning());
    gate.open();
    settle();
    CHECK(owner.results == std::vector<int> { 42 });
    CHECK(owner.deliveredOn == owner.thread());
    CHECK_FALSE(owner.job.isRunning());
}

TEST_CASE("an older job's result is dropped, whether it finishes after a newer one or before", "[ui][latest-job]")
{
    // Both jobs must run at once (the older one waits at its gate): at least two pool threads, even
    // on a machine with one CPU.
    QThreadPool* pool = QThreadPool::globalInstance();
    pool->setMaxThreadCount(std::max(2, pool->maxThreadCount()));
    Owner owner;
    Gate older, newer;
    owner.start(older.passage, 1);
    owner.start(newer.passage, 2);
    SECTION("after")
    {
        newer.open();
        REQUIRE(QTest::qWaitFor([&] { return !owner.results.empty(); }, 20'000)); // the older job is still at its gate
        older.open();
    }
    SECTION("before")
    {
        older.open();
        newer.open();
    }
    settle();
    CHECK(owner.results == std::vector<int> { 2 });
    CHECK_FALSE(owner.job.isRunning());
}

TEST_CASE("cancel drops the job in flight, its progress and its result, and asks it to stop", "[ui][latest-job]")
{
    Owner owner;
    Gate reported, gate;
    auto sawStop = std::make_shared<std::atomic<bool>>(false);
    owner.job.start(
        [&reported, gate = gate.passage, sawStop](JobControl& control) {
            control.reportProgress(5);
            reported.open();
            gate.wait();
            control.reportProgress(6);
            sawStop->store(control.stopRequested());
            return 7;
        },
        [&owner](int result) { owner.results.push_back(result); },
        [&owner](int value) { owner.progress.push_back(value); });
    reported.passage.wait();
    REQUIRE(QTest::qWaitFor([&] { return !owner.progress.empty(); }, 20'000));
    CHECK(owner.progress == std::vector<int> { 5 });
    owner.job.cancel();
    CHECK_FALSE(owner.job.isRunning());
    gate.open();
    settle();
    CHECK(sawStop->load());
    CHECK(owner.progress == std::vector<int> { 5 });
    CHECK(owner.results.empty());
}

TEST_CASE("a job that reports no progress calls no progress callback", "[ui][latest-job]")
{
    Owner owner;
    owner.job.start([] { return 3; }, [&owner](int result) { owner.results.push_back(result); },
        [&owner](int value) { owner.progress.push_back(value); });
    settle();
    CHECK(owner.results == std::vector<int> { 3 });
    CHECK(owner.progress.empty());
}

TEST_CASE("requestStop ends a job early and still delivers what it returns", "[ui][latest-job]")
{
    Owner owner;
    Gate gate;
    std::vector<bool> stopped;
    LatestJob<bool> job(&owner);
    job.start(
        [gate = gate.passage](JobControl& control) {
            gate.wait();
            return control.stopFlag()->load();
        },
        [&stopped](bool result) { stopped.push_back(result); });
    job.requestStop();
    CHECK(job.isRunning());
    gate.open();
    settle();
    CHECK(stopped == std::vector<bool> { true });
    CHECK_FALSE(job.isRunning());
}

TEST_CASE("an owner destroyed with a job in flight gets nothing and crashes nothing", "[ui][latest-job]")
{
    auto delivered = std::make_shared<int>(0);
    auto sawStop = std::make_shared<std::atomic<bool>>(false);
    Gate gate;
    SECTION("the job is a member of the owner")
    {
        auto* owner = new Owner;
        owner->job.start(
            [gate = gate.passage, sawStop](JobControl& control) {
                gate.wait();
                sawStop->store(control.stopRequested());
                return 1;
            },
            [delivered](int) { ++*delivered; });
        delete owner;
        gate.open();
        settle();
        CHECK(sawStop->load());
    }
    SECTION("the owner goes before the LatestJob")
    {
        auto* owner = new QObject;
        LatestJob<int> job(owner);
        job.start(
            [gate = gate.passage] {
                gate.wait();
                return 1;
            },
            [delivered](int) { ++*delivered; });
        delete owner;
        CHECK_FALSE(job.isRunning());
        gate.open();
        settle();
        job.cancel(); // harmless once the owner (and with it the watcher) is gone
    }
    CHECK(*delivered == 0);
}

TEST_CASE("a done callback may start the next job of the same LatestJob", "[ui][latest-job]")
{
    Owner owner;
    std::vector<bool> runningInDone;
    LatestJob<int> job(&owner);
    job.start([] { return 1; },
        [&](int first) {
            runningInDone.push_back(job.isRunning());
            owner.results.push_back(first);
            job.start([] { return 2; }, [&](int second) { owner.results.push_back(second); });
        });
    settle(); // the first job's result; its callback starts the second
    settle();
    CHECK(runningInDone == std::vector<bool> { false });
    CHECK(owner.results == std::vector<int> { 1, 2 });
}
