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
#include <QFileInfo>
#include <QFrame>
#include <QLabel>
#include <QLocale>
#include <QStatusBar>

#include <algorithm>

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
            m_followWarnings = warnings;
            if (first) {
                onLoaded(data, m_follower->path(), warnings);
                updateLive(*data);
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
            // The panels keep the part before's figures until this part's are ready.
            if (data->isStreamed())
                m_metrics->showStreamed(*data, true);
            else
                m_metrics->showTrace(data->trace, true);
            updateLive(*data);
            Q_EMIT traceShown();
        });
    connect(m_follower, &TraceFollower::finished, this, [this] {
        endLive();
        // Followed streamed for speed (followStreamThresholdBytes) but small enough to open whole:
        // say how to get the views a streamed trace lacks, rather than reload under the person's zoom.
        const auto data = m_timeline->data();
        QString text = data && data->isStreamed() && m_follower->shownBytes() < streamThresholdBytes()
            ? tr("%1 is complete. It was followed streamed, which keeps no events: open it again "
                 "(File ▸ Open) for the events list, the context lanes and spark-deque rows, and the Chrome export")
                  .arg(m_follower->path())
            : tr("%1 is complete").arg(m_follower->path());
        // What the reader said of the whole file (a block whose size was never written, a damaged
        // tail): only the first part's warnings were shown, when it opened.
        if (!m_followWarnings.isEmpty())
            text += tr(". Warning: %1").arg(joinWarnings(m_followWarnings));
        // (a banner: a status-bar message would give way to the metrics' "ready" at once)
        showMessage(text, false);
    });
    // Stopped on bad input: what was read stays, and so does what is known of it (the engines behind
    // stay hatched, the docks stay on the part every engine wrote); only following ends. Stopped
    // before anything was shown, it is a trace that failed to load (--screenshot then exits).
    connect(m_follower, &TraceFollower::stopped, this, [this](const QString& message) {
        m_live->hide();
        m_metrics->stopLive();
        m_metrics->endFollowing();
        m_timeline->setEmptyText({});
        showMessage(message, true);
        if (!m_timeline->data())
            Q_EMIT loadFailed(message);
    });
}

void MainWindow::updateLive(const TraceData& data)
{
    // An engine's events reach the file when its buffer fills (GHC: at its flush interval): one that
    // has written nothing for a while may have been running all along. Its row is hatched from there
    // (not idle: unknown), the metrics and the analysis stop where every engine's events are written
    // (unless a selection is shown), and the indicator names the engines behind.
    const std::vector<int64_t> last = writtenUntil(data);
    auto unwritten = std::make_shared<const std::vector<int64_t>>(unwrittenFrom(data, last));
    const int64_t horizon = writtenByAllUntil(*unwritten);
    QStringList behind;
    for (size_t e = 0; e < unwritten->size(); ++e)
        if ((*unwritten)[e] != INT64_MAX)
            behind << (last[e] == INT64_MIN ? tr("engine %1: nothing yet").arg(e)
                                            : tr("engine %1: to %2").arg(e).arg(formatDuration(last[e], 6)));
    const bool lagging = horizon != INT64_MAX;
    m_timeline->setUnwritten(lagging ? std::move(unwritten) : nullptr);
    // (An engine with nothing written leaves no time every engine has written: the whole trace so far.)
    m_metrics->setLiveHorizon(
        lagging && horizon > std::max<int64_t>(data.startNs, 0) ? std::optional(uint64_t(horizon)) : std::nullopt);
    const QString shown = behind.size() > 3 ? tr("%1 and %n more", nullptr, int(behind.size() - 3))
                                                  .arg(QStringList(behind.mid(0, 3)).join(QStringLiteral("; ")))
                                            : behind.join(QStringLiteral("; "));
    m_live->setText(behind.isEmpty() ? tr("● live") : tr("● live — written so far: %1").arg(shown));
    m_live->setToolTip(behind.isEmpty()
            ? tr("The trace is still being written: new blocks appear as they arrive")
            : tr("The trace is still being written: new blocks appear as they arrive. An engine's events reach "
                 "the file when its buffer fills, so after the time given an engine may have been running all "
                 "along: its row is hatched there until its next block arrives, and the metrics and the "
                 "analysis stop where every engine's events are written."));
}

void MainWindow::endLive()
{
    m_live->hide();
    m_timeline->setEmptyText({});
    m_timeline->setUnwritten(nullptr);
    m_metrics->setLiveHorizon(std::nullopt);
    m_metrics->endFollowing(); // (after: the last part's figures stay up until its own are ready)
}

void MainWindow::followTrace(const QString& path)
{
    m_messageBar->hide();
    m_followWarnings.clear();
    m_loader->cancel();
    // Until its first complete block: a followed file may hold a header alone for a while. (Set
    // first: following a file that is not there stops inside follow(), and clears it.)
    m_timeline->setEmptyText(tr("Waiting for the first events of %1…").arg(QFileInfo(path).fileName()));
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
