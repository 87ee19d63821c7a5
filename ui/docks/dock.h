#pragma once
// makeDock: the one way a panel becomes a dock. Every dock has an object name, which is what
// QMainWindow::saveState/restoreState key the layout by (MainWindow's remembered layout); the
// window places the dock afterwards (addDockWidget, tabifyDockWidget).
#include <QDockWidget>
#include <QString>

namespace sparkscope::ui {

inline QDockWidget* makeDock(QWidget* panel, const QString& title, const char* objectName, QWidget* window)
{
    auto* dock = new QDockWidget(title, window);
    dock->setObjectName(QString::fromLatin1(objectName));
    dock->setWidget(panel);
    return dock;
}

} // namespace sparkscope::ui
