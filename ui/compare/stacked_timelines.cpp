#include "ui/compare/stacked_timelines.h"

#include "sparkscope/core/analysis.h"
#include "ui/timeline/timeline_widget.h"
#include "ui/timeline/zoom_state.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>

namespace sparkscope::ui {

namespace {
    // The alignment combo's item data: kind, then the name.
    constexpr int kKindRole = Qt::UserRole;
    constexpr int kNameRole = Qt::UserRole + 1;
    constexpr int kCountRole = Qt::UserRole + 2;

    // Carries `from`'s window, selection and cursor to `to`, each time mapped by `map` (one
    // direction of a TimeMap: it takes an instant or a window).
    template <class Map> void carryView(const ZoomState& from, ZoomState& to, Map map)
    {
        to.moveTo(map(from.window()));
        const auto selection = from.selection();
        to.setSelection(selection ? std::optional<TimeWindow>(map(*selection)) : std::nullopt);
        const auto cursor = from.cursorNs();
        to.setCursor(cursor ? std::optional<int64_t>(map(*cursor)) : std::nullopt);
    }
} // namespace

StackedTimelines::StackedTimelines(ZoomState* zoomA, QWidget* parent)
    : QWidget(parent)
    , m_zoomA(zoomA)
    , m_zoomB(new ZoomState(this))
{
    setObjectName(QStringLiteral("stackedTimelines"));
    m_name = new QLabel(this);
    m_name->setTextFormat(Qt::PlainText);
    QFont bold = m_name->font();
    bold.setBold(true);
    m_name->setFont(bold);
    m_name->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_align = new QComboBox(this);
    m_align->setObjectName(QStringLiteral("compareAlign"));
    m_align->setToolTip(tr("The instant of B placed under the same instant of A"));
    m_occurrence = new QSpinBox(this);
    m_occurrence->setObjectName(QStringLiteral("compareOccurrence"));
    m_occurrence->setPrefix(tr("instance "));
    m_occurrence->setToolTip(tr("Which occurrence of the marker or instance of the conjunction, in both traces"));
    m_normalise = new QCheckBox(tr("Normalise to the same length"), this);
    m_normalise->setObjectName(QStringLiteral("compareNormalise"));
    m_normalise->setToolTip(tr("Stretch B's time so that both traces span the same width"));
    auto* closeButton = new QToolButton(this);
    closeButton->setText(QStringLiteral("✕"));
    closeButton->setToolTip(tr("Close the comparison"));
    closeButton->setAutoRaise(true);
    m_warnings = new QLabel(this);
    m_warnings->setWordWrap(true);
    m_warnings->setStyleSheet(QStringLiteral("QLabel { background: #fff3cd; color: #5c4400; padding: 3px; }"));
    m_warnings->hide();
    m_timeline = new TimelineWidget(m_zoomB, this);
    m_timeline->setObjectName(QStringLiteral("timelineB"));

    auto* header = new QHBoxLayout;
    header->setContentsMargins(6, 2, 2, 2);
    header->addWidget(m_name, 1);
    header->addWidget(new QLabel(tr("Align at"), this));
    header->addWidget(m_align);
    header->addWidget(m_occurrence);
    header->addWidget(m_normalise);
    header->addWidget(closeButton);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addLayout(header);
    layout->addWidget(m_warnings);
    layout->addWidget(m_timeline, 1);

    connect(closeButton, &QToolButton::clicked, this, &StackedTimelines::close);
    connect(m_align, &QComboBox::currentIndexChanged, this, [this] {
        const int count = m_align->currentData(kCountRole).toInt();
        m_occurrence->setVisible(count > 0);
        m_occurrence->setRange(1, std::max(1, count));
        applyAlignment();
    });
    connect(m_occurrence, &QSpinBox::valueChanged, this, &StackedTimelines::applyAlignment);
    connect(m_normalise, &QCheckBox::toggled, this, &StackedTimelines::applyAlignment);
    connect(m_zoomA, &ZoomState::windowChanged, this, &StackedTimelines::syncToB);
    connect(m_zoomA, &ZoomState::selectionChanged, this, &StackedTimelines::syncToB);
    connect(m_zoomA, &ZoomState::cursorChanged, this, &StackedTimelines::syncToB);
    connect(m_zoomB, &ZoomState::windowChanged, this, &StackedTimelines::syncToA);
    connect(m_zoomB, &ZoomState::selectionChanged, this, &StackedTimelines::syncToA);
    connect(m_zoomB, &ZoomState::cursorChanged, this, &StackedTimelines::syncToA);
    hide();
}

StackedTimelines::~StackedTimelines() = default;

void StackedTimelines::open(std::shared_ptr<const TraceData> a, const QString& bPath)
{
    close();
    m_open = true;
    m_bPath = bPath;
    m_error.clear();
    m_comparisonWarnings.clear();
    m_name->setText(tr("B: reading %1…").arg(QFileInfo(bPath).fileName()));
    m_align->setEnabled(false);
    m_occurrence->hide();
    m_normalise->setEnabled(false);
    m_warnings->hide();
    m_timeline->hide();
    show();
    const std::string path = bPath.toStdString();
    m_job.start(
        [a, path](JobControl& control) {
            Loaded out;
            auto b = loadTraceData(path, {}, control.stopFlag());
            if (!b.ok()) {
                out.error = QStringLiteral("%1: %2").arg(
                    QString::fromStdString(path), QString::fromStdString(b.error().toString()));
                return out;
            }
            out.b = b.value();
            if (a)
                out.a = anchorsOf(*a);
            out.bAnchors = anchorsOf(*out.b);
            return out;
        },
        [this](Loaded loaded) { onLoaded(std::move(loaded)); });
}

void StackedTimelines::onLoaded(Loaded loaded)
{
    if (!loaded.error.isEmpty()) {
        m_error = loaded.error;
        updateHeader();
        Q_EMIT failed(m_error);
        return;
    }
    m_anchorsA = std::move(loaded.a);
    m_anchorsB = std::move(loaded.bAnchors);
    m_timeline->setData(loaded.b);
    if (!loaded.b->isStreamed())
        m_ledgerJob.start(
            [trace = loaded.b->trace] {
                const core::AnalysisSession session(*trace); // let go once its curves are out
                return std::make_shared<const core::LedgerCurves>(core::computeLedgerCurves(session));
            },
            [this](std::shared_ptr<const core::LedgerCurves> ledger) { m_timeline->setLedger(std::move(ledger)); });
    m_timeline->show();
    fillAlignChoices();
    m_align->setEnabled(true);
    m_normalise->setEnabled(true);
    applyAlignment();
    updateHeader();
    Q_EMIT shown();
}

void StackedTimelines::fillAlignChoices()
{
    const QSignalBlocker blocker(m_align);
    m_align->clear();
    m_align->addItem(tr("start"), int(Alignment::At::Start));
    for (const auto& [name, count] : commonAnchors(m_anchorsA.markers, m_anchorsB.markers)) {
        m_align->addItem(tr("marker %1").arg(QString::fromStdString(name)), int(Alignment::At::Marker));
        m_align->setItemData(m_align->count() - 1, QString::fromStdString(name), kNameRole);
        m_align->setItemData(m_align->count() - 1, int(count), kCountRole);
    }
    for (const auto& [name, count] : commonAnchors(m_anchorsA.conjunctions, m_anchorsB.conjunctions)) {
        m_align->addItem(tr("conjunction %1").arg(QString::fromStdString(name)), int(Alignment::At::Conjunction));
        m_align->setItemData(m_align->count() - 1, QString::fromStdString(name), kNameRole);
        m_align->setItemData(m_align->count() - 1, int(count), kCountRole);
    }
    m_align->setCurrentIndex(0);
    m_occurrence->hide();
}

Alignment StackedTimelines::alignment() const
{
    Alignment a;
    a.at = Alignment::At(m_align->currentData(kKindRole).toInt());
    a.name = m_align->currentData(kNameRole).toString().toStdString();
    a.occurrence = size_t(std::max(0, m_occurrence->value() - 1));
    a.normalise = m_normalise->isChecked();
    return a;
}

// A new map: B's zoom state spans B's trace and A's extent mapped into B's time, A's the other way
// round, so that a window of one is always a window of the other; then B follows A.
void StackedTimelines::applyAlignment()
{
    if (!m_timeline->data())
        return;
    m_map = alignRuns(m_anchorsA, m_anchorsB, alignment());
    if (m_map) {
        const TimeMap& map = *m_map;
        m_zoomB->reset(std::min(m_anchorsB.startNs, map.toB(m_anchorsA.startNs)),
            std::max(m_anchorsB.endNs, map.toB(m_anchorsA.endNs)));
        m_zoomA->extendTo(std::min(m_zoomA->extent().startNs, map.toA(m_anchorsB.startNs)),
            std::max(m_zoomA->extent().endNs, map.toA(m_anchorsB.endNs)));
        syncToB();
    }
    updateHeader();
}

void StackedTimelines::syncToB()
{
    if (!m_map || m_syncing || !m_timeline->data())
        return;
    m_syncing = true;
    carryView(*m_zoomA, *m_zoomB, [&](auto t) { return m_map->toB(t); });
    m_syncing = false;
}

// A change made on B's timeline: A takes it (clamped to its extent), then B follows A again so that
// both show exactly the mapped window.
void StackedTimelines::syncToA()
{
    if (!m_map || m_syncing || !m_timeline->data())
        return;
    m_syncing = true;
    carryView(*m_zoomB, *m_zoomA, [&](auto t) { return m_map->toA(t); });
    m_syncing = false;
    syncToB();
}

void StackedTimelines::close()
{
    const bool wasOpen = m_open;
    m_job.cancel();
    m_ledgerJob.cancel();
    m_open = false;
    m_map.reset();
    m_timeline->setData(nullptr);
    m_anchorsA = {};
    m_anchorsB = {};
    hide();
    if (wasOpen)
        Q_EMIT closed();
}

void StackedTimelines::setWarnings(const QStringList& warnings)
{
    m_comparisonWarnings = warnings;
    updateHeader();
}

QString StackedTimelines::headerText() const
{
    QStringList lines { m_name->text() };
    if (!m_warnings->isHidden())
        lines << m_warnings->text();
    return lines.join(QLatin1Char('\n'));
}

void StackedTimelines::updateHeader()
{
    const QString name = QFileInfo(m_bPath).fileName();
    QStringList warnings;
    if (!m_error.isEmpty()) {
        m_name->setText(tr("B: %1 could not be read").arg(name));
        warnings << tr("⚠ Could not read %1").arg(m_error);
    } else if (m_timeline->data()) {
        m_name->setText(tr("B: %1 (its own times, aligned under A)").arg(name));
        if (!m_map)
            warnings << tr("⚠ One of the traces lacks the chosen instant: the timelines are not linked");
    }
    for (const QString& w : m_comparisonWarnings)
        if (m_error.isEmpty() || !w.contains(m_error)) // the comparison's own "B could not be read: …"
            warnings << QStringLiteral("⚠ ") + w;
    warnings.removeDuplicates();
    m_warnings->setText(warnings.join(QLatin1Char('\n')));
    m_warnings->setVisible(!warnings.isEmpty());
}

} // namespace sparkscope::ui
