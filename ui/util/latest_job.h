#pragma once
// LatestJob<T>: background work where the newest job wins. start() runs a function on Qt's global
// thread pool and, when it returns, hands its result to a callback on the owner's thread, unless a
// newer job was started, cancel() was called, or the owner or the LatestJob was destroyed meanwhile:
// a late result of an older job is dropped, never shown over a newer one.
//
// Why this shape: the trace loader, the metrics (whole trace and view), the timeline's optional rows
// and the events list (index and search) all need "the newest wins"; each had its own generation
// counter and QFutureWatcher block. Here the result travels through a QFutureWatcher that is a child
// of the owner, so a result can never reach a destroyed owner, and the worker thread touches nothing
// but its future and its JobControl: no QObject pointer crosses threads. A superseded job is not
// killed (nothing can be); it is asked to stop through JobControl and runs to its end unseen.
//
// Threads: start, requestStop, cancel, isRunning and the callbacks run on the owner's thread (the GUI
// thread); the job runs on a pool thread and must not touch the owner. Keep the LatestJob a member
// of the owner (or shorter-lived): it must not outlive the owner's thread.
#include <QFutureWatcher>
#include <QObject>
#include <QPointer>
#include <QPromise>
#include <QtConcurrent/QtConcurrentRun>

#include <atomic>
#include <functional>
#include <memory>
#include <type_traits>
#include <utility>

namespace sparkscope::ui {

// What a running job sees of its LatestJob: whether it was asked to stop, and a way to report
// progress. Lives as long as the job, on whichever thread the job runs.
class JobControl {
public:
    // True once the job was superseded, cancelled or asked to stop: return early (any value).
    bool stopRequested() const { return m_stop.load(std::memory_order_relaxed); }
    // The same flag, for functions that poll it themselves (loadTraceData, findEventRow).
    const std::atomic<bool>* stopFlag() const { return &m_stop; }
    // Passes `value` to start()'s progress callback on the owner's thread. Values must be positive
    // and grow; the callback sees a growing subset of them (QPromise passes on at most about 25 a
    // second, enough for a progress bar).
    void reportProgress(int value)
    {
        if (m_report)
            m_report(value);
    }

private:
    template <typename T> friend class LatestJob;
    std::atomic<bool> m_stop { false };
    std::function<void(int)> m_report; // set before the job runs, then only called (from any thread)
};

template <typename T> class LatestJob {
public:
    // Results and progress are delivered on `owner`'s thread, and never after `owner` is destroyed.
    explicit LatestJob(QObject* owner)
        : m_owner(owner)
    {
    }
    ~LatestJob() { cancel(); }
    LatestJob(const LatestJob&) = delete;
    LatestJob& operator=(const LatestJob&) = delete;

    // Cancels the job in flight (if any) and runs `work` on the thread pool: work(JobControl&) -> T,
    // or work() -> T for a job that neither stops early nor reports progress. When it returns, and if
    // it is still the newest job, done(T) runs on the owner's thread; progress(int) likewise for each
    // reported value that arrives while the job is the newest.
    template <typename Work, typename Done> void start(Work work, Done done, std::function<void(int)> progress = {})
    {
        cancel();
        auto control = std::make_shared<JobControl>();
        auto* watcher = new QFutureWatcher<T>(m_owner);
        m_watcher = watcher;
        m_control = control;
        QObject::connect(watcher, &QFutureWatcherBase::finished, watcher, [this, watcher, done = std::move(done)] {
            watcher->deleteLater();
            m_watcher = nullptr; // not running any more when `done` runs (it may start the next job)
            m_control.reset();
            done(watcher->future().takeResult());
        });
        if (progress) // Qt also reports a value of 0 when the watcher connects: only real values pass
            QObject::connect(watcher, &QFutureWatcherBase::progressValueChanged, watcher,
                [progress = std::move(progress), last = 0](int value) mutable {
                    if (value > last)
                        progress(last = value);
                });
        watcher->setFuture(QtConcurrent::run([work = std::move(work), control](QPromise<T>& promise) mutable {
            promise.setProgressValue(0); // progress is ours: Qt no longer counts the result as progress
            control->m_report = [&promise](int value) { promise.setProgressValue(value); };
            if constexpr (std::is_invocable_v<Work&, JobControl&>)
                promise.addResult(work(*control));
            else
                promise.addResult(work());
            control->m_report = nullptr;
        }));
    }

    // Asks the job in flight to stop early (JobControl::stopRequested). Its result, whatever it
    // returns then, is still delivered: the trace loader reports "cancelled" that way.
    void requestStop()
    {
        if (m_control)
            m_control->m_stop.store(true, std::memory_order_relaxed);
    }

    // Drops the job in flight: neither its result nor its progress is delivered, and it is asked to stop.
    void cancel()
    {
        requestStop();
        m_control.reset();
        if (m_watcher) {
            m_watcher->disconnect(); // no finished or progress signal reaches the callbacks from now on
            m_watcher->deleteLater(); // not delete: cancel() may run inside one of its signals
        }
        m_watcher = nullptr;
    }

    // A job was started and neither delivered nor cancelled yet.
    bool isRunning() const { return m_watcher != nullptr; }

private:
    QObject* m_owner;
    QPointer<QFutureWatcherBase> m_watcher; // the newest job's; null once delivered or cancelled
    std::shared_ptr<JobControl> m_control; // the newest job's
};

} // namespace sparkscope::ui
