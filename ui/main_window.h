#pragma once
#include <QMainWindow>

namespace sparkscope::ui {

// The application's main window. (Placeholder until the timeline lands.)
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
};

} // namespace sparkscope::ui
