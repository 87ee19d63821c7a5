// MainWindow's following of a trace that is still being written (File > Follow…, --follow), kept
// apart from main_window.cpp: the follower's wiring into the views and the "live" indicator.
#include "ui/main_window.h"

#include "ui/docks/events_panel.h"
#include "ui/loading/trace_data.h"
#include "ui/loading/trace_follower.h"
#include "ui/loading/trace_loader.h"
#include "ui/panels/metrics_panels.h"
#include "ui/timeline/frame.h"
#include "ui/timeline/timeline_widget.h"

#include <QFileDialog>
#include <QFrame>
#include <QLabel>
#include <QLocale>
#include <QStatusBar>

namespace sparkscope::ui {

// A followed trace (TraceFollower): its first snapshot opens like a loaded trace; later ones extend
// the views in place (the zoom follows the end unless the person looked elsewhere) and restart the
// metrics; "● live" shows in the status bar while the file is followed.
void MainWindow::connectFollower()
{
    m_live = new QLabel(tr("● live"), this);
    m_live->setObjectName(QStringLiteral("liveIndicator"));
    m_live->setStyleSheet(QStringLiteral("color: #c0392b; font-weight: bold;"));
    m_live->setToolTip(tr("The trace is still being written: new blocks appear as they arrive"));
    m_live->hide();
    statusBar()->addPermanentWidget(m_live);
    connect(m_follower, &TraceFollower::updated, this,
        [this](std::shared_ptr<const TraceData> data, bool first, const QStringList& warnings) {
            updateLive(*data);
            if (first) {
                onLoaded(std::move(data), m_follower->path(), warnings);
                return;
            }
            // Past followStreamThresholdBytes a trace read whole until now comes streamed: say what
            // the views lose, once, rather than let the events list and rows vanish unexplained.
            if (const auto shown = m_timeline->data(); shown && !shown->isStreamed() && data->isStreamed())
                showMessage(
                    tr("%1 reached %2 and is followed streamed from now on, which keeps no events: "
                       "the events list, the context lanes and spark-deque rows, and the Chrome export "
                       "come back when you open it again (File ▸ Open)")
                        .arg(m_follower->path(), QLocale().formattedDataSize(qint64(m_follower->streamFromBytes()))),
                    false);
            m_timeline->extendData(data);
            m_events->setData(data);
            updateStatus();
            if (data->isStreamed())
                m_metrics->showStreamed(*data);
            else
                m_metrics->showTrace(data->trace);
            Q_EMIT traceShown();
        });
    connect(m_follower, &TraceFollower::finished, this, [this] {
        m_live->hide();
        // Followed streamed for speed (followStreamThresholdBytes) but small enough to open whole:
        // say how to get the views a streamed trace lacks, rather than reload under the person's zoom.
        const auto data = m_timeline->data();
        if (data && data->isStreamed() && m_follower->shownBytes() < streamThresholdBytes())
            showMessage(tr("%1 is complete. It was followed streamed, which keeps no events: open it again "
                           "(File ▸ Open) for the events list, the context lanes and spark-deque rows, "
                           "and the Chrome export")
                            .arg(m_follower->path()),
                false);
        else
            statusBar()->showMessage(tr("%1 is complete").arg(m_follower->path()), 5000);
    });
    connect(m_follower, &TraceFollower::stopped, this, [this](const QString& message) {
        m_live->hide();
        showMessage(message, true);
    });
}

void MainWindow::updateLive(const TraceData& data)
{
    // An engine's events reach the file when its buffer fills (GHC: at its flush interval): one that
    // has written nothing for a while may have been running all along, though its row shows it idle
    // and the analysis counts it so. Say which, so that a live figure is read for what it is.
    const std::vector<int64_t> last = lastEventTimes(data);
    const int64_t lag = std::max<int64_t>((data.endNs - data.startNs) / 100, 1'000'000); // 1 % or 1 ms
    QStringList behind;
    for (size_t e = 0; e < last.size(); ++e)
        if (last[e] == INT64_MIN)
            behind << tr("engine %1: nothing yet").arg(e);
        else if (data.endNs - last[e] > lag)
            behind << tr("engine %1: to %2").arg(e).arg(formatDuration(last[e]));
    const QString shown = behind.size() > 3 ? tr("%1 and %n more", nullptr, int(behind.size() - 3))
                                                  .arg(QStringList(behind.mid(0, 3)).join(QStringLiteral("; ")))
                                            : behind.join(QStringLiteral("; "));
    m_live->setText(behind.isEmpty() ? tr("● live") : tr("● live — written so far: %1").arg(shown));
    m_live->setToolTip(behind.isEmpty()
            ? tr("The trace is still being written: new blocks appear as they arrive")
            : tr("The trace is still being written: new blocks appear as they arrive. An engine's events reach "
                 "the file when its buffer fills, so after the time given an engine may have been running all "
                 "along: its row shows it idle until its next block arrives, and the analysis counts it so."));
}

void MainWindow::followTrace(const QString& path)
{
    m_messageBar->hide();
    m_loader->cancel();
    m_follower->follow(path);
    m_live->setText(tr("● live"));
    m_live->setVisible(m_follower->isFollowing());
}

void MainWindow::followDialog()
{
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Follow a trace being written"), QString(), tr("Eventlogs (*.eventlog);;All files (*)"));
    if (!path.isEmpty())
        followTrace(path);
}

} // namespace sparkscope::ui
