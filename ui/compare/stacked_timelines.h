#pragma once
// StackedTimelines: trace B's timeline under the main window's (trace A's), on one time axis, for
// File ▸ Compare With…. B gets its own TimelineWidget and ZoomState; TimeMap (time_alignment.h) maps
// A's instants to B's, and every change of either zoom state — window (zoom, pan), selection, cursor —
// is carried to the other through it, so zooming or selecting on one does the same on both. The header
// chooses the alignment (the traces' starts, a marker both have, or a conjunction site's n-th instance
// in both) and "normalise to the same length"; B's ruler keeps B's own times. The zoom states' extents
// are widened to cover the other trace's mapped extent, so neither clamps the other's window.
//
// B is read in the background (one LatestJob: the trace, its indexes and both traces' anchors); a B
// that does not read is named with the reason in the header, and A stays as it is. GUI thread only.
#include "sparkscope/core/ledger_curves.h"
#include "ui/compare/time_alignment.h"
#include "ui/loading/trace_data.h"
#include "ui/util/latest_job.h"

#include <QStringList>
#include <QWidget>

#include <memory>
#include <optional>

class QCheckBox;
class QComboBox;
class QLabel;
class QSpinBox;

namespace sparkscope::ui {

class TimelineWidget;
class ZoomState;

class StackedTimelines : public QWidget {
    Q_OBJECT
public:
    explicit StackedTimelines(ZoomState* zoomA, QWidget* parent = nullptr);
    ~StackedTimelines() override;

    // Shows `bPath` under A (`a`: the trace on screen); replaces an earlier B.
    void open(std::shared_ptr<const TraceData> a, const QString& bPath);
    // Hides B and frees it; A's view is left as it is.
    void close();
    // The comparison's warnings (programs whose sites do not match, a trace that did not read).
    void setWarnings(const QStringList& warnings);

    bool isOpen() const { return m_open; }
    TimelineWidget* timelineB() const { return m_timeline; }
    ZoomState* zoomB() const { return m_zoomB; }
    QComboBox* alignChoice() const { return m_align; }
    QSpinBox* occurrenceChoice() const { return m_occurrence; }
    QCheckBox* normaliseChoice() const { return m_normalise; }
    // The map in use (nullopt until B is read, or when the chosen anchor is missing).
    const std::optional<TimeMap>& map() const { return m_map; }
    QString headerText() const; // B's name, or why it did not read, and the warnings
    Alignment alignment() const;

Q_SIGNALS:
    void shown(); // B's timeline is on screen, aligned
    void failed(const QString& message); // B did not read: "<path>: <reason>"
    void closed();

private:
    struct Loaded {
        std::shared_ptr<const TraceData> b;
        RunAnchors a, bAnchors;
        QString error;
    };
    void onLoaded(Loaded loaded);
    void fillAlignChoices();
    void applyAlignment();
    void syncToB();
    void syncToA();
    void updateHeader();

    ZoomState* m_zoomA;
    ZoomState* m_zoomB;
    TimelineWidget* m_timeline;
    QLabel* m_name;
    QLabel* m_warnings;
    QComboBox* m_align;
    QSpinBox* m_occurrence;
    QCheckBox* m_normalise;
    QString m_bPath;
    QString m_error;
    QStringList m_comparisonWarnings;
    RunAnchors m_anchorsA, m_anchorsB;
    std::optional<TimeMap> m_map;
    bool m_open = false;
    bool m_syncing = false; // carrying one zoom state's change to the other: the echo is ignored
    LatestJob<Loaded> m_job { this };
    // B's loss ledger over time, for its utilisation row, computed once B is on screen (as A's is by
    // AnalysisView); none for a streamed B, which holds no events to analyse (nor does a streamed A).
    LatestJob<std::shared_ptr<const core::LedgerCurves>> m_ledgerJob { this };
};

} // namespace sparkscope::ui
