#include "ui/main_window.h"

#include <QLabel>

namespace sparkscope::ui {

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent)
{
    setWindowTitle(QStringLiteral("SparkScope"));
    setCentralWidget(new QLabel(QStringLiteral("SparkScope: the timeline is not built yet."), this));
    resize(1200, 800);
}

} // namespace sparkscope::ui
