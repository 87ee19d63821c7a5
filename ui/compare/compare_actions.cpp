#include "ui/compare/compare_actions.h"

#include "ui/compare/comparison_view.h"
#include "ui/compare/scaling_view.h"

#include <QAction>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMessageBox>
#include <QVBoxLayout>

namespace sparkscope::ui {

namespace {
    const QString kTraceFilter
        = QStringLiteral("Eventlogs (*.eventlog *.eventlog.gz *.eventlog.zst *.eventlog.bz2);;All files (*)");

    // Replaces the window's content (the "computing" line) with `view`.
    void show(QWidget* window, QWidget* view)
    {
        QLayout* layout = window->layout();
        while (QLayoutItem* item = layout->takeAt(0)) {
            delete item->widget();
            delete item;
        }
        layout->addWidget(view);
    }
} // namespace

CompareActions::CompareActions(QWidget* window, std::function<QString()> currentTrace)
    : QObject(window)
    , m_window(window)
    , m_currentTrace(std::move(currentTrace))
    , m_compareJob(this)
    , m_scalingJob(this)
{
    m_compareWith = new QAction(tr("Compare &With…"), this);
    m_compareWith->setObjectName(QStringLiteral("compareWithAction"));
    connect(m_compareWith, &QAction::triggered, this, [this] {
        const QString a = m_currentTrace();
        if (a.isEmpty()) {
            QMessageBox::information(m_window, tr("Compare With"), tr("Open a trace first: it is compared as A."));
            return;
        }
        const QString b = QFileDialog::getOpenFileName(
            m_window, tr("Compare %1 with").arg(QFileInfo(a).fileName()), QFileInfo(a).absolutePath(), kTraceFilter);
        if (!b.isEmpty())
            compare(a, b);
    });
    m_scaling = new QAction(tr("Open &Scaling Series…"), this);
    m_scaling->setObjectName(QStringLiteral("openScalingSeriesAction"));
    connect(m_scaling, &QAction::triggered, this, [this] {
        const QStringList paths
            = QFileDialog::getOpenFileNames(m_window, tr("Traces of one program at different engine counts"),
                QFileInfo(m_currentTrace()).absolutePath(), kTraceFilter);
        if (!paths.isEmpty())
            openSeries(paths);
    });
}

CompareActions::~CompareActions() = default;

QWidget* CompareActions::newResultWindow(const QString& title)
{
    auto* w = new QWidget(m_window, Qt::Window);
    w->setAttribute(Qt::WA_DeleteOnClose);
    w->setWindowTitle(title);
    auto* layout = new QVBoxLayout(w);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(new QLabel(tr("Computing the figures of each trace…"), w));
    w->resize(1000, 700);
    w->show();
    m_result = w;
    return w;
}

void CompareActions::compare(const QString& a, const QString& b)
{
    QPointer<QWidget> window
        = newResultWindow(tr("Compare: A %1, B %2").arg(QFileInfo(a).fileName(), QFileInfo(b).fileName()));
    const std::string pa = a.toStdString(), pb = b.toStdString();
    Q_EMIT comparisonStarted(a, b);
    // One trace after the other: each profile is small, so only one model is in memory at a time.
    m_compareJob.start([pa, pb] { return core::compareRuns(core::loadRunProfile(pa), core::loadRunProfile(pb)); },
        [this, window](core::RunComparison c) {
            Q_EMIT comparisonReady(std::make_shared<const core::RunComparison>(c));
            if (!window)
                return;
            show(window, new ComparisonView(c, window));
            Q_EMIT comparisonShown();
        });
}

void CompareActions::openSeries(const QStringList& paths)
{
    QPointer<QWidget> window = newResultWindow(tr("Scaling series: %n trace(s)", nullptr, int(paths.size())));
    std::vector<std::string> list;
    for (const QString& p : paths)
        list.push_back(p.toStdString());
    m_scalingJob.start([list] { return core::scalingSeries(core::loadScalingRuns(list)); },
        [this, window](core::ScalingReport r) {
            if (!window)
                return;
            show(window, new ScalingView(r, window));
            Q_EMIT scalingShown();
        });
}

} // namespace sparkscope::ui
