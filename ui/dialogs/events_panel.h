#pragma once
// EventsPanel: the events list dock — a table over EventsModel with a search field (Enter finds the
// next match, Shift+Enter the previous), a type filter and an engine filter. Selecting an event
// centres the timeline on it; zooming or panning the timeline scrolls the list to the window's
// first event. The time-order index is built in the background the first time the panel is shown.
#include "ui/loading/trace_data.h"

#include <QWidget>

#include <memory>

class QComboBox;
class QLineEdit;
class QTableView;
class QLabel;

namespace sparkscope::ui {

class EventsModel;
class ZoomState;

class EventsPanel : public QWidget {
    Q_OBJECT
public:
    EventsPanel(ZoomState* zoom, QWidget* parent = nullptr);
    void setData(std::shared_ptr<const TraceData> data);
    EventsModel* model() const { return m_model; }

protected:
    void showEvent(QShowEvent* event) override;

private:
    void buildIfNeeded();
    void applyFilter();
    void findNext(bool forward);
    void syncToWindow();

    ZoomState* m_zoom;
    EventsModel* m_model;
    QTableView* m_view;
    QLineEdit* m_search;
    QComboBox* m_type;
    QComboBox* m_engine;
    QLabel* m_info;
    std::shared_ptr<const TraceData> m_data;
    bool m_built = false;
    bool m_selecting = false;
    quint64 m_generation = 0;
};

} // namespace sparkscope::ui
