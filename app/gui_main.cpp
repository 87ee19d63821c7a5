// sparkscope: the desktop app.
//   sparkscope [TRACE] [--screenshot OUT.png] [--size WxH] [--range FROM_NS:TO_NS]
//   sparkscope --follow TRACE        (a trace still being written: the views grow as blocks arrive)
//   sparkscope TRACE --compare B     (File > Compare With… B once TRACE is open)
//   sparkscope TRACE --export-metrics FILE [--format json|csv] [--csc N] [--instances] [--from NS --to NS]
// --export-metrics writes the metrics file without a window, byte for byte as `sparkscope-cli metrics`.
// With --screenshot the window is rendered once the trace has loaded and its analysis is on screen
// (the Why dock, the utilisation row, the critical path when on), saved to OUT.png, and the
// program exits (0 on success, 1 when the trace cannot be opened or the image cannot be written);
// it always shows the default dock layout, never the one a person saved (MainWindow::rememberLayout).
// Without a display (no DISPLAY / WAYLAND_DISPLAY), it runs offscreen. SPARKSCOPE_REPORT_READY=1
// prints the window's geometry once the metrics are ready (ui/panels/ready_report.h).
#include "huge_pages.h"
#include "ui/analysis/analysis_view.h"
#include "ui/compare/compare_actions.h"
#include "ui/compare/stacked_timelines.h"
#include "ui/export/metrics_export_action.h"
#include "ui/loading/trace_follower.h"
#include "ui/main_window.h"
#include "ui/panels/ready_report.h"
#include "ui/timeline/timeline_widget.h"
#include "ui/timeline/zoom_state.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QImage>
#include <QTimer>

#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv)
{
    sparkscope::app::preferHugePages(argv); // (huge_pages.h: a quarter of the CPU time of a big trace's analysis)
    // What needs no window: a screenshot, the metrics export, and the help and version texts (which
    // Qt's platform plugin would otherwise refuse to print without a display).
    const bool headless = [&] {
        for (int i = 1; i < argc; ++i)
            for (const char* option : { "--screenshot", "--export-metrics", "--help", "-h", "--version", "-v" })
                if (qstrcmp(argv[i], option) == 0 || (qstrncmp(argv[i], "--export-metrics=", 17) == 0))
                    return true;
        return false;
    }();
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") && qEnvironmentVariableIsEmpty("DISPLAY")
        && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY") && headless)
        qputenv("QT_QPA_PLATFORM", "offscreen");

    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("SparkScope"));
    QApplication::setOrganizationName(QStringLiteral("SparkScope"));
    QApplication::setApplicationVersion(QStringLiteral(SPARKSCOPE_VERSION));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("SparkScope: explore the timeline of a parallel program's trace."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(
        QStringLiteral("TRACE"), QStringLiteral("Eventlog to open (plain, .gz, .zst or .bz2)."));
    QCommandLineOption screenshot(QStringLiteral("screenshot"),
        QStringLiteral("Render the window to OUT.png and exit."), QStringLiteral("OUT.png"));
    QCommandLineOption size(QStringLiteral("size"), QStringLiteral("Window size for --screenshot (default 1600x1000)."),
        QStringLiteral("WxH"), QStringLiteral("1600x1000"));
    QCommandLineOption range(QStringLiteral("range"), QStringLiteral("Show [FROM_NS, TO_NS) (trace timestamps)."),
        QStringLiteral("FROM_NS:TO_NS"));
    QCommandLineOption follow(QStringLiteral("follow"),
        QStringLiteral("Open TRACE while it is still being written and follow it as it grows."));
    QCommandLineOption compareWith(QStringLiteral("compare"),
        QStringLiteral("Once TRACE is open, compare it with B (File > Compare With…)."), QStringLiteral("B"));
    parser.addOptions({ screenshot, size, range, follow, compareWith });
    // Headless metrics export, with the options of `sparkscope-cli metrics`.
    QCommandLineOption exportMetrics(QStringLiteral("export-metrics"),
        QStringLiteral("Write the metrics file of TRACE to FILE (as sparkscope-cli metrics) and exit."),
        QStringLiteral("FILE"));
    QCommandLineOption metricsFormat(QStringLiteral("format"),
        QStringLiteral("--export-metrics: json or csv (default: by the file name)."), QStringLiteral("FORMAT"));
    QCommandLineOption metricsCsc(QStringLiteral("csc"),
        QStringLiteral("--export-metrics: call-sequence count (NANOSECS_PER_CALL)."), QStringLiteral("N"));
    QCommandLineOption metricsInstances(
        QStringLiteral("instances"), QStringLiteral("--export-metrics: list every conjunction instance."));
    QCommandLineOption metricsFrom(
        QStringLiteral("from"), QStringLiteral("--export-metrics: range start (ns)."), QStringLiteral("NS"));
    QCommandLineOption metricsTo(
        QStringLiteral("to"), QStringLiteral("--export-metrics: range end (ns)."), QStringLiteral("NS"));
    parser.addOptions({ exportMetrics, metricsFormat, metricsCsc, metricsInstances, metricsFrom, metricsTo });
    parser.process(app);
    if (parser.isSet(exportMetrics)) {
        if (parser.positionalArguments().size() != 1) {
            std::fprintf(stderr, "sparkscope: --export-metrics needs exactly one TRACE\n");
            return 2;
        }
        QStringList options;
        for (const auto* o : { &metricsFormat, &metricsCsc, &metricsFrom, &metricsTo })
            if (parser.isSet(*o))
                options << QStringLiteral("--") + o->names().first() << parser.value(*o);
        if (parser.isSet(metricsInstances))
            options << QStringLiteral("--instances");
        return sparkscope::ui::exportMetricsHeadless(
            parser.positionalArguments().first(), parser.value(exportMetrics), options);
    }

    auto fail = [](const QString& message) {
        std::fprintf(stderr, "sparkscope: %s\n", qPrintable(message));
        return 1;
    };
    QSize windowSize;
    {
        const QStringList wh = parser.value(size).split(QLatin1Char('x'));
        bool okW = false, okH = false;
        if (wh.size() == 2)
            windowSize = QSize(wh[0].toInt(&okW), wh[1].toInt(&okH));
        if (!okW || !okH || windowSize.width() < 200 || windowSize.height() < 150)
            return fail(
                QStringLiteral("--size: expected WxH with W >= 200 and H >= 150, got '%1'").arg(parser.value(size)));
    }
    std::optional<sparkscope::ui::TimeWindow> shownRange;
    if (parser.isSet(range)) {
        const QStringList parts = parser.value(range).split(QLatin1Char(':'));
        bool okA = false, okB = false;
        if (parts.size() == 2)
            shownRange = sparkscope::ui::TimeWindow { parts[0].toLongLong(&okA), parts[1].toLongLong(&okB) };
        if (!okA || !okB || shownRange->endNs <= shownRange->startNs)
            return fail(
                QStringLiteral("--range: expected FROM_NS:TO_NS with FROM < TO, got '%1'").arg(parser.value(range)));
    }
    const QStringList args = parser.positionalArguments();
    if (parser.isSet(screenshot) && args.isEmpty())
        return fail(QStringLiteral("--screenshot needs a TRACE"));

    sparkscope::ui::MainWindow window;
    // A person's saved dock layout and geometry come back, and are saved on close; a screenshot
    // always shows the default layout, so that it depends on the trace and --size alone.
    if (!parser.isSet(screenshot))
        window.rememberLayout();
    if (parser.isSet(screenshot) || parser.isSet(size))
        window.resize(windowSize);
    // --compare: B is compared with the first trace shown, once. The screenshot waits for both B's
    // timeline (or its failure) and the figures.
    bool compareStarted = false, compareFigures = !parser.isSet(compareWith), compareTimeline = compareFigures;
    bool rangeChecked = false;
    auto applyRange = [&] {
        if (shownRange) {
            // Said once: a range past the trace's end shows the nearest part of it, which a person
            // asking for it would not expect silently.
            const auto data = window.timeline()->data();
            if (data && !rangeChecked && !parser.isSet(follow)
                && (shownRange->startNs < data->startNs || shownRange->endNs > data->endNs))
                std::fprintf(stderr,
                    "sparkscope: --range %lld:%lld is not all inside the trace (%lld:%lld ns): showing the part of the "
                    "trace nearest to it\n",
                    static_cast<long long>(shownRange->startNs), static_cast<long long>(shownRange->endNs),
                    static_cast<long long>(data->startNs), static_cast<long long>(data->endNs));
            rangeChecked = true;
            window.zoom()->zoomTo(*shownRange);
        }
        if (parser.isSet(compareWith) && !compareStarted && !args.isEmpty()) {
            compareStarted = true;
            window.compare()->compare(args.first(), parser.value(compareWith));
        }
    };
    int exitCode = 0;
    // Live until exec() returns: the screenshot's callbacks run inside it.
    const QString screenshotOut = parser.value(screenshot);
    bool grabbing = false;
    if (parser.isSet(screenshot)) {
        auto grab = [&] {
            const QImage image = window.grab().toImage();
            // The docks and toolbars give the window a smallest size, which a small --size cannot beat.
            if (image.size() != windowSize * image.devicePixelRatio())
                std::fprintf(stderr,
                    "sparkscope: --size %dx%d is not the window's size (its docks need more): the "
                    "screenshot is %dx%d\n",
                    windowSize.width(), windowSize.height(), image.width(), image.height());
            if (!image.save(screenshotOut)) {
                exitCode = fail(QStringLiteral("cannot write %1").arg(screenshotOut));
            } else {
                std::printf("sparkscope: wrote %s (%dx%d)\n", qPrintable(screenshotOut), image.width(), image.height());
            }
            QApplication::exit(exitCode);
        };
        // Grab once the optional rows that are switched on have been computed and the analysis is on
        // the timeline (the utilisation row, the critical path) and in the Why dock.
        auto* timeline = window.timeline();
        auto ready = [&window, timeline, &compareFigures, &compareTimeline] {
            // A streamed trace is grabbed at its first frame: its metrics and analysis come from a
            // second read of the file in the background (MetricsPanels::showStreamed), after it.
            const bool analysed = timeline->data() && (timeline->rows().ledger || timeline->data()->isStreamed());
            return analysed && !timeline->rowsPending() && compareFigures && compareTimeline;
        };
        auto grabWhenReady = [&grabbing, &window, ready, grab] {
            if (grabbing || !ready())
                return;
            grabbing = true;
            // Let layouts settle and the window paint once. A followed trace may have moved on in
            // between (a new part whose analysis is being computed): then wait for that one.
            QTimer::singleShot(300, &window, [&grabbing, ready, grab] {
                if (ready())
                    grab();
                else
                    grabbing = false;
            });
        };
        QObject::connect(&window, &sparkscope::ui::MainWindow::traceShown, &window, [applyRange, grabWhenReady] {
            applyRange();
            grabWhenReady();
        });
        QObject::connect(timeline, &sparkscope::ui::TimelineWidget::rowsReady, &window, grabWhenReady);
        QObject::connect(window.compare(), &sparkscope::ui::CompareActions::comparisonReady, &window,
            [&compareFigures, grabWhenReady] {
                compareFigures = true;
                grabWhenReady();
            });
        QObject::connect(
            window.stacked(), &sparkscope::ui::StackedTimelines::shown, &window, [&compareTimeline, grabWhenReady] {
                compareTimeline = true;
                grabWhenReady();
            });
        QObject::connect(
            window.stacked(), &sparkscope::ui::StackedTimelines::failed, &window, [&compareTimeline, grabWhenReady] {
                compareTimeline = true;
                grabWhenReady();
            });
        QObject::connect(window.analysis(), &sparkscope::ui::AnalysisView::timelineDataReady, &window, grabWhenReady);
        // A followed file with no complete block yet settles on the window waiting for one: that is
        // the screenshot (a script gets it, rather than waiting for a program that may never write).
        QObject::connect(window.follower(), &sparkscope::ui::TraceFollower::checked, &window,
            [&grabbing, &window, timeline, grab, &screenshotOut](quint64, quint64 shownBytes) {
                if (grabbing || timeline->data() || shownBytes > 0)
                    return;
                grabbing = true;
                std::fprintf(stderr,
                    "sparkscope: nothing of the followed file is complete yet: %s shows the window "
                    "waiting for its first block\n",
                    qPrintable(screenshotOut));
                QTimer::singleShot(300, &window, grab);
            });
        QObject::connect(window.follower(), &sparkscope::ui::TraceFollower::stopped, &window,
            [&grabbing, &window, timeline, grab](const QString&) {
                if (grabbing || timeline->data())
                    return;
                grabbing = true; // bad input before anything could be shown: the message is the shot
                QTimer::singleShot(300, &window, grab);
            });
        QObject::connect(&window, &sparkscope::ui::MainWindow::loadFailed, &window, [&](const QString& message) {
            exitCode = fail(message);
            QApplication::exit(exitCode);
        });
    } else {
        QObject::connect(&window, &sparkscope::ui::MainWindow::traceShown, &window, applyRange);
    }
    sparkscope::ui::installReadyReport(&window); // SPARKSCOPE_REPORT_READY=1: geometry for scripts
    window.show();
    if (!args.isEmpty() && parser.isSet(follow))
        window.followTrace(args.first());
    else if (!args.isEmpty())
        window.openTrace(args.first());
    const int rc = QApplication::exec();
    return exitCode ? exitCode : rc;
}
