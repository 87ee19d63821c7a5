#include "ui/main_window.h"

#include <QApplication>

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("SparkScope"));
    sparkscope::ui::MainWindow window;
    window.show();
    return QApplication::exec();
}
