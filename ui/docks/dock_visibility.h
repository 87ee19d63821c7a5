#pragma once
// DockVisibility: shows the docks that have something to say about the trace on screen and hides the
// others, so that empty docks do not take the window's width: before any trace none of them is shown;
// for a trace, the window says which are wanted (Conjunctions only for a trace with conjunctions,
// Bookmarks only when it has markers or the person adds one, …) and apply() shows and hides them.
//
// The person has the last word: a dock switched on or off from the View menu keeps that state from
// then on (choices()/setChoices() let the window keep them with its remembered layout). GUI thread only.
#include <QObject>
#include <QStringList>

#include <map>
#include <vector>

class QDockWidget;

namespace sparkscope::ui {

class DockVisibility : public QObject {
    Q_OBJECT
public:
    explicit DockVisibility(QObject* parent = nullptr);

    // Follows `dock` from now on (the person's View-menu choices included).
    void add(QDockWidget* dock);
    // Shows each dock whose value is true and hides each whose value is false, unless the person
    // chose otherwise for it.
    void apply(const std::vector<std::pair<QDockWidget*, bool>>& wanted);
    // The docks (by object name) whose state the person chose, "+name" shown, "-name" hidden.
    QStringList choices() const;
    void setChoices(const QStringList& choices);

private:
    std::vector<QDockWidget*> m_docks;
    std::map<QString, bool> m_chosen; // object name -> shown
};

} // namespace sparkscope::ui
