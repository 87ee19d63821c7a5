#include "ui/docks/dock_visibility.h"

#include <QAction>
#include <QDockWidget>

namespace sparkscope::ui {

DockVisibility::DockVisibility(QObject* parent)
    : QObject(parent)
{
}

void DockVisibility::add(QDockWidget* dock)
{
    m_docks.push_back(dock);
    // triggered: only the person's use of the View-menu entry, never a show() or hide() of ours.
    connect(dock->toggleViewAction(), &QAction::triggered, this,
        [this, dock](bool shown) { m_chosen[dock->objectName()] = shown; });
}

void DockVisibility::apply(const std::vector<std::pair<QDockWidget*, bool>>& wanted)
{
    for (const auto& [dock, show] : wanted) {
        const auto chosen = m_chosen.find(dock->objectName());
        dock->setVisible(chosen != m_chosen.end() ? chosen->second : show);
    }
}

QStringList DockVisibility::choices() const
{
    QStringList out;
    for (const auto& [name, shown] : m_chosen)
        out << (shown ? QStringLiteral("+") : QStringLiteral("-")) + name;
    return out;
}

void DockVisibility::setChoices(const QStringList& choices)
{
    m_chosen.clear();
    for (const QString& c : choices)
        if (c.size() > 1 && (c[0] == QLatin1Char('+') || c[0] == QLatin1Char('-')))
            m_chosen[c.mid(1)] = c[0] == QLatin1Char('+');
}

} // namespace sparkscope::ui
