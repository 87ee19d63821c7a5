// The UI test layer's main: Catch2 with a QApplication, offscreen (no display needed).
// (tests/support's catch_main.cpp supplies main() to the other layers; this object file supplies
// main() and Catch's implementation here, so the linker never pulls catch_main.o from the archive.)
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <QApplication>
#include <QTemporaryDir>

int main(int argc, char** argv)
{
    qputenv("QT_QPA_PLATFORM", "offscreen");
    // Settings (dock layout, rows switched on, recent files) in a folder of this process's own: CTest
    // runs the cases as processes in parallel, and a window must not pick up what another one saved.
    QTemporaryDir config;
    if (config.isValid())
        qputenv("XDG_CONFIG_HOME", config.path().toLocal8Bit());
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("SparkScopeTests"));
    QApplication::setApplicationName(QStringLiteral("sparkscope-ui-tests"));
    return Catch::Session().run(argc, argv);
}
