#pragma once
// EventsPanel: the events list dock — a table over EventsModel with a search field (Enter finds the
// next match, Shift+Enter the previous), a type filter and an engine filter. Selecting an event
// centres the timeline on it; zooming or panning the timeline scrolls the list to the window's
// first event. The time-order index is built in the background the first time the panel is shown.
// A search runs in the background too (a LatestJob over a snapshot of the rows, cancelled when a
// newer search starts, the filter changes or a trace is loaded: the newest wins), so the window
// stays responsive while it scans 10 million events.
#include "ui/loading/trace_data.h"
#include "ui/models/events_model.h"
#include "ui/util/latest_job.h"

#include <QWidget>

#include <memory>

class QComboBox;
class QLineEdit;
class QTableView;
class QLabel;

namespace sparkscope::ui {

class ZoomState;

class EventsPanel : public QWidget {
    Q_OBJECT
public:
    EventsPanel(ZoomState* zoom, QWidget* parent = nullptr);
    void setData(std::shared_ptr<const TraceData> data);
    EventsModel* model() const { return m_model; }
    QLineEdit* searchField() const { return m_search; }
    QTableView* view() const { return m_view; }
    bool isSearching() const { return m_searchJob.isRunning(); }

public Q_SLOTS:
    // Starts a background search for the search field's text from the current row; returns at once.
    void findNext(bool forward = true);

Q_SIGNALS:
    // A search finished and was applied: the row it selected, or -1 when nothing matched.
    void searchFinished(int row);

protected:
    void showEvent(QShowEvent* event) override;

private:
    void buildIfNeeded();
    void applyFilter();
    void cancelSearch();
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
    LatestJob<std::vector<EventRef>> m_indexJob { this }; // the time-order index of m_data
    LatestJob<int> m_searchJob { this }; // the row found, -1, or kSearchCancelled
};

} // namespace sparkscope::ui
