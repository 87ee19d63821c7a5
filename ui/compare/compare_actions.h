#pragma once
// CompareActions: File ▸ Compare With… and File ▸ Open Scaling Series…. Compare With asks for a
// second trace and compares the open one (A) with it (B); Open Scaling Series asks for several traces.
// Both profile the traces in the background (core::loadRunProfile / loadScalingRuns: one trace's
// model in memory at a time, the newest request wins) and show the result in a window of its own
// (ComparisonView, ScalingView). The window opens at once with a "computing" line and is filled when
// the result arrives. GUI thread only.
#include "sparkscope/core/compare.h"
#include "ui/util/latest_job.h"

#include <QObject>
#include <QPointer>
#include <QStringList>

#include <functional>
#include <memory>

class QAction;
class QWidget;

namespace sparkscope::ui {

class CompareActions : public QObject {
    Q_OBJECT
public:
    // `window`: the dialogs' and result windows' parent; `currentTrace`: the open trace's path ("" if none).
    CompareActions(QWidget* window, std::function<QString()> currentTrace);
    ~CompareActions() override;

    QAction* compareWith() const { return m_compareWith; }
    QAction* openScalingSeries() const { return m_scaling; }

    // Without dialogs (tests, and the dialogs' own work): compare A with B; the series of `paths`.
    void compare(const QString& a, const QString& b);
    void openSeries(const QStringList& paths);
    // The result window last opened (null before the first).
    QWidget* resultWindow() const { return m_result; }

Q_SIGNALS:
    void comparisonShown(); // a comparison's result is in its window
    // compare(a, b) began (the main window stacks B's timeline under A's) / its figures arrived (the
    // Conjunctions list and the Summary add A, B and B − A).
    void comparisonStarted(const QString& a, const QString& b);
    void comparisonReady(std::shared_ptr<const sparkscope::core::RunComparison> comparison);
    void scalingShown();

private:
    QWidget* newResultWindow(const QString& title);

    QWidget* m_window;
    std::function<QString()> m_currentTrace;
    QAction* m_compareWith = nullptr;
    QAction* m_scaling = nullptr;
    QPointer<QWidget> m_result;
    LatestJob<core::RunComparison> m_compareJob;
    LatestJob<core::ScalingReport> m_scalingJob;
};

} // namespace sparkscope::ui
